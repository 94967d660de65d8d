// Today's cards as a study queue: get-study-queue gives them, in order, with their texts;
// get-flashcard reads one card again, by its id (an undo brings back a card the page may no longer hold).
import { ApiError, callApi } from './api.js'
import type { CardDetails, Flashcard, TextFormat } from './api-types.js'

/** Where a card stands in its learning, as Anki counts today's cards: new, learning (or relearning), review. */
export type CardState = 'new' | 'learning' | 'review'

/** The state a review_status says: "0.0" never reviewed, "0.N" at learning step N, "D.0" in review every D days. */
export function stateOf (reviewStatus: string): CardState {
  if (reviewStatus === '0.0') return 'new'
  return reviewStatus.startsWith('0.') ? 'learning' : 'review'
}

export interface StudyCard {
  flashcardID: string
  flashcardName: string
  folder: string[]
  cardID: string
  /** the sides as written (a cloze note's text and extra), for the card's editor */
  front: string
  back: string
  /** the sides to show, as the service rendered them (sanitized, media as signed addresses) */
  frontHtml: string
  backHtml: string
  format: TextFormat
  /** true for a card of a cloze note: its back shows the whole text, in place of the front */
  cloze: boolean
  /** when the card is due (ms since the epoch); new cards are due from their creation */
  dueAt: number
  /** where it stands now, for the counts of the study header */
  state: CardState
  /** Anki's flag: 0 none, 1-7 red, orange, green, blue, pink, turquoise, purple */
  flag: number
  /** the note type an Anki import made it from, whose CSS styles it (note-type-styles.ts) */
  noteTypeID?: string
  /** the note the card is made from, for a card of an Anki import's note (edited with edit-note) */
  noteID?: string
  /**
   * The retry key of the answer being sent for this showing of the card. Made at the
   * first attempt and kept until the service confirms, so a retry after a lost answer
   * sends the same key and the service counts the review once.
   */
  reviewID?: string
  /** true while an answer to this card given offline waits to be sent: the service's due for it is not known */
  waitingOffline?: boolean
}

/** What a sitting studies: the whole library, one folder with everything below it, or one deck. */
export type StudyScope = { kind: 'all' } | { kind: 'folder', folderID: string } | { kind: 'deck', flashcardID: string }

export function sameScope (a: StudyScope, b: StudyScope): boolean {
  if (a.kind === 'folder' && b.kind === 'folder') return a.folderID === b.folderID
  if (a.kind === 'deck' && b.kind === 'deck') return a.flashcardID === b.flashcardID
  return a.kind === b.kind
}

/** A page of today's cards: the cards, and while more follow, how many of each state and where they go on. */
export interface StudyQueuePage {
  cards: StudyCard[]
  /** the cards of the queue after this page's, by state: none on the last page */
  later: Record<CardState, number>
  /** present while more follow: the cursor that asks for them */
  nextCursor?: string
}

/**
 * A page of today's cards of `scope` in the order to study them, with their content, from
 * one get-study-queue: learning and review cards most overdue first, then new cards. The
 * first page, or with `cursor` the cards of the queue after those the page was given.
 */
export async function loadStudyQueue (scope: StudyScope, cursor?: string): Promise<StudyQueuePage> {
  const queue = await callApi('get-study-queue', {
    ...(scope.kind === 'folder' ? { folderID: scope.folderID } : scope.kind === 'deck' ? { flashcardID: scope.flashcardID } : {}),
    ...(cursor === undefined ? {} : { cursor })
  })
  const later = queue.countsAfter
  return {
    cards: queue.cards.map((card) => ({ ...studyCard({ flashcardID: card.flashcardID, flashcardName: card.flashcardName, folder: card.folder }, card), state: card.queue })),
    later: { new: Number(later?.new ?? 0), learning: Number(later?.learning ?? 0), review: Number(later?.review ?? 0) },
    ...(queue.nextCursor === undefined ? {} : { nextCursor: queue.nextCursor })
  }
}

/**
 * One card to study again, as it is now (an undo brings back a card the page may no longer
 * hold); undefined when the card or its flashcard has been deleted since.
 */
export async function loadStudyCard (flashcardID: string, cardID: string): Promise<StudyCard | undefined> {
  // that card alone: the flashcard's pages could hold thousands of others before it
  const flashcard = await unlessGone(callApi('get-flashcard', { flashcardID, cardIDs: [cardID] }))
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

export function studyCard (flashcard: Pick<Flashcard, 'flashcardID' | 'flashcardName' | 'folder'>, card: CardDetails): StudyCard {
  return {
    flashcardID: flashcard.flashcardID,
    flashcardName: flashcard.flashcardName,
    folder: flashcard.folder,
    cardID: card.cardID,
    front: card.front,
    back: card.back,
    frontHtml: card.frontHtml,
    backHtml: card.backHtml,
    format: card.format,
    cloze: card.clozeNumber !== undefined,
    dueAt: Date.parse(card.due),
    state: stateOf(card.review_status),
    flag: Number(card.flag),
    ...(card.noteTypeID === undefined ? {} : { noteTypeID: card.noteTypeID }),
    ...(card.noteID === undefined || card.noteTypeID === undefined ? {} : { noteID: card.noteID })
  }
}

/**
 * A fresh retry key for review-card. crypto.randomUUID exists only on secure pages
 * (https, localhost); getRandomValues works everywhere. 32 hex digits fit the
 * service's rule for reviewID: 1-100 printable ASCII characters without spaces.
 */
export function newReviewID (): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, '0')).join('')
}
