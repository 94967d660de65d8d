import type { Db } from 'mongodb'
import type { CardSchedule } from '../domain/scheduling.js'

export interface CardDocument extends CardSchedule {
  _id: string
  userID: string
  flashcardID: string
  front: string
  back: string
  /** mirrors state === New; the queues' indexes lead with it */
  isNew: boolean
  /** creation order, for the new-card queue (time in ms x 1000 + position in its batch) */
  createdOrder: number
  createdAt: Date
  /** bumped by every review: a review only applies to the version it was computed from */
  version: number
  lastReviewID: string | null
}

/** What a tree of today's cards needs of a card. */
export type QueuedCard = Pick<CardDocument, '_id' | 'flashcardID' | 'state' | 'scheduledDays' | 'learningSteps' | 'lastReview' | 'createdAt' | 'due' | 'reps' | 'lapses' | 'stability' | 'difficulty' | 'elapsedDays'>

const QUEUE_PROJECTION = {
  _id: 1, flashcardID: 1, state: 1, scheduledDays: 1, learningSteps: 1, lastReview: 1, createdAt: 1, due: 1,
  reps: 1, lapses: 1, stability: 1, difficulty: 1, elapsedDays: 1
} as const

export function cardsRepository (db: Db) {
  const cards = db.collection<CardDocument>('cards')
  return {
    async insertMany (documents: CardDocument[]): Promise<void> {
      if (documents.length > 0) await cards.insertMany(documents, { ordered: true })
    },

    async removeByFlashcard (userID: string, flashcardID: string): Promise<void> {
      await cards.deleteMany({ userID, flashcardID })
    },

    /** The cards of one flashcard in creation order. Index user_flashcard. */
    byFlashcard (userID: string, flashcardID: string): Promise<CardDocument[]> {
      return cards.find({ userID, flashcardID }).sort({ createdOrder: 1, _id: 1 }).toArray()
    },

    findOne (userID: string, flashcardID: string, cardID: string): Promise<CardDocument | null> {
      return cards.findOne({ _id: cardID, userID, flashcardID })
    },

    /**
     * Applies a review computed from `expectedVersion`; false when another
     * review got there first (the caller recomputes from the fresh card).
     */
    async applyReview (card: CardDocument, schedule: CardSchedule, reviewID: string): Promise<boolean> {
      const result = await cards.updateOne(
        { _id: card._id, userID: card.userID, version: card.version },
        { $set: { ...schedule, isNew: false, lastReviewID: reviewID, version: card.version + 1 } }
      )
      return result.matchedCount === 1
    },

    /** Learning and review cards due before `dueBefore`, most overdue first. Index user_queue_due. */
    dueQueue (userID: string, dueBefore: Date, limit: number): Promise<QueuedCard[]> {
      if (limit <= 0) return Promise.resolve([])
      return cards.aggregate<QueuedCard>([
        { $match: { userID, isNew: false, due: { $lt: dueBefore } } },
        { $sort: { due: 1, _id: 1 } },
        { $limit: limit },
        { $project: QUEUE_PROJECTION }
      ]).toArray()
    },

    /** New cards in creation order. Index user_queue_order. */
    newQueue (userID: string, limit: number): Promise<QueuedCard[]> {
      if (limit <= 0) return Promise.resolve([])
      return cards.aggregate<QueuedCard>([
        { $match: { userID, isNew: true } },
        { $sort: { createdOrder: 1, _id: 1 } },
        { $limit: limit },
        { $project: QUEUE_PROJECTION }
      ]).toArray()
    },

    all (userID: string): Promise<QueuedCard[]> {
      return cards.find({ userID }, { projection: QUEUE_PROJECTION }).toArray()
    }
  }
}

export type CardsRepository = ReturnType<typeof cardsRepository>
