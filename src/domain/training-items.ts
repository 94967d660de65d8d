// The review log as the FSRS optimizer reads it, built the way Anki builds it
// (rslib's fsrs_items_for_training): the reviews of each card from the start of
// its last learning block, cram and manual entries left out, days counted in
// the user's calendar. Each review on a later day than the card's previous one
// becomes one item: the card's answers up to it, the last one to be predicted.
import { daysBetween, type LocalDay } from './calendar.js'
import type { ReviewStep } from './memory-model.js'

/**
 * What an entry of the log was:
 * - learning: an answer to a new card or one in its learning steps;
 * - review, relearning: an answer to a card in review, or in its relearning steps after a lapse;
 * - cram: an answer that did not reschedule the card (Anki's filtered decks without rescheduling);
 * - manual: a due date set by hand, no answer;
 * - reset: the card made new again, its history ended;
 * - rescheduled: the card moved by a change of parameters, no answer.
 * The service's own reviews are learning, review or relearning; the others come from imported logs.
 */
export type ReviewKind = 'learning' | 'review' | 'relearning' | 'cram' | 'manual' | 'reset' | 'rescheduled'

/** One entry of a review log, as fitting reads it. */
export interface LoggedReview {
  cardID: string
  /** the instant, in milliseconds: orders a card's entries, and the items in time */
  at: number
  /** the user's day it was made on, in their calendar (their time zone and dayStartHour), as dayNumber gives it */
  day: number
  /** 1 again, 2 hard, 3 good, 4 easy; 0 for an entry that is no answer */
  rating: number
  kind: ReviewKind
}

/** One review to predict, with the card's answers before it. */
export interface TrainingItem {
  cardID: string
  /** when the predicted review was made */
  at: number
  /** the card's answers up to and including the predicted one (the last), each with the whole days since the one before */
  reviews: ReviewStep[]
}

/** A card's answers as training reads them: from its last learning block, answers only. */
export interface CardHistory {
  cardID: string
  steps: ReviewStep[]
  /** the day of its last answer */
  lastDay: number
}

export interface TrainingSet {
  /** in the time order of their last review */
  items: TrainingItem[]
  /** the reviews of the log the items are made of: every answer kept of a card that gave an item */
  reviews: number
  /** every card with a learning block, items or not: their memory states can be replayed */
  cards: CardHistory[]
}

const EPOCH_DAY: LocalDay = '1970-01-01'

function isAnswer (entry: LoggedReview): boolean {
  return Number.isInteger(entry.rating) && entry.rating >= 1 && entry.rating <= 4
}

/**
 * Where the card's last learning block starts, or -1 when training should not
 * use the card: it has no learning block, or it was reset after its last one
 * and answered only in review since (the history before a reset belongs to
 * another card, as it were).
 */
function lastLearningStart (entries: readonly LoggedReview[]): number {
  let start = -1
  for (let index = entries.length - 1; index >= 0; index--) {
    const entry = entries[index] as LoggedReview
    if (entry.kind === 'cram') continue
    if (isAnswer(entry) && entry.kind === 'learning') {
      start = index
    } else if (start >= 0) {
      break
    } else if (entry.kind === 'reset') {
      return -1
    }
  }
  return start
}

function isKept (entry: LoggedReview): boolean {
  return isAnswer(entry) && (entry.kind === 'learning' || entry.kind === 'review' || entry.kind === 'relearning')
}

/** The card's answers kept for training (with the instant of each), or null when training leaves the card out. */
function cardHistory (entries: readonly LoggedReview[]): { history: CardHistory, instants: number[] } | null {
  const start = lastLearningStart(entries)
  if (start < 0) return null
  const kept = entries.slice(start).filter(isKept)
  const steps: ReviewStep[] = kept.map((entry, index) => ({
    rating: entry.rating,
    deltaT: index === 0 ? 0 : Math.max(0, entry.day - (kept[index - 1] as LoggedReview).day)
  }))
  const last = kept[kept.length - 1] as LoggedReview
  return { history: { cardID: last.cardID, steps, lastDay: last.day }, instants: kept.map((entry) => entry.at) }
}

/** The items of a card's history, in its own time order. */
function itemsOf (history: CardHistory, instants: readonly number[]): TrainingItem[] {
  const items: TrainingItem[] = []
  for (let index = 1; index < history.steps.length; index++) {
    // a review on the day of the one before shows short-term memory, which the prediction is not about
    if ((history.steps[index] as ReviewStep).deltaT === 0) continue
    items.push({ cardID: history.cardID, at: instants[index] as number, reviews: history.steps.slice(0, index + 1) })
  }
  return items
}

function byInstant (a: LoggedReview, b: LoggedReview): number {
  return a.at - b.at
}

/**
 * The training items of a review log, in the time order of their last review.
 * `log` may come in any order: it is grouped by card and each card's entries
 * ordered by instant.
 */
export function trainingItems (log: Iterable<LoggedReview>): TrainingSet {
  const byCard = new Map<string, LoggedReview[]>()
  for (const entry of log) {
    let entries = byCard.get(entry.cardID)
    if (entries === undefined) {
      entries = []
      byCard.set(entry.cardID, entries)
    }
    entries.push(entry)
  }
  const items: TrainingItem[] = []
  const cards: CardHistory[] = []
  let reviews = 0
  for (const entries of byCard.values()) {
    entries.sort(byInstant)
    const kept = cardHistory(entries)
    if (kept === null) continue
    cards.push(kept.history)
    const cardItems = itemsOf(kept.history, kept.instants)
    for (const item of cardItems) items.push(item)
    if (cardItems.length > 0) reviews += kept.history.steps.length
  }
  items.sort((a, b) => a.at - b.at || (a.cardID < b.cardID ? -1 : a.cardID > b.cardID ? 1 : 0))
  return { items, reviews, cards }
}

/** A day as a whole number of days since 1970-01-01: for code that counts days without strings. */
export function dayNumber (day: LocalDay): number {
  return daysBetween(EPOCH_DAY, day)
}
