import type { Db, IndexDescription } from 'mongodb'

/**
 * Every index the service relies on, in one place. Each query names the index
 * it is meant to use next to its code; the benchmark's explain output checks it.
 */
export const INDEXES: Record<string, IndexDescription[]> = {
  users: [
    { key: { email: 1 }, name: 'email_unique', unique: true }
  ],
  cards: [
    // today's cards: due ones by due, then new ones by creation (see cards.todayQueue)
    { key: { userID: 1, isNew: 1, due: 1, createdOrder: 1 }, name: 'user_queue' },
    { key: { userID: 1, flashcardID: 1 }, name: 'user_flashcard' }
  ],
  reviews: [
    // a retried review (same reviewID) can only ever be stored once
    { key: { userID: 1, reviewID: 1 }, name: 'user_reviewID_unique', unique: true },
    // undo takes back the latest review; reviews of one instant are ordered by seq
    { key: { userID: 1, reviewedAt: 1, seq: 1 }, name: 'user_reviewedAt_seq' }
  ],
  // one document per user and day: goals, streaks and the heatmap read a range of them
  activity: [
    { key: { userID: 1, day: 1 }, name: 'user_day' }
  ],
  goals: [
    { key: { userID: 1, createdAt: 1 }, name: 'user_created' }
  ],
  // login and register attempt counters: removed an hour after their window closes
  attempts: [
    { key: { resetsAt: 1 }, name: 'resets_ttl', expireAfterSeconds: 3600 }
  ],
  // the lease of a fit under way (optimize-schedule): one left by an instance that died goes an hour after it ran out
  fitLeases: [
    { key: { until: 1 }, name: 'until_ttl', expireAfterSeconds: 3600 }
  ]
}

/**
 * Creates the indexes that are missing, before any data arrives on a new
 * database. Building one over a large collection is slow (on the embedded
 * database pathologically so), so an index added later needs a migration run
 * at full size first.
 */
export async function ensureIndexes (db: Db): Promise<void> {
  for (const [name, indexes] of Object.entries(INDEXES)) {
    await db.collection(name).createIndexes(indexes)
  }
}
