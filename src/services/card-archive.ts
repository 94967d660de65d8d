// The zip files of a flashcard archive (domain/card-archive.ts): written as a stream for
// export-flashcard-zip, and read for import-flashcard-zip from the file the upload was saved to.
// Like the Anki reader (src/anki/package-file.ts), yauzl reads the central directory and then
// each entry on demand, so an archive is never held whole; every name and size is checked from
// the central directory before anything is read, and again as the bytes inflate.
import { createWriteStream } from 'node:fs'
import type { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import yauzl, { type Entry, type ZipFile } from 'yauzl'
import yazl from 'yazl'
import { ARCHIVE_LIMITS, archiveRoot, CARDS_FILE, entryNameProblem, MEDIA_FOLDER, type ArchiveLimits } from '../domain/card-archive.js'
import { MAX_MEDIA_BYTES } from '../domain/media.js'
import { Refusal } from '../domain/refusals.js'

const MIB = 1024 * 1024

/** A media file to write into an archive: read only when the archive reaches it. */
export interface ArchiveFile {
  /** its path in the archive */
  name: string
  bytes: number
  mtime: Date
  open: () => Readable
}

/**
 * A zip of `cards.csv` and the media files, as a stream that reads each file
 * only when the one before it has been sent (yazl pipes with backpressure),
 * and its size, known before the first byte because every file is stored as
 * it is: images and sounds are compressed already, and a deflated cards.csv
 * would leave the size unknown until the end (yazl cannot tell it ahead). A
 * file that fails to read ends the stream with the error.
 */
export async function writeCardArchive (cardsCsv: string, files: readonly ArchiveFile[], mtime: Date): Promise<{ stream: Readable, bytes: number }> {
  const zip = new yazl.ZipFile()
  const stream = zip.outputStream as Readable
  let reading: Readable | undefined
  // yazl reports a failed file on the ZipFile; the answer must end rather than wait for the rest
  zip.on('error', (error: Error) => stream.destroy(error))
  // a client that goes away leaves the file being read: its cursor is closed with it
  stream.on('close', () => reading?.destroy())
  zip.addBuffer(Buffer.from(cardsCsv, 'utf8'), CARDS_FILE, { mtime, compress: false })
  for (const file of files) {
    zip.addReadStreamLazy(file.name, { mtime: file.mtime, compress: false, size: file.bytes }, (callback) => {
      const opened = file.open()
      opened.on('error', (error) => stream.destroy(error))
      reading = opened
      callback(null, opened)
    })
  }
  // @types/yazl leaves out the callback's argument: the archive's size, or -1 when it cannot be known ahead
  const bytes = await new Promise<number>((resolve) => zip.end({ forceZip64Format: false, comment: '' }, resolve as () => void))
  return { stream, bytes }
}

/**
 * Saves an upload to `path`, counting its bytes: 413 past the most an archive
 * may hold (the multipart reader stops one byte after it), 400 when it is empty.
 */
export async function saveUpload (file: AsyncIterable<Buffer>, path: string, limits: ArchiveLimits = ARCHIVE_LIMITS): Promise<number> {
  let bytes = 0
  await pipeline(file, async function * (pieces: AsyncIterable<Buffer>) {
    for await (const piece of pieces) {
      bytes += piece.length
      if (bytes > limits.maxArchiveBytes) {
        throw new Refusal('archive_too_large', `the archive is larger than ${limits.maxArchiveBytes / MIB} MiB, the most one import may send: split the flashcard, or send its media in smaller files`)
      }
      yield piece
    }
  }, createWriteStream(path, { flags: 'wx' }))
  if (bytes === 0) throw new Refusal('invalid_upload', 'the file is empty: send the zip archive as the form\'s last part')
  return bytes
}

/** An archive opened for reading, its names and sizes checked. */
export interface CardArchive {
  /** cards.csv as text (UTF-8, NFC) */
  cardsText: () => Promise<string>
  /**
   * The file under media/ that a card's `media/<name>` names, as written, or
   * with its %-escapes decoded (as a browser reads the unpacked folder); null
   * when the archive holds none.
   */
  mediaFile: (name: string) => string | null
  /** the size a media file declares */
  mediaSize: (file: string) => number
  /** a media file's bytes as they inflate; 413 past 20 MiB */
  mediaBytes: (file: string) => AsyncIterable<Buffer>
  close: () => void
}

function notAZip (problem: string): Refusal {
  return new Refusal('not_a_zip', `${problem}: send the .zip file export-flashcard-zip gave, or one of cards.csv and a media folder`)
}

function zipBomb (problem: string): Refusal {
  return new Refusal('zip_bomb', `${problem}, past what an import reads: send an archive of one flashcard, its cards.csv and the media its cards show`)
}

function mediaTooLarge (file: string): Refusal {
  return new Refusal('media_too_large', `${MEDIA_FOLDER}${file} is larger than ${MAX_MEDIA_BYTES / MIB} MiB, the most one media file may hold: make it smaller, or take it out of the cards`)
}

function messageOf (error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

/**
 * Opens the archive saved at `path`, refusing it before any file is read
 * when it is not a zip, names a file by a path (or two files alike), holds
 * no cards.csv, or declares more files or bytes than an import reads.
 */
export async function openCardArchive (path: string, limits: ArchiveLimits = ARCHIVE_LIMITS): Promise<CardArchive> {
  let zip: ZipFile
  try {
    // names are decoded and checked here (yauzl would refuse a bad one as a damaged archive)
    zip = await yauzl.openPromise(path, { lazyEntries: true, autoClose: false, validateEntrySizes: true, decodeStrings: false })
  } catch (error) {
    throw notAZip(`the file is not a zip archive (${messageOf(error)})`)
  }
  try {
    if (zip.entryCount > limits.maxEntries) throw zipBomb(`the archive holds ${zip.entryCount.toLocaleString('en')} files and folders, more than ${limits.maxEntries.toLocaleString('en')}`)
    const entries = new Map<string, Entry>()
    let declared = 0
    try {
      for await (const entry of zip.eachEntry()) {
        const name = yauzl.getFileNameLowLevel(entry.generalPurposeBitFlag, entry.fileNameRaw, entry.extraFields, true)
        const problem = entryNameProblem(name)
        if (problem !== null) {
          throw new Refusal('unsafe_file_name', `the archive names a file ${JSON.stringify(name)}, with ${problem}: name files by plain names, in folders below the archive's top`)
        }
        const key = name.normalize('NFC')
        if (entries.has(key)) throw new Refusal('unsafe_file_name', `the archive names two files ${JSON.stringify(key)}: keep one`)
        entries.set(key, entry)
        const size = entry.uncompressedSize
        if (size > limits.ratioFloorBytes && size > Math.max(1, entry.compressedSize) * limits.maxRatio) {
          throw zipBomb(`${key} would expand to more than ${limits.maxRatio} times its stored size`)
        }
        declared += size
        if (declared > limits.maxTotalBytes) throw zipBomb(`the archive's files would expand to more than ${limits.maxTotalBytes / MIB} MiB in all`)
      }
    } catch (error) {
      if (error instanceof Refusal) throw error
      throw notAZip(`the zip archive is damaged (${messageOf(error)})`)
    }
    const root = archiveRoot(entries.keys())
    if (root === null) {
      throw new Refusal('missing_cards_file', `the archive holds no ${CARDS_FILE} at its top (nor in the one folder it holds): put the cards there, as export-flashcard-zip does`)
    }
    const cardsEntry = entries.get(root + CARDS_FILE) as Entry
    if (cardsEntry.uncompressedSize > limits.maxCardsFileBytes) {
      throw zipBomb(`${CARDS_FILE} would expand to more than ${limits.maxCardsFileBytes / MIB} MiB, more than 1,000 cards of the longest texts take`)
    }
    const mediaEntry = (file: string): Entry | undefined => file.includes('/') ? undefined : entries.get(root + MEDIA_FOLDER + file)

    return {
      async cardsText () {
        const pieces: Buffer[] = []
        for await (const piece of entryBytes(zip, cardsEntry, CARDS_FILE)) pieces.push(piece)
        try {
          return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(pieces)).normalize('NFC')
        } catch {
          throw new Refusal('invalid_import', `${CARDS_FILE} is not UTF-8 text: save it as UTF-8 (CSV UTF-8 in a spreadsheet)`)
        }
      },
      mediaFile (name) {
        const exact = name.normalize('NFC')
        if (mediaEntry(exact) !== undefined) return exact
        let decoded: string
        try {
          decoded = decodeURIComponent(exact).normalize('NFC')
        } catch {
          return null
        }
        return mediaEntry(decoded) === undefined ? null : decoded
      },
      mediaSize (file) {
        return mediaEntry(file)?.uncompressedSize ?? 0
      },
      mediaBytes (file) {
        const entry = mediaEntry(file)
        if (entry === undefined) throw new Error(`no media file ${file} in the archive`)
        if (entry.uncompressedSize > MAX_MEDIA_BYTES) throw mediaTooLarge(file)
        return entryBytes(zip, entry, MEDIA_FOLDER + file)
      },
      close () {
        zip.close()
      }
    }
  } catch (error) {
    zip.close()
    throw error
  }
}

/** An entry's bytes as they inflate; yauzl checks them against the sizes the archive declares. */
async function * entryBytes (zip: ZipFile, entry: Entry, name: string): AsyncIterable<Buffer> {
  let stream: Readable
  try {
    stream = await zip.openReadStreamPromise(entry) as Readable
  } catch (error) {
    throw notAZip(`${name} cannot be read (${messageOf(error)})`)
  }
  try {
    for await (const piece of stream) yield piece as Buffer
  } catch (error) {
    if (/too many bytes|too few bytes/.test(messageOf(error))) throw zipBomb(`${name} does not hold the size the archive declares for it`)
    throw notAZip(`${name} is damaged (${messageOf(error)})`)
  } finally {
    stream.destroy()
  }
}
