import type { Db } from 'mongodb'
import { INDEXES } from './indexes.js'

/** Removes every document of a user, collection by collection, the account last. */
export async function deleteUserData (db: Db, userID: string): Promise<void> {
  for (const collection of Object.keys(INDEXES)) {
    if (collection === 'users') continue
    await db.collection(collection).deleteMany({ userID })
  }
  await db.collection<{ _id: string }>('users').deleteOne({ _id: userID })
}
