// A card's FSRS memory state from its Anki review history, as Anki computes it
// (rslib/src/scheduler/fsrs/memory_state.rs and params.rs, with the fsrs crate): the history from
// the last learning block on, cram and manual rows left out, days counted from Anki's day rollover;
// where the history was cut, the state starts from the first review's interval and ease; a card with
// no usable history is converted from its interval and ease. The arithmetic of each review is
// ts-fsrs's `next_state`.
import { clipParameters, default_w, FSRSAlgorithm, generatorParameters } from 'ts-fsrs'
import { CARD_TYPE, REVLOG_KIND, type AnkiRevlogEntry } from './collection.js'

export interface MemoryState {
  stability: number
  difficulty: number
}

const S_MIN = 0.001
const S_MAX = 36500
const FSRS5_DEFAULT_DECAY = 0.5

/**
 * The 21 parameters FSRS-6 runs on, from what a preset stores: FSRS-6's 21, FSRS-5's 19 or
 * FSRS-4.5's 17 (filled out as the fsrs crate does), or none for FSRS's defaults; then clipped to
 * their ranges. Other lengths are not parameters (`undefined`).
 */
export function fsrsParameters (stored: readonly number[]): number[] | undefined {
  let filled: number[]
  if (stored.length === 0) {
    filled = [...default_w]
  } else if (stored.length === 17) {
    filled = [...stored]
    filled[4] = (stored[5] as number) * 2 + (stored[4] as number)
    filled[5] = Math.log((stored[5] as number) * 3 + 1) / 3
    filled[6] = (stored[6] as number) + 0.5
    filled.push(0, 0, 0, FSRS5_DEFAULT_DECAY)
  } else if (stored.length === 19) {
    filled = [...stored, 0, FSRS5_DEFAULT_DECAY]
  } else if (stored.length === 21) {
    filled = [...stored]
  } else {
    return undefined
  }
  if (filled.some((w) => !Number.isFinite(w))) return undefined
  // clipped as the fsrs crate's FSRS::new clips: one relearning step, and w[19] may be 0 (FSRS-5's)
  return clipParameters(filled, 1, false)
}

function isCramming (entry: AnkiRevlogEntry): boolean {
  return entry.kind === REVLOG_KIND.filtered && entry.factor === 0
}

function isReset (entry: AnkiRevlogEntry): boolean {
  return entry.kind === REVLOG_KIND.manual && entry.factor === 0
}

function countsForFsrs (entry: AnkiRevlogEntry): boolean {
  return entry.button > 0 && !isCramming(entry)
}

/**
 * Anki's day of a review, counted back from `nextDayAt` (the start of the learner's next day, epoch
 * seconds): 0 for a review since the current day began, 1 for the day before, and so on.
 */
export function daysBefore (nextDayAt: number, entry: AnkiRevlogEntry): number {
  return Math.max(0, Math.trunc((nextDayAt - Math.trunc(entry.id / 1000)) / 86400))
}

export interface FsrsReview {
  rating: number
  /** whole days since the review before it, by the learner's day rollover; 0 for the first */
  deltaT: number
}

export interface ReviewsForFsrs {
  reviews: FsrsReview[]
  /** false when the history was cut before its learning block: the first review then gives the start */
  complete: boolean
  entries: AnkiRevlogEntry[]
}

/**
 * The reviews FSRS replays (Anki's reviews_for_fsrs, not training): from the last learning block
 * (or, without one, the first graded review a day or more apart), after the last reset, without
 * cram and manual rows. `entries` are the card's revlog rows, oldest first; rows before
 * `ignoreBeforeMs` count only as Anki counts them.
 */
export function reviewsForFsrs (entries: readonly AnkiRevlogEntry[], nextDayAt: number, ignoreBeforeMs = 0): ReviewsForFsrs | undefined {
  let firstOfLastLearning: number | undefined
  let firstUserGrade: number | undefined
  let complete = false
  for (let index = entries.length - 1; index >= 0; index--) {
    const entry = entries[index] as AnkiRevlogEntry
    if (isCramming(entry)) continue
    const graded = entry.button > 0
    const interday = entry.interval >= 1 || entry.interval <= -86400
    if (graded && entry.id > ignoreBeforeMs && interday) firstUserGrade = index
    if (graded && entry.kind === REVLOG_KIND.learning) {
      firstOfLastLearning = index
      complete = true
    } else if (isReset(entry)) {
      if (firstOfLastLearning !== undefined) {
        complete = true
        break
      } else if (firstUserGrade !== undefined) {
        complete = false
        break
      } else {
        return undefined
      }
    } else if (firstOfLastLearning !== undefined) {
      break
    }
  }
  if (firstOfLastLearning !== undefined && (entries[firstOfLastLearning] as AnkiRevlogEntry).id < ignoreBeforeMs && firstOfLastLearning < entries.length - 1) {
    complete = false
    firstOfLastLearning = undefined
  }
  const start = firstOfLastLearning ?? firstUserGrade
  if (start === undefined) return undefined
  const kept = entries.slice(start).filter(countsForFsrs)
  if (kept.length === 0) return undefined
  const reviews = kept.map((entry, index) => ({
    rating: entry.button,
    deltaT: index === 0 ? 0 : daysBefore(nextDayAt, kept[index - 1] as AnkiRevlogEntry) - daysBefore(nextDayAt, entry)
  }))
  return { reviews, complete, entries: kept }
}

/** The fsrs crate's conversion of an SM-2 ease (2.5 for 250%) and interval (days) to a memory state. */
export function memoryStateFromSm2 (w: readonly number[], ease: number, interval: number, retention: number): MemoryState {
  const decay = -(w[20] as number)
  const factor = Math.pow(0.9, 1 / decay) - 1
  const stability = Math.max(interval, S_MIN) * factor / (Math.pow(retention, 1 / decay) - 1)
  const difficulty = 11 - (ease - 1) / (Math.exp(w[8] as number) * Math.pow(stability, -(w[9] as number)) * Math.expm1((1 - retention) * (w[10] as number)))
  return { stability, difficulty: Math.min(10, Math.max(1, difficulty)) }
}

export interface FsrsSettings {
  /** the preset's parameters as stored (any of the lengths `fsrsParameters` takes) */
  params: readonly number[]
  /** the preset's historical retention, for conversions from SM-2 */
  historicalRetention: number
  /** the start of the learner's next day, epoch seconds: only its time of day matters */
  nextDayAt: number
  /** the preset's "ignore reviews before" day, YYYY-MM-DD, or empty */
  ignoreRevlogsBeforeDate?: string
}

/** A replayer for one preset: parameters filled and clipped once, then `memoryStateOf` per card. */
export function fsrsReplayer (settings: FsrsSettings) {
  const w = fsrsParameters(settings.params)
  if (w === undefined) throw new Error(`FSRS parameters of length ${settings.params.length} are not parameters`)
  // ts-fsrs clips w again on construction; built with short-term off, it keeps the crate's clipping
  // (w[19] may be 0). Short-term on afterwards: the crate always takes a same-day review's stability
  // from the short-term formula, and uses w[17] and w[18] after a lapse.
  const algorithm = new FSRSAlgorithm(generatorParameters({ w, enable_short_term: false, relearning_steps: [] }))
  algorithm.parameters.enable_short_term = true
  const ignoreBeforeMs = settings.ignoreRevlogsBeforeDate === undefined || settings.ignoreRevlogsBeforeDate === ''
    ? 0
    : Date.parse(`${settings.ignoreRevlogsBeforeDate}T00:00:00Z`)

  const initial = (rating: number): MemoryState => ({
    stability: Math.min(S_MAX, Math.max(S_MIN, w[rating - 1] as number)),
    difficulty: Math.min(10, Math.max(1, (w[4] as number) - Math.exp((w[5] as number) * (rating - 1)) + 1))
  })

  const replay = (reviews: readonly FsrsReview[], start: MemoryState | undefined): MemoryState | undefined => {
    let state = start
    for (const review of reviews) {
      const rating = Math.min(4, Math.max(1, review.rating))
      state = state === undefined ? initial(rating) : algorithm.next_state(state, review.deltaT, rating)
    }
    return state
  }

  return {
    parameters: w,
    /**
     * The card's memory state as Anki computes it; undefined for a new card, and for a card whose
     * history holds nothing FSRS can use and that has no interval to convert.
     */
    memoryStateOf (card: { type: number, interval: number, factor: number }, entries: readonly AnkiRevlogEntry[]): MemoryState | undefined {
      const usable = reviewsForFsrs(entries, settings.nextDayAt, ignoreBeforeMs)
      if (usable !== undefined) {
        if (usable.complete) return replay(usable.reviews, undefined)
        const first = usable.entries[0] as AnkiRevlogEntry
        const ease = (first.factor === 0 ? 2500 : first.factor) / 1000
        const start = memoryStateFromSm2(w, ease, Math.max(first.interval, 1), settings.historicalRetention)
        // an ease of 1.1 or less was written by FSRS itself: it holds the difficulty
        if (ease <= 1.1) start.difficulty = (ease - 0.1) * 9 + 1
        return replay(usable.reviews.slice(1), start)
      }
      if (card.type === CARD_TYPE.new || card.interval === 0) return undefined
      return memoryStateFromSm2(w, card.factor / 1000, card.interval, settings.historicalRetention)
    }
  }
}
