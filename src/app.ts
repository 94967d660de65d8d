import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { randomUUID } from 'node:crypto'
import database from './plugins/database.js'
import auth from './plugins/auth.js'
import errors from './plugins/errors.js'
import docs from './plugins/docs.js'
import accounts from './routes/accounts.js'
import health from './routes/health.js'
import library from './routes/library.js'
import study from './routes/study.js'
import goals from './routes/goals.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** the service's notion of "now"; tests inject a fixed or moving clock */
    clock: () => Date
  }
}

export interface AppConfig {
  mongodbUrl: string
  jwtSecret: string
  logger?: FastifyServerOptions['logger']
  clock?: () => Date
}

/** Redacted wherever they could appear in a log line. */
export const LOG_REDACTIONS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'body.password',
  'body.jwtToken',
  '*.password',
  '*.jwtToken',
  '*.passwordHash'
]

/** The whole service as one plugin tree, not yet listening. */
export async function buildApp (config: AppConfig): Promise<FastifyInstance> {
  const app = Fastify({
    logger: config.logger ?? false,
    genReqId: () => randomUUID(),
    bodyLimit: 1024 * 1024,
    connectionTimeout: 30_000,
    requestTimeout: 30_000,
    keepAliveTimeout: 5_000,
    pluginTimeout: 60_000,
    return503OnClosing: true,
    ajv: { customOptions: { coerceTypes: true, removeAdditional: true, useDefaults: true, allErrors: false } }
  }).withTypeProvider<TypeBoxTypeProvider>()

  // every operation takes JSON; anything else is answered 415 rather than parsed as text
  app.removeContentTypeParser('text/plain')
  app.decorate('clock', config.clock ?? (() => new Date()))

  await app.register(errors)
  await app.register(docs)
  await app.register(database, { url: config.mongodbUrl })
  await app.register(auth, { secret: config.jwtSecret })

  await app.register(health)
  await app.register(async (api) => {
    await api.register(accounts)
    await api.register(library)
    await api.register(study)
    await api.register(goals)
  }, { prefix: '/api' })

  return app
}
