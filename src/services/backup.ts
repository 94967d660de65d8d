import { access } from 'node:fs/promises'
import type { Db, MongoClient } from 'mongodb'
import { createArchive, readArchive, type ArchivedCollection, type ArchiveHeader, type ArchiveWriter } from '../backup/archive.js'
import { openSnapshot, restoreTarget, type SnapshotOptions } from '../repositories/backup.js'

export interface BackupSummary {
  file: string
  server: string
  method: string
  snapshotAt: Date
  collections: number
  documents: number
  /** the archive's size on disk */
  bytes: number
}

/** A restore refused because the database it would fill holds documents already. */
export class TargetNotEmptyError extends Error {
  override name = 'TargetNotEmptyError'
}

/**
 * Writes every collection and view of `db`, their indexes and their documents
 * (GridFS's media.files and media.chunks among them) as they were at one
 * moment into an archive at `file` (src/backup/archive.ts), while the service
 * goes on writing. An existing file is never replaced.
 */
export async function backUp (client: MongoClient, db: Db, file: string, log: (line: string) => void = () => {}, options: SnapshotOptions = {}): Promise<BackupSummary> {
  if (await access(file).then(() => true, () => false)) throw new Error(`${file} exists already: name a new file for the backup`)
  const snapshot = await openSnapshot(client, db, options)
  let archive: ArchiveWriter | undefined
  try {
    archive = await createArchive(file, { database: db.databaseName, server: snapshot.server, snapshot: snapshot.method, snapshotAt: snapshot.snapshotAt })
    for (const collection of await snapshot.collections()) {
      await archive.collection(collection)
      let documents = 0
      if (collection.type === 'collection') {
        for await (const raw of snapshot.documents(collection.name)) {
          await archive.document(raw)
          documents += 1
        }
      }
      await archive.endCollection()
      log(`${collection.name}: ${collection.type === 'view' ? 'a view' : counted(documents)}`)
    }
    const written = await archive.finish()
    return { file, server: snapshot.server, method: snapshot.method, snapshotAt: snapshot.snapshotAt, ...written }
  } catch (error) {
    await archive?.abandon()
    throw error
  } finally {
    await snapshot.close()
  }
}

export interface RestoreSummary {
  header: ArchiveHeader
  collections: number
  documents: number
}

/** Documents are inserted this many at a time, or fewer when they are large. */
const INSERT_DOCUMENTS = 1000
const INSERT_BYTES = 8 * 1024 * 1024

/**
 * Fills the empty database `db` from the archive at `file`. The archive is
 * read whole and checked (its checksum, its counts) before the database is
 * touched, unless the caller did (`checked`); a database holding any document
 * is refused, left as it was. Should
 * anything fail while the documents go in, the database is emptied again, so
 * that it holds all of the archive or nothing.
 */
export async function restore (db: Db, file: string, log: (line: string) => void = () => {}, checked?: CheckedArchive): Promise<RestoreSummary> {
  const { header, collections } = checked ?? await checkArchive(file)
  const target = restoreTarget(db)
  const held = await target.holdings()
  if (held.length > 0) {
    const listed = held.slice(0, 6).map(({ name, documents }) => `${name}: ${documents.toLocaleString('en')}`).join(', ')
    throw new TargetNotEmptyError(`the database ${db.databaseName} holds documents already (${listed}${held.length > 6 ? ', ...' : ''}); ` +
      'a restore fills only an empty database, and nothing was changed')
  }
  try {
    await target.prepare(collections)
    let collection = ''
    let view = false
    let batch: Uint8Array[] = []
    let batchBytes = 0
    let documents = 0
    const insert = async (): Promise<void> => {
      await target.insert(collection, batch)
      documents += batch.length
      batch = []
      batchBytes = 0
    }
    for await (const item of readArchive(file)) {
      if (item.kind === 'collection') {
        collection = item.collection.name
        view = item.collection.type === 'view'
      } else if (item.kind === 'document') {
        batch.push(item.raw)
        batchBytes += item.raw.byteLength
        if (batch.length >= INSERT_DOCUMENTS || batchBytes >= INSERT_BYTES) await insert()
      } else if (item.kind === 'collectionEnd') {
        await insert()
        log(`${item.name}: ${view ? 'a view' : counted(item.documents)}`)
      }
    }
    return { header, collections: collections.length, documents }
  } catch (error) {
    try {
      await target.clear()
    } catch (clearing) {
      throw new Error(`${(error as Error).message}; and emptying the database again failed (${(clearing as Error).message}): drop the database ${db.databaseName} before restoring again`, { cause: clearing })
    }
    throw error
  }
}

/** What an archive read through and found whole holds. */
export interface CheckedArchive { header: ArchiveHeader, collections: ArchivedCollection[], documents: number }

/** Reads the archive at `file` through, checking it (DamagedArchiveError otherwise): its header and its collections once it is known whole. */
export async function checkArchive (file: string): Promise<CheckedArchive> {
  let header: ArchiveHeader | undefined
  const collections: ArchivedCollection[] = []
  let documents = 0
  for await (const item of readArchive(file)) {
    if (item.kind === 'header') header = item.header
    else if (item.kind === 'collection') collections.push(item.collection)
    else if (item.kind === 'end') documents = item.trailer.documents
  }
  if (header === undefined) throw new Error(`${file}: no header`)
  return { header, collections, documents }
}

function counted (documents: number): string {
  return `${documents.toLocaleString('en')} document${documents === 1 ? '' : 's'}`
}
