// Today's cards as a study queue: get-today-cards says which cards, get-flashcard
// (once per flashcard) gives their texts.
import { ApiError, callApi } from './api.js'
import type { CardDetails, Flashcard, TextFormat, TreeFlashcard, TreeFolder } from './api-types.js'

export interface StudyCard {
  flashcardID: string
  flashcardName: string
  folder: string[]
  cardID: string
  /** the sides to show, as the service rendered them (sanitized, media as signed addresses) */
  frontHtml: string
  backHtml: string
  format: TextFormat
  /** true for a card of a cloze note: its back shows the whole text, in place of the front */
  cloze: boolean
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
  const flashcards = flashcardsIn(await callApi('get-today-cards', {}))
  // a flashcard deleted between the two calls is simply not studied, nor are its cards
  const details = await inBatches(flashcards, PARALLEL_REQUESTS, (flashcard) => unlessGone(callApi('get-flashcard', { flashcardID: flashcard.flashcardID })))

  const reviews: StudyCard[] = []
  const newCards: StudyCard[] = []
  flashcards.forEach((flashcard, index) => {
    const detail = details[index]
    if (detail === undefined) return
    // today's cards of the flashcard; one deleted between the two calls is simply not studied
    for (const card of detail.cards) {
      const today = flashcard.cards[card.cardID]
      if (today === undefined) continue
      if (today.review_status === '0.0') newCards.push(studyCard(detail, card))
      else reviews.push(studyCard(detail, card))
    }
  })
  // as the service picks them: cards seen before, most overdue first, then new cards in
  // creation order (a new card is due from its creation; the sort keeps ties in place)
  const byDue = (a: StudyCard, b: StudyCard) => a.dueAt - b.dueAt
  return [...reviews.sort(byDue), ...newCards.sort(byDue)]
}

/**
 * One card to study again, as it is now (an undo brings back a card the page may no longer
 * hold); undefined when the card or its flashcard has been deleted since.
 */
export async function loadStudyCard (flashcardID: string, cardID: string): Promise<StudyCard | undefined> {
  const flashcard = await unlessGone(callApi('get-flashcard', { flashcardID }))
  const card = flashcard?.cards.find((candidate) => candidate.cardID === cardID)
  return flashcard === undefined || card === undefined ? undefined : studyCard(flashcard, card)
}

/** The flashcard, or undefined when the service no longer has it (flashcard_not_found: deleted meanwhile). */
async function unlessGone (request: Promise<Flashcard>): Promise<Flashcard | undefined> {
  try {
    return await request
  } catch (error) {
    if (error instanceof ApiError && error.code === 'flashcard_not_found') return undefined
    throw error
  }
}

function studyCard (flashcard: Flashcard, card: CardDetails): StudyCard {
  return {
    flashcardID: flashcard.flashcardID,
    flashcardName: flashcard.flashcardName,
    folder: flashcard.folder,
    cardID: card.cardID,
    frontHtml: card.frontHtml,
    backHtml: card.backHtml,
    format: card.format,
    cloze: card.clozeNumber !== undefined,
    dueAt: Date.parse(card.due)
  }
}

const FLASHCARD_MEMBERS = ['cards', 'flashcardID', 'flashcardName']

/**
 * A flashcard of the published tree is an object with exactly the members cards,
 * flashcardID and flashcardName; any other object is a folder keyed by its name.
 */
function isFlashcard (node: TreeFolder | TreeFlashcard): node is TreeFlashcard {
  const members = Object.keys(node)
  return members.length === FLASHCARD_MEMBERS.length && FLASHCARD_MEMBERS.every((name) => members.includes(name)) &&
    typeof node.flashcardID === 'string'
}

/** Every flashcard of a published tree, however deep. */
function flashcardsIn (folder: TreeFolder): TreeFlashcard[] {
  return Object.values(folder).flatMap((child) => isFlashcard(child) ? [child] : flashcardsIn(child))
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
