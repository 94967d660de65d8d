import type { ClientSession, Db, Document, Filter } from 'mongodb'
import type { KeyRange } from '../domain/removal-windows.js'
import { INDEXES } from './indexes.js'

/**
 * Collections of the service's own, holding nothing of any user; and the
 * GridFS collections, whose documents name no user: a user's files are
 * removed by the ids their media records hold (services/media.ts).
 */
const SERVICE_COLLECTIONS: ReadonlySet<string> = new Set(['attempts', 'migrations', 'media_unrecorded', 'media.files', 'media.chunks'])

/**
 * The collections whose documents of one user are removed a window at a
 * time (domain/removal-windows.ts), by the key an index of theirs leads with
 * after `userID`: those that grow with use past any other.
 */
export const WINDOWED = {
  // index user_order
  cards: { key: 'createdOrder', instants: false },
  // index user_order
  cardStates: { key: 'createdOrder', instants: false },
  // index user_reviewedAt_seq
  reviews: { key: 'reviewedAt', instants: true }
} as const

export type WindowedCollection = keyof typeof WINDOWED

/** The most a read of a window's first keys may take: past it the database stops it, and the window is narrowed. */
const WINDOW_READ_MS = 2000

/** Everything stored of one user, across collections: what deleting an account removes. */
export function userDataRepository (db: Db, session?: ClientSession) {
  /** The filter of a range of a windowed collection's key, for one user. */
  function inRange (collection: WindowedCollection, userID: string, range: KeyRange): Filter<Document> {
    const { key, instants } = WINDOWED[collection]
    const value = (bound: number): number | Date => instants ? new Date(bound) : bound
    const bounds: Record<string, number | Date> = {}
    if (range.from !== -Infinity) bounds[range.fromIncluded ? '$gte' : '$gt'] = value(range.from)
    if (range.to !== Infinity) bounds[range.toIncluded ? '$lte' : '$lt'] = value(range.to)
    // an unbounded range still asks for the key, so that the removal takes the index's range
    return { userID, [key]: Object.keys(bounds).length === 0 ? { $exists: true } : bounds }
  }

  return {
    /**
     * Every collection that may hold a user's documents: those the service
     * declares and those the database has, so that a collection added later
     * without an index of its own is not forgotten. Read outside any
     * transaction: MongoDB does not list collections inside one.
     */
    async collections (): Promise<string[]> {
      // trees has no index of its own to be declared by, and exists only once a tree is saved
      const names = new Set([...Object.keys(INDEXES), 'trees'])
      for (const info of await db.listCollections({}, { nameOnly: true }).toArray()) {
        if (!info.name.startsWith('system.')) names.add(info.name)
      }
      return [...names].filter((name) => !SERVICE_COLLECTIONS.has(name))
    },

    /**
     * The first `limit` keys of the user's documents in `range`, in order: where a
     * batch ends in it. A read, which holds up no write; stopped by the database
     * past WINDOW_READ_MS (isTimeLimit), for a window too wide to read at once.
     */
    async firstKeys (collection: WindowedCollection, userID: string, range: KeyRange, limit: number): Promise<number[]> {
      const { key } = WINDOWED[collection]
      const found = await db.collection(collection).find(inRange(collection, userID, range), {
        projection: { _id: 0, [key]: 1 }, sort: { [key]: 1 }, limit, maxTimeMS: WINDOW_READ_MS, session
      }).toArray()
      return found.map((document) => {
        const value: unknown = document[key]
        return value instanceof Date ? value.getTime() : Number(value)
      })
    },

    /** Removes the user's documents in `range`; how many went. */
    async removeRange (collection: WindowedCollection, userID: string, range: KeyRange): Promise<number> {
      return (await db.collection(collection).deleteMany(inRange(collection, userID, range), { session })).deletedCount
    },

    /** Removes the user's documents of one of their imports (its review histories, its staged changes); how many went. */
    async removeImported (collection: 'reviewHistories' | 'importUpdates', userID: string, importID: string): Promise<number> {
      // importUpdates is indexed by importID alone (index import); reviewHistories by userID and importID (index user_import)
      const filter = collection === 'importUpdates' ? { importID, userID } : { userID, importID }
      return (await db.collection(collection).deleteMany(filter, { session })).deletedCount
    },

    /** The ids of the user's imports. Index user_created (its prefix). */
    async importsOf (userID: string): Promise<string[]> {
      return (await db.collection<{ _id: string }>('imports').find({ userID }, { projection: { _id: 1 }, session }).toArray()).map((document) => document._id)
    },

    /** Removes every document of the user in `collection` (but the account, which goes by removeDeleted); how many went. */
    async removeAll (collection: string, userID: string): Promise<number> {
      // a tree's _id is its owner's userID: found by the primary index, with no index on userID
      const owned = collection === 'trees' ? { _id: userID } : { userID }
      return (await db.collection<{ _id: string }>(collection).deleteMany(owned, { session })).deletedCount
    }
  }
}

/** Whether a read was stopped by its time limit (maxTimeMS). */
export function isTimeLimit (error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 50
}

export type UserDataRepository = ReturnType<typeof userDataRepository>
