import type { Db, IndexDescription } from 'mongodb'

/**
 * Every index the service relies on, in one place. Each query names the index
 * it is meant to use next to its code; the benchmark's explain output checks it.
 */
export const INDEXES: Record<string, IndexDescription[]> = {
  users: [
    { key: { email: 1 }, name: 'email_unique', unique: true }
  ]
}

export async function ensureIndexes (db: Db): Promise<void> {
  for (const [collection, indexes] of Object.entries(INDEXES)) {
    await db.collection(collection).createIndexes(indexes)
  }
}
