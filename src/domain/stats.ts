import { addDays, type LocalDay } from './calendar.js'
import type { ActivityByDay } from './goals.js'
import { CardState } from './scheduling.js'

/** The heatmap covers today and the 364 user-days before it. */
export const HEATMAP_DAYS = 365

export interface CardCounts {
  new: number
  learning: number
  review: number
  relearning: number
  total: number
}

/** What a user's statistics page shows, before it becomes strings. */
export interface Stats {
  totalXp: number
  weeklyXp: number
  streak: number
  /** days with at least one review in the heatmap's window, oldest first */
  heatmap: Array<{ day: LocalDay, reviews: number }>
  cards: CardCounts
}

/** 0 for Monday through 6 for Sunday. */
function weekdayOf (day: LocalDay): number {
  // a LocalDay is an ISO calendar date; read at UTC midnight it names the same weekday
  const sundayFirst = new Date(`${day}T00:00:00Z`).getUTCDay()
  return (sundayFirst + 6) % 7
}

/** The Monday that begins the week `day` belongs to; weeks run Monday to Sunday. */
export function weekStart (day: LocalDay): LocalDay {
  return addDays(day, -weekdayOf(day))
}

/** XP gained from this week's Monday through today. */
export function weeklyXpOf (activity: ActivityByDay, today: LocalDay): number {
  const monday = weekStart(today)
  let xp = 0
  for (const [day, done] of activity) {
    if (day >= monday && day <= today) xp += done.xp
  }
  return xp
}

function reviewedOn (activity: ActivityByDay, day: LocalDay): boolean {
  return (activity.get(day)?.reviews ?? 0) > 0
}

/**
 * The run of consecutive days with a review that ends today, or yesterday
 * when today has none yet (the streak is not lost until the day is over).
 * `first` is the run's earliest day, null when there is no run: a caller
 * that read only part of the history reads further back when the run
 * reaches the start of what it read.
 */
export function streakOf (activity: ActivityByDay, today: LocalDay): { length: number, first: LocalDay | null } {
  let day = reviewedOn(activity, today) ? today : addDays(today, -1)
  let length = 0
  let first: LocalDay | null = null
  while (reviewedOn(activity, day)) {
    length += 1
    first = day
    day = addDays(day, -1)
  }
  return { length, first }
}

/** The first day of the heatmap that ends today. */
export function heatmapStart (today: LocalDay): LocalDay {
  return addDays(today, -(HEATMAP_DAYS - 1))
}

/** Reviews per day over the heatmap's window; days without reviews are left out. */
export function heatmapOf (activity: ActivityByDay, today: LocalDay): Array<{ day: LocalDay, reviews: number }> {
  const from = heatmapStart(today)
  return [...activity]
    .filter(([day, done]) => day >= from && day <= today && done.reviews > 0)
    .sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0)
    .map(([day, done]) => ({ day, reviews: done.reviews }))
}

/** Card counts by state from (state, count) pairs, as a grouping by state gives them. */
export function cardCountsOf (groups: ReadonlyArray<{ state: number, count: number }>): CardCounts {
  const counts: CardCounts = { new: 0, learning: 0, review: 0, relearning: 0, total: 0 }
  for (const { state, count } of groups) {
    if (state === CardState.New) counts.new += count
    else if (state === CardState.Learning) counts.learning += count
    else if (state === CardState.Review) counts.review += count
    else if (state === CardState.Relearning) counts.relearning += count
    // a state this code does not know still counts toward the total
    counts.total += count
  }
  return counts
}

export function statsOf (input: {
  totalXp: number
  activity: ActivityByDay
  today: LocalDay
  cardStates: ReadonlyArray<{ state: number, count: number }>
}): Stats {
  const { totalXp, activity, today, cardStates } = input
  return {
    totalXp,
    weeklyXp: weeklyXpOf(activity, today),
    streak: streakOf(activity, today).length,
    heatmap: heatmapOf(activity, today),
    cards: cardCountsOf(cardStates)
  }
}
