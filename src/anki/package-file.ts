// Reads an Anki package (.apkg, .colpkg) from a file: the one place of the Anki reader that does
// I/O. yauzl reads the zip's central directory and then each entry on demand, so the package is
// never held whole: the collection's SQLite file is read into memory (sql.js needs it there), and
// media files are handed to the caller one at a time, after the collection has been read.
import initSqlJs, { type SqlJsStatic } from 'sql.js'
import yauzl, { type Entry, type ZipFile } from 'yauzl'
import { readCollection, type AnkiCollection } from '../domain/anki/collection.js'
import { AnkiImportError } from '../domain/anki/errors.js'
import { checkExpansion, DEFAULT_EXPANSION_LIMITS, mediaMap, packageLayout, type ExpansionLimits, type PackageLayout } from '../domain/anki/package.js'
import { zstdDecoder } from '../domain/anki/zstd.js'

export interface MediaFile {
  /** the name notes refer to it by: a plain file name, NFC */
  name: string
  bytes: Uint8Array
}

export interface ReadPackageOptions {
  /** the SQL engine: `await loadSqlEngine()` once per process */
  sql: SqlJsStatic
  /** called with each media file in turn; the next is read only once the promise it returns settles */
  onMedia: (file: MediaFile) => Promise<void> | void
  /** called with the collection once it is read, before the first media file; a refusal thrown here ends the reading */
  onCollection?: (collection: AnkiCollection) => Promise<void> | void
  limits?: ExpansionLimits
}

export interface AnkiPackage {
  layout: PackageLayout
  collection: AnkiCollection
  /** the media files handed to `onMedia`, in that order */
  media: Array<{ name: string, bytes: number }>
}

let engine: Promise<SqlJsStatic> | undefined

/** sql.js's WebAssembly SQLite, loaded once and shared: it keeps no state between databases. */
export function loadSqlEngine (): Promise<SqlJsStatic> {
  engine ??= initSqlJs()
  return engine
}

/**
 * Reads the package at `path`. Refuses it with an AnkiImportError (see errors.ts) before any media
 * is handed on when the archive, its media map or its collection is wrong; a media file that turns
 * out to expand past the limits is refused as it is read, after the ones before it were handed on,
 * so a caller stores nothing of a package until this resolves.
 */
export async function readAnkiPackageFile (path: string, options: ReadPackageOptions): Promise<AnkiPackage> {
  const limits = options.limits ?? DEFAULT_EXPANSION_LIMITS
  let zip: ZipFile
  try {
    zip = await yauzl.openPromise(path, { lazyEntries: true, autoClose: false, validateEntrySizes: true })
  } catch (error) {
    throw new AnkiImportError('not_a_zip', `the file is not a zip archive: ${messageOf(error)}`)
  }
  try {
    const entries = new Map<string, Entry>()
    try {
      for await (const entry of zip.eachEntry()) entries.set(entry.fileName, entry)
    } catch (error) {
      throw new AnkiImportError('not_a_zip', `the zip archive is damaged: ${messageOf(error)}`)
    }
    let declared = 0
    for (const entry of entries.values()) {
      checkExpansion(entry.fileName, entry.compressedSize, entry.uncompressedSize, limits)
      declared += entry.uncompressedSize
    }
    if (declared > limits.maxTotalBytes) throw new AnkiImportError('zip_bomb', `the archive expands past ${limits.maxTotalBytes} bytes`)

    const budget = { left: limits.maxTotalBytes }
    const read = (name: string, zstd: boolean) => {
      const entry = entries.get(name)
      return entry === undefined ? Promise.resolve(undefined) : readEntry(zip, entry, zstd, limits, budget)
    }
    const names = new Set(entries.keys())
    const layout = packageLayout(await read('meta', false), names)
    const map = mediaMap(await read('media', layout.zstd), layout, names)
    const collectionBytes = await read(layout.collectionEntry, layout.zstd)
    if (collectionBytes === undefined) throw new AnkiImportError('corrupt_collection', `the package has no ${layout.collectionEntry}`)
    const collection = readCollection(options.sql, collectionBytes)
    await options.onCollection?.(collection)

    const media: AnkiPackage['media'] = []
    for (const { entry, name } of map) {
      const bytes = await read(entry, layout.zstd) as Uint8Array
      await options.onMedia({ name, bytes })
      media.push({ name, bytes: bytes.byteLength })
    }
    return { layout, collection, media }
  } finally {
    zip.close()
  }
}

async function readEntry (zip: ZipFile, entry: Entry, zstd: boolean, limits: ExpansionLimits, budget: { left: number }): Promise<Uint8Array> {
  let stream: NodeJS.ReadableStream
  try {
    stream = await zip.openReadStreamPromise(entry)
  } catch (error) {
    throw new AnkiImportError('not_a_zip', `the entry ${entry.fileName} cannot be read: ${messageOf(error)}`)
  }
  const decoder = zstd ? zstdDecoder(entry.fileName, entry.compressedSize, limits) : undefined
  const pieces: Uint8Array[] = []
  let inflated = 0
  try {
    for await (const chunk of stream) {
      const piece = chunk as Buffer
      inflated += piece.byteLength
      checkExpansion(entry.fileName, entry.compressedSize, inflated, limits)
      if (decoder !== undefined) decoder.push(piece)
      else pieces.push(piece)
    }
  } catch (error) {
    if (error instanceof AnkiImportError) throw error
    // yauzl checks each entry against the sizes the archive declares for it
    if (/too many bytes|too few bytes/.test(messageOf(error))) {
      throw new AnkiImportError('zip_bomb', `the entry ${entry.fileName} does not match its declared size`)
    }
    throw new AnkiImportError('not_a_zip', `the entry ${entry.fileName} is damaged: ${messageOf(error)}`)
  }
  let bytes: Uint8Array
  if (decoder !== undefined) {
    decoder.push(new Uint8Array(0), true)
    bytes = decoder.result()
  } else {
    bytes = pieces.length === 1 ? pieces[0] as Uint8Array : Buffer.concat(pieces)
  }
  budget.left -= bytes.byteLength
  if (budget.left < 0) throw new AnkiImportError('zip_bomb', `the archive expands past ${limits.maxTotalBytes} bytes`)
  return bytes
}

function messageOf (error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
