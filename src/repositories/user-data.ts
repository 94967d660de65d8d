import type { Db } from 'mongodb'
import { INDEXES } from './indexes.js'

/** Every collection that may hold a user's documents: those the service declares and those the database has. */
async function userCollections (db: Db): Promise<string[]> {
  const names = new Set(Object.keys(INDEXES))
  // a collection added later without an index of its own is not forgotten
  for (const info of await db.listCollections({}, { nameOnly: true }).toArray()) {
    if (!info.name.startsWith('system.')) names.add(info.name)
  }
  names.delete('users')
  return [...names]
}

/**
 * Removes every document of a user, collection by collection, the account
 * last: an interrupted deletion leaves the account, so it can be run again.
 * Once the account is gone no new request is let in; a second sweep removes
 * what a request already in flight wrote meanwhile.
 */
export async function deleteUserData (db: Db, userID: string): Promise<void> {
  const collections = await userCollections(db)
  const sweep = async (): Promise<void> => {
    for (const collection of collections) await db.collection(collection).deleteMany({ userID })
  }
  await sweep()
  await db.collection<{ _id: string }>('users').deleteOne({ _id: userID })
  await sweep()
}
