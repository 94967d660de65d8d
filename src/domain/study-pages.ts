/**
 * Pages of the study queue (get-study-queue): the order its cards come in, and
 * the cursor that says where the next page begins.
 *
 * The queue is its learning and review cards by (due, createdOrder), then its
 * new cards by their card type, then the same (Anki's default order of new
 * cards, "card type, then order gathered": the first card of each note, then
 * the second, so that the cards of a note come apart), each tie by card id:
 * one order with no ties. Which new cards are today's is decided before, in
 * creation order; this is only the order they come in. A cursor
 * is the place of a page's last card, and the next page is the cards of the
 * queue after that place as the queue is when it is asked for. The cards a
 * learner holds unanswered stay before the place, so they never come again;
 * none after it is left out, whatever was answered meanwhile. A card answered
 * leaves the queue, unless it is due again today: then it is a learning card
 * due in minutes, and comes again on a later page when its new place is past
 * the cursor, as it would in a first page read then.
 *
 * A cursor belongs to the user's day it was given on: on another day the
 * queue is another, whose cards due today may lie before the place, so the
 * answer is that day's first page.
 */
import { isId } from './ids.js'
import { Refusal } from './refusals.js'
import { decodeCursor, encodeCursor } from './cursors.js'

/** The two parts of the queue, in the order they come: learning and review cards, then new cards. */
export type QueuePart = 'due' | 'new'

/**
 * A card's place in the study queue's order; `type` is its card type (Anki's
 * template ordinal) for a new card, 0 for the others.
 */
export interface StudyPlace { part: QueuePart, type: number, due: number, createdOrder: number, cardID: string }

/** Which card of its note a card is, as Anki numbers them from 0: a cloze card's number less one, an imported card's template, 0 for a card of one side. */
export function cardTypeOf (card: { clozeNumber?: number, ankiOrd?: number }): number {
  return card.clozeNumber !== undefined ? card.clozeNumber - 1 : card.ankiOrd ?? 0
}

/** The place of a card of the queue's `part`. */
export function studyPlaceOf (part: QueuePart, card: { _id: string, due: Date, createdOrder: number, clozeNumber?: number, ankiOrd?: number }): StudyPlace {
  return { part, type: part === 'new' ? cardTypeOf(card) : 0, due: card.due.getTime(), createdOrder: card.createdOrder, cardID: card._id }
}

/** The order of two places: negative when `a` comes first. */
export function compareStudyPlaces (a: StudyPlace, b: StudyPlace): number {
  if (a.part !== b.part) return a.part === 'due' ? -1 : 1
  return a.type - b.type || a.due - b.due || a.createdOrder - b.createdOrder || (a.cardID < b.cardID ? -1 : a.cardID > b.cardID ? 1 : 0)
}

/** What a cursor pages through: the study queue of the whole library, of one folder or of one flashcard. */
export function studyPagesOf (scope: { folderID?: string, flashcardID?: string }): string {
  if (scope.folderID !== undefined) return `study:folder:${scope.folderID}`
  if (scope.flashcardID !== undefined) return `study:flashcard:${scope.flashcardID}`
  return 'study'
}

/**
 * The cursor of the page after `last`, given on the user's day starting at
 * `dayStart`: opaque to the client (base64url of a small JSON). It holds no
 * user: it only narrows the caller's own read.
 */
export function studyCursorAfter (of: string, dayStart: Date, last: StudyPlace): string {
  const after = [last.part, last.due, last.createdOrder, last.cardID, last.type]
  return encodeCursor({ of, day: dayStart.getTime(), after })
}

function notACursor (what: string): Refusal {
  return new Refusal('invalid_field',
    `body.cursor is not ${what}: send the nextCursor of the previous answer as it came, or no cursor for the first page`)
}

/** What a cursor says: the user's day it was given on (the instant it starts), and the place its page ended. */
export interface StudyCursor { day: number, after: StudyPlace }

/**
 * What a cursor given for `of` says; refused with invalid_field when it is not
 * a cursor of this service, or one of another part of the library. Read before
 * the queue is, so that a cursor refused changes nothing.
 */
export function readStudyCursor (cursor: string, of: string): StudyCursor {
  const read = decodeCursor(cursor)
  if (read === null) throw notACursor('a cursor this service gave')
  const { of: pagesOf, day, after, ...rest } = read
  if (typeof pagesOf === 'string' && pagesOf !== of) throw notACursor('a cursor of get-study-queue for this part of the library')
  // a cursor given before new cards came by card type has no type: 0, where every card was then
  const [part, due, createdOrder, cardID, type = 0, ...more] = Array.isArray(after) ? after as unknown[] : []
  if (typeof pagesOf !== 'string' || typeof day !== 'number' || !Number.isFinite(day) || (part !== 'due' && part !== 'new') ||
    typeof due !== 'number' || !Number.isFinite(due) || typeof createdOrder !== 'number' || !Number.isFinite(createdOrder) ||
    !isId(cardID) || typeof type !== 'number' || !Number.isSafeInteger(type) || type < 0 || more.length > 0 || Object.keys(rest).length > 0) {
    throw notACursor('a cursor this service gave')
  }
  return { day, after: { part, type, due, createdOrder, cardID } }
}

/** Where the page asked for starts on the user's day starting at `dayStart`: after the cursor's place, or, for none or one of another day, at the queue's head. */
export function resumeAfter (cursor: StudyCursor | null, dayStart: Date): StudyPlace | null {
  return cursor !== null && cursor.day === dayStart.getTime() ? cursor.after : null
}
