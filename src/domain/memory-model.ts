// The FSRS-6 memory model as the optimizer (the Rust `fsrs` crate) computes it:
// a card's stability and difficulty after a history of reviews, and the
// probability of recalling it some days later. The scheduler (ts-fsrs, see
// scheduling.ts) applies the same formulas to one review at a time; this
// module replays whole histories in whole days, as fitting and evaluating
// parameters need.

/** The 21 FSRS-6 weights, w0..w20; w20 is the decay of the forgetting curve. */
export type Parameters = readonly number[]

/** FSRS-6's default parameters, those of ts-fsrs and of the fsrs crate. */
export const DEFAULT_PARAMETERS: Parameters = Object.freeze([
  0.212, 1.2931, 2.3065, 8.2956, 6.4133, 0.8334, 3.0194, 0.001, 1.8722, 0.1666, 0.796,
  1.4835, 0.0614, 0.2629, 1.6483, 0.6014, 1.8729, 0.5425, 0.0912, 0.0658, 0.1542
])

export const PARAMETER_COUNT = 21

/** A memory state: days until recall falls to 90% (stability), and how hard the card is (difficulty, 1-10). */
export interface MemoryState { stability: number, difficulty: number }

/** One answer in a card's history: the rating (1 again .. 4 easy) and whole days since the answer before (0 for the first). */
export interface ReviewStep { rating: number, deltaT: number }

const S_MIN = 0.001
const S_MAX = 36_500
const D_MIN = 1
const D_MAX = 10

function clamp (value: number, low: number, high: number): number {
  return Math.min(high, Math.max(low, value))
}

/** Whether `parameters` is 21 finite numbers with a decay the forgetting curve accepts. */
export function areParameters (parameters: unknown): parameters is Parameters {
  return Array.isArray(parameters) && parameters.length === PARAMETER_COUNT &&
    parameters.every((w) => typeof w === 'number' && Number.isFinite(w)) &&
    (parameters[20] as number) >= 0.1 && (parameters[20] as number) <= 0.8
}

/** The probability of recalling a card of `stability` after `days`. */
export function retrievability (w: Parameters, days: number, stability: number): number {
  const decay = -(w[20] as number)
  const factor = Math.pow(0.9, 1 / decay) - 1
  return Math.pow(days / stability * factor + 1, decay)
}

/** Days until recall falls to `retention`, for a card of `stability`. */
export function intervalFor (w: Parameters, stability: number, retention: number): number {
  const decay = -(w[20] as number)
  const factor = Math.pow(0.9, 1 / decay) - 1
  return stability / factor * (Math.pow(retention, 1 / decay) - 1)
}

function initialDifficulty (w: Parameters, rating: number): number {
  return (w[4] as number) - Math.exp((w[5] as number) * (rating - 1)) + 1
}

/** The state after a card's first answer. */
export function firstState (w: Parameters, rating: number): MemoryState {
  const grade = clamp(rating, 1, 4)
  return {
    stability: clamp(w[grade - 1] as number, S_MIN, S_MAX),
    difficulty: clamp(initialDifficulty(w, grade), D_MIN, D_MAX)
  }
}

/** The state after answering `rating` `deltaT` days after the answer that left `state`. */
export function nextState (w: Parameters, state: MemoryState, deltaT: number, rating: number): MemoryState {
  const s = clamp(state.stability, S_MIN, S_MAX)
  const d = clamp(state.difficulty, D_MIN, D_MAX)
  if (rating === 0) return { stability: s, difficulty: d }
  let stability: number
  if (deltaT === 0) {
    // answers of one day: the short-term formula, whatever the rating
    const growth = Math.exp((w[17] as number) * (rating - 3 + (w[18] as number))) * Math.pow(s, -(w[19] as number))
    stability = s * (rating >= 2 ? Math.max(growth, 1) : growth)
  } else {
    const r = retrievability(w, deltaT, s)
    if (rating === 1) {
      const afterLapse = (w[11] as number) * Math.pow(d, -(w[12] as number)) * (Math.pow(s + 1, w[13] as number) - 1) * Math.exp((1 - r) * (w[14] as number))
      stability = Math.min(afterLapse, s / Math.exp((w[17] as number) * (w[18] as number)))
    } else {
      const hard = rating === 2 ? w[15] as number : 1
      const easy = rating === 4 ? w[16] as number : 1
      stability = s * (Math.exp(w[8] as number) * (11 - d) * Math.pow(s, -(w[9] as number)) * (Math.exp((1 - r) * (w[10] as number)) - 1) * hard * easy + 1)
    }
  }
  const damped = d + (10 - d) * (-(w[6] as number) * (rating - 3)) / 9
  const difficulty = clamp((w[7] as number) * (initialDifficulty(w, 4) - damped) + damped, D_MIN, D_MAX)
  return { stability: clamp(stability, S_MIN, S_MAX), difficulty }
}

/** The state a history leaves, answer by answer from the first; null for no answer. */
export function stateAfter (w: Parameters, reviews: readonly ReviewStep[], count = reviews.length): MemoryState | null {
  let state: MemoryState | null = null
  for (let index = 0; index < count; index++) {
    const review = reviews[index] as ReviewStep
    state = state === null ? firstState(w, review.rating) : nextState(w, state, review.deltaT, review.rating)
  }
  return state
}

/**
 * The predicted probability that the last answer of `reviews` is a recall
 * (hard, good or easy), from the answers before it: what log loss and
 * RMSE(bins) judge.
 */
export function predictedRecall (w: Parameters, reviews: readonly ReviewStep[]): number {
  const state = stateAfter(w, reviews, reviews.length - 1)
  if (state === null) throw new RangeError('a prediction needs at least one answer before the one predicted')
  return retrievability(w, (reviews[reviews.length - 1] as ReviewStep).deltaT, state.stability)
}
