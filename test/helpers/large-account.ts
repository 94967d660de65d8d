// An account with a year of history, written straight into the collections in
// the documents the service writes (its cards as create-flashcard makes them,
// its review log as review-card stores it, a count a day as reviews keep it):
// through the API a year of answers would take far too long. For the tests of
// deleting a large account.
import type { FastifyInstance } from 'fastify'
import type { Db } from 'mongodb'
import { addDays, type LocalDay } from '../../src/domain/calendar.js'
import { dayNumber, type LoggedReview } from '../../src/domain/training-items.js'
import { activityId, type DayActivityDocument } from '../../src/repositories/activity.js'
import type { CardDocument } from '../../src/repositories/cards.js'
import type { ReviewDocument } from '../../src/repositories/reviews.js'
import type { UserDocument } from '../../src/repositories/users.js'
import { newCards } from '../../src/services/library.js'
import { databaseOf, makeDeck, type TestUser } from './app.js'
import { reviewDocuments } from './review-history.js'
import { insertStoredCards } from './stored.js'

const DAY_MS = 24 * 3600 * 1000

export interface History { cards: number, reviews: number, days?: number }

/** How many documents of the user each collection of `db` holds (the account and its tree by their _id). */
export async function documentsOf (db: Db, userID: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {}
  for (const { name } of await db.listCollections({}, { nameOnly: true }).toArray()) {
    const filter = name === 'users' || name === 'trees' ? { _id: userID as never } : { userID }
    counts[name] = await db.collection(name).countDocuments(filter)
  }
  return counts
}

/**
 * Gives the user `days` (365) of history, as if they had registered that long
 * ago: a flashcard made through the API, then `cards` cards of it created a
 * batch a day, `reviews` answers spread evenly over the days with their day
 * counts, and the account's card usage and review count to match.
 */
export async function fillHistory (app: FastifyInstance, user: TestUser, { cards, reviews, days = 365 }: History): Promise<void> {
  const db = databaseOf(app)
  const now = app.clock().getTime()
  const registered = new Date(now - days * DAY_MS)
  await db.collection<UserDocument>('users').updateOne({ _id: user.userID }, { $set: { createdAt: registered } })
  const { flashcardID } = await makeDeck(app, user, { folder: ['History'], name: 'A year', cards: 1 })

  const perDay = Math.ceil(cards / days)
  const made: CardDocument[] = []
  for (let day = 0; made.length < cards; day++) {
    const texts = Array.from({ length: Math.min(perDay, cards - made.length) }, (_, n) => ({ front: `question ${made.length + n}`, back: `answer ${made.length + n}` }))
    made.push(...newCards(user.userID, flashcardID, texts, new Date(registered.getTime() + day * DAY_MS + 3600_000)))
  }
  for (let start = 0; start < made.length; start += 5000) await insertStoredCards(db, made.slice(start, start + 5000))

  const log: LoggedReview[] = Array.from({ length: reviews }, (_, n) => {
    const at = registered.getTime() + 4 * 3600_000 + Math.floor(n * (days - 1) * DAY_MS / Math.max(1, reviews))
    const day = new Date(at).toISOString().slice(0, 10)
    return { cardID: made[n % made.length]?._id ?? 'none', at, day: dayNumber(day), rating: 1 + (n % 4), kind: 'review' }
  })
  const documents = reviewDocuments(user.userID, log)
  for (let start = 0; start < documents.length; start += 5000) await db.collection<ReviewDocument>('reviews').insertMany(documents.slice(start, start + 5000))

  const counts = new Map<LocalDay, number>()
  for (const entry of log) {
    const day = addDays('1970-01-01', entry.day)
    counts.set(day, (counts.get(day) ?? 0) + 1)
  }
  const activity: DayActivityDocument[] = [...counts].map(([day, count]) => ({ _id: activityId(user.userID, day), userID: user.userID, day, reviews: count, xp: count * 10 }))
  if (activity.length > 0) await db.collection<DayActivityDocument>('activity').insertMany(activity)
  await db.collection<UserDocument>('users').updateOne({ _id: user.userID }, { $inc: { 'usage.cards': cards, totalXp: reviews * 10 }, $set: { reviewCount: reviews } })
}
