/**
 * Pages of the study queue (get-study-queue): the order its cards come in, and
 * the cursor that says where the next page begins.
 *
 * The queue is its learning and review cards by (due, createdOrder), then its
 * new cards by the same, each tie by card id: one order with no ties. A cursor
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

/** A card's place in the study queue's order. */
export interface StudyPlace { part: QueuePart, due: number, createdOrder: number, cardID: string }

/** The place of a card of the queue's `part`. */
export function studyPlaceOf (part: QueuePart, card: { _id: string, due: Date, createdOrder: number }): StudyPlace {
  return { part, due: card.due.getTime(), createdOrder: card.createdOrder, cardID: card._id }
}

/** The order of two places: negative when `a` comes first. */
export function compareStudyPlaces (a: StudyPlace, b: StudyPlace): number {
  if (a.part !== b.part) return a.part === 'due' ? -1 : 1
  return a.due - b.due || a.createdOrder - b.createdOrder || (a.cardID < b.cardID ? -1 : a.cardID > b.cardID ? 1 : 0)
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
  const after = [last.part, last.due, last.createdOrder, last.cardID]
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
  const [part, due, createdOrder, cardID, ...more] = Array.isArray(after) ? after as unknown[] : []
  if (typeof pagesOf !== 'string' || typeof day !== 'number' || !Number.isFinite(day) || (part !== 'due' && part !== 'new') ||
    typeof due !== 'number' || !Number.isFinite(due) || typeof createdOrder !== 'number' || !Number.isFinite(createdOrder) ||
    !isId(cardID) || more.length > 0 || Object.keys(rest).length > 0) {
    throw notACursor('a cursor this service gave')
  }
  return { day, after: { part, due, createdOrder, cardID } }
}

/** Where the page asked for starts on the user's day starting at `dayStart`: after the cursor's place, or, for none or one of another day, at the queue's head. */
export function resumeAfter (cursor: StudyCursor | null, dayStart: Date): StudyPlace | null {
  return cursor !== null && cursor.day === dayStart.getTime() ? cursor.after : null
}
