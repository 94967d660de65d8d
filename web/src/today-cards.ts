// Today's cards as a study queue: get-today-cards says which cards, get-flashcard
// (once per flashcard) gives their texts.
import { callApi } from './api.js'
import type { Flashcard } from './api-types.js'
import { allFlashcards, readTree } from './library-tree.js'

export interface StudyCard {
  flashcardID: string
  flashcardName: string
  folder: string[]
  cardID: string
  front: string
  back: string
  /** when the card is due (ms since the epoch); new cards are due from their creation */
  dueAt: number
  /**
   * The retry key of the answer being sent for this showing of the card. Made at the
   * first attempt and kept until the service confirms, so a retry after a lost answer
   * sends the same key and the service counts the review once.
   */
  reviewID?: string
}

/** get-flashcard calls at once: the service serves a user 16 requests at a time */
const PARALLEL_REQUESTS = 4

export async function loadTodayCards (): Promise<StudyCard[]> {
  const flashcards = allFlashcards(readTree(await callApi('get-today-cards', {})))
  const details = await inBatches(flashcards, PARALLEL_REQUESTS, (flashcard) => callApi('get-flashcard', { flashcardID: flashcard.flashcardID }))

  const reviews: StudyCard[] = []
  const newCards: StudyCard[] = []
  flashcards.forEach((flashcard, index) => {
    const texts = new Map((details[index] as Flashcard).cards.map((card) => [card.cardID, card]))
    for (const { cardID, review_status: status } of flashcard.cards) {
      const card = texts.get(cardID)
      // a card deleted between the two calls is simply not studied
      if (card === undefined) continue
      const studyCard = {
        flashcardID: flashcard.flashcardID,
        flashcardName: flashcard.flashcardName,
        folder: flashcard.folder,
        cardID,
        front: card.front,
        back: card.back,
        dueAt: Date.parse(card.due)
      }
      if (status === '0.0') newCards.push(studyCard)
      else reviews.push(studyCard)
    }
  })
  // as the service picks them: cards seen before, most overdue first, then new cards in creation order
  reviews.sort((a, b) => a.dueAt - b.dueAt)
  return [...reviews, ...newCards]
}

async function inBatches<T, R> (items: T[], size: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = []
  for (let start = 0; start < items.length; start += size) {
    results.push(...await Promise.all(items.slice(start, start + size).map(work)))
  }
  return results
}

/**
 * A fresh retry key for review-card. crypto.randomUUID exists only on secure pages
 * (https, localhost); getRandomValues works everywhere. 32 hex digits fit the
 * service's rule for reviewID: 1-100 printable ASCII characters without spaces.
 */
export function newReviewID (): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, '0')).join('')
}
