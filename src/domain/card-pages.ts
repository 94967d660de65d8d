/**
 * Pages of cards with their content (get-flashcard, get-all-cards with
 * content): what a page holds, and the cursor that says where the next begins.
 *
 * The cards are read in creation order, (createdOrder, cardID), which no edit
 * of a card changes. A cursor is the place of a page's last card, so the next
 * page is the cards after that place as they are when it is asked for: a card
 * added or deleted between two pages moves no other card across the boundary,
 * and none is given twice or left out.
 */
import { isId } from './ids.js'
import { MAX_CARDS_PER_PAGE, MAX_PAGE_BYTES } from './limits.js'
import { Refusal } from './refusals.js'
import { decodeCursor, encodeCursor } from './cursors.js'

/** A card's place in creation order: cards created at one createdOrder follow each other by id. */
export interface CardPlace { createdOrder: number, cardID: string }

/** What a cursor pages through: one flashcard's cards (its id), or the whole library's. */
export const LIBRARY_PAGES = 'library'

/** A card's createdOrder is the instant of its creation in milliseconds times this, plus its place in its batch (newCards, the Anki import). */
export const CREATED_ORDERS_PER_MS = 1000

/** Where the cards read in creation order lie. */
export interface CreationBounds {
  /** the createdOrder before which the first window takes every card at once: the account's creation */
  floor: number
  /** a createdOrder past every card's but a few: a window reaching it takes the rest */
  horizon: number
}

/**
 * Where a user's cards lie in creation order: none was created before the
 * account, none after now. Neither is relied on: a card created before the
 * account is read by the first window, which takes everything below the
 * floor, and one created later (by a clock ahead of this one, or an import's
 * batch) by the last, which has no end.
 */
export function creationBounds (registered: Date | undefined, now: Date): CreationBounds {
  const at = registered instanceof Date ? registered.getTime() : NaN
  return {
    floor: (Number.isFinite(at) ? at : 0) * CREATED_ORDERS_PER_MS,
    horizon: (now.getTime() + 1) * CREATED_ORDERS_PER_MS
  }
}

/** The place of a card of a stored document. */
export function placeOf (card: { _id: string, createdOrder: number }): CardPlace {
  return { createdOrder: card.createdOrder, cardID: card._id }
}

/** Whether place `a` comes before place `b` in creation order. */
export function comesBefore (a: CardPlace, b: CardPlace): boolean {
  return a.createdOrder < b.createdOrder || (a.createdOrder === b.createdOrder && a.cardID < b.cardID)
}

/**
 * The cursor of the page after `last`, as a client sends it back: opaque to it
 * (base64url of a small JSON), saying what it pages through and where it is.
 * It holds no user: it only narrows the caller's own read.
 */
export function cursorAfter (of: string, last: CardPlace): string {
  return encodeCursor({ of, after: [last.createdOrder, last.cardID] })
}

function notACursor (what: string): Refusal {
  return new Refusal('invalid_field',
    `body.cursor is not ${what}: send the nextCursor of the previous answer as it came, or no cursor for the first page`)
}

/**
 * The place a cursor given for `of` resumes after; refused with invalid_field
 * when it is not a cursor this service wrote, or one of another read (another
 * flashcard's pages, or the library's).
 */
export function placeOfCursor (cursor: string, of: string): CardPlace {
  const read = decodeCursor(cursor)
  if (read === null) throw notACursor('a cursor this service gave')
  const { of: pagesOf, after, ...rest } = read
  const [createdOrder, cardID, ...more] = Array.isArray(after) ? after as unknown[] : []
  if (typeof pagesOf !== 'string' || typeof createdOrder !== 'number' || !Number.isFinite(createdOrder) || !isId(cardID) ||
    more.length > 0 || Object.keys(rest).length > 0) {
    throw notACursor('a cursor this service gave')
  }
  if (pagesOf !== of) throw notACursor(of === LIBRARY_PAGES ? 'a cursor of get-all-cards' : 'a cursor of this flashcard\'s pages')
  return { createdOrder, cardID }
}

/** Cards read at first, before their size is known: a page of the largest cards holds few. */
const FIRST_READ = 32

/**
 * One page of cards as they are added, in order: at most `maxCards`, and at
 * most `maxBytes` of their JSON, but never none. The first card that does not
 * fit completes the page and says that more follow.
 */
export class CardPage<Card> {
  readonly cards: Card[] = []
  /** the JSON bytes of the cards so far */
  bytes = 0
  /** true once a card did not fit: more cards follow this page */
  more = false

  constructor (private readonly maxCards = MAX_CARDS_PER_PAGE, private readonly maxBytes = MAX_PAGE_BYTES) {}

  /** Adds a card of `bytes` bytes of JSON; false, and the page complete with more to follow, when it does not fit. */
  add (card: Card, bytes: number): boolean {
    if (this.cards.length >= this.maxCards || (this.cards.length > 0 && this.bytes + bytes > this.maxBytes)) {
      this.more = true
      return false
    }
    this.cards.push(card)
    this.bytes += bytes
    return true
  }

  /**
   * How many cards to read next: what the page still takes by count, or by
   * the bytes left at the size of the cards so far, and one more, which tells
   * whether more follow.
   */
  wanted (): number {
    const left = this.maxCards - this.cards.length
    if (this.cards.length === 0) return Math.min(FIRST_READ, left + 1)
    const byBytes = Math.floor((this.maxBytes - this.bytes) * this.cards.length / Math.max(1, this.bytes))
    return Math.max(0, Math.min(left, byBytes)) + 1
  }
}
