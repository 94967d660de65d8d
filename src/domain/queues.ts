/**
 * Where each queue of today's cards starts, and how far to read it.
 *
 * A queue (the user's new cards, or their learning and review cards) is read
 * in the order (due, createdOrder). The account keeps a lower bound of each
 * queue in that order, its start: every card of the queue lies at or after
 * it. The queue is then read in windows of `due` from the start on, each a
 * single range of the queue's index, until enough cards are found or the
 * queue's end is reached. A query reads every card its filter matches before
 * it sorts and limits (on the embedded database even the index does not cut
 * that short), so the windows keep the work close to the cards returned
 * rather than the cards stored.
 */

/** A due instant no card reaches: the start of a queue that holds no card at all. */
export const NO_CARD = new Date('9999-12-31T23:59:59.999Z')

/** A lower bound of a queue in its order (due, createdOrder). */
export interface QueueStart {
  /** no card of the queue is due before this instant */
  at: Date
  /** and none due at that very instant has a lower createdOrder: -Infinity when any may, Infinity when none is there */
  order: number
  /**
   * how far past `at`, in milliseconds, the cards of the last full read lay:
   * where the next read looks first. A guess, never relied on for what is
   * returned; absent when unknown.
   */
  reach?: number
}

/** The starts of a user's two queues, kept with the account. */
export interface QueueStarts {
  new: QueueStart
  due: QueueStart
  /**
   * bumped by every write that may put a card in a queue or earlier in it:
   * a start is raised only while it stays what it was when the queue was read
   */
  writes: number
}

/** A queue as today's cards read it. */
export interface QueueRange {
  /** where the queue starts; undefined when the account does not say (it predates the starts), and the queue is read from its beginning */
  start: QueueStart | undefined
  /** the cards wanted are due before this instant; null: every card of the queue is wanted */
  end: Date | null
  /** for a queue without end: windows reaching past this instant take the rest of the queue, as its cards are due no later */
  horizon: Date
}

/** How far past now new cards may be due: from their creation, by a clock a little apart from this one at most. */
const NEW_CARDS_HORIZON = 24 * 3600_000

/**
 * The two queues of today's cards: learning and review cards due before the
 * end of the user's today, and every new card, each from its start.
 */
export function todayQueueRanges (starts: QueueStarts | undefined, todayEnd: Date, now: Date): { due: QueueRange, new: QueueRange } {
  return {
    due: { start: knownStart(starts?.due), end: todayEnd, horizon: todayEnd },
    new: { start: knownStart(starts?.new), end: null, horizon: new Date(now.getTime() + NEW_CARDS_HORIZON) }
  }
}

/** A start as stored, if whole: an account the migration has not reached may hold a part that a write lowered. */
function knownStart (start: Partial<QueueStart> | undefined): QueueStart | undefined {
  return start?.at instanceof Date && typeof start.order === 'number' ? start as QueueStart : undefined
}

/** The starts of a user with no cards. */
export function emptyQueues (): QueueStarts {
  return { new: { at: NO_CARD, order: Infinity }, due: { at: NO_CARD, order: Infinity }, writes: 0 }
}

/** Cards created together share an instant, several requests apart lie milliseconds apart: the first window, when nothing better is known, is one millisecond. */
const FIRST_SPAN = 1
/** room for the cards that left a window since it last held a full answer */
const SLACK = 1.5

/** The span of `due` the first window past the start covers: the reach of the last read, with room; otherwise the smallest. */
export function firstSpan (start: QueueStart): number {
  return start.reach === undefined ? FIRST_SPAN : Math.ceil(start.reach * SLACK) + 1
}

/**
 * The span of the next window, after one of `span` that held `found` cards
 * while `wanted` more are still wanted: sized from the density seen, and
 * growing fast through empty stretches (a learner away for a month, a deck
 * created weeks after the last).
 */
export function nextSpan (span: number, found: number, wanted: number): number {
  if (found === 0) return span * 8
  return Math.min(span * 16, Math.max(span, Math.ceil(SLACK * wanted * span / found)))
}

/** What a start is raised by: a card of the queue, in its order. */
export interface QueuePlace { due: Date, createdOrder: number }

/**
 * Where a queue can start after a read of it from `start` that returned
 * `cards` (in queue order) of the `limit` asked for, up to `end` (null: the
 * queue's own end): its first card, at its exact place when every card
 * returned lies at that instant (so that a large batch created together is
 * entered at the right card), or the end reached when no card came before
 * it. Null when the start stays as it is: already there, and the reach about
 * right.
 */
export function startAfterRead (start: QueueStart, cards: readonly QueuePlace[], limit: number, end: Date | null): QueueStart | null {
  const head = cards[0]
  const last = cards[cards.length - 1]
  let raised: QueueStart
  if (head === undefined || last === undefined) {
    raised = end === null ? { at: NO_CARD, order: Infinity } : { at: end, order: -Infinity }
  } else {
    const full = cards.length >= limit
    const oneInstant = last.due.getTime() === head.due.getTime()
    raised = {
      at: head.due,
      order: full && oneInstant ? head.createdOrder : -Infinity,
      // a read that did not fill up went to the queue's end: next time, read that far at once
      reach: full ? last.due.getTime() - head.due.getTime() : end === null ? Infinity : end.getTime() - head.due.getTime()
    }
  }
  const moves = comparePlaces(raised, start) > 0
  const reachAsWas = start.reach !== undefined && raised.reach !== undefined &&
    raised.reach <= start.reach * SLACK && raised.reach * 4 >= start.reach
  if (!moves && (reachAsWas || raised.reach === undefined)) return null
  return moves ? raised : { ...start, ...(raised.reach === undefined ? {} : { reach: raised.reach }) }
}

/**
 * The starts to move after a read of today's two queues (`ranges`) that
 * returned `cards` of each within `allowance`. A queue read for nothing (its
 * allowance used up) taught nothing, nor one without a known start.
 */
export function startsAfterRead (ranges: { due: QueueRange, new: QueueRange }, cards: { due: readonly QueuePlace[], new: readonly QueuePlace[] }, allowance: { reviews: number, newCards: number }): { due?: QueueStart, new?: QueueStart } {
  const moved = (range: QueueRange, read: readonly QueuePlace[], limit: number): QueueStart | null =>
    range.start === undefined || limit <= 0 ? null : startAfterRead(range.start, read, limit, range.end)
  const due = moved(ranges.due, cards.due, allowance.reviews)
  const fresh = moved(ranges.new, cards.new, allowance.newCards)
  return { ...(due === null ? {} : { due }), ...(fresh === null ? {} : { new: fresh }) }
}

/** The order of two starts: negative when `a` comes first. */
function comparePlaces (a: QueueStart, b: QueueStart): number {
  return a.at.getTime() - b.at.getTime() || (a.order === b.order ? 0 : a.order < b.order ? -1 : 1)
}
