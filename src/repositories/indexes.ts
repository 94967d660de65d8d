import type { Db, IndexDescription } from 'mongodb'

/**
 * Every index the service relies on, in one place. Each query names the index
 * it is meant to use next to its code; the benchmark's explain output checks it.
 */
export const INDEXES: Record<string, IndexDescription[]> = {
  users: [
    { key: { email: 1 }, name: 'email_unique', unique: true }
  ],
  library: [
    // names are unique among the folders and flashcards of one parent
    { key: { userID: 1, parentID: 1, name: 1 }, name: 'user_parent_name', unique: true },
    { key: { userID: 1, ancestors: 1 }, name: 'user_ancestors' },
    { key: { userID: 1, kind: 1 }, name: 'user_kind' }
  ],
  cards: [
    // today's cards: due ones by due, then new ones by creation (see cards.todayQueue)
    { key: { userID: 1, isNew: 1, due: 1, createdOrder: 1 }, name: 'user_queue' },
    { key: { userID: 1, flashcardID: 1 }, name: 'user_flashcard' }
  ],
  reviews: [
    // a retried review (same reviewID) can only ever be stored once
    { key: { userID: 1, reviewID: 1 }, name: 'user_reviewID_unique', unique: true },
    { key: { userID: 1, reviewedAt: 1 }, name: 'user_reviewedAt' },
    { key: { userID: 1, day: 1 }, name: 'user_day' }
  ],
  goals: [
    { key: { userID: 1, createdAt: 1 }, name: 'user_created' }
  ]
}

/**
 * Creates the indexes that are missing. Only missing ones are asked for:
 * FerretDB 1.24 drops the connection (a server-side panic) when one
 * createIndexes call repeats several indexes a collection already has.
 */
export async function ensureIndexes (db: Db): Promise<void> {
  const existingCollections = new Set((await db.listCollections({}, { nameOnly: true }).toArray()).map((info) => info.name))
  for (const [name, indexes] of Object.entries(INDEXES)) {
    const collection = db.collection(name)
    const existing = existingCollections.has(name)
      ? new Set((await collection.listIndexes().toArray()).map((index) => index.name as string))
      : new Set<string>()
    for (const index of indexes) {
      if (!existing.has(index.name ?? '')) await collection.createIndexes([index])
    }
  }
}
