import { Type } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'

const Health = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]),
  database: Type.Union([Type.Literal('ready'), Type.Literal('unavailable')]),
  load: Type.Union([Type.Literal('normal'), Type.Literal('overloaded')], {
    description: 'overloaded while API requests are turned away with 503: every place for requests under way taken, or the event loop over its delay limit'
  }),
  databaseProcess: Type.Optional(Type.Union([
    Type.Literal('running'), Type.Literal('restarting'), Type.Literal('failed'), Type.Literal('stopped')
  ], { description: 'the embedded database process, when the service runs one' }))
})

const health: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/health', {
    schema: {
      summary: 'Whether the API would serve a request now: the database ready and the service not overloaded',
      tags: ['service'],
      response: { 200: Health, 503: Health }
    }
  }, async (_request, reply) => {
    const processState = app.databaseProcessState()
    const databaseProcess = processState === null ? {} : { databaseProcess: processState }
    const database = await app.databaseIsReady() ? 'ready' : 'unavailable'
    const load = app.overload() === null ? 'normal' : 'overloaded'
    if (database === 'ready' && load === 'normal') return { status: 'ok', database, load, ...databaseProcess } as const
    return reply.code(503).send({ status: 'unavailable', database, load, ...databaseProcess })
  })
}

export default health
