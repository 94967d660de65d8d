import { Type } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'

const Health = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]),
  database: Type.Union([Type.Literal('ready'), Type.Literal('unavailable')])
})

const health: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/health', {
    schema: {
      summary: 'Liveness and database readiness',
      tags: ['service'],
      response: { 200: Health, 503: Health }
    }
  }, async (_request, reply) => {
    if (await app.databaseIsReady()) return { status: 'ok', database: 'ready' } as const
    return reply.code(503).send({ status: 'unavailable', database: 'unavailable' })
  })
}

export default health
