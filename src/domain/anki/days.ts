// Anki's days (rslib/src/scheduler/timing.rs). A review card's due is a day number: days since the
// collection's creation day, where day N is the day that starts at the rollover hour of the
// creation date plus N. A learning card's due is an instant, in epoch seconds. New cards' due is
// their position in the new queue.
import { CARD_TYPE, type AnkiCard, type AnkiTiming } from './collection.js'

const DAY = 86400

function isoDate (epochSeconds: number): string {
  return new Date(epochSeconds * 1000).toISOString().slice(0, 10)
}

/** YYYY-MM-DD plus `days`. */
export function addDays (date: string, days: number): string {
  return isoDate(Date.parse(`${date}T00:00:00Z`) / 1000 + days * DAY)
}

/**
 * The offset (minutes west of UTC) the collection counts its days in: where it was created, else
 * where it was last used, else `fallback` (the learner's own).
 */
export function collectionOffsetMinutesWest (timing: AnkiTiming, fallback = 0): number {
  return timing.creationOffsetMinutesWest ?? timing.localOffsetMinutesWest ?? fallback
}

/**
 * The calendar date of the collection's day 0: the date `crt` falls on. Collections with a recorded
 * creation offset count calendar dates from it; older ones count whole days from the rollover of
 * that date, which lands on the same dates.
 */
export function creationDate (timing: AnkiTiming, fallbackOffsetMinutesWest = 0): string {
  return isoDate(timing.creationStamp - collectionOffsetMinutesWest(timing, fallbackOffsetMinutesWest) * 60)
}

/** The calendar day Anki shows for an instant (epoch seconds), by the rollover hour in a fixed offset. */
export function dayOfInstant (epochSeconds: number, offsetMinutesWest: number, rolloverHour: number): string {
  return isoDate(epochSeconds - offsetMinutesWest * 60 - rolloverHour * 3600)
}

/** The start of the day after the one holding `nowSeconds`, epoch seconds (Anki's next_day_at). */
export function nextDayAt (nowSeconds: number, offsetMinutesWest: number, rolloverHour: number): number {
  const local = nowSeconds - offsetMinutesWest * 60
  let rollover = Math.floor(local / DAY) * DAY + rolloverHour * 3600
  if (rollover <= local) rollover += DAY
  return rollover + offsetMinutesWest * 60
}

/** Anki stores a learning due as epoch seconds, a day-learning or review due as a day number. */
function isEpochSeconds (due: number): boolean {
  return due > 1_000_000_000
}

export type CardDue =
  | { kind: 'new', position: number }
  | { kind: 'day', dayNumber: number, day: string }
  | { kind: 'instant', epochSeconds: number, day: string }

/**
 * When a card is due, as Anki would show it: a new card's position; a review or day-learning card's
 * calendar day; a learning card's instant and its day. A card in a filtered deck is due as in its
 * home deck; suspension and burial keep the due they hide.
 */
export function cardDue (card: AnkiCard, timing: AnkiTiming, fallbackOffsetMinutesWest = 0): CardDue {
  const due = card.originalDeckId !== 0 && card.originalDue !== 0 ? card.originalDue : card.due
  if (card.type === CARD_TYPE.new) return { kind: 'new', position: due }
  const offset = collectionOffsetMinutesWest(timing, fallbackOffsetMinutesWest)
  if (card.type !== CARD_TYPE.review && isEpochSeconds(due)) {
    return { kind: 'instant', epochSeconds: due, day: dayOfInstant(due, offset, timing.rolloverHour ?? 0) }
  }
  return { kind: 'day', dayNumber: due, day: addDays(creationDate(timing, fallbackOffsetMinutesWest), due) }
}
