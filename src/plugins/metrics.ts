import fp from 'fastify-plugin'
import { createHash, timingSafeEqual } from 'node:crypto'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client'
import { REFUSAL_CODES } from '../domain/refusals.js'
import { requestTiming, type DatabaseCall } from '../db/timed-calls.js'
import { unknownOperation } from './errors.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** where the metrics' own port listens once the app is ready; null when it has none */
    metricsAddress: () => AddressInfo | null
  }
}

export interface MetricsOptions {
  /** the bearer token GET /metrics asks for; with neither it nor `port`, /metrics is served nowhere */
  token?: string
  /** a port of its own, on 127.0.0.1, that serves /metrics (0: any free one); /metrics is then not served on the service's port */
  port?: number
}

/** Prometheus's text format, as prom-client writes it. */
const CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE

/** How long a request's answer takes (s): from a quick read to an upload's hour, which the last bucket takes. */
const REQUEST_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]
/** How long one database call takes (s). */
const DATABASE_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5]

let processRegistry: Registry | undefined
/**
 * The process's own metrics (memory, event-loop delay, garbage collection, handles), kept once
 * per process however many apps it builds (tests build several): each set watches the event loop
 * and the collector with observers of its own that nothing takes down, and they describe the
 * process, not one app.
 */
function processMetrics (): Registry {
  if (processRegistry === undefined) {
    processRegistry = new Registry()
    collectDefaultMetrics({ register: processRegistry })
  }
  return processRegistry
}

function digest (text: string): Buffer {
  return createHash('sha256').update(text).digest()
}

/** Whether an Authorization header carries `token` as a bearer token; compared in constant time. */
function bearerMatches (header: string | undefined, token: string): boolean {
  const given = /^Bearer +(\S+) *$/i.exec(header ?? '')?.[1]
  return given !== undefined && timingSafeEqual(digest(given), digest(token))
}

/**
 * Metrics in Prometheus's text format at GET /metrics, for an operator's scraper: every answer by
 * route pattern, method and status with its latency; each database call made serving a request,
 * by collection and operation, with its latency; whether the database answers; refusals by code;
 * the Anki imports and fits this instance holds; and the process's memory, event-loop delay and
 * garbage collection (prom-client's default metrics). Labels take their values from the code
 * (route patterns, method names, the closed list of codes), never from a request's data, so the
 * series are bounded.
 *
 * Not public: /metrics answers only with the bearer token `token`, and is served on a port of its
 * own on 127.0.0.1 when `port` is given (with the token too, when both are). Anything else answers
 * 404 as a path the service does not have, so nothing tells a stranger it is there.
 */
export default fp<MetricsOptions>(async function metrics (app, options) {
  const registry = new Registry()

  const requests = new Histogram({
    name: 'flashcards_http_request_duration_seconds',
    help: 'Answers by route pattern, method and status, and the time from the request\'s arrival to its answer sent (s); its count is the number of answers',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: REQUEST_BUCKETS,
    registers: [registry]
  })
  app.addHook('onResponse', async (request, reply) => {
    requests.observe({ method: request.method, route: request.routeOptions.url ?? 'unmatched', status: String(reply.statusCode) }, reply.elapsedTime / 1000)
  })

  const databaseCalls = new Histogram({
    name: 'flashcards_database_call_duration_seconds',
    help: 'Database calls made serving requests, by collection and operation, and the time until each one\'s documents were in hand (s)',
    labelNames: ['collection', 'operation'] as const,
    buckets: DATABASE_BUCKETS,
    registers: [registry]
  })
  const observeCall = (call: DatabaseCall): void => {
    databaseCalls.observe({ collection: call.collection, operation: call.operation }, call.seconds)
  }
  // after timing.ts's own onRequest, which starts the request's timing
  app.addHook('onRequest', (_request, _reply, done) => {
    const timing = requestTiming()
    if (timing !== undefined) timing.onCall = observeCall
    done()
  })

  new Gauge({
    name: 'flashcards_database_up',
    help: 'Whether the database answered a ping when the metrics were read (1) or not (0)',
    registers: [registry],
    async collect () {
      this.set(await app.databaseIsReady() ? 1 : 0)
    }
  })

  const refusals = new Counter({
    name: 'flashcards_refusals_total',
    help: 'Refusals answered, by code (docs/api.md lists the codes): 4xx, 503s and internal errors (500)',
    labelNames: ['code'] as const,
    registers: [registry]
  })
  // every code from the start, so that a rate over a code not yet answered is 0 rather than nothing
  for (const code of REFUSAL_CODES) refusals.inc({ code }, 0)
  app.refusals.listen((code) => refusals.inc({ code }))

  new Gauge({
    name: 'flashcards_anki_imports',
    help: 'Imports of Anki packages this instance holds, by state: arriving (the package being received), waiting (for their turn), running',
    labelNames: ['state'] as const,
    registers: [registry],
    collect () {
      const load = app.services.ankiImport.load
      this.set({ state: 'arriving' }, load.arriving)
      this.set({ state: 'waiting' }, load.waiting)
      this.set({ state: 'running' }, load.running)
    }
  })
  new Gauge({
    name: 'flashcards_anki_import_running_seconds',
    help: 'How long the Anki import running on this instance has run (s); 0 when none runs',
    registers: [registry],
    collect () {
      this.set(app.services.ankiImport.load.runningSeconds)
    }
  })
  new Gauge({
    name: 'flashcards_fits',
    help: 'Fits of users\' FSRS parameters (optimize-schedule) on this instance, by state: waiting, running',
    labelNames: ['state'] as const,
    registers: [registry],
    collect () {
      this.set({ state: 'waiting' }, app.fitter.waiting)
      this.set({ state: 'running' }, app.fitter.pending - app.fitter.waiting)
    }
  })

  const exposition = async (): Promise<string> => `${await processMetrics().metrics()}\n${await registry.metrics()}`
  const allowed = (authorization: string | undefined): boolean => options.token === undefined || bearerMatches(authorization, options.token)

  let server: Server | null = null
  app.decorate('metricsAddress', () => server?.address() as AddressInfo | null ?? null)

  if (options.port === undefined) {
    if (options.token === undefined) return
    // every method, so that none answers 405 and tells that a GET would find something
    app.all('/metrics', { schema: { hide: true } }, async (request, reply) => {
      if (request.method !== 'GET' || !allowed(request.headers.authorization)) throw unknownOperation(request.method, '/metrics')
      return await reply.type(CONTENT_TYPE).send(await exposition())
    })
    return
  }

  const port = options.port
  const serve = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const path = (request.url ?? '').split('?')[0]
    if (path !== '/metrics' || (request.method !== 'GET' && request.method !== 'HEAD') || !allowed(request.headers.authorization)) {
      const refusal = unknownOperation(request.method ?? '', path ?? '')
      const body = JSON.stringify({ error: refusal.message, code: refusal.code })
      response.writeHead(404, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' }).end(body)
      return
    }
    const text = await exposition()
    response.writeHead(200, { 'content-type': CONTENT_TYPE, 'cache-control': 'no-store' }).end(request.method === 'HEAD' ? undefined : text)
  }
  app.addHook('onReady', async () => {
    const listening = createServer((request, response) => {
      serve(request, response).catch((error: unknown) => {
        app.log.error({ err: error }, 'reading the metrics failed')
        if (!response.headersSent) response.writeHead(500, { 'content-type': 'application/json; charset=utf-8' })
        response.end(JSON.stringify({ error: 'internal error', code: 'internal_error' }))
      })
    })
    // a scraper on this machine asks and waits; nothing else has business here for long
    listening.requestTimeout = 10_000
    listening.headersTimeout = 10_000
    await new Promise<void>((resolve, reject) => {
      listening.once('error', reject)
      listening.listen(port, '127.0.0.1', () => {
        listening.off('error', reject)
        resolve()
      })
    })
    server = listening
    const { address, port: bound } = listening.address() as AddressInfo
    app.log.info(`metrics served at http://${address}:${bound}/metrics`)
  })
  app.addHook('onClose', async () => {
    const closing = server
    if (closing === null) return
    server = null
    await new Promise<void>((resolve) => {
      closing.close(() => resolve())
      closing.closeAllConnections()
    })
  })
}, { name: 'metrics', dependencies: ['errors', 'database', 'timing', 'fitting', 'anki-imports'] })
