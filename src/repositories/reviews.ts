import type { Db } from 'mongodb'
import type { LocalDay } from '../domain/calendar.js'
import type { ActivityByDay } from '../domain/goals.js'
import type { CardSchedule, Rating } from '../domain/scheduling.js'
import { oneAtATime } from './one-at-a-time.js'
import { isDuplicateKey } from './users.js'

/** The answer a review gave, kept so that a retry with the same reviewID gets it again. */
export interface ReviewAnswer {
  cardID: string
  review_status: string
  last_review: string
  due: string
  xp_gained: string
  total_xp: string
}

/** One review in the log that streaks, heatmaps, goals and undo read. */
export interface ReviewDocument {
  _id: string
  userID: string
  /** the client's retry key (or one made by the server); unique per user */
  reviewID: string
  cardID: string
  flashcardID: string
  rating: Rating
  reviewedAt: Date
  /** the user's day the review belongs to, in their calendar at the time */
  day: LocalDay
  wasNew: boolean
  before: CardSchedule
  after: CardSchedule
  xp: number
  /** 'pending' until the card and the XP are written; only 'done' reviews count */
  status: 'pending' | 'done'
  /** wall-clock time of the claim: a review pending for long was cut off and may be finished by a retry */
  claimedAt: Date
  answer?: ReviewAnswer
}

export class ReviewIDTakenError extends Error {
  override name = 'ReviewIDTakenError'
}

export function reviewsRepository (db: Db) {
  const reviews = db.collection<ReviewDocument>('reviews')
  // FerretDB 1.24 writes an updated entry back whole: takeOver's compare-and-set holds, and
  // `complete` is not undone by a concurrent write, only if the updates of one entry take turns
  const perEntry = oneAtATime()
  return {
    /** Claims the reviewID: the unique index lets only one request own it. */
    async claim (review: ReviewDocument): Promise<void> {
      try {
        await reviews.insertOne(review)
      } catch (error) {
        if (isDuplicateKey(error)) throw new ReviewIDTakenError(review.reviewID)
        throw error
      }
    },

    findByReviewID (userID: string, reviewID: string): Promise<ReviewDocument | null> {
      return reviews.findOne({ userID, reviewID })
    },

    async recompute (id: string, before: CardSchedule, after: CardSchedule, wasNew: boolean): Promise<void> {
      await perEntry(id, () => reviews.updateOne({ _id: id }, { $set: { before, after, wasNew } }))
    },

    async complete (id: string, answer: ReviewAnswer): Promise<void> {
      await perEntry(id, () => reviews.updateOne({ _id: id }, { $set: { status: 'done', answer } }))
    },

    /** Takes over a review left pending since before `staleBefore`; false when someone else did. */
    async takeOver (id: string, staleBefore: Date, now: Date): Promise<boolean> {
      const result = await perEntry(id, () => reviews.updateOne({ _id: id, status: 'pending', claimedAt: { $lt: staleBefore } }, { $set: { claimedAt: now } }))
      return result.modifiedCount === 1
    },

    async discard (id: string): Promise<void> {
      await reviews.deleteOne({ _id: id, status: 'pending' })
    },

    /** Reviews since `since`, split into new cards started and the rest. Index user_reviewedAt. */
    async countSince (userID: string, since: Date): Promise<{ newCards: number, reviews: number }> {
      const groups = await reviews.aggregate<{ _id: boolean, count: number }>([
        { $match: { userID, status: 'done', reviewedAt: { $gte: since } } },
        { $group: { _id: '$wasNew', count: { $sum: 1 } } }
      ]).toArray()
      const countOf = (wasNew: boolean): number => groups.find((group) => group._id === wasNew)?.count ?? 0
      return { newCards: countOf(true), reviews: countOf(false) }
    },

    /**
     * Reviews and XP per user-day from `from` through `to`. Index user_day.
     * One accumulator per $group: FerretDB 1.24 computes only the first of
     * several (the others come back 0), so XP is grouped by its value and counted.
     */
    async activityByDay (userID: string, from: LocalDay, to: LocalDay): Promise<ActivityByDay> {
      const groups = await reviews.aggregate<{ _id: { day: LocalDay, xp: number }, count: number }>([
        { $match: { userID, status: 'done', day: { $gte: from, $lte: to } } },
        { $group: { _id: { day: '$day', xp: '$xp' }, count: { $sum: 1 } } }
      ]).toArray()
      const activity = new Map<LocalDay, { reviews: number, xp: number }>()
      for (const { _id: { day, xp }, count } of groups) {
        const total = activity.get(day) ?? { reviews: 0, xp: 0 }
        total.reviews += count
        total.xp += xp * count
        activity.set(day, total)
      }
      return activity
    },

    /**
     * The user's most recent finished review: the one undo takes back. Reviews
     * of one instant (an injected clock) are told apart by their claim time.
     * Index user_reviewedAt.
     */
    lastDone (userID: string): Promise<ReviewDocument | null> {
      return reviews.findOne({ userID, status: 'done' }, { sort: { reviewedAt: -1, claimedAt: -1, _id: -1 } })
    },

    /**
     * The review that left a card in `schedule`, finished or still pending:
     * a review's `now` becomes the card's lastReview and every review adds one
     * to reps, so the pair names it. Index user_reviewedAt.
     */
    producing (userID: string, cardID: string, schedule: CardSchedule): Promise<ReviewDocument | null> {
      if (schedule.lastReview === null) return Promise.resolve(null)
      return reviews.findOne({ userID, reviewedAt: schedule.lastReview, cardID, 'after.reps': schedule.reps })
    },

    /** Drops a finished review from the log; false when it was already gone. */
    async remove (id: string): Promise<boolean> {
      const result = await reviews.deleteOne({ _id: id, status: 'done' })
      return result.deletedCount === 1
    }
  }
}

export type ReviewsRepository = ReturnType<typeof reviewsRepository>
