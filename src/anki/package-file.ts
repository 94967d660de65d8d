// Reads an Anki package (.apkg, .colpkg) from a file: the one place of the Anki reader that does
// I/O. yauzl reads the zip's central directory and then each entry on demand, so the package is
// never held whole: the collection's SQLite file is written out to disk (decoded from zstd as it
// comes) and read from there a row at a time (collection-file.ts), and media files are read one
// at a time, each only as far as the caller keeps files.
import { open as openFile, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import yauzl, { type Entry, type ZipFile } from 'yauzl'
import { collectionRows, readCollectionHeader, wholeCollection, type AnkiCollection, type CollectionHeader, type CollectionRows } from '../domain/anki/collection.js'
import { AnkiImportError } from '../domain/anki/errors.js'
import { checkExpansion, DEFAULT_EXPANSION_LIMITS, mediaMap, packageLayout, type ExpansionLimits, type MediaMapEntry, type PackageLayout } from '../domain/anki/package.js'
import { zstdDecoder } from '../domain/anki/zstd.js'
import { openCollectionFile, type CollectionFile } from './collection-file.js'

export interface MediaFile {
  /** the name notes refer to it by: a plain file name, NFC */
  name: string
  bytes: Uint8Array
}

/** A package opened for an import: its collection on disk, read row by row, and its media read one at a time. */
export interface OpenedPackage {
  layout: PackageLayout
  header: CollectionHeader
  rows: CollectionRows
  /** the media map: each file's name and the entry holding it */
  media: MediaMapEntry[]
  /**
   * A media file's bytes; null when it expands past `maxBytes`, in which case it is read no
   * further (the caller leaves it out). A file that expands past the package's limits is refused.
   */
  readMedia: (file: MediaMapEntry, maxBytes: number) => Promise<Uint8Array | null>
  close: () => Promise<void>
}

export interface OpenPackageOptions {
  /** a folder of the caller's own, where the collection's SQLite file is written (and left: the caller removes the folder) */
  workDirectory: string
  limits?: ExpansionLimits
}

/**
 * Opens the package at `path`. Refuses it with an AnkiImportError (see errors.ts) when the
 * archive, its media map or its collection is wrong; a media file that expands past the limits
 * is refused as it is read.
 */
export async function openAnkiPackage (path: string, options: OpenPackageOptions): Promise<OpenedPackage> {
  const limits = options.limits ?? DEFAULT_EXPANSION_LIMITS
  let zip: ZipFile
  try {
    zip = await yauzl.openPromise(path, { lazyEntries: true, autoClose: false, validateEntrySizes: true })
  } catch (error) {
    throw new AnkiImportError('not_a_zip', `the file is not a zip archive: ${messageOf(error)}`)
  }
  let collection: CollectionFile | undefined
  try {
    if (zip.entryCount > limits.maxEntries) throw tooManyFiles(limits)
    const entries = new Map<string, Entry>()
    try {
      for await (const entry of zip.eachEntry()) {
        entries.set(entry.fileName, entry)
        if (entries.size > limits.maxEntries) throw tooManyFiles(limits)
      }
    } catch (error) {
      if (error instanceof AnkiImportError) throw error
      throw new AnkiImportError('not_a_zip', `the zip archive is damaged: ${messageOf(error)}`)
    }
    let declared = 0
    for (const entry of entries.values()) {
      checkExpansion(entry.fileName, entry.compressedSize, entry.uncompressedSize, limits)
      declared += entry.uncompressedSize
    }
    if (declared > limits.maxTotalBytes) throw new AnkiImportError('zip_bomb', `the archive expands past ${limits.maxTotalBytes} bytes`)

    const budget = { left: limits.maxTotalBytes }
    const readIndex = async (name: string, zstd: boolean): Promise<Uint8Array | undefined> => {
      const entry = entries.get(name)
      if (entry === undefined) return undefined
      const bytes = await readEntry(zip, entry, zstd, limits, budget, limits.maxIndexBytes)
      if (bytes === null) throw new AnkiImportError('zip_bomb', `the entry ${name} expands past ${limits.maxIndexBytes} bytes`)
      return bytes
    }
    const names = new Set(entries.keys())
    const layout = packageLayout(await readIndex('meta', false), names)
    const media = mediaMap(await readIndex('media', layout.zstd), layout, names)
    // the sizes the current map declares are checked before any file is read (a file that expands
    // past what it declared is refused as it is read)
    for (const file of media) {
      if (file.size !== undefined) checkExpansion(file.entry, (entries.get(file.entry) as Entry).compressedSize, file.size, limits)
    }
    const collectionEntry = entries.get(layout.collectionEntry)
    if (collectionEntry === undefined) throw new AnkiImportError('corrupt_collection', `the package has no ${layout.collectionEntry}`)
    const collectionPath = join(options.workDirectory, 'collection.sqlite')
    await writeEntry(zip, collectionEntry, layout.zstd, limits, budget, collectionPath)
    collection = openCollectionFile(collectionPath)
    const header = readCollectionHeader(collection)
    const opened = collection
    return {
      layout,
      header,
      rows: collectionRows(collection),
      media,
      readMedia: async (file, maxBytes) => {
        const entry = entries.get(file.entry) as Entry
        // a file that says it is larger is not read at all
        if ((layout.zstd ? file.size ?? 0 : entry.uncompressedSize) > maxBytes) return null
        return await readEntry(zip, entry, layout.zstd, limits, budget, maxBytes)
      },
      close: async () => {
        opened.close()
        zip.close()
      }
    }
  } catch (error) {
    collection?.close()
    zip.close()
    throw error
  }
}

function tooManyFiles (limits: ExpansionLimits): AnkiImportError {
  return new AnkiImportError('zip_bomb', `the archive holds more than ${limits.maxEntries.toLocaleString('en')} files, the most one package may hold: export the decks in several packages`)
}

export interface ReadPackageOptions {
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

/**
 * Reads the whole package at `path`: its collection whole, then its media handed to `onMedia`.
 * For tests and scripts, which read small packages; an import opens the package instead
 * (openAnkiPackage), to read it in bounded memory.
 */
export async function readAnkiPackageFile (path: string, options: ReadPackageOptions): Promise<AnkiPackage> {
  const limits = options.limits ?? DEFAULT_EXPANSION_LIMITS
  const workDirectory = await mkdtemp(join(tmpdir(), 'anki-package-'))
  try {
    const opened = await openAnkiPackage(path, { workDirectory, limits })
    try {
      const collection = wholeCollection(opened.header, opened.rows)
      await options.onCollection?.(collection)
      const media: AnkiPackage['media'] = []
      for (const file of opened.media) {
        const bytes = await opened.readMedia(file, limits.maxEntryBytes) as Uint8Array
        await options.onMedia({ name: file.name, bytes })
        media.push({ name: file.name, bytes: bytes.byteLength })
      }
      return { layout: opened.layout, collection, media }
    } finally {
      await opened.close()
    }
  } finally {
    await rm(workDirectory, { recursive: true, force: true })
  }
}

/**
 * Reads one entry whole, at most `maxBytes` of it once decoded: null past that, where the reading
 * stops. What it expands to counts against the archive's whole budget.
 */
async function readEntry (zip: ZipFile, entry: Entry, zstd: boolean, limits: ExpansionLimits, budget: { left: number }, maxBytes: number): Promise<Uint8Array | null> {
  const pieces: Uint8Array[] = []
  let size = 0
  const kept = await eachPiece(zip, entry, zstd, limits, (piece) => {
    size += piece.byteLength
    if (size > maxBytes) return false
    pieces.push(piece)
    return true
  })
  budget.left -= size
  if (!kept) {
    // what was decoded before the reading stopped counts as well
    if (budget.left < 0) throw new AnkiImportError('zip_bomb', `the archive expands past ${limits.maxTotalBytes} bytes`)
    return null
  }
  if (budget.left < 0) throw new AnkiImportError('zip_bomb', `the archive expands past ${limits.maxTotalBytes} bytes`)
  return pieces.length === 1 ? pieces[0] as Uint8Array : Buffer.concat(pieces)
}

/** Writes one entry, decoded, to a new file at `path`, a piece at a time. */
async function writeEntry (zip: ZipFile, entry: Entry, zstd: boolean, limits: ExpansionLimits, budget: { left: number }, path: string): Promise<void> {
  const file = await openFile(path, 'wx')
  try {
    let writing: Promise<unknown> = Promise.resolve()
    await eachPiece(zip, entry, zstd, limits, (piece) => {
      budget.left -= piece.byteLength
      if (budget.left < 0) throw new AnkiImportError('zip_bomb', `the archive expands past ${limits.maxTotalBytes} bytes`)
      // the decoder's pieces are copied: the write happens after the decoder moves on
      const copy = zstd ? piece.slice() : piece
      writing = writing.then(async () => await file.write(copy))
      return true
    }, async () => { await writing.catch(notTheArchive) })
    await writing.catch(notTheArchive)
  } finally {
    await file.close()
  }
}

/** A failure to write the collection out (a full disk): the service's, not the package's, so never a refusal of it. */
class WriteFailure extends Error {
  override name = 'WriteFailure'
}

function notTheArchive (error: unknown): never {
  throw new WriteFailure(`the collection could not be written out: ${messageOf(error)}`, { cause: error })
}

/**
 * Hands each decoded piece of an entry to `take`, which returns false to stop reading (the entry
 * is then left unread); `drain`, when given, is awaited after each stored piece, so that a slow
 * consumer holds the reading back. Answers whether the whole entry was taken.
 */
async function eachPiece (zip: ZipFile, entry: Entry, zstd: boolean, limits: ExpansionLimits, take: (piece: Uint8Array) => boolean, drain?: () => Promise<void>): Promise<boolean> {
  let stream: NodeJS.ReadableStream & { destroy: () => void }
  try {
    stream = await zip.openReadStreamPromise(entry) as NodeJS.ReadableStream & { destroy: () => void }
  } catch (error) {
    throw new AnkiImportError('not_a_zip', `the entry ${entry.fileName} cannot be read: ${messageOf(error)}`)
  }
  let taking = true
  const decoder = zstd ? zstdDecoder(entry.fileName, entry.compressedSize, limits, (piece) => { if (taking) taking = take(piece) }) : undefined
  let inflated = 0
  try {
    for await (const chunk of stream) {
      const piece = chunk as Buffer
      inflated += piece.byteLength
      checkExpansion(entry.fileName, entry.compressedSize, inflated, limits)
      if (decoder !== undefined) decoder.push(piece)
      else taking = take(piece)
      if (!taking) {
        stream.destroy()
        return false
      }
      await drain?.()
    }
    decoder?.push(new Uint8Array(0), true)
  } catch (error) {
    if (error instanceof AnkiImportError || error instanceof WriteFailure) throw error
    // yauzl checks each entry against the sizes the archive declares for it
    if (/too many bytes|too few bytes/.test(messageOf(error))) {
      throw new AnkiImportError('zip_bomb', `the entry ${entry.fileName} does not match its declared size`)
    }
    throw new AnkiImportError('not_a_zip', `the entry ${entry.fileName} is damaged: ${messageOf(error)}`)
  }
  return taking
}

function messageOf (error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
