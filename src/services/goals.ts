import { formatDay, parseDisplayDay, userDay, type LocalDay } from '../domain/calendar.js'
import { evaluateGoal, goalView, NOTHING_DONE, progressOf, type Goal, type GoalType } from '../domain/goals.js'
import type { GoalView } from '../schemas/goals.js'
import { newId } from '../domain/ids.js'
import { toGoal } from '../repositories/goals.js'
import type { UserDocument } from '../repositories/users.js'
import { addToUsageWithinQuotas, type ServiceContext } from './context.js'
import { Refusal } from '../domain/refusals.js'

/** The end day a request asks for: a real date, today or later. */
function endDayOf (endDate: string, today: LocalDay): LocalDay {
  const endDay = parseDisplayDay(endDate)
  if (endDay === null) throw new Refusal('invalid_value', `end_date "${endDate}" is not a calendar date written DD/MM/YYYY`)
  if (endDay < today) throw new Refusal('invalid_value', `end_date ${endDate} is in the past; choose today or a later day`)
  return endDay
}

/** Goals: revise N cards, or gain N XP, by a day; their status is evaluated from the daily activity. */
export function goalsService (context: ServiceContext) {
  const { repositories, clock } = context
  return {
    async createGoal (user: UserDocument, request: { type: GoalType, target: number, endDate: string }) {
      const today = userDay(clock(), user).day
      const endDay = endDayOf(request.endDate, today)
      // In the user's transaction: no goal is stored for an account deleted meanwhile, and
      // the account and today's counts are read as they stand when the goal is created,
      // since a concurrent review conflicts with its write to the account. A review is so
      // either in the goal's starting point or counted toward it, never both or neither.
      return await context.userTransaction(user._id, async ({ goals, users, activity }) => {
        const account = await users.findById(user._id)
        if (account === null) throw new Error(`account ${user._id} vanished inside its goal's transaction`)
        const done = await activity.byDay(user._id, today, endDay)
        const goal: Goal = evaluateGoal({
          id: newId(),
          type: request.type,
          target: request.target,
          startDay: today,
          endDay,
          startingXp: account.totalXp,
          earlierThatDay: done.get(today) ?? NOTHING_DONE,
          status: 'in progress',
          failDay: null
        }, done, today)
        const { id, ...fields } = goal
        await goals.insert({ _id: id, userID: user._id, createdAt: clock(), seqAtCreation: account.reviewCount ?? 0, ...fields })
        await addToUsageWithinQuotas(context, users, user._id, { goals: 1 })
        return { goalID: id, goal: goalView(goal, progressOf(goal, done)) }
      })
    },

    /**
     * Changes the target or end day of a goal in progress. The stored status may
     * lag behind the history (nobody asked since), so the goal is evaluated first:
     * one already met or missed is final and stays as it is. The edited goal is
     * evaluated again, so a target lowered to what is already done completes it.
     */
    async editGoal (user: UserDocument, goalID: string, changes: { target?: number, endDate?: string }) {
      if (changes.target === undefined && changes.endDate === undefined) {
        throw new Refusal('nothing_to_change', 'give a new target, a new end_date or both')
      }
      const today = userDay(clock(), user).day
      const endDay = changes.endDate === undefined ? undefined : endDayOf(changes.endDate, today)
      const stored = await repositories.goals.findOne(user._id, goalID)
      if (stored === null) throw new Refusal('goal_not_found', `no goal ${goalID}`)

      const goal = toGoal(stored)
      if (endDay !== undefined && endDay < goal.startDay) {
        throw new Refusal('invalid_value', `end_date ${changes.endDate ?? ''} is before the goal's start, ${formatDay(goal.startDay)}`)
      }
      const lastDay = endDay !== undefined && endDay > goal.endDay ? endDay : goal.endDay
      const activity = await repositories.activity.byDay(user._id, goal.startDay, lastDay)
      const current = evaluateGoal(goal, activity, today)
      if (current.status !== 'in progress') {
        if (current.status !== goal.status) await repositories.goals.settle(user._id, [current])
        throw new Refusal('goal_final', `the goal is ${current.status}, which is final; only a goal in progress can be changed`)
      }
      const edited = evaluateGoal({ ...current, target: changes.target ?? current.target, endDay: endDay ?? current.endDay }, activity, today)
      if (!await repositories.goals.edit(user._id, edited)) {
        throw new Refusal('goal_final', 'the goal became final meanwhile; only a goal in progress can be changed')
      }
      return { goalID, goal: goalView(edited, progressOf(edited, activity)) }
    },

    async deleteGoal (userID: string, goalID: string) {
      await context.userTransaction(userID, async ({ goals, users }) => {
        if (!await goals.remove(userID, goalID)) throw new Refusal('goal_not_found', `no goal ${goalID}`)
        await users.takeFromUsage(userID, { goals: 1 })
      })
      return { goalID, deleted: 'true' as const }
    },

    /**
     * Every goal of the user, its status evaluated from the daily activity and
     * the changes stored. One query reads the activity of all goals' windows.
     */
    async goalStatuses (user: UserDocument): Promise<Record<string, GoalView>> {
      const stored = (await repositories.goals.all(user._id)).map(toGoal)
      const views: Record<string, GoalView> = {}
      if (stored.length === 0) return views

      const today = userDay(clock(), user).day
      const from = stored.reduce((earliest, goal) => goal.startDay < earliest ? goal.startDay : earliest, stored[0]?.startDay ?? today)
      const to = stored.reduce((latest, goal) => goal.endDay > latest ? goal.endDay : latest, from)
      const activity = await repositories.activity.byDay(user._id, from, to)

      const settled: Goal[] = []
      for (const goal of stored) {
        const evaluated = evaluateGoal(goal, activity, today)
        if (evaluated.status !== goal.status) settled.push(evaluated)
        views[goal.id] = goalView(evaluated, progressOf(evaluated, activity))
      }
      if (settled.length > 0) await context.transaction(async ({ goals }) => { await goals.settle(user._id, settled) })
      return views
    }
  }
}

export type GoalsService = ReturnType<typeof goalsService>
