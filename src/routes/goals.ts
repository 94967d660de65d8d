import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { parseDisplayDay, userDay } from '../domain/calendar.js'
import { evaluateGoal, goalView, progressOf, type Goal, type GoalView } from '../domain/goals.js'
import { newId } from '../domain/ids.js'
import { toGoal } from '../repositories/goals.js'
import type { UserDocument } from '../repositories/users.js'
import { authenticatedErrors, ErrorResponse } from '../schemas/common.js'
import { CreatedGoal, CreateGoalBody, GoalMap, UpdateGoalStatusBody } from '../schemas/goals.js'
import { calendarOf } from './wire.js'

class GoalError extends Error {
  readonly statusCode = 400
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
  const activity = await app.repositories.reviews.activityByDay(user._id, from, to)

  const settled: Goal[] = []
  for (const goal of stored) {
    const evaluated = evaluateGoal(goal, activity, today)
    if (evaluated.status !== goal.status) settled.push(evaluated)
    views[goal.id] = goalView(evaluated, progressOf(evaluated, activity))
  }
  await app.repositories.goals.settle(user._id, settled)
  return views
}

const goals: FastifyPluginAsyncTypebox = async (app) => {
  app.post('/create-goal', {
    schema: {
      summary: 'Set a goal: revise N cards, or gain N XP, by a date',
      tags: ['goals'],
      body: CreateGoalBody,
      response: { 201: CreatedGoal, ...authenticatedErrors }
    },
    preHandler: app.authenticate
  }, async (request, reply) => {
    const { type, target, end_date: endDate } = request.body
    const user = request.account
    const endDay = parseDisplayDay(endDate)
    if (endDay === null) throw new GoalError(`end_date "${endDate}" is not a calendar date written DD/MM/YYYY`)
    const today = userDay(app.clock(), calendarOf(user)).day
    if (endDay < today) throw new GoalError(`end_date ${endDate} is in the past; choose today or a later day`)

    const goal: Goal = {
      id: newId(),
      type,
      target,
      startDay: today,
      endDay,
      startingXp: user.totalXp,
      status: 'in progress',
      failDay: null
    }
    const { id, ...fields } = goal
    await app.repositories.goals.insert({ _id: id, userID: user._id, createdAt: app.clock(), ...fields })
    return reply.code(201).send({ goalID: id, goal: goalView(goal, 0) })
  })

  app.post('/update-goal-status', {
    schema: {
      summary: 'Refresh and return the status of every goal of the user',
      description: 'Spec 4.1. An invalid token gives the empty object {} (with status 401).',
      tags: ['goals'],
      body: UpdateGoalStatusBody,
      response: { 200: GoalMap, 401: GoalMap, 400: ErrorResponse, 500: ErrorResponse, 503: ErrorResponse }
    }
  }, async (request, reply) => {
    const account = await app.identify((request.body as { jwtToken?: unknown }).jwtToken)
    // the published interface answers an invalid token with an empty object
    if (account === null) return reply.code(401).send({})
    return await goalStatuses(app, account)
  })
}

export default goals
