// zstd frames as Anki writes them (no content size in the frame header), decoded by fzstd in
// pieces, so that an expansion past the limits stops as soon as it happens.
import { Decompress } from 'fzstd'
import { AnkiImportError } from './errors.js'
import { checkExpansion, type ExpansionLimits } from './package.js'

/**
 * Decodes whole zstd data, refusing it (`zip_bomb`) as soon as it expands past the limits; `name`
 * names the entry in the refusal. Damaged data is `corrupt_collection`.
 */
export function decodeZstd (name: string, data: Uint8Array, limits: ExpansionLimits): Uint8Array {
  const decoder = zstdDecoder(name, data.byteLength, limits)
  decoder.push(data, true)
  return decoder.result()
}

/** A zstd decoder fed piece by piece: `push` each piece of the stored data, then take `result`. */
export function zstdDecoder (name: string, storedBytes: number, limits: ExpansionLimits) {
  const pieces: Uint8Array[] = []
  let expanded = 0
  const stream = new Decompress((piece) => {
    expanded += piece.byteLength
    checkExpansion(name, storedBytes, expanded, limits)
    pieces.push(piece)
  })
  return {
    push (piece: Uint8Array, final = false): void {
      try {
        stream.push(piece, final)
      } catch (error) {
        if (error instanceof AnkiImportError) throw error
        throw new AnkiImportError('corrupt_collection', `the entry ${name} is not a whole zstd frame`)
      }
    },
    result (): Uint8Array {
      if (pieces.length === 1) return pieces[0] as Uint8Array
      const whole = new Uint8Array(expanded)
      let offset = 0
      for (const piece of pieces) {
        whole.set(piece, offset)
        offset += piece.byteLength
      }
      return whole
    }
  }
}
