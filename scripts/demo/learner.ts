// The demo's learner: a memory that follows FSRS-6 with parameters of its own,
// studying today's cards as the study page offers them. The cards' schedules
// are the service's (scheduling.ts, the function review-card calls, with the
// account's retention); whether an answer is a recall is drawn from the
// learner's own memory, so that a fit to the log finds that memory rather than
// the defaults. Pure: cards, days and instants in, answers out; the caller
// records each answer (in bulk, or through review-card).
import { addDays, startOfDay, userDay, type LocalDay, type UserCalendar } from '../../src/domain/calendar.js'
import { firstState, nextState, retrievability, type MemoryState, type Parameters } from '../../src/domain/memory-model.js'
import { CardState, newSchedule, scheduleReview, type CardSchedule, type Rating, type SchedulingOptions } from '../../src/domain/scheduling.js'
import { dayNumber } from '../../src/domain/training-items.js'

const SECOND = 1000
const MINUTE = 60 * SECOND
const HOUR = 60 * MINUTE

/** The study page shows a card still in its steps again if it comes due within this (its learn-ahead window). */
const LEARN_AHEAD = 20 * MINUTE

/** A card of the demo as the learner knows it: the service's schedule, and the learner's own memory of it. */
export interface StudiedCard {
  cardID: string
  flashcardID: string
  schedule: CardSchedule
  /** the learner's memory of the card, null before its first answer */
  memory: MemoryState | null
  /** the day number of its last answer */
  lastDay: number | null
}

/** One answer given: what review-card stores, computed as it computes it. */
export interface GivenAnswer {
  card: StudiedCard
  rating: Rating
  at: Date
  day: LocalDay
  before: CardSchedule
  after: CardSchedule
  wasNew: boolean
}

export interface LearnerOptions {
  /** the learner's memory: FSRS-6 weights of their own */
  memory: Parameters
  calendar: UserCalendar
  /** how the service schedules the account's reviews */
  scheduling: SchedulingOptions
  reviewsPerDay: number
  random: () => number
}

function pick<T> (random: () => number, choices: ReadonlyArray<readonly [T, number]>): T {
  let draw = random()
  for (const [choice, weight] of choices) {
    draw -= weight
    if (draw < 0) return choice
  }
  return (choices[choices.length - 1] as readonly [T, number])[0]
}

const inSteps = (card: StudiedCard): boolean => card.schedule.state === CardState.Learning || card.schedule.state === CardState.Relearning

export class Learner {
  /** every card, in creation order: the new ones are studied in that order, as the service queues them */
  private readonly cards: StudiedCard[] = []
  private nextNew = 0
  /** the cards in their (re)learning steps: due again within minutes */
  private readonly stepping = new Set<StudiedCard>()
  /** what the day's limits have counted: the day, new cards started, other answers */
  private counted = { day: '', newCards: 0, reviews: 0 }

  constructor (private readonly options: LearnerOptions) {}

  /** Cards just made, new, in the order the service made them. */
  add (cards: ReadonlyArray<{ cardID: string, flashcardID: string }>, createdAt: Date): void {
    for (const card of cards) this.cards.push({ ...card, schedule: newSchedule(createdAt), memory: null, lastDay: null })
  }

  get all (): readonly StudiedCard[] {
    return this.cards
  }

  /** The new cards not yet started. */
  get newLeft (): number {
    return this.cards.length - this.nextNew
  }

  /** The instant `hours` past the start of the user's `day` (its dayStartHour). */
  at (day: LocalDay, hours: number): Date {
    return new Date(startOfDay(day, this.options.calendar).getTime() + hours * HOUR)
  }

  /**
   * One sitting from `from`, ending before `until`: the cards in their steps
   * once due, the day's reviews in due order, new cards within the day's
   * limit (`newCards` a day, at most), then the steps that come due within
   * the learn-ahead window. Each answer is applied to the card before it is
   * handed on.
   */
  * sitting (from: Date, until: Date, newCards: number): Generator<GivenAnswer> {
    const { random, calendar, scheduling } = this.options
    const { day, end } = userDay(from, calendar)
    if (this.counted.day !== day) this.counted = { day, newCards: 0, reviews: 0 }
    const today = dayNumber(day)
    const reviews = this.cards.filter((card) => card.schedule.state === CardState.Review && card.schedule.due < end)
      .sort((a, b) => a.schedule.due.getTime() - b.schedule.due.getTime())
    let nextReview = 0
    let now = from.getTime()
    while (now < until.getTime()) {
      let card: StudiedCard | undefined
      let dueStep: StudiedCard | undefined
      for (const stepping of this.stepping) if (dueStep === undefined || stepping.schedule.due < dueStep.schedule.due) dueStep = stepping
      if (dueStep !== undefined && dueStep.schedule.due.getTime() <= now) card = dueStep
      else if (nextReview < reviews.length && this.counted.reviews < this.options.reviewsPerDay) card = reviews[nextReview++]
      else if (this.nextNew < this.cards.length && this.counted.newCards < newCards) card = this.cards[this.nextNew++]
      else if (dueStep !== undefined && dueStep.schedule.due.getTime() - now <= LEARN_AHEAD && dueStep.schedule.due < end) {
        card = dueStep
        now = Math.max(now, dueStep.schedule.due.getTime())
      }
      if (card === undefined || now >= until.getTime()) return
      const at = new Date(now)
      const rating = this.answerOf(card, today)
      const before = card.schedule
      const after = scheduleReview(before, rating, at, scheduling)
      const wasNew = before.state === CardState.New
      const grade = ['again', 'hard', 'good', 'easy'].indexOf(rating) + 1
      card.memory = card.memory === null ? firstState(this.options.memory, grade) : nextState(this.options.memory, card.memory, today - (card.lastDay ?? today), grade)
      card.lastDay = today
      card.schedule = after
      if (inSteps(card)) this.stepping.add(card)
      else this.stepping.delete(card)
      if (wasNew) this.counted.newCards += 1
      else this.counted.reviews += 1
      yield { card, rating, at, day, before, after, wasNew }
      // an answer takes a few seconds to read, recall and rate
      now += 4 * SECOND + Math.floor(random() * 16 * SECOND)
    }
  }

  /** The learner's answer to a card today: a recall or not, drawn from their own memory of it. */
  private answerOf (card: StudiedCard, today: number): Rating {
    const { random, memory } = this.options
    if (card.memory === null) return pick(random, [['again', 0.22], ['hard', 0.1], ['good', 0.58], ['easy', 0.1]])
    const days = today - (card.lastDay ?? today)
    const recall = days === 0 ? 0.88 : retrievability(memory, days, card.memory.stability)
    if (random() >= recall) return 'again'
    return inSteps(card) ? pick(random, [['hard', 0.06], ['good', 0.9], ['easy', 0.04]]) : pick(random, [['hard', 0.12], ['good', 0.78], ['easy', 0.1]])
  }
}

/** The days from `first` through `last`, in order. */
export function daysFrom (first: LocalDay, last: LocalDay): LocalDay[] {
  const days: LocalDay[] = []
  for (let day = first; day <= last; day = addDays(day, 1)) days.push(day)
  return days
}
