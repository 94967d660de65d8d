import type { ClientSession, Db } from 'mongodb'
import type { HistoryEntry } from '../domain/anki-import.js'
import type { Rating } from '../domain/scheduling.js'

/** What fitting reads of an imported review: its row's Anki kind and ease, as anki-revlog.ts's kindOfAnkiEntry reads them. */
export interface ImportedAnswerVisitor {
  (cardID: string, reviewedAt: number, day: string, rating: Rating | null, row: Pick<HistoryEntry, 'kind' | 'factor'>): void
}

/**
 * The review history an Anki import brought for one card: every row of Anki's log for it (its
 * answers, and its manual changes with no rating), oldest first, in one document. The user's own reviews are one document each (reviews.ts), as
 * review-card, undo and retries need; an imported history is only ever read whole (by fitting and
 * by export-anki), and one document a card instead of one a review is what lets a million rows be
 * imported in a minute. A history is the user's once its import is done (`keptImports`): while
 * the import runs, or when it failed, nothing reads it.
 */
export interface ReviewHistoryDocument {
  /** the card's id */
  _id: string
  userID: string
  flashcardID: string
  importID: string
  reviews: HistoryEntry[]
}

export function reviewHistoriesRepository (db: Db, session?: ClientSession) {
  const histories = db.collection<ReviewHistoryDocument>('reviewHistories')
  const inSession = { session }
  return {
    async insertMany (documents: ReviewHistoryDocument[]): Promise<void> {
      if (documents.length > 0) await histories.insertMany(documents, { ordered: false, session })
    },

    /**
     * Hands each imported row of the imports `importIDs` to `visit`, with what fitting reads (the
     * row's kind and ease tell a cram answer from a review, and a forget from a due date set by
     * hand, as Anki's training tells them), card by card. Index user_import.
     */
    async visitImported (userID: string, importIDs: readonly string[], batchSize: number, visit: ImportedAnswerVisitor): Promise<void> {
      if (importIDs.length === 0) return
      const documents = histories.find({ userID, importID: { $in: [...importIDs] } }, {
        projection: { _id: 1, 'reviews.reviewedAt': 1, 'reviews.day': 1, 'reviews.rating': 1, 'reviews.kind': 1, 'reviews.factor': 1 },
        // a history holds about ten reviews: a batch of about `batchSize` reviews, each read on the event loop
        batchSize: Math.max(1, Math.ceil(batchSize / 10)),
        session
      })
      for await (const history of documents) {
        for (const review of history.reviews) visit(history._id, review.reviewedAt.getTime(), review.day, review.rating, review)
      }
    },

    /** The histories of the imports `importIDs`, one card at a time as the cursor reads them. Index user_import. */
    ofImports (userID: string, importIDs: readonly string[]): AsyncIterable<ReviewHistoryDocument> {
      return histories.find({ userID, importID: { $in: [...importIDs] } }, { session })
    },

    /** Removes the histories an import wrote, for an import that is not kept. Index user_import. */
    async removeImport (userID: string, importID: string): Promise<number> {
      return (await histories.deleteMany({ userID, importID }, inSession)).deletedCount
    }
  }
}

export type ReviewHistoriesRepository = ReturnType<typeof reviewHistoriesRepository>
