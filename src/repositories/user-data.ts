import type { ClientSession, Db } from 'mongodb'
import { INDEXES } from './indexes.js'

/**
 * Collections of the service's own, holding nothing of any user; and the
 * GridFS collections, whose documents name no user: a user's files are
 * removed by the ids their media records hold (services/media.ts).
 */
const SERVICE_COLLECTIONS: ReadonlySet<string> = new Set(['attempts', 'migrations', 'media_unrecorded', 'media.files', 'media.chunks'])

/** Everything stored of one user, across collections: what deleting an account removes. */
export function userDataRepository (db: Db, session?: ClientSession) {
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

    /** Removes every document of the user from `collections`, the account last. */
    async removeAll (userID: string, collections: readonly string[]): Promise<void> {
      for (const collection of collections) {
        if (collection === 'users') continue
        // a tree's _id is its owner's userID: found by the primary index, with no index on userID
        const owned = collection === 'trees' ? { _id: userID } : { userID }
        await db.collection<{ _id: string }>(collection).deleteMany(owned, { session })
      }
      await db.collection<{ _id: string }>('users').deleteOne({ _id: userID }, { session })
    }
  }
}

export type UserDataRepository = ReturnType<typeof userDataRepository>
