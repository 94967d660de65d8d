import { addDays, formatDay, type LocalDay } from './calendar.js'
import type { GoalView } from '../schemas/goals.js'

export type GoalType = 'Card' | 'XP'
export type GoalStatus = 'in progress' | 'completed' | 'failed'

export const GOAL_TYPES: readonly GoalType[] = Object.freeze(['Card', 'XP'])

export interface Goal {
  id: string
  type: GoalType
  /** Cards to revise or XP to gain, a positive integer. */
  target: number
  /** The user's day the goal was created. */
  startDay: LocalDay
  /** The last day activity counts toward the goal. */
  endDay: LocalDay
  /** The user's total XP when the goal was created, shown on XP goals. */
  startingXp: number
  /**
   * The reviews and XP of the start day made before the goal was created: the daily
   * counts cannot tell them from the later ones, and they do not count toward the goal.
   */
  earlierThatDay: DayActivity
  status: GoalStatus
  failDay: LocalDay | null
}

/** What the user did on one of their days, as the review log adds it up. */
export interface DayActivity {
  reviews: number
  xp: number
}

export type ActivityByDay = ReadonlyMap<LocalDay, DayActivity>

/** No activity: what a goal created before any review of its day, or stored before goals counted from their creation, leaves out. */
export const NOTHING_DONE: DayActivity = Object.freeze({ reviews: 0, xp: 0 })

/** The published interface's blank fail_date: a double quote, a space, a double quote. */
export const FAIL_DATE_PLACEHOLDER = '" "'

export function isGoalType (value: unknown): value is GoalType {
  return typeof value === 'string' && (GOAL_TYPES as readonly string[]).includes(value)
}

/**
 * Reviews (Card goal) or XP (XP goal) made from the goal's creation through its end
 * day: the days of its window, less what its start day held when it was created. While
 * the goal runs, an XP goal's progress is so the user's total XP less `startingXp`;
 * XP gained after the end day is not progress.
 */
export function progressOf (goal: Goal, activity: ActivityByDay): number {
  const countOf = (done: DayActivity): number => goal.type === 'Card' ? done.reviews : done.xp
  let progress = 0
  // Walking the map rather than the days keeps a goal spanning years as cheap as one
  // spanning a week; LocalDay strings compare in calendar order
  for (const [day, done] of activity) {
    if (day < goal.startDay || day > goal.endDay) continue
    progress += countOf(done)
  }
  // the published interface's digits are never negative, even for counts that drifted apart
  return Math.max(0, progress - countOf(goal.earlierThatDay))
}

/**
 * The goal's status as its history decides it on `today`. Only activity inside the goal's
 * window counts, so the answer does not depend on when the question is asked: a goal met
 * in time is completed even if nobody looked until later, and one missed is failed from
 * the day after its end day. Completed and failed are final.
 */
export function evaluateGoal (goal: Goal, activity: ActivityByDay, today: LocalDay): Goal {
  if (goal.status === 'completed' || goal.status === 'failed') return goal
  if (progressOf(goal, activity) >= goal.target) {
    return { ...goal, status: 'completed', failDay: null }
  }
  if (today > goal.endDay) {
    return { ...goal, status: 'failed', failDay: addDays(goal.endDay, 1) }
  }
  return { ...goal, status: 'in progress', failDay: null }
}

export function goalTitle (type: GoalType, target: number, endDay: LocalDay): string {
  const by = formatDay(endDay)
  return type === 'Card' ? `Revise ${target} cards by ${by}` : `Gain ${target} XP by ${by}`
}

/** The goal as the published interface shows it (the wire type is its schema's, schemas/goals.ts). */
export function goalView (goal: Goal, progress: number): GoalView {
  const data: GoalView['data'] = goal.type === 'Card'
    ? { cards_revised_so_far: String(progress), cards_to_revise: String(goal.target) }
    : { goal_xp: String(goal.target), start_date: formatDay(goal.startDay), starting_xp: String(goal.startingXp) }
  const failDate = goal.status === 'failed'
    ? formatDay(goal.failDay ?? addDays(goal.endDay, 1))
    : FAIL_DATE_PLACEHOLDER
  return {
    data,
    end_date: formatDay(goal.endDay),
    fail_date: failDate,
    status: goal.status,
    title: goalTitle(goal.type, goal.target, goal.endDay),
    type: goal.type
  }
}
