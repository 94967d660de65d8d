import { Type } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'

const Health = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]),
  database: Type.Union([Type.Literal('ready'), Type.Literal('unavailable')]),
  databaseProcess: Type.Optional(Type.Union([
    Type.Literal('running'), Type.Literal('restarting'), Type.Literal('failed'), Type.Literal('stopped')
  ], { description: 'the embedded database process, when the service runs one' }))
})

const health: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/health', {
    schema: {
      summary: 'Liveness and database readiness',
      tags: ['service'],
      response: { 200: Health, 503: Health }
    }
  }, async (_request, reply) => {
    const processState = app.databaseProcessState()
    const databaseProcess = processState === null ? {} : { databaseProcess: processState }
    if (await app.databaseIsReady()) return { status: 'ok', database: 'ready', ...databaseProcess } as const
    return reply.code(503).send({ status: 'unavailable', database: 'unavailable', ...databaseProcess })
  })
}

export default health
