import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { formatDay, parseDisplayDay, userDay, type LocalDay } from '../domain/calendar.js'
import { evaluateGoal, goalView, progressOf, type Goal, type GoalView } from '../domain/goals.js'
import { newId } from '../domain/ids.js'
import { toGoal } from '../repositories/goals.js'
import type { UserDocument } from '../repositories/users.js'
import { authenticatedErrors, ErrorResponse, requestErrors } from '../schemas/common.js'
import { CreatedGoal, CreateGoalBody, DeletedGoal, DeleteGoalBody, EditGoalBody, GoalMap, UpdateGoalStatusBody } from '../schemas/goals.js'
import { calendarOf } from './wire.js'
import { RequestError } from '../plugins/errors.js'
import { useQuota } from './library.js'

/** The end day a request asks for: a real date, today or later. */
function endDayOf (endDate: string, today: LocalDay): LocalDay {
  const endDay = parseDisplayDay(endDate)
  if (endDay === null) throw new RequestError(400, `end_date "${endDate}" is not a calendar date written DD/MM/YYYY`)
  if (endDay < today) throw new RequestError(400, `end_date ${endDate} is in the past; choose today or a later day`)
  return endDay
}

/**
 * Changes the target or end day of a goal in progress. The stored status may
 * lag behind the history (nobody asked since), so the goal is evaluated first:
 * one already met or missed is final and stays as it is. The edited goal is
 * evaluated again, so a target lowered to what is already done completes it.
 */
async function editGoal (app: FastifyInstance, user: UserDocument, goalID: string, changes: { target?: number, endDate?: string }) {
  if (changes.target === undefined && changes.endDate === undefined) {
    throw new RequestError(400, 'give a new target, a new end_date or both')
  }
  const today = userDay(app.clock(), calendarOf(user)).day
  const endDay = changes.endDate === undefined ? undefined : endDayOf(changes.endDate, today)
  const stored = await app.repositories.goals.findOne(user._id, goalID)
  if (stored === null) throw new RequestError(404, `no goal ${goalID}`)

  const goal = toGoal(stored)
  if (endDay !== undefined && endDay < goal.startDay) {
    throw new RequestError(400, `end_date ${changes.endDate ?? ''} is before the goal's start, ${formatDay(goal.startDay)}`)
  }
  const lastDay = endDay !== undefined && endDay > goal.endDay ? endDay : goal.endDay
  const activity = await app.repositories.activity.byDay(user._id, goal.startDay, lastDay)
  const current = evaluateGoal(goal, activity, today)
  if (current.status !== 'in progress') {
    if (current.status !== goal.status) await app.repositories.goals.settle(user._id, [current])
    throw new RequestError(409, `the goal is ${current.status}, which is final; only a goal in progress can be changed`)
  }
  const edited = evaluateGoal({ ...current, target: changes.target ?? current.target, endDay: endDay ?? current.endDay }, activity, today)
  if (!await app.repositories.goals.edit(user._id, edited)) {
    throw new RequestError(409, 'the goal became final meanwhile; only a goal in progress can be changed')
  }
  return { goalID, goal: goalView(edited, progressOf(edited, activity)) }
}

/**
 * Every goal of the user, its status recomputed from the review log and the
 * changes stored. One aggregation reads the activity of all goals' windows.
 */
export async function goalStatuses (app: FastifyInstance, user: UserDocument): Promise<Record<string, GoalView>> {
  const stored = (await app.repositories.goals.all(user._id)).map(toGoal)
  const views: Record<string, GoalView> = {}
  if (stored.length === 0) return views

  const today = userDay(app.clock(), calendarOf(user)).day
  const from = stored.reduce((earliest, goal) => goal.startDay < earliest ? goal.startDay : earliest, stored[0]?.startDay ?? today)
  const to = stored.reduce((latest, goal) => goal.endDay > latest ? goal.endDay : latest, from)
  const activity = await app.repositories.activity.byDay(user._id, from, to)

  const settled: Goal[] = []
  for (const goal of stored) {
    const evaluated = evaluateGoal(goal, activity, today)
    if (evaluated.status !== goal.status) settled.push(evaluated)
    views[goal.id] = goalView(evaluated, progressOf(evaluated, activity))
  }
  if (settled.length > 0) await app.transaction(async ({ goals }) => { await goals.settle(user._id, settled) })
  return views
}

const goals: FastifyPluginAsyncTypebox = async (app) => {
  app.post('/create-goal', {
    schema: {
      summary: 'Set a goal: revise N cards, or gain N XP, by a date',
      tags: ['goals'],
      body: CreateGoalBody,
      response: { 201: CreatedGoal, 409: ErrorResponse, ...authenticatedErrors }
    },
    preHandler: app.authenticate
  }, async (request, reply) => {
    const { type, target, end_date: endDate } = request.body
    const user = request.account
    const today = userDay(app.clock(), calendarOf(user)).day
    const endDay = endDayOf(endDate, today)

    // a goal counts from the start of today: reviews made earlier today already count toward it
    const activity = await app.repositories.activity.byDay(user._id, today, today)
    const goal: Goal = evaluateGoal({
      id: newId(),
      type,
      target,
      startDay: today,
      endDay,
      startingXp: user.totalXp,
      status: 'in progress',
      failDay: null
    }, activity, today)
    const { id, ...fields } = goal
    // in the user's transaction: no goal is stored for an account deleted meanwhile
    await app.userTransaction(user._id, async ({ goals, users }) => {
      await goals.insert({ _id: id, userID: user._id, createdAt: app.clock(), ...fields })
      await useQuota(app, users, user._id, { goals: 1 })
    })
    return reply.code(201).send({ goalID: id, goal: goalView(goal, progressOf(goal, activity)) })
  })

  app.post('/edit-goal', {
    schema: {
      summary: 'Change the target or the end date of a goal in progress',
      description: 'Answers the goal as update-goal-status shows it, its status evaluated with the new values (a target already reached completes it). 409 once the goal is completed or failed; 404 for a goal that is not the user\'s.',
      tags: ['goals'],
      body: EditGoalBody,
      response: { 200: CreatedGoal, 404: ErrorResponse, 409: ErrorResponse, ...authenticatedErrors }
    },
    preHandler: app.authenticate
  }, async (request) => {
    const { goalID, target, end_date: endDate } = request.body
    return await editGoal(app, request.account, goalID, { target, endDate })
  })

  app.post('/delete-goal', {
    schema: {
      summary: 'Delete a goal, whatever its status',
      tags: ['goals'],
      body: DeleteGoalBody,
      response: { 200: DeletedGoal, 404: ErrorResponse, ...authenticatedErrors }
    },
    preHandler: app.authenticate
  }, async (request) => {
    const { goalID } = request.body
    const userID = request.account._id
    await app.userTransaction(userID, async ({ goals, users }) => {
      if (!await goals.remove(userID, goalID)) throw new RequestError(404, `no goal ${goalID}`)
      await users.free(userID, { goals: 1 })
    })
    return { goalID, deleted: 'true' as const }
  })

  app.post('/update-goal-status', {
    schema: {
      summary: 'Refresh and return the status of every goal of the user',
      description: 'Spec 4.1. An invalid token gives the empty object {} (with status 401).',
      tags: ['goals'],
      body: UpdateGoalStatusBody,
      response: { 200: GoalMap, ...requestErrors, 401: GoalMap }
    }
  }, async (request, reply) => {
    const account = await app.authenticateAndAdmit((request.body as { jwtToken?: unknown }).jwtToken, reply)
    // the published interface answers an invalid token with an empty object
    if (account === null) return reply.code(401).send({})
    return await goalStatuses(app, account)
  })
}

export default goals
