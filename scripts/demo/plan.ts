// The demo learner's year, decided before anything is stored: on which days
// they study and when, which parts of the library they add and when, every
// answer they give, and the goals they set. Pure and seeded: the same `now`
// gives the same year. seed-demo.ts then makes it happen through the service.
import { addDays, daysBetween, userDay, type LocalDay, type UserCalendar } from '../../src/domain/calendar.js'
import { cardsMadeBy } from '../../src/domain/card-content.js'
import type { GoalStatus, GoalType } from '../../src/domain/goals.js'
import type { Parameters } from '../../src/domain/memory-model.js'
import { seededRandom } from '../../src/domain/workload.js'
import type { DeckPart } from './content.js'
import { daysFrom, Learner, type GivenAnswer } from './learner.js'

const MINUTE = 60_000

/** The demo account's settings. */
export const DEMO_SETTINGS = { timezone: 'Europe/London', dayStartHour: 4, newCardsPerDay: 20, reviewsPerDay: 500, desiredRetention: 0.9 } as const

/**
 * The learner's memory, unlike FSRS's defaults (lower stabilities after a
 * first answer, growing more slowly with each recall): parameters fitted to the
 * year then predict it better than the defaults do, and are adopted.
 */
export const LEARNER_MEMORY: Parameters = [0.3, 0.9, 2.0, 6.0, 6.8, 0.6, 2.2, 0.01, 1.6, 0.15, 0.9, 1.8, 0.08, 0.3, 1.7, 0.5, 2.1, 0.5, 0.15, 0.1, 0.35]

/** Days of history before today: the heatmap's year, and a week more. */
export const HISTORY_DAYS = 372
/** The last days (today included) are studied through review-card itself; the days before are written in bulk. */
export const SERVICE_DAYS = 3
/** The last days before today without a day off: the streak. */
const STREAK_DAYS = 160
/** The library part is added when fewer new cards than this are left. */
const NEW_CARDS_KEPT = 60
/** The parts marked late are added this many days before today. */
const LATE_PARTS_BACK = 21

export interface PlannedPart { part: number, at: Date, cardIDs: string[] }

export interface PlannedGoal { type: GoalType, target: number, endDay: LocalDay, at: Date, status: GoalStatus }

export interface PlannedDay {
  day: LocalDay
  parts: PlannedPart[]
  goals: PlannedGoal[]
  answers: GivenAnswer[]
  /** recorded through review-card (the last days) rather than written in bulk */
  throughService: boolean
}

export interface DemoPlan {
  registeredAt: Date
  days: PlannedDay[]
  /** how many cards the parts added make */
  cardsAdded: number
}

/** The placeholder id of the card made `position`-th by part `part`'s request. */
export function placeholder (part: number, position: number): string {
  return `${part}:${position}`
}

/** How many cards a part's request makes: one a card, one per number a cloze note. */
function cardsOf (part: DeckPart): number {
  const mediaIDs = new Map(part.files.map((file) => [file.key, '0']))
  return part.cards(mediaIDs).reduce((sum, card) => sum + cardsMadeBy(card.cloze === undefined ? { front: card.front ?? '', back: card.back ?? '' } : { cloze: card.cloze }), 0)
}

export function planDemo (parts: readonly DeckPart[], now: Date, seed = 2024): DemoPlan {
  const calendar: UserCalendar = { timezone: DEMO_SETTINGS.timezone, dayStartHour: DEMO_SETTINGS.dayStartHour }
  const random = seededRandom(seed)
  const learner = new Learner({
    memory: LEARNER_MEMORY,
    calendar,
    scheduling: { desiredRetention: DEMO_SETTINGS.desiredRetention },
    reviewsPerDay: DEMO_SETTINGS.reviewsPerDay,
    random
  })
  const today = userDay(now, calendar).day
  const first = addDays(today, -HISTORY_DAYS)
  const lastMinute = new Date(now.getTime() - MINUTE)
  let nextPart = 0
  let cardsAdded = 0
  const days: PlannedDay[] = []
  for (const day of daysFrom(first, today)) {
    const back = daysBetween(day, today)
    const planned: PlannedDay = { day, parts: [], goals: [], answers: [], throughService: back < SERVICE_DAYS }
    days.push(planned)
    // the morning: new parts of the library while few new cards are left, and the late ones on their day
    let partAt = learner.at(day, 3)
    const add = (index: number): void => {
      const cardIDs = Array.from({ length: cardsOf(parts[index] as DeckPart) }, (_, position) => placeholder(index, position))
      learner.add(cardIDs.map((cardID) => ({ cardID, flashcardID: String(index) })), partAt)
      planned.parts.push({ part: index, at: partAt, cardIDs })
      cardsAdded += cardIDs.length
      partAt = new Date(partAt.getTime() + MINUTE)
    }
    if (back === LATE_PARTS_BACK) parts.forEach((part, index) => { if (part.late === true) add(index) })
    for (;;) {
      while (nextPart < parts.length && parts[nextPart]?.late === true) nextPart += 1
      if (learner.newLeft >= NEW_CARDS_KEPT || nextPart >= parts.length || partAt >= lastMinute) break
      add(nextPart)
      nextPart += 1
    }
    // a few days off in the first months (a holiday among them), none lately
    const dayOff = back > STREAK_DAYS && (random() < 0.05 || (back >= 250 && back < 254))
    if (dayOff || back === HISTORY_DAYS) continue
    // new cards most days, fewer on some, none on a few
    const draw = random()
    const newCards = draw < 0.6 ? DEMO_SETTINGS.newCardsPerDay : draw < 0.85 ? 10 : 0
    const sittings: Array<[Date, Date]> = back === 0
      // today: one short sitting in the last hour and a half, so that a good part of today's cards is still to study
      ? [todaySitting(learner.at(day, 0.05), now)]
      : [[learner.at(day, 3.75 + random() * 2.5), learner.at(day, 8)], ...(random() < 0.7 ? [[learner.at(day, 14 + random() * 3), learner.at(day, 19.5)] as [Date, Date]] : [])]
    for (const [from, until] of sittings) {
      if (from >= until) continue
      planned.answers.push(...learner.sitting(from, until, newCards))
    }
  }
  planGoals(days, learner, today)
  return { registeredAt: learner.at(first, 2.5), days, cardsAdded }
}

/** Today's sitting: 25 minutes at most, begun within the last hour and a half, ended a minute ago at the latest. */
function todaySitting (dayStart: Date, now: Date): [Date, Date] {
  const from = Math.max(dayStart.getTime(), now.getTime() - 90 * MINUTE)
  return [new Date(from), new Date(Math.min(from + 25 * MINUTE, now.getTime() - MINUTE))]
}

/**
 * Goals of every outcome, with targets set from what the learner then does:
 * two met, two missed, two still running with more than half of their target
 * to go. Each is set on the morning of its first day, before its sittings.
 */
function planGoals (days: PlannedDay[], learner: Learner, today: LocalDay): void {
  const byDay = new Map(days.map((planned) => [planned.day, planned]))
  const doneIn = (from: LocalDay, to: LocalDay): number => days.filter((planned) => planned.day >= from && planned.day <= to)
    .reduce((sum, planned) => sum + planned.answers.length, 0)
  const goal = (type: GoalType, startBack: number, endBack: number, status: GoalStatus): void => {
    const start = addDays(today, -startBack)
    const endDay = addDays(today, -endBack)
    const perAnswer = type === 'Card' ? 1 : 10
    const done = doneIn(start, endDay < today ? endDay : today) * perAnswer
    const unit = type === 'Card' ? 100 : 1000
    const target = status === 'completed'
      ? Math.floor(done * 0.92 / unit) * unit
      : status === 'failed'
        ? Math.ceil(done * 1.12 / unit) * unit
        // still running: more than twice what is done so far, as its days are not half over
        : Math.ceil((done * 2.2 + unit) / unit) * unit
    byDay.get(start)?.goals.push({ type, target, endDay, at: learner.at(start, 3.5), status })
  }
  goal('Card', 200, 171, 'completed')
  goal('XP', 120, 107, 'failed')
  goal('XP', 62, 33, 'completed')
  goal('Card', 45, 39, 'failed')
  goal('XP', 12, -18, 'in progress')
  goal('Card', 5, -9, 'in progress')
}
