import fp from 'fastify-plugin'
import { AsyncLocalStorage } from 'node:async_hooks'
import { performance } from 'node:perf_hooks'

interface RequestTiming {
  startedAt: number
  /** database wall time so far: overlapping commands count once */
  databaseMs: number
  roundTrips: number
  inFlight: number
  busySince: number
}

/**
 * A Server-Timing header on every answer: the time spent waiting for the
 * database (`db`, with the number of round trips) and the rest (`app`:
 * validation, domain work, serialisation), so any client can see where a
 * request's time goes. Commands are attributed to requests through
 * AsyncLocalStorage; the driver reports them through command monitoring.
 */
export default fp(async function timing (app) {
  const storage = new AsyncLocalStorage<RequestTiming>()
  const running = new Map<number, RequestTiming>()

  app.databaseClient.on('commandStarted', (event) => {
    const timing = storage.getStore()
    if (timing === undefined) return
    running.set(event.requestId, timing)
    timing.roundTrips += 1
    if (timing.inFlight++ === 0) timing.busySince = performance.now()
  })
  const finished = (event: { requestId: number }): void => {
    const timing = running.get(event.requestId)
    if (timing === undefined) return
    running.delete(event.requestId)
    if (--timing.inFlight === 0) timing.databaseMs += performance.now() - timing.busySince
  }
  app.databaseClient.on('commandSucceeded', finished)
  app.databaseClient.on('commandFailed', finished)

  app.addHook('onRequest', (_request, _reply, done) => {
    storage.run({ startedAt: performance.now(), databaseMs: 0, roundTrips: 0, inFlight: 0, busySince: 0 }, done)
  })
  app.addHook('onSend', async (_request, reply, payload) => {
    const timing = storage.getStore()
    if (timing !== undefined) {
      const total = performance.now() - timing.startedAt
      const database = timing.databaseMs
      void reply.header('server-timing',
        `db;dur=${database.toFixed(3)};desc="${timing.roundTrips} round trips", app;dur=${Math.max(0, total - database).toFixed(3)}, total;dur=${total.toFixed(3)}`)
    }
    return payload
  })
}, { name: 'timing', dependencies: ['database'] })
