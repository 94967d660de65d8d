import type { ClientSession, Db } from 'mongodb'
import type { LocalDay } from '../domain/calendar.js'
import type { CardSchedule, Rating } from '../domain/scheduling.js'
import { refusingDuplicates } from './duplicate-key.js'
import { visitLoggedAnswer, type LoggedAnswerVisitor } from './logged-answers.js'

/** A review whose reviewID the user's log holds already: a retry of a review stored before, or the key reused. */
export class ReviewIDTakenError extends Error {
  override name = 'ReviewIDTakenError'
  constructor (readonly reviewID: string) { super(`reviewID ${reviewID} is in the log already`) }
}

/**
 * The answer a review gave, kept so that a retry with the same reviewID gets it again.
 * Storage, not the wire type (schemas/study.ts's ReviewAnswer): it is what older
 * documents hold, so a change of the answer must say how they are answered.
 */
export interface StoredReviewAnswer {
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
  /** the account's review count once this one was recorded: orders reviews of one instant */
  seq: number
  answer: StoredReviewAnswer
  /** the siblings this answer buried (services/study.ts), and until when: what undo puts back; absent when it buried none */
  buriedSiblings?: { cardIDs: string[], until: Date }
  /**
   * set on reviews an Anki import wrote one by one, before imports kept each card's history in one
   * document (review-histories.ts): history, never taken back by undo
   */
  importID?: string
}

/** What an Anki export reads of a review. */
export type ExportReview = Pick<ReviewDocument, 'cardID' | 'rating' | 'reviewedAt' | 'before' | 'after'>

export function reviewsRepository (db: Db, session?: ClientSession) {
  const reviews = db.collection<ReviewDocument>('reviews')
  const inSession = { session }
  return {
    /** Throws a duplicate key error (11000) when the user has a review of this reviewID already. */
    /** Adds a review to the log; a reviewID the user's log holds already is a ReviewIDTakenError. */
    async insert (review: ReviewDocument): Promise<void> {
      await refusingDuplicates(() => reviews.insertOne(review, inSession), () => new ReviewIDTakenError(review.reviewID))
    },

    /** Index user_reviewID_unique. */
    findByReviewID (userID: string, reviewID: string): Promise<ReviewDocument | null> {
      return reviews.findOne({ userID, reviewID }, inSession)
    },

    /** Reviews since `since`, split into new cards started and the rest. Index user_reviewedAt_seq. */
    async countSince (userID: string, since: Date): Promise<{ newCards: number, reviews: number }> {
      const groups = await reviews.aggregate<{ _id: boolean, count: number }>([
        { $match: { userID, reviewedAt: { $gte: since } } },
        { $group: { _id: '$wasNew', count: { $sum: 1 } } }
      ], inSession).toArray()
      const countOf = (wasNew: boolean): number => groups.find((group) => group._id === wasNew)?.count ?? 0
      return { newCards: countOf(true), reviews: countOf(false) }
    },

    /**
     * The user's most recent review: the one undo takes back. Looked for
     * among the reviews since `recentSince` first (the start of the day of
     * the user's latest review, usually): the engine reads every review the
     * filter matches, even for one, so the whole log is read only when
     * nothing recent is there. Index user_reviewedAt_seq.
     */
    async latest (userID: string, recentSince?: Date): Promise<ReviewDocument | null> {
      const latest = { sort: { reviewedAt: -1, seq: -1 }, session } as const
      // reviews imported from Anki are history, not answers to take back
      const own = { importID: { $exists: false } }
      const recent = recentSince === undefined ? null : await reviews.findOne({ userID, reviewedAt: { $gte: recentSince }, ...own }, latest)
      return recent ?? await reviews.findOne({ userID, ...own }, latest)
    },

    /**
     * The review that left a card in `schedule`: a review's `now` becomes the
     * card's lastReview and every review adds one to reps, so the pair names
     * it. Index user_reviewedAt_seq.
     */
    producerOf (userID: string, cardID: string, schedule: CardSchedule): Promise<ReviewDocument | null> {
      if (schedule.lastReview === null) return Promise.resolve(null)
      return reviews.findOne({ userID, reviewedAt: schedule.lastReview, cardID, 'after.reps': schedule.reps }, inSession)
    },

    /**
     * Hands each review of the user's whole log to `visit`, with only what
     * fitting parameters reads, in no particular order (fitting orders each
     * card's reviews itself, and a sort costs the database more). The
     * documents come as BSON and only those values are picked out of them
     * (logged-answers.ts); each batch is read on the event loop, so
     * `batchSize` keeps every stretch of it short. Index user_reviewedAt_seq
     * (its prefix).
     */
    async visitWholeLog (userID: string, batchSize: number, visit: LoggedAnswerVisitor): Promise<void> {
      const documents = reviews.find({ userID }, {
        projection: { _id: 0, cardID: 1, reviewedAt: 1, day: 1, rating: 1, 'before.state': 1 },
        batchSize,
        raw: true,
        session
      })
      for await (const document of documents) visitLoggedAnswer(document as unknown as Uint8Array, visit)
    },

    /**
     * The user's whole review log, oldest first, one review at a time as the
     * cursor reads it, with what an Anki export writes of each. Index
     * user_reviewedAt_seq.
     */
    allOf (userID: string): AsyncIterable<ExportReview> {
      return reviews.find({ userID }, { projection: { _id: 0, cardID: 1, rating: 1, reviewedAt: 1, before: 1, after: 1 }, sort: { reviewedAt: 1, seq: 1 }, session })
    },

    /** Drops a review from the log; false when it was already gone. */
    async remove (id: string): Promise<boolean> {
      const result = await reviews.deleteOne({ _id: id }, inSession)
      return result.deletedCount === 1
    }
  }
}

export type ReviewsRepository = ReturnType<typeof reviewsRepository>
