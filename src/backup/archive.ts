// The backup archive (`npm run backup`, `npm run restore`): a zstd stream of BSON
// documents, one after another, ending with a trailer that holds the SHA-256 of
// everything before it, and after the stream a zstd skippable frame that holds
// the stream's length. docs/operations.md describes the format for people; this
// file is its one definition.
import { createHash, type Hash } from 'node:crypto'
import { createReadStream, createWriteStream } from 'node:fs'
import { appendFile, open, rename, rm } from 'node:fs/promises'
import { once } from 'node:events'
import { dirname } from 'node:path'
import { pipeline } from 'node:stream/promises'
import { constants, createZstdCompress, createZstdDecompress } from 'node:zlib'
import { BSON, type Document } from 'mongodb'

export const ARCHIVE_FORMAT = 'flashcard-service-backup'
export const ARCHIVE_VERSION = 1

/** The first record: what the archive is, and of which database at which moment. */
export interface ArchiveHeader {
  format: typeof ARCHIVE_FORMAT
  version: number
  /** the database backed up, as its URL named it */
  database: string
  /** the server and its version, as it answered buildInfo */
  server: string
  /** how the documents were read at one moment: see DatabaseSnapshot.method */
  snapshot: string
  /** when the backup asked for its snapshot: every write acknowledged before this is in the archive */
  snapshotAt: Date
}

/** A collection, before its documents: enough to make it again as it was. */
export interface ArchivedCollection {
  name: string
  type: 'collection' | 'view'
  /** listCollections' options (a view's viewOn and pipeline, a capped size, a validator...); {} for most */
  options: Document
  /** listIndexes' specifications, _id's own index left out */
  indexes: Document[]
}

/** The last record: the totals, and the SHA-256 (hex) of every byte of the content before this record. */
export interface ArchiveTrailer {
  end: true
  collections: number
  documents: number
  sha256: string
}

/** A backup that cannot be read whole as it was written: cut short, changed, or not a backup of this service. */
export class DamagedArchiveError extends Error {
  override name = 'DamagedArchiveError'
}

/** The documents of one collection go in batches: a record `{documents: n}`, then those n documents. */
const BATCH_DOCUMENTS = 1000
const BATCH_BYTES = 4 * 1024 * 1024
/** The largest record: MongoDB's largest document, and room for a record around it. */
const MAX_RECORD_BYTES = 16 * 1024 * 1024 + 16 * 1024

/**
 * The file ends with a skippable frame (which zstd's own tools pass over)
 * holding the length of the compressed stream before it: Node's zstd stream
 * decompresses a stream cut off in its last bytes without a word, all of the
 * content out already, so a file cut short is known by its length instead.
 */
const LENGTH_FRAME_MAGIC = 0x184D2A5E
const LENGTH_FRAME_BYTES = 16

function lengthFrame (compressedBytes: number): Buffer {
  const frame = Buffer.alloc(LENGTH_FRAME_BYTES)
  frame.writeUInt32LE(LENGTH_FRAME_MAGIC, 0)
  frame.writeUInt32LE(8, 4)
  frame.writeBigUInt64LE(BigInt(compressedBytes), 8)
  return frame
}

// ---- writing

export interface ArchiveWriter {
  collection: (collection: ArchivedCollection) => Promise<void>
  /** one document of the collection last begun, as the database stored it (BSON) */
  document: (raw: Uint8Array) => Promise<void>
  endCollection: () => Promise<void>
  /** writes the trailer, and puts the archive at its path only once it is complete and on disk */
  finish: () => Promise<{ collections: number, documents: number, bytes: number }>
  /** removes what was written: a backup that failed leaves no file */
  abandon: () => Promise<void>
}

/**
 * Writes an archive to `path`, through `path.partial`: the file at `path`
 * appears only once whole. Memory holds one batch of documents at most;
 * the compressor's pace holds back the reads that feed it.
 */
export async function createArchive (path: string, header: Omit<ArchiveHeader, 'format' | 'version'>): Promise<ArchiveWriter> {
  const partial = `${path}.partial`
  const compressor = createZstdCompress({ params: { [constants.ZSTD_c_checksumFlag]: 1 } })
  const file = createWriteStream(partial, { flags: 'w' })
  const written = pipeline(compressor, file)
  // a failure of the file surfaces at the next write or at finish
  written.catch(() => {})
  const hash = createHash('sha256')
  let collections = 0
  let documents = 0
  let current: { name: string, documents: number } | null = null
  let batch: Uint8Array[] = []
  let batchBytes = 0

  const put = async (bytes: Uint8Array, hashed = true): Promise<void> => {
    if (hashed) hash.update(bytes)
    if (!compressor.write(bytes)) await Promise.race([once(compressor, 'drain'), written])
  }
  const flush = async (): Promise<void> => {
    if (batch.length === 0) return
    await put(BSON.serialize({ documents: batch.length }))
    for (const raw of batch) await put(raw)
    batch = []
    batchBytes = 0
  }
  await put(BSON.serialize({ format: ARCHIVE_FORMAT, version: ARCHIVE_VERSION, ...header }))

  return {
    async collection ({ name, type, options, indexes }) {
      if (current !== null) throw new Error(`collection ${current.name} is not ended`)
      await put(BSON.serialize({ collection: name, type, options, indexes }))
      current = { name, documents: 0 }
      collections += 1
    },
    async document (raw) {
      if (current === null) throw new Error('a document outside any collection')
      batch.push(raw)
      batchBytes += raw.byteLength
      current.documents += 1
      documents += 1
      if (batch.length >= BATCH_DOCUMENTS || batchBytes >= BATCH_BYTES) await flush()
    },
    async endCollection () {
      if (current === null) throw new Error('no collection to end')
      await flush()
      await put(BSON.serialize({ collectionEnd: current.name, documents: current.documents }))
      current = null
    },
    async finish () {
      if (current !== null) throw new Error(`collection ${current.name} is not ended`)
      const trailer: ArchiveTrailer = { end: true, collections, documents, sha256: hash.digest('hex') }
      await put(BSON.serialize(trailer), false)
      compressor.end()
      await written
      await appendFile(partial, lengthFrame(file.bytesWritten))
      const handle = await open(partial, 'r+')
      try {
        await handle.sync()
      } finally {
        await handle.close()
      }
      await rename(partial, path)
      // the rename itself on disk too
      const folder = await open(dirname(path), 'r')
      try {
        await folder.sync()
      } finally {
        await folder.close()
      }
      return { collections, documents, bytes: file.bytesWritten + LENGTH_FRAME_BYTES }
    },
    async abandon () {
      compressor.destroy()
      await written.catch(() => {})
      await rm(partial, { force: true })
    }
  }
}

// ---- reading

export type ArchiveItem =
  | { kind: 'header', header: ArchiveHeader }
  | { kind: 'collection', collection: ArchivedCollection }
  | { kind: 'document', raw: Uint8Array }
  | { kind: 'collectionEnd', name: string, documents: number }
  | { kind: 'end', trailer: ArchiveTrailer }

/**
 * The archive's records in order, each checked against the format as it
 * comes. Whether the whole is as it was written is known only at the end:
 * the last item is `end` once the trailer's checksum and counts match, and
 * any damage found on the way, or there, throws DamagedArchiveError. A
 * caller that acts on the items must be ready to undo them until then.
 */
export async function * readArchive (path: string): AsyncGenerator<ArchiveItem> {
  const damaged = (what: string): DamagedArchiveError => new DamagedArchiveError(`${path} is damaged: ${what}`)
  const hash: Hash = createHash('sha256')
  const compressedBytes = await streamLength(path)
  if (compressedBytes === null) throw damaged('it does not end as a backup ends (the file was cut short, or is not a backup)')
  const records = recordsOf(createReadStream(path, { end: compressedBytes - 1 }).pipe(createZstdDecompress()), damaged)

  const first = await records.next()
  if (first.done === true) throw damaged('it holds nothing (an empty or cut-off file)')
  const header = controlRecord(first.value, damaged)
  if (header.format !== ARCHIVE_FORMAT) throw new DamagedArchiveError(`${path} is not a backup of this service (its first record is not a ${ARCHIVE_FORMAT} header)`)
  if (header.version !== ARCHIVE_VERSION) {
    throw new DamagedArchiveError(`${path} is a backup in format version ${String(header.version)}, which this version of the service does not read (it reads version ${ARCHIVE_VERSION})`)
  }
  hash.update(first.value)
  yield { kind: 'header', header: header as unknown as ArchiveHeader }

  let collections = 0
  let documents = 0
  let current: { name: string, documents: number } | null = null
  for (;;) {
    const next = await records.next()
    if (next.done === true) throw damaged('it ends before its trailer (the file was cut short)')
    const record = next.value
    const fields = controlRecord(record, damaged)
    if ('end' in fields) {
      if (current !== null) throw damaged(`it ends inside collection ${current.name}`)
      const trailer = fields as unknown as ArchiveTrailer
      if (trailer.sha256 !== hash.digest('hex')) throw damaged('its content does not match the checksum in its trailer (changed since it was written)')
      if (trailer.collections !== collections || trailer.documents !== documents) {
        throw damaged(`its trailer counts ${String(trailer.documents)} documents in ${String(trailer.collections)} collections, and it holds ${documents} in ${collections}`)
      }
      if ((await records.next()).done !== true) throw damaged('something follows its trailer')
      yield { kind: 'end', trailer }
      return
    }
    hash.update(record)
    if (typeof fields.collection === 'string') {
      if (current !== null) throw damaged(`collection ${fields.collection} begins inside collection ${current.name}`)
      current = { name: fields.collection, documents: 0 }
      collections += 1
      yield {
        kind: 'collection',
        collection: { name: fields.collection, type: fields.type === 'view' ? 'view' : 'collection', options: fields.options ?? {}, indexes: fields.indexes ?? [] }
      }
    } else if (typeof fields.documents === 'number' && current !== null && fields.collectionEnd === undefined) {
      for (let left = fields.documents; left > 0; left--) {
        const document = await records.next()
        if (document.done === true) throw damaged(`it ends inside a batch of collection ${current.name}`)
        hash.update(document.value)
        current.documents += 1
        documents += 1
        yield { kind: 'document', raw: document.value }
      }
    } else if (typeof fields.collectionEnd === 'string' && current !== null) {
      if (fields.collectionEnd !== current.name || fields.documents !== current.documents) {
        throw damaged(`collection ${current.name} ends as ${String(fields.collectionEnd)} with ${String(fields.documents)} documents, and ${current.documents} were read`)
      }
      yield { kind: 'collectionEnd', name: current.name, documents: current.documents }
      current = null
    } else {
      throw damaged(`a record out of place: ${JSON.stringify(Object.keys(fields))}`)
    }
  }
}

/** The length of the compressed stream as the file's last frame gives it, or null when that frame is not there or does not fit the file. */
async function streamLength (path: string): Promise<number | null> {
  const file = await open(path, 'r')
  try {
    const { size } = await file.stat()
    if (size < LENGTH_FRAME_BYTES + 1) return null
    const frame = Buffer.alloc(LENGTH_FRAME_BYTES)
    await file.read(frame, 0, LENGTH_FRAME_BYTES, size - LENGTH_FRAME_BYTES)
    const fits = frame.readUInt32LE(0) === LENGTH_FRAME_MAGIC && frame.readUInt32LE(4) === 8 && frame.readBigUInt64LE(8) === BigInt(size - LENGTH_FRAME_BYTES)
    return fits ? size - LENGTH_FRAME_BYTES : null
  } finally {
    await file.close()
  }
}

function controlRecord (record: Uint8Array, damaged: (what: string) => DamagedArchiveError): Document {
  try {
    return BSON.deserialize(record)
  } catch {
    throw damaged('a record is not readable BSON')
  }
}

/** The BSON records of a byte stream: each its int32 length, then the rest; never more than one record held. */
async function * recordsOf (stream: AsyncIterable<Buffer>, damaged: (what: string) => DamagedArchiveError): AsyncGenerator<Uint8Array> {
  let chunks: Buffer[] = []
  let held = 0
  const take = (bytes: number): Buffer => {
    const joined = chunks.length === 1 ? chunks[0] as Buffer : Buffer.concat(chunks, held)
    const taken = joined.subarray(0, bytes)
    const rest = joined.subarray(bytes)
    chunks = rest.length > 0 ? [rest] : []
    held = rest.length
    return taken
  }
  const peekLength = (): number => {
    const head = chunks.length === 1 || (chunks[0]?.length ?? 0) >= 4 ? chunks[0] as Buffer : Buffer.concat(chunks, held)
    return head.readInt32LE(0)
  }
  try {
    for await (const chunk of stream) {
      chunks.push(chunk)
      held += chunk.length
      while (held >= 4) {
        const length = peekLength()
        if (length < 5 || length > MAX_RECORD_BYTES) throw damaged(`a record claims ${length} bytes`)
        if (held < length) break
        const record = take(length)
        if (record[length - 1] !== 0) throw damaged('a record does not end as BSON does')
        yield record
      }
    }
  } catch (error) {
    if (error instanceof DamagedArchiveError) throw error
    const code = (error as { code?: string }).code
    if (code === 'ENOENT' || code === 'EACCES' || code === 'EISDIR') throw error
    throw damaged(`it cannot be decompressed (${(error as Error).message})`)
  }
  if (held > 0) throw damaged('it ends inside a record (the file was cut short)')
}
