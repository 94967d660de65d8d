import type { ClientSession, Db } from 'mongodb'
import { CardState, type CardSchedule } from '../domain/scheduling.js'
import { oneBatch } from './batches.js'

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
export type QueuedCard = Pick<CardDocument, '_id' | 'flashcardID' | 'state' | 'scheduledDays' | 'learningSteps' | 'lastReview' | 'createdAt'>

// only what a tree needs: every field less is less to decode for each of hundreds of cards
const QUEUE_PROJECTION = {
  _id: 1, flashcardID: 1, state: 1, scheduledDays: 1, learningSteps: 1, lastReview: 1, createdAt: 1
} as const

export function cardsRepository (db: Db, session?: ClientSession) {
  const cards = db.collection<CardDocument>('cards')
  const inSession = { session }
  return {
    async insertMany (documents: CardDocument[]): Promise<void> {
      if (documents.length > 0) await cards.insertMany(documents, { ordered: true, session })
    },

    /** Removes every card of the flashcards asked for; how many there were. Index user_flashcard. */
    async removeByFlashcards (userID: string, flashcardIDs: readonly string[]): Promise<number> {
      if (flashcardIDs.length === 0) return 0
      return (await cards.deleteMany({ userID, flashcardID: { $in: [...flashcardIDs] } }, inSession)).deletedCount
    },

    /** Removes the cards asked for from one flashcard; how many there were. */
    async removeCards (userID: string, flashcardID: string, cardIDs: readonly string[]): Promise<number> {
      if (cardIDs.length === 0) return 0
      return (await cards.deleteMany({ userID, flashcardID, _id: { $in: [...cardIDs] } }, inSession)).deletedCount
    },

    /** Changes the text of a card and leaves its schedule alone; the card as it now is, or null when there is no such card. */
    editText (userID: string, flashcardID: string, cardID: string, text: { front?: string, back?: string }): Promise<CardDocument | null> {
      return cards.findOneAndUpdate({ _id: cardID, userID, flashcardID }, { $set: text }, { returnDocument: 'after', session })
    },

    /** The cards of one flashcard in creation order. Index user_flashcard. */
    byFlashcard (userID: string, flashcardID: string): Promise<CardDocument[]> {
      return cards.find({ userID, flashcardID }, inSession).sort({ createdOrder: 1, _id: 1 }).toArray()
    },

    /** The creation order of the newest card of a flashcard, or null for one without cards. Index user_flashcard. */
    async lastCreatedOrder (userID: string, flashcardID: string): Promise<number | null> {
      const [last] = await cards.find({ userID, flashcardID }, { projection: { createdOrder: 1 }, session }).sort({ createdOrder: -1 }).limit(1).toArray()
      return last?.createdOrder ?? null
    },

    findOne (userID: string, flashcardID: string, cardID: string): Promise<CardDocument | null> {
      return cards.findOne({ _id: cardID, userID, flashcardID }, inSession)
    },

    /**
     * Applies a review computed from the card as read (its version): false
     * when the card changed since. In a transaction a concurrent change is a
     * write conflict and the transaction runs again; the version guards the
     * card outside one too.
     */
    async applyReview (card: CardDocument, schedule: CardSchedule, reviewID: string): Promise<boolean> {
      const result = await cards.updateOne(
        { _id: card._id, userID: card.userID, version: card.version },
        { $set: { ...schedule, isNew: false, lastReviewID: reviewID, version: card.version + 1 } },
        inSession
      )
      return result.matchedCount === 1
    },

    /** Puts back the schedule a card had before its last review (undo), only while the card is as read: false otherwise. */
    async restoreSchedule (card: CardDocument, schedule: CardSchedule, lastReviewID: string | null): Promise<boolean> {
      const result = await cards.updateOne(
        { _id: card._id, userID: card.userID, version: card.version, lastReviewID: card.lastReviewID },
        { $set: { ...schedule, isNew: schedule.state === CardState.New, lastReviewID, version: card.version + 1 } },
        inSession
      )
      return result.matchedCount === 1
    },

    findById (userID: string, cardID: string): Promise<CardDocument | null> {
      return cards.findOne({ _id: cardID, userID }, inSession)
    },

    /** How many cards each of the user's flashcards holds (those with none are absent). Index user_flashcard. */
    async countByFlashcard (userID: string): Promise<Map<string, number>> {
      const groups = await cards.aggregate<{ _id: string, count: number }>([
        { $match: { userID } },
        { $group: { _id: '$flashcardID', count: { $sum: 1 } } }
      ], inSession).toArray()
      return new Map(groups.map((group) => [group._id, group.count]))
    },

    /** How many cards the user has in each state. Index user_flashcard (prefix). */
    async countByState (userID: string): Promise<Array<{ state: number, count: number }>> {
      const groups = await cards.aggregate<{ _id: number, count: number }>([
        { $match: { userID } },
        { $group: { _id: '$state', count: { $sum: 1 } } }
      ], inSession).toArray()
      return groups.map((group) => ({ state: group._id, count: group.count }))
    },

    /**
     * Today's cards: learning and review cards due before `dueBefore`, most
     * overdue first, then new cards in creation order, each within its
     * allowance. Two queries side by side, each a range of index user_queue:
     * one query with $or would make the embedded database scan the collection.
     */
    async todayQueue (userID: string, dueBefore: Date, allowance: { reviews: number, newCards: number }): Promise<QueuedCard[]> {
      const [due, fresh] = await Promise.all([
        this.dueQueue(userID, dueBefore, allowance.reviews),
        this.newQueue(userID, allowance.newCards)
      ])
      return [...due, ...fresh]
    },

    /** Learning and review cards due before `dueBefore`, most overdue first. Index user_queue. */
    async dueQueue (userID: string, dueBefore: Date, limit: number): Promise<QueuedCard[]> {
      if (limit <= 0) return []
      return await cards.aggregate<QueuedCard>([
        { $match: { userID, isNew: false, due: { $lt: dueBefore } } },
        // every due card is sorted (the embedded database does not sort from the index):
        // cut down to what the tree and the sort need first, as few bytes to sort as can be
        { $project: { ...QUEUE_PROJECTION, due: 1, createdOrder: 1 } },
        { $sort: { due: 1, createdOrder: 1 } },
        { $limit: limit }
      ], { ...oneBatch(limit), session }).toArray()
    },

    /** New cards in creation order (a new card is due from its creation). Index user_queue. */
    async newQueue (userID: string, limit: number): Promise<QueuedCard[]> {
      if (limit <= 0) return []
      return await cards.aggregate<QueuedCard>([
        { $match: { userID, isNew: true } },
        { $sort: { due: 1, createdOrder: 1 } },
        { $limit: limit },
        { $project: QUEUE_PROJECTION }
      ], { ...oneBatch(limit), session }).toArray()
    },

    /**
     * Every card of the flashcards given, in creation order. Sorted here: no
     * index gives a user's cards in that order, so the database would sort
     * them in memory too, and slower. The flashcards are split in two halves
     * read side by side: the embedded database answers each on a core of its
     * own. Index user_flashcard.
     */
    async ofFlashcards (userID: string, flashcardIDs: readonly string[]): Promise<QueuedCard[]> {
      const half = Math.ceil(flashcardIDs.length / 2)
      const halves = [flashcardIDs.slice(0, half), flashcardIDs.slice(half)].filter((part) => part.length > 0)
      const found = (await Promise.all(halves.map(async (part) => await cards.find(
        { userID, flashcardID: { $in: [...part] } },
        // in one batch each (the server still caps one at 16 MiB)
        { projection: { ...QUEUE_PROJECTION, createdOrder: 1 }, ...oneBatch(100_000), session }
      ).toArray()))).flat()
      return found.sort((a, b) => a.createdOrder - b.createdOrder || (a._id < b._id ? -1 : a._id > b._id ? 1 : 0))
    }
  }
}

export type CardsRepository = ReturnType<typeof cardsRepository>
