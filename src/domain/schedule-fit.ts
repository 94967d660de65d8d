// Fitting a user's FSRS parameters to their review log: the rules that decide
// whether there is enough history, which parameters are used afterwards, and
// what the learner is shown.
import type { FitMetrics } from './fit-evaluation.js'
import { intervalFor, type MemoryState, type Parameters } from './memory-model.js'
import { CardState, type CardSchedule } from './scheduling.js'

/**
 * The fewest training items (reviews of a card on a later day than its review
 * before, from its last learning block) a fit takes. Anki's optimizer asked
 * for 1,000 when it came (23.10: "You must have at least 1000 reviews for this
 * operation") and still warns below that; with fewer, fitted parameters follow
 * the noise of a few hundred reviews rather than the learner's memory.
 */
export const MINIMUM_TRAINING_ITEMS = 1000

/** The desired retentions whose cost the learner is shown, bracketing the usual 0.90. */
export const RETENTIONS_COMPARED: readonly number[] = Object.freeze([0.7, 0.8, 0.85, 0.9, 0.93, 0.95, 0.97])

/** Reviews a day that keeping one desired retention takes. */
export interface RetentionCost { retention: number, answersPerDay: number }

/** The last fit of a user's parameters, as the account keeps it. */
export interface FitReport {
  /** names the fit: a second call that waited on another instance finds its answer by it */
  fitID: string
  fittedAt: Date
  /** reviews of the log used, and of those the reviews predicted (training items) */
  reviews: number
  items: number
  /** the parameters fitted to the whole log */
  parameters: number[]
  /** how well the defaults and parameters fitted this way predict reviews they were not fitted to (time-series splits) */
  default: FitMetrics
  fitted: FitMetrics
  adopted: boolean
  /** what each of RETENTIONS_COMPARED costs with the parameters in use after the fit */
  workload: RetentionCost[]
  /** the new cards a day that estimate adds (the user's setting at the fit); absent on fits stored before it was kept */
  newCardsPerDay?: number
  /** cards given new schedules with the parameters now in use, when asked for */
  rescheduled: number
}

/**
 * Whether fitted parameters are adopted: only when they predict the user's
 * reviews better than the defaults, by log loss, each judged on reviews made
 * after those it was fitted to. Otherwise the account keeps what it uses.
 */
export function isBetterFit (fitted: FitMetrics, reference: FitMetrics): boolean {
  return fitted.logLoss < reference.logLoss
}

/** What a user with too little history is told. */
export function moreHistoryNeeded (items: number): string {
  const missing = MINIMUM_TRAINING_ITEMS - items
  return `fitting your parameters takes at least ${MINIMUM_TRAINING_ITEMS.toLocaleString('en')} reviews of cards on a later day than their review before, ` +
    `and your history has ${items.toLocaleString('en')}: ${missing.toLocaleString('en')} more are needed; until then the default parameters serve you`
}

const DAY = 86_400_000
const MAXIMUM_INTERVAL = 36_500

/**
 * A studied card's schedule under other parameters: the memory state its
 * history gives with them and, for a card in review, the interval they give
 * at the desired retention from its last review (as the scheduler computes
 * it, whole days of 24 hours). A card in its (re)learning steps keeps its
 * step's due instant: steps are minutes, the same for any parameters.
 */
export function rescheduledCard (
  card: Pick<CardSchedule, 'state' | 'lastReview' | 'due' | 'scheduledDays'>,
  memory: MemoryState,
  w: Parameters,
  desiredRetention: number
): Pick<CardSchedule, 'stability' | 'difficulty' | 'due' | 'scheduledDays'> {
  if (card.state !== CardState.Review || card.lastReview === null) {
    return { stability: memory.stability, difficulty: memory.difficulty, due: card.due, scheduledDays: card.scheduledDays }
  }
  const days = Math.min(MAXIMUM_INTERVAL, Math.max(1, Math.round(intervalFor(w, memory.stability, desiredRetention))))
  return { stability: memory.stability, difficulty: memory.difficulty, due: new Date(card.lastReview.getTime() + days * DAY), scheduledDays: days }
}
