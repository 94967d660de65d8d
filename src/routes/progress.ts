import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Stats, StatsBody } from '../schemas/progress.js'

const progress: FastifyPluginAsyncTypebox = async (app) => {
  const { stats } = app.services

  app.post('/get-stats', {
    schema: {
      summary: 'XP, weekly XP, streak, a heatmap of the last year and card counts by state',
      description: 'Days are the user\'s days (time zone and dayStartHour); a review keeps the day it was made on even if the settings change later. Weeks start on Monday.',
      tags: ['study'],
      body: StatsBody,
      response: { 200: Stats }
    }
  }, async (request) => await stats.progressStats(request.account))
}

export default progress
