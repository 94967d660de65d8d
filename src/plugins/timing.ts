import fp from 'fastify-plugin'
import { performance } from 'node:perf_hooks'
import { requestTiming, timeRequest } from '../db/timed-calls.js'

/**
 * A Server-Timing header on every answer: the time spent in database calls
 * (`db`, from a query's start until its documents are decoded, with the number
 * of calls) and the rest (`app`: routing, validation, authentication, domain
 * work, serialisation), so any client can see where a request's time goes.
 * Calls are attributed to requests through AsyncLocalStorage (db/timed-calls.ts).
 */
export default fp(async function timing (app) {
  app.addHook('onRequest', (_request, _reply, done) => {
    timeRequest(done)
  })
  app.addHook('onSend', async (_request, reply, payload) => {
    const timing = requestTiming()
    if (timing !== undefined) {
      const total = performance.now() - timing.startedAt
      const database = timing.databaseMs
      void reply.header('server-timing',
        `db;dur=${database.toFixed(3)};desc="${timing.calls} calls", app;dur=${Math.max(0, total - database).toFixed(3)}, total;dur=${total.toFixed(3)}`)
    }
    return payload
  })
}, { name: 'timing', dependencies: ['database'] })
