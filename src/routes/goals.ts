import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { refusals } from '../schemas/common.js'
import { Refusal } from '../domain/refusals.js'
import { CreatedGoal, CreateGoalBody, DeletedGoal, DeleteGoalBody, EditGoalBody, GoalMap, UpdateGoalStatusBody } from '../schemas/goals.js'

const goals: FastifyPluginAsyncTypebox = async (app) => {
  const { goals } = app.services

  app.post('/create-goal', {
    schema: {
      summary: 'Set a goal: revise N cards, or gain N XP, by a date',
      tags: ['goals'],
      body: CreateGoalBody,
      response: { 201: CreatedGoal, ...refusals(409) }
    }
  }, async (request, reply) => {
    const { type, target, end_date: endDate } = request.body
    return reply.code(201).send(await goals.createGoal(request.account, { type, target, endDate }))
  })

  app.post('/edit-goal', {
    schema: {
      summary: 'Change the target or the end date of a goal in progress',
      description: 'Answers the goal as update-goal-status shows it, its status evaluated with the new values (a target already reached completes it). 409 once the goal is completed or failed; 404 for a goal that is not the user\'s.',
      tags: ['goals'],
      body: EditGoalBody,
      response: { 200: CreatedGoal, ...refusals(404, 409) }
    }
  }, async (request) => {
    const { goalID, target, end_date: endDate } = request.body
    return await goals.editGoal(request.account, goalID, { target, endDate })
  })

  app.post('/delete-goal', {
    schema: {
      summary: 'Delete a goal, whatever its status',
      tags: ['goals'],
      body: DeleteGoalBody,
      response: { 200: DeletedGoal, ...refusals(404) }
    }
  }, async (request) => await goals.deleteGoal(request.account._id, request.body.goalID))

  app.post('/update-goal-status', {
    schema: {
      summary: 'Refresh and return the status of every goal of the user',
      description: 'Part of the published interface (docs/interface.md). An invalid token gives the empty object {} (with status 401).',
      tags: ['goals'],
      body: UpdateGoalStatusBody,
      response: { 200: GoalMap, 401: GoalMap }
    },
    // the published interface answers an invalid token with an empty object, not an error
    config: { public: true }
  }, async (request, reply) => {
    // a disabled account's token is one that does not work, which this interface answers with {}
    const account = await app.authenticateAndAdmit((request.body as { jwtToken?: unknown }).jwtToken, reply)
      .catch((error: unknown) => { if (error instanceof Refusal && error.code === 'account_disabled') return null; throw error })
    if (account === null) return reply.code(401).send({})
    return await goals.goalStatuses(account)
  })
}

export default goals
