// zstd frames as Anki writes them (no content size in the frame header), decoded by fzstd in
// pieces, so that an expansion past the limits stops as soon as it happens and what is decoded
// need never be held whole.
import { Decompress } from 'fzstd'
import { AnkiImportError } from './errors.js'
import { checkExpansion, type ExpansionLimits } from './package.js'

/**
 * A zstd decoder fed piece by piece: `push` each piece of the stored data (the last with `final`),
 * and each decoded piece goes to `onPiece`. An expansion past the limits is refused (`zip_bomb`),
 * damaged data is `corrupt_collection`; `name` names the entry in the refusal.
 */
export function zstdDecoder (name: string, storedBytes: number, limits: ExpansionLimits, onPiece: (piece: Uint8Array) => void) {
  let expanded = 0
  const stream = new Decompress((piece) => {
    expanded += piece.byteLength
    checkExpansion(name, storedBytes, expanded, limits)
    if (piece.byteLength > 0) onPiece(piece)
  })
  return {
    push (piece: Uint8Array, final = false): void {
      try {
        stream.push(piece, final)
      } catch (error) {
        if (error instanceof AnkiImportError) throw error
        throw new AnkiImportError('corrupt_collection', `the entry ${name} is not a whole zstd frame`)
      }
    }
  }
}
