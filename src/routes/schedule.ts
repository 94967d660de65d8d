import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { refusals } from '../schemas/common.js'
import { OptimizeScheduleBody, ResetScheduleBody, ScheduleBody, ScheduleFit, ScheduleReset, ScheduleStatus } from '../schemas/schedule.js'

const schedule: FastifyPluginAsyncTypebox = async (app) => {
  const { schedule } = app.services

  app.post('/optimize-schedule', {
    schema: {
      summary: 'Fit FSRS parameters to the user\'s review log, and use them if they predict better than the defaults',
      description: 'The FSRS optimizer, off the event loop. Reports log loss and RMSE(bins) of the default and the fitted parameters on reviews each was not fitted to (time-series splits), ' +
        'adopts the fitted ones only when their log loss is lower, and estimates the reviews a day of several desired retentions. With reschedule, the studied cards get the schedules the adopted parameters give them. ' +
        'One fit per user at a time, across instances: a call made while one runs waits for it and answers its result. 409 when the log is too short, saying how many more reviews it takes.',
      tags: ['study'],
      body: OptimizeScheduleBody,
      response: { 200: ScheduleFit, ...refusals(409) }
    }
  }, async (request) => await schedule.optimize(request.account, { reschedule: request.body.reschedule }))

  app.post('/get-schedule', {
    schema: {
      summary: 'The FSRS parameters the user\'s reviews are scheduled with, and their last fit',
      tags: ['study'],
      body: ScheduleBody,
      response: { 200: ScheduleStatus }
    }
  }, async (request) => schedule.status(request.account))

  app.post('/reset-schedule', {
    schema: {
      summary: 'Schedule with the default FSRS parameters again',
      description: 'The last fit\'s report stays, for comparison. With reschedule, the studied cards get the schedules the defaults give them. Waits for a fit of the user under way.',
      tags: ['study'],
      body: ResetScheduleBody,
      response: { 200: ScheduleReset, ...refusals(409) }
    }
  }, async (request) => await schedule.useDefaults(request.account, { reschedule: request.body.reschedule }))
}

export default schedule
