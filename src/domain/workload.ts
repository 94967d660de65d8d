// What a desired retention costs: the answers a day it takes to keep it, for
// given parameters, estimated by simulating the user's year ahead. The
// binding of the FSRS optimizer has no simulator, so this one follows Anki's
// (the fsrs crate's simulate) in its simplest form: every card studied so far
// from the memory state its history left, plus the user's new cards a day,
// reviewed the day they fall due, each recalled with the probability the
// parameters give and answered as the user answers (shares from their log).
import { firstState, intervalFor, nextState, retrievability, stateAfter, type MemoryState, type Parameters } from './memory-model.js'
import type { CardHistory } from './training-items.js'

/** A small seeded generator (mulberry32): one seed, one sequence, so estimates are repeatable. */
export function seededRandom (seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
  }
}

/** How the user answers, from their log. */
export interface AnswerHabits {
  /** shares of again, hard, good and easy as the first answer to a new card */
  first: readonly [number, number, number, number]
  /** shares of hard, good and easy among answers that recalled a card in review */
  recalled: readonly [number, number, number]
  /** answers given on the day of a card's first answer, after it (its learning steps) */
  learningSteps: number
  /** answers given on the day of a lapse, after it (its relearning steps) */
  relearningSteps: number
}

/** Shares used when the log has too few answers to tell. */
export const USUAL_HABITS: AnswerHabits = {
  first: [0.2, 0.1, 0.6, 0.1],
  recalled: [0.15, 0.75, 0.1],
  learningSteps: 1,
  relearningSteps: 1
}

function shares<T extends number[]> (counts: T, fallback: Readonly<T>): Readonly<T> {
  const total = counts.reduce((sum, count) => sum + count, 0)
  return total < 20 ? fallback : counts.map((count) => count / total) as T
}

/** The user's answer habits, read from their cards' histories. */
export function answerHabits (cards: readonly CardHistory[]): AnswerHabits {
  const first = [0, 0, 0, 0]
  const recalled = [0, 0, 0]
  let learningSteps = 0
  let learned = 0
  let relearningSteps = 0
  let lapses = 0
  for (const { steps } of cards) {
    const opening = steps[0]
    if (opening === undefined) continue
    first[opening.rating - 1] = (first[opening.rating - 1] as number) + 1
    learned += 1
    let sameDay: 'learning' | 'relearning' | null = 'learning'
    for (let index = 1; index < steps.length; index++) {
      const step = steps[index] as { rating: number, deltaT: number }
      if (step.deltaT === 0) {
        if (sameDay === 'learning') learningSteps += 1
        else if (sameDay === 'relearning') relearningSteps += 1
        continue
      }
      sameDay = null
      if (step.rating === 1) {
        lapses += 1
        sameDay = 'relearning'
      } else {
        recalled[step.rating - 2] = (recalled[step.rating - 2] as number) + 1
      }
    }
  }
  return {
    first: shares(first as [number, number, number, number], USUAL_HABITS.first),
    recalled: shares(recalled as [number, number, number], USUAL_HABITS.recalled),
    learningSteps: learned < 20 ? USUAL_HABITS.learningSteps : learningSteps / learned,
    relearningSteps: lapses < 20 ? USUAL_HABITS.relearningSteps : relearningSteps / lapses
  }
}

/** A card already studied: its memory state and how many days ago its last answer was. */
export interface StudiedCard { state: MemoryState, daysSince: number }

/** The cards a log has studied, as `w` sees them `today` (a day number). */
export function studiedCards (w: Parameters, cards: readonly CardHistory[], today: number): StudiedCard[] {
  const studied: StudiedCard[] = []
  for (const card of cards) {
    const state = stateAfter(w, card.steps)
    if (state !== null) studied.push({ state, daysSince: Math.max(0, today - card.lastDay) })
  }
  return studied
}

export interface WorkloadOptions {
  studied: readonly StudiedCard[]
  newCardsPerDay: number
  habits: AnswerHabits
  /** days simulated */
  days?: number
  seed?: number
}

// Cards behave independently, so a sample of them, scaled up, estimates the whole: the
// cost of an estimate stays bounded whatever the deck's size and the new cards a day
const STUDIED_SAMPLE = 2000
const NEW_CARDS_SIMULATED = 10

function pick (random: () => number, shares: readonly number[]): number {
  let draw = random()
  for (let index = 0; index < shares.length; index++) {
    draw -= shares[index] as number
    if (draw < 0) return index
  }
  return shares.length - 1
}

/** A whole number of same-day steps whose mean is `mean`. */
function stepsOf (random: () => number, mean: number): number {
  const whole = Math.floor(mean)
  return whole + (random() < mean - whole ? 1 : 0)
}

/**
 * The answers a day, on average over the days simulated (a year by default),
 * that keeping `retention` takes with parameters `w`: the studied cards
 * reviewed when they fall due (an overdue card on the first day), the new cards
 * learned each day, each answer drawn as the user answers.
 */
export function answersPerDay (w: Parameters, retention: number, options: WorkloadOptions): number {
  const days = options.days ?? 365
  const random = seededRandom(options.seed ?? 7)
  const { habits } = options
  const stride = Math.max(1, options.studied.length / STUDIED_SAMPLE)
  const studiedWeight = stride
  const newWeight = options.newCardsPerDay / NEW_CARDS_SIMULATED
  // cards due on each day: their state, the day of their last answer, and what one of their answers counts for
  const due: Array<Array<{ state: MemoryState, last: number, weight: number }>> = Array.from({ length: days }, () => [])
  let answers = 0
  const schedule = (card: { state: MemoryState, last: number, weight: number }, today: number): void => {
    const interval = Math.min(36_500, Math.max(1, Math.round(intervalFor(w, card.state.stability, retention))))
    const day = card.last + interval
    if (day < days) due[Math.max(today + 1, day)]?.push(card)
  }
  for (let at = 0; at < options.studied.length; at += stride) {
    const { state, daysSince } = options.studied[Math.floor(at)] as StudiedCard
    const card = { state, last: -daysSince, weight: studiedWeight }
    const interval = Math.max(1, Math.round(intervalFor(w, state.stability, retention)))
    const day = Math.max(0, card.last + interval)
    if (day < days) due[day]?.push(card)
  }
  for (let today = 0; today < days; today++) {
    for (const card of due[today] ?? []) {
      const recalled = random() < retrievability(w, today - card.last, card.state.stability)
      const rating = recalled ? 2 + pick(random, habits.recalled) : 1
      card.state = nextState(w, card.state, today - card.last, rating)
      answers += card.weight
      if (!recalled) {
        for (let step = stepsOf(random, habits.relearningSteps); step > 0; step--) {
          card.state = nextState(w, card.state, 0, 3)
          answers += card.weight
        }
      }
      card.last = today
      schedule(card, today)
    }
    if (newWeight > 0) {
      for (let n = 0; n < NEW_CARDS_SIMULATED; n++) {
        const card = { state: firstState(w, 1 + pick(random, habits.first)), last: today, weight: newWeight }
        answers += newWeight
        for (let step = stepsOf(random, habits.learningSteps); step > 0; step--) {
          card.state = nextState(w, card.state, 0, 3)
          answers += newWeight
        }
        schedule(card, today)
      }
    }
  }
  return answers / days
}
