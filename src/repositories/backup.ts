import { BSON, MongoServerError, ObjectId, type ClientSession, type Db, type Document, type MongoClient } from 'mongodb'
import type { ArchivedCollection } from '../backup/archive.js'
import { ensureIndexes } from './indexes.js'

/**
 * The whole database as it was at one moment, read while the service goes on
 * writing: every write acknowledged before `snapshotAt` is in it, and a
 * transaction is in it whole or not at all.
 */
export interface DatabaseSnapshot {
  /** the server, as it names itself */
  server: string
  /** how the moment is held, in words for the archive's header */
  method: string
  /** taken just before the first read, which fixes the moment */
  snapshotAt: Date
  /** every collection and view, by name, with its indexes; system collections left out */
  collections: () => Promise<ArchivedCollection[]>
  /** a collection's documents at that moment, each as stored (BSON), in no particular order */
  documents: (name: string) => AsyncGenerator<Uint8Array>
  close: () => Promise<void>
}

export interface SnapshotOptions {
  /** how much of a collection the embedded database reads at once (see windowsOf) */
  windowBytes?: number
}

/** About this much of a collection is read at once on the embedded database. */
const WINDOW_BYTES = 16 * 1024 * 1024
/** Sampled keys per window: more samples make the windows' sizes nearer the mean. */
const SAMPLES_PER_WINDOW = 8
/** The _id types read in windows: the service's ids, and GridFS's. Any other is read in one query. */
const WINDOWED_TYPES = ['string', 'objectId'] as const
const BATCH_SIZE = 1000

/**
 * Opens a snapshot of `db`. On the embedded SecantusDB it is one transaction,
 * read-only, at snapshot isolation (WiredTiger's): the server pins it at the
 * first read, and keeps it as long as reads keep coming (it ends transactions
 * idle for transactionLifetimeLimitSeconds, not long ones), so it spans a
 * backup of any length made of short reads. Its snapshot sessions would not
 * do: it accepts readConcern snapshot outside a transaction, and reads at the
 * present. On MongoDB a transaction lives 60 seconds at most, so the snapshot
 * is a snapshot session: every read at the cluster time of the first, which
 * MongoDB keeps for minSnapshotHistoryWindowInSeconds (300 by default); a
 * longer backup fails with SnapshotTooOld.
 */
export async function openSnapshot (client: MongoClient, db: Db, options: SnapshotOptions = {}): Promise<DatabaseSnapshot> {
  const info = await db.admin().command({ buildInfo: 1 })
  const embedded = typeof info.secantusVersion === 'string'
  const server = embedded
    ? `SecantusDB secantusd-rs ${String(info.secantusVersion)} (MongoDB ${String(info.version)} protocol)`
    : `MongoDB ${String(info.version)}`
  // The keys that bound the windows are drawn before the snapshot, outside it: any keys tile
  // the collection, so they need not be the snapshot's, and the transaction then holds only
  // reads of a window each. The server ends a transaction left idle past its lifetime,
  // measured from the start of its last read, and a pass over a large collection is long.
  const windowBytes = options.windowBytes ?? WINDOW_BYTES
  const drawn = new Map<string, unknown[]>()
  if (embedded) {
    for (const { name, type } of await db.listCollections({}, { nameOnly: false }).toArray()) {
      if (type !== 'view' && !name.startsWith('system.')) drawn.set(name, await drawKeys(db.collection(name), windowBytes))
    }
  }
  let session: ClientSession
  let method: string
  if (embedded) {
    session = client.startSession()
    session.startTransaction({ readConcern: { level: 'snapshot' } })
    method = 'one read-only transaction at snapshot isolation'
  } else {
    session = client.startSession({ snapshot: true })
    method = 'a snapshot session (every read at the cluster time of the first)'
  }
  const snapshotAt = new Date()
  try {
    // the first read fixes the moment, before anything else is looked at
    await db.collection('migrations').findOne({ _id: 'backup: the snapshot starts here' as never }, { session })
  } catch (error) {
    await closeSession(session, embedded)
    throw error
  }

  return {
    server,
    method,
    snapshotAt,
    async collections () {
      // after the first read: a collection made since is listed, and holds nothing at the snapshot
      const listed = await db.listCollections({}, { nameOnly: false }).toArray()
      const collections: ArchivedCollection[] = []
      for (const { name, type, options: collectionOptions } of listed.sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0)) {
        if (name.startsWith('system.')) continue
        const view = type === 'view'
        const indexes = view
          ? []
          : (await db.collection(name).listIndexes().toArray())
              .filter((index) => index.name !== '_id_')
              .map(({ ns: _ns, ...spec }) => spec)
        collections.push({ name, type: view ? 'view' : 'collection', options: collectionOptions ?? {}, indexes })
      }
      return collections
    },
    async * documents (name) {
      const collection = db.collection(name)
      const read = (filter: Document): AsyncIterable<Uint8Array> =>
        collection.find(filter, { session, raw: true, batchSize: BATCH_SIZE }) as unknown as AsyncIterable<Uint8Array>
      if (!embedded) {
        yield * read({})
        return
      }
      for (const window of windowsOf(drawn.get(name) ?? [])) yield * read(window)
    },
    async close () {
      await closeSession(session, embedded)
    }
  }
}

async function closeSession (session: ClientSession, transaction: boolean): Promise<void> {
  try {
    if (transaction && session.inTransaction()) await session.abortTransaction()
  } finally {
    await session.endSession()
  }
}

/**
 * Keys of the collection drawn at random, each document in proportion to its
 * size, in the server's order: about SAMPLES_PER_WINDOW for each
 * `windowBytes` of documents. One pass over the collection, which keeps only
 * the keys it draws.
 */
async function drawKeys (collection: ReturnType<Db['collection']>, windowBytes: number): Promise<unknown[]> {
  const drawn = await collection.find(
    { $expr: { $lt: [{ $rand: {} }, { $divide: [{ $bsonSize: '$$ROOT' }, windowBytes / SAMPLES_PER_WINDOW] }] } },
    // the server's order: the bounds must follow its comparison of keys, not JavaScript's
    { projection: { _id: 1 }, sort: { _id: 1 } }
  ).toArray()
  return drawn.map(({ _id: key }) => key as unknown)
}

/**
 * The filters that read a collection a window at a time, together every
 * document once. The embedded database answers a query by first reading
 * every document it matches, whatever its limit: read whole, a collection
 * would sit in the database's memory at once. Windows of `_id` are ranges of
 * its index, each read alone, bounded by keys drawn from the collection in
 * proportion to size (drawKeys), so that a window holds about `windowBytes`
 * whatever the keys look like (random digits, ObjectIds made in one burst by
 * an upload). A range of one type holds only that type's values, as in
 * MongoDB; the ids of other types are read by one query, and the service makes
 * none. The windows tile the keys whichever were drawn: a key drawn and gone
 * since, or a document added since, changes their sizes and nothing else.
 */
function windowsOf (drawn: readonly unknown[]): Document[] {
  const windows: Document[] = []
  for (const type of WINDOWED_TYPES) {
    const keys = drawn.filter((key) => type === 'string' ? typeof key === 'string' : key instanceof ObjectId)
    const bounds = keys.filter((_, index) => index % SAMPLES_PER_WINDOW === SAMPLES_PER_WINDOW - 1)
    if (bounds.length === 0) {
      windows.push({ _id: { $type: type } })
      continue
    }
    windows.push({ _id: { $lt: bounds[0] } })
    for (let index = 1; index < bounds.length; index++) windows.push({ _id: { $gte: bounds[index - 1], $lt: bounds[index] } })
    windows.push({ _id: { $gte: bounds[bounds.length - 1] } })
  }
  windows.push({ _id: { $not: { $type: [...WINDOWED_TYPES] } } })
  return windows
}

/** How a document read as BSON is written again unchanged: every value keeps its BSON type. */
const AS_STORED = { promoteValues: false, promoteLongs: false, promoteBuffers: false, bsonRegExp: true } as const

/** A database a backup is restored into. */
export interface RestoreTarget {
  /** the collections that hold documents, with how many: a restore needs none */
  holdings: () => Promise<Array<{ name: string, documents: number }>>
  /**
   * Makes the archive's collections with their options, the service's own
   * indexes (indexes.ts) and the archive's, before any document: on the
   * embedded database an index is built far faster as documents arrive than
   * over a full collection.
   */
  prepare: (collections: readonly ArchivedCollection[]) => Promise<void>
  insert: (collection: string, documents: readonly Uint8Array[]) => Promise<void>
  /** drops everything: what a restore that failed half-way leaves */
  clear: () => Promise<void>
}

export function restoreTarget (db: Db): RestoreTarget {
  return {
    async holdings () {
      const held: Array<{ name: string, documents: number }> = []
      for (const { name, type } of await db.listCollections({}, { nameOnly: false }).toArray()) {
        if (type === 'view' || name.startsWith('system.')) continue
        const documents = await db.collection(name).estimatedDocumentCount()
        if (documents > 0) held.push({ name, documents })
      }
      return held.sort((a, b) => b.documents - a.documents)
    },
    async prepare (collections) {
      for (const { name, options } of collections) {
        try {
          await db.createCollection(name, options)
        } catch (error) {
          // made already, empty (a service that started on this database made its collections)
          if (!(error instanceof MongoServerError && error.codeName === 'NamespaceExists')) throw error
        }
      }
      await ensureIndexes(db)
      for (const { name, type, indexes } of collections) {
        if (type === 'collection' && indexes.length > 0) await db.collection(name).createIndexes(indexes as Parameters<ReturnType<Db['collection']>['createIndexes']>[0])
      }
    },
    async insert (collection, documents) {
      if (documents.length === 0) return
      await db.collection(collection).insertMany(documents.map((raw) => BSON.deserialize(raw, AS_STORED)), { ordered: true, bypassDocumentValidation: true })
    },
    async clear () {
      await db.dropDatabase()
    }
  }
}
