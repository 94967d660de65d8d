// A learner whose memory follows FSRS-6 with known parameters: each answer is
// drawn from the recall probability those parameters give, so that fitting
// parameters to the log can be checked against the ones that made it.
import { addDays, type LocalDay } from '../../src/domain/calendar.js'
import { firstState, intervalFor, nextState, retrievability, type MemoryState, type Parameters } from '../../src/domain/memory-model.js'
import { dayNumber, type LoggedReview } from '../../src/domain/training-items.js'
import { seededRandom } from '../../src/domain/workload.js'

export interface LearnerOptions {
  parameters: Parameters
  /** answers to make in all */
  reviews: number
  newCardsPerDay?: number
  /** the retention the learner's scheduler aims at */
  retention?: number
  seed?: number
  /** the first day of the history */
  firstDay?: LocalDay
  /** the instant each day begins at, from its LocalDay (the user's calendar); UTC midnight plus 4 hours by default */
  dayStart?: (day: LocalDay) => number
}

const HOUR = 3_600_000

function pick<T> (random: () => number, choices: ReadonlyArray<readonly [T, number]>): T {
  let draw = random()
  for (const [choice, weight] of choices) {
    draw -= weight
    if (draw < 0) return choice
  }
  return (choices[choices.length - 1] as readonly [T, number])[0]
}

interface Card { id: string, state: MemoryState, due: number, last: number }

/**
 * A history of about `reviews` answers: new cards every day, first answered
 * (again, hard, good or easy), again the same day after a first "again" or a
 * lapse, then reviewed when due, sometimes late, each recalled with the
 * probability the parameters give and rated hard, good or easy if so.
 */
export function syntheticLog (options: LearnerOptions): LoggedReview[] {
  const w = options.parameters
  const random = seededRandom(options.seed ?? 1)
  const retention = options.retention ?? 0.9
  const perDay = options.newCardsPerDay ?? 20
  const firstDay = options.firstDay ?? '2024-01-01'
  const dayStart = options.dayStart ?? ((day: LocalDay) => Date.parse(`${day}T04:00:00Z`))
  const log: LoggedReview[] = []
  const due = new Map<number, Card[]>()
  const schedule = (card: Card, today: number): void => {
    const days = Math.max(1, Math.round(intervalFor(w, card.state.stability, retention) * (0.9 + 0.7 * random())))
    card.due = today + days
    const list = due.get(card.due) ?? []
    list.push(card)
    due.set(card.due, list)
  }
  let made = 0
  let next = 0
  for (let today = 0; made < options.reviews; today++) {
    const day = addDays(firstDay, today)
    let at = dayStart(day) + 6 * HOUR
    const answer = (card: Card, rating: number, kind: LoggedReview['kind']): void => {
      at += 1000 + Math.floor(random() * 20_000)
      log.push({ cardID: card.id, at, day: dayNumber(day), rating, kind })
      made += 1
    }
    for (const card of due.get(today) ?? []) {
      const recalled = random() < retrievability(w, today - card.last, card.state.stability)
      const rating = recalled ? pick(random, [[2, 0.15], [3, 0.75], [4, 0.1]]) : 1
      answer(card, rating, 'review')
      card.state = nextState(w, card.state, today - card.last, rating)
      if (rating === 1) {
        answer(card, 3, 'relearning')
        card.state = nextState(w, card.state, 0, 3)
      }
      card.last = today
      schedule(card, today)
    }
    due.delete(today)
    for (let n = 0; n < perDay && made < options.reviews; n++) {
      const card: Card = { id: `card-${String(next++).padStart(6, '0')}`, state: { stability: 0, difficulty: 0 }, due: today, last: today }
      const rating = pick(random, [[1, 0.2], [2, 0.1], [3, 0.6], [4, 0.1]])
      answer(card, rating, 'learning')
      card.state = firstState(w, rating)
      if (rating <= 2) {
        answer(card, 3, 'learning')
        card.state = nextState(w, card.state, 0, 3)
      }
      schedule(card, today)
    }
  }
  return log
}
