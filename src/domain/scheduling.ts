import { fsrs, generatorParameters, Rating as FsrsRating, type Card, type FSRS, type Grade, type State } from 'ts-fsrs'

/** The four answers a user can give after seeing the back of a card. */
export type Rating = 'again' | 'hard' | 'good' | 'easy'
export const RATINGS: readonly Rating[] = Object.freeze(['again', 'hard', 'good', 'easy'])

export function isRating (value: unknown): value is Rating {
  return typeof value === 'string' && (RATINGS as readonly string[]).includes(value)
}

/** Card states, numbered as ts-fsrs numbers them so stored values mean the same thing there. */
export const CardState = Object.freeze({ New: 0, Learning: 1, Review: 2, Relearning: 3 } as const)
export type CardState = typeof CardState[keyof typeof CardState]

/** Where a card stands in its spaced-repetition life: what the database stores for it. */
export interface CardSchedule {
  state: CardState
  due: Date
  stability: number
  difficulty: number
  elapsedDays: number
  scheduledDays: number
  learningSteps: number
  reps: number
  lapses: number
  lastReview: Date | null
}

export const XP_PER_REVIEW = 10
export const DEFAULT_DESIRED_RETENTION = 0.9

const GRADES: Readonly<Record<Rating, Grade>> = {
  again: FsrsRating.Again,
  hard: FsrsRating.Hard,
  good: FsrsRating.Good,
  easy: FsrsRating.Easy
}

/** How a user's cards are scheduled: their desired retention, and their own FSRS parameters once fitted (the defaults otherwise). */
export interface SchedulingOptions {
  desiredRetention: number
  /** the 21 FSRS-6 weights; absent for the defaults */
  parameters?: readonly number[]
}

// Building a scheduler derives its parameters every time; users pick from a handful of
// retention values and share the default parameters, so one scheduler per pair serves
// nearly every review. Fitted parameters are each one user's: the least recently used go.
const SCHEDULERS_KEPT = 1000
const schedulers = new Map<string, FSRS>()

function schedulerFor ({ desiredRetention, parameters }: SchedulingOptions): FSRS {
  const key = parameters === undefined ? String(desiredRetention) : `${desiredRetention}|${parameters.join(',')}`
  let scheduler = schedulers.get(key)
  if (scheduler === undefined) {
    if (!(desiredRetention > 0 && desiredRetention < 1)) {
      throw new RangeError(`desired retention must lie between 0 and 1, got ${desiredRetention}`)
    }
    if (parameters !== undefined && parameters.length !== 21) {
      throw new RangeError(`FSRS-6 takes 21 parameters, got ${parameters.length}`)
    }
    // No fuzz: the same review history must give the same due date, so undo and retries
    // land where the first answer did
    scheduler = fsrs(generatorParameters({ request_retention: desiredRetention, enable_fuzz: false, ...(parameters === undefined ? {} : { w: [...parameters] }) }))
    if (schedulers.size >= SCHEDULERS_KEPT) schedulers.delete(schedulers.keys().next().value as string)
  } else {
    schedulers.delete(key)
  }
  schedulers.set(key, scheduler)
  return scheduler
}

/** A card nobody has studied yet: new, and due at once. */
export function newSchedule (now: Date): CardSchedule {
  return {
    state: CardState.New,
    due: new Date(now.getTime()),
    stability: 0,
    difficulty: 0,
    elapsedDays: 0,
    scheduledDays: 0,
    learningSteps: 0,
    reps: 0,
    lapses: 0,
    lastReview: null
  }
}

function toFsrsCard (schedule: CardSchedule): Card {
  const card: Card = {
    due: schedule.due,
    stability: schedule.stability,
    difficulty: schedule.difficulty,
    elapsed_days: schedule.elapsedDays,
    scheduled_days: schedule.scheduledDays,
    learning_steps: schedule.learningSteps,
    reps: schedule.reps,
    lapses: schedule.lapses,
    state: schedule.state as State
  }
  if (schedule.lastReview !== null) card.last_review = schedule.lastReview
  return card
}

function fromFsrsCard (card: Card): CardSchedule {
  return {
    state: card.state as CardState,
    due: card.due,
    stability: card.stability,
    difficulty: card.difficulty,
    elapsedDays: card.elapsed_days,
    scheduledDays: card.scheduled_days,
    learningSteps: card.learning_steps,
    reps: card.reps,
    lapses: card.lapses,
    lastReview: card.last_review ?? null
  }
}

/** The card's schedule after the user answers `rating` at `now`. */
export function scheduleReview (
  schedule: CardSchedule,
  rating: Rating,
  now: Date,
  options: SchedulingOptions
): CardSchedule {
  const grade = GRADES[rating]
  if (grade === undefined) throw new RangeError(`unknown rating: ${JSON.stringify(rating)}`)
  const { card } = schedulerFor(options).next(toFsrsCard(schedule), now, grade)
  return fromFsrsCard(card)
}

/** The schedule each of the four answers would give the card at `now`: what the answer buttons show before one is chosen. */
export function previewReviews (
  schedule: CardSchedule,
  now: Date,
  options: SchedulingOptions
): Record<Rating, CardSchedule> {
  return Object.fromEntries(RATINGS.map((rating) => [rating, scheduleReview(schedule, rating, now, options)])) as Record<Rating, CardSchedule>
}

const MINUTE = 60_000
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR

function withUnit (amount: number, unit: string): string {
  return `${amount} ${unit}${amount === 1 || unit === 'min' || unit === 'h' ? '' : 's'}`
}

/**
 * How long until `due`, in the words an answer button shows: "1 min",
 * "10 min", "5 h", "1 day", "4 days", "2.5 months", "1.1 years". Whole
 * minutes, hours and days; months (of 30 days) and years (of 365) with one
 * decimal, as a learner reads them.
 */
export function intervalText (from: Date, due: Date): string {
  const span = Math.max(0, due.getTime() - from.getTime())
  if (span < HOUR) return withUnit(Math.max(1, Math.round(span / MINUTE)), 'min')
  if (span < DAY) return withUnit(Math.round(span / HOUR), 'h')
  const days = Math.round(span / DAY)
  if (days < 30) return withUnit(days, 'day')
  if (days < 365) return withUnit(Math.round(days / 3) / 10, 'month')
  return withUnit(Math.round(days / 36.5) / 10, 'year')
}

export function isNewCard (schedule: CardSchedule): boolean {
  return schedule.state === CardState.New
}

/**
 * The card's review_status on the wire, always one decimal place: '0.0' never reviewed,
 * '0.N' in (re)learning at step N (1-9), 'D.0' in review with an interval of D days.
 * The spec shows only the shape; this reading lets a client sort and colour cards by it.
 */
export function reviewStatus (schedule: Pick<CardSchedule, 'state' | 'learningSteps' | 'scheduledDays'>): string {
  switch (schedule.state) {
    case CardState.Learning:
    case CardState.Relearning: {
      const steps = Number.isFinite(schedule.learningSteps) ? Math.trunc(schedule.learningSteps) : 0
      const step = Math.min(9, Math.max(1, steps + 1))
      return `0.${step}`
    }
    case CardState.Review:
      return `${Number.isFinite(schedule.scheduledDays) ? Math.max(1, Math.round(schedule.scheduledDays)) : 1}.0`
    default:
      return '0.0'
  }
}

