// What the fitting worker does: fit FSRS-6 parameters to a review log with the
// FSRS optimizer (the fsrs crate, through @open-spaced-repetition/binding),
// judge them and the defaults on time-series splits, estimate the cost of
// desired retentions, and replay cards' memory states. Runs in the worker
// thread (worker.ts); tests call it directly.
import { computeParameters, FSRSBindingItem, FSRSBindingReview } from '@open-spaced-repetition/binding'
import { MetricsTally, tallyPredictions, timeSeriesSplits, type FitMetrics } from '../domain/fit-evaluation.js'
import { DEFAULT_PARAMETERS, stateAfter, type Parameters } from '../domain/memory-model.js'
import { isBetterFit, MINIMUM_TRAINING_ITEMS, type RetentionCost } from '../domain/schedule-fit.js'
import { trainingItems, type LoggedReview, type ReviewKind, type TrainingItem } from '../domain/training-items.js'
import { answerHabits, answersPerDay, studiedCards, type WorkloadOptions } from '../domain/workload.js'

/** The kinds of log entries, numbered for the packed log. */
export const KINDS: readonly ReviewKind[] = Object.freeze(['learning', 'review', 'relearning', 'cram', 'manual', 'reset', 'rescheduled'])

/**
 * A review log as columns of numbers, one entry per index: what the service
 * hands the worker. Typed arrays move between threads without a copy, where
 * objects would be serialised on the event loop.
 */
export interface PackedLog {
  /** the card, as an index the service keeps the ids of */
  card: Int32Array
  at: Float64Array
  /** the user's day, as dayNumber gives it */
  day: Int32Array
  rating: Uint8Array
  /** an index into KINDS */
  kind: Uint8Array
}

export function packedLogBuffers (log: PackedLog): ArrayBuffer[] {
  return [log.card.buffer, log.at.buffer, log.day.buffer, log.rating.buffer, log.kind.buffer] as ArrayBuffer[]
}

/** `log` packed, its cards numbered in the order they first appear; with their ids by number. */
export function packLog (log: readonly LoggedReview[]): { log: PackedLog, cardIDs: string[] } {
  const numbers = new Map<string, number>()
  const cardIDs: string[] = []
  const packed: PackedLog = { card: new Int32Array(log.length), at: new Float64Array(log.length), day: new Int32Array(log.length), rating: new Uint8Array(log.length), kind: new Uint8Array(log.length) }
  log.forEach((entry, index) => {
    let card = numbers.get(entry.cardID)
    if (card === undefined) {
      card = cardIDs.length
      numbers.set(entry.cardID, card)
      cardIDs.push(entry.cardID)
    }
    packed.card[index] = card
    packed.at[index] = entry.at
    packed.day[index] = entry.day
    packed.rating[index] = entry.rating
    packed.kind[index] = KINDS.indexOf(entry.kind)
  })
  return { log: packed, cardIDs }
}

function unpack (log: PackedLog): LoggedReview[] {
  const entries: LoggedReview[] = new Array(log.card.length)
  for (let index = 0; index < log.card.length; index++) {
    entries[index] = {
      cardID: String(log.card[index]),
      at: log.at[index] as number,
      day: log.day[index] as number,
      rating: log.rating[index] as number,
      kind: KINDS[log.kind[index] as number] ?? 'manual'
    }
  }
  return entries
}

/** Cards' memory states, by card index, with the day of their last answer. */
export interface PackedStates {
  card: Int32Array
  stability: Float64Array
  difficulty: Float64Array
}

export function packedStatesBuffers (states: PackedStates): ArrayBuffer[] {
  return [states.card.buffer, states.stability.buffer, states.difficulty.buffer] as ArrayBuffer[]
}

export interface FitJob {
  type: 'fit'
  log: PackedLog
  /** the parameters the account uses now; null for the defaults */
  inUse: number[] | null
  retentions: readonly number[]
  newCardsPerDay: number
  /** the user's today, as dayNumber gives it */
  today: number
  /** also replay every card's memory state with the fitted parameters, if they are adopted */
  withStates: boolean
  minimumItems?: number
  /** how often (ms) the optimizer's progress is polled; the binding's default of 500 ms ends every call on a wait of up to that long */
  pollMs?: number
}

export interface StatesJob {
  type: 'states'
  log: PackedLog
  parameters: number[]
}

export type FitOutcome =
  | { type: 'too-little', items: number, reviews: number }
  | {
    type: 'fitted'
    items: number
    reviews: number
    parameters: number[]
    default: FitMetrics
    fitted: FitMetrics
    adopted: boolean
    workload: RetentionCost[]
    states?: PackedStates
    /** milliseconds spent in each stage, for the benchmark */
    timings: Record<string, number>
  }

export type Job = FitJob | StatesJob
export type JobResult<J extends Job> = J extends FitJob ? FitOutcome : PackedStates

/**
 * The optimizer's items. A card's items share its answers, and the binding
 * copies what it is given, so one review object serves every item with the
 * same rating and days.
 */
function bindingItems (items: readonly TrainingItem[]): FSRSBindingItem[] {
  const reviews = new Map<number, FSRSBindingReview>()
  const reviewOf = (rating: number, deltaT: number): FSRSBindingReview => {
    const key = deltaT * 8 + rating
    let review = reviews.get(key)
    if (review === undefined) {
      review = new FSRSBindingReview(rating, deltaT)
      reviews.set(key, review)
    }
    return review
  }
  return items.map((item) => new FSRSBindingItem(item.reviews.map((review) => reviewOf(review.rating, review.deltaT))))
}

async function fitParameters (items: FSRSBindingItem[], pollMs: number): Promise<number[]> {
  // one relearning step and short-term memory on, as the scheduler (ts-fsrs's defaults) has them
  return await computeParameters(items, { enableShortTerm: true, numRelearningSteps: 1, timeout: pollMs })
}

function statesOf (w: Parameters, cards: ReturnType<typeof trainingItems>['cards']): PackedStates {
  const states: PackedStates = {
    card: new Int32Array(cards.length),
    stability: new Float64Array(cards.length),
    difficulty: new Float64Array(cards.length)
  }
  cards.forEach((card, index) => {
    const state = stateAfter(w, card.steps)
    states.card[index] = Number(card.cardID)
    states.stability[index] = state?.stability ?? 0
    states.difficulty[index] = state?.difficulty ?? 0
  })
  return states
}

/** Runs `tasks` at most `limit` at a time, in their order; each one's promise. */
function atMost<T> (limit: number, tasks: ReadonlyArray<() => Promise<T>>): Array<Promise<T>> {
  const results: Array<Promise<T>> = []
  const slots: Array<Promise<unknown>> = []
  for (const [index, task] of tasks.entries()) {
    const started = index < limit ? task() : (slots[index - limit] as Promise<unknown>).then(task, task)
    results.push(started)
    slots.push(started.then(() => {}, () => {}))
  }
  return results
}

/** What each desired retention costs with `w`; yields between retentions, so that the fits' completions are seen meanwhile. */
async function workloadOf (w: Parameters, retentions: readonly number[], options: WorkloadOptions): Promise<RetentionCost[]> {
  const costs: RetentionCost[] = []
  for (const retention of retentions) {
    costs.push({ retention, answersPerDay: answersPerDay(w, retention, options) })
    await new Promise((resolve) => setImmediate(resolve))
  }
  return costs
}

// The optimizer fits on one thread of libuv's pool per call: two at once take
// the two cores of a small machine from the worker's JavaScript, not from the
// event loop, which runs elsewhere and mostly waits on the database
const FITS_AT_ONCE = 2

/**
 * Fits parameters to the whole log and judges them: the log's items in time
 * order are cut into six segments; parameters fitted to the first k are tested
 * on segment k + 1 (k from 1 to 5), and the defaults on the same reviews, so
 * neither is judged on what it was fitted to.
 */
export async function runFit (job: FitJob): Promise<FitOutcome> {
  const pollMs = job.pollMs ?? 1
  const timings: Record<string, number> = {}
  let started = performance.now()
  const lap = (stage: string): void => {
    const now = performance.now()
    timings[stage] = now - started
    started = now
  }
  const set = trainingItems(unpack(job.log))
  lap('items')
  if (set.items.length < (job.minimumItems ?? MINIMUM_TRAINING_ITEMS)) return { type: 'too-little', items: set.items.length, reviews: set.reviews }

  const all = bindingItems(set.items)
  lap('bindingItems')
  // the whole log first, then the splits, largest first; each split fits on the items before its test segment
  const splits = timeSeriesSplits(set.items)
  const fits = atMost(FITS_AT_ONCE, [all.length, ...splits.map((split) => split.train.length).reverse()]
    .map((length) => async () => await fitParameters(all.slice(0, length), pollMs)))
  const parameters = await (fits[0] as Promise<number[]>)
  lap('fit')

  // while the splits are fitted: what the retentions cost with the fitted parameters, should they be adopted
  const habits = answerHabits(set.cards)
  const costs = async (w: Parameters) => await workloadOf(w, job.retentions, { studied: studiedCards(w, set.cards, job.today), newCardsPerDay: job.newCardsPerDay, habits })
  const fittedCosts = await costs(parameters)
  lap('workload')

  const splitParameters = (await Promise.all(fits.slice(1))).reverse()
  const fitted = new MetricsTally()
  const defaults = new MetricsTally()
  splits.forEach((split, k) => {
    tallyPredictions(fitted, splitParameters[k] as number[], split.test)
    tallyPredictions(defaults, DEFAULT_PARAMETERS, split.test)
  })
  lap('splits')
  const figures = { default: defaults.result(), fitted: fitted.result() }
  const adopted = isBetterFit(figures.fitted, figures.default)
  const inUse = adopted ? parameters : job.inUse ?? [...DEFAULT_PARAMETERS]
  const workload = adopted ? fittedCosts : await costs(inUse)
  // states serve to give the cards new schedules: only new parameters change them
  const states = job.withStates && adopted ? statesOf(inUse, set.cards) : undefined
  lap('rest')
  return { type: 'fitted', items: set.items.length, reviews: set.reviews, parameters, ...figures, adopted, workload, ...(states === undefined ? {} : { states }), timings }
}

/** Every card's memory state after its history, with `parameters`. */
export function runStates (job: StatesJob): PackedStates {
  return statesOf(job.parameters, trainingItems(unpack(job.log)).cards)
}
