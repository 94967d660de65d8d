// Anki's review log (its revlog table) as fitting reads a log: what lets a
// history imported from Anki train the user's parameters as Anki trains them.
import type { LoggedReview, ReviewKind } from './training-items.js'

/** A row of Anki's revlog table, in the names of the Anki package reader (AnkiRevlogEntry). */
export interface AnkiRevlogRow {
  /** epoch milliseconds of the entry: also its id */
  id: number
  cardId: number
  /** 1 again, 2 hard, 3 good, 4 easy; 0 for no answer */
  button: number
  /** the ease factor; 0 on a cram answer (a filtered deck that does not reschedule) and on a reset */
  factor: number
  /** the revlog's type: 0 learning, 1 review, 2 relearning, 3 filtered, 4 manual, 5 rescheduled */
  kind: number
}

/** What an entry of Anki's revlog was, as rslib's training reads its type and ease factor. */
export function kindOfAnkiEntry (row: Pick<AnkiRevlogRow, 'kind' | 'factor'>): ReviewKind {
  switch (row.kind) {
    case 0: return 'learning'
    case 1: return 'review'
    case 2: return 'relearning'
    // a filtered deck that reschedules counts as a review; one that does not is cramming
    case 3: return row.factor === 0 ? 'cram' : 'review'
    // "forget" leaves an entry of ease 0; "set due date" one with the card's ease
    case 4: return row.factor === 0 ? 'reset' : 'manual'
    default: return 'rescheduled'
  }
}

/**
 * Anki's revlog as a log to fit to; `dayOf` gives the user's day of an
 * instant (epoch milliseconds) as dayNumber counts it, with the collection's
 * rollover hour.
 */
export function loggedFromAnkiRevlog (rows: Iterable<AnkiRevlogRow>, dayOf: (epochMs: number) => number): LoggedReview[] {
  const log: LoggedReview[] = []
  for (const row of rows) {
    log.push({ cardID: String(row.cardId), at: row.id, day: dayOf(row.id), rating: row.button, kind: kindOfAnkiEntry(row) })
  }
  return log
}

/**
 * What a row of a card's log does to its last review as Anki counts it (rslib's
 * get_last_revlog_info, whose epoch second Check Database puts in the card's `lrt`): an answer
 * that rescheduled the card (not cramming) sets it, a forget clears it, any other row leaves it.
 */
export function lastReviewRole (kind: ReviewKind, answered: boolean): 'sets' | 'clears' | 'leaves' {
  if (answered && kind !== 'cram') return 'sets'
  return kind === 'reset' ? 'clears' : 'leaves'
}

/**
 * The row Anki takes as a card's last review (see lastReviewRole): its last answer that
 * rescheduled it, none once a forget follows; rows oldest first, `answered` telling an answer
 * from a manual row.
 */
export function lastScheduledAnswer<Row extends Pick<AnkiRevlogRow, 'kind' | 'factor'>> (rows: Iterable<Row>, answered: (row: Row) => boolean): Row | undefined {
  let last: Row | undefined
  for (const row of rows) {
    const role = lastReviewRole(kindOfAnkiEntry(row), answered(row))
    if (role === 'sets') last = row
    else if (role === 'clears') last = undefined
  }
  return last
}
