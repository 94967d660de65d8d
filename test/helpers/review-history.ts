// A review log written straight into the reviews collection, as review-card
// would have stored it: for tests of fitting, which need thousands of reviews
// over months.
import type { FastifyInstance } from 'fastify'
import { addDays } from '../../src/domain/calendar.js'
import { CardState, RATINGS, newSchedule, type CardSchedule } from '../../src/domain/scheduling.js'
import type { LoggedReview } from '../../src/domain/training-items.js'
import type { ReviewDocument } from '../../src/repositories/reviews.js'
import { databaseOf } from './app.js'

const STATE_OF: Record<string, CardSchedule['state']> = { review: CardState.Review, relearning: CardState.Relearning, learning: CardState.Learning }

/** `log` as the review documents of the user's log; `cardIDOf` names each card (by default the log's own ids). */
export function reviewDocuments (userID: string, log: readonly LoggedReview[], cardIDOf: (cardID: string) => string = (id) => id): ReviewDocument[] {
  const seen = new Set<string>()
  return log.map((entry, index) => {
    const first = !seen.has(entry.cardID)
    seen.add(entry.cardID)
    const reviewedAt = new Date(entry.at)
    const before: CardSchedule = { ...newSchedule(reviewedAt), state: first ? CardState.New : STATE_OF[entry.kind] ?? CardState.Review }
    return {
      _id: `history-${userID}-${index}`,
      userID,
      reviewID: `history-${index}`,
      cardID: cardIDOf(entry.cardID),
      flashcardID: 'history',
      rating: RATINGS[entry.rating - 1] ?? 'good',
      reviewedAt,
      day: addDays('1970-01-01', entry.day),
      wasNew: first,
      before,
      after: { ...before, lastReview: reviewedAt },
      xp: 10,
      seq: index + 1,
      answer: { cardID: entry.cardID, review_status: '1.0', last_review: '', due: '', xp_gained: '10', total_xp: '' }
    }
  })
}

/** Stores `log` as the user's review log; `cardIDOf` names each card (by default the log's own ids). */
export async function storeHistory (app: FastifyInstance, userID: string, log: readonly LoggedReview[], cardIDOf?: (cardID: string) => string): Promise<void> {
  const documents = reviewDocuments(userID, log, cardIDOf)
  const reviews = databaseOf(app).collection<ReviewDocument>('reviews')
  for (let start = 0; start < documents.length; start += 5000) await reviews.insertMany(documents.slice(start, start + 5000))
}
