import fp from 'fastify-plugin'
import cors from '@fastify/cors'
import helmet from 'helmet'
import rateLimit from '@fastify/rate-limit'
import underPressure from '@fastify/under-pressure'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { normaliseEmail } from '../domain/accounts.js'
import { TooManyAttemptsError } from '../errors.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** login and register attempts: limited per client address (onRequest) and per account (preHandler) */
    limitAttemptsByAddress: (request: FastifyRequest, reply: FastifyReply) => Promise<void>
    limitAttemptsByAccount: (request: FastifyRequest, reply: FastifyReply) => Promise<void>
    /**
     * Counts an attempt on the body's account, whatever the address; the
     * seconds until the account takes attempts again once over its limit, or
     * null. For login, which lets an address the account knows through.
     */
    accountAttemptWait: (request: FastifyRequest) => Promise<number | null>
    /** takes one of the user's places for requests under way until the answer is sent, or answers 503 when they are all taken */
    admitUser: (userID: string, reply: FastifyReply) => void
  }
}

class OverloadedError extends Error {
  readonly statusCode = 503
  constructor (measure: string, value: number | undefined) {
    super(`overloaded: ${measure}${value === undefined ? '' : ` ${value.toFixed(2)}`} is over its limit`)
  }
}

export interface SecurityOptions {
  /** origins a browser may call the API from; none unless configured */
  corsOrigins: readonly string[]
  loadShedding?: Partial<LoadShedding>
}

/** When the process counts as overloaded, and what a client turned away is told. */
export interface LoadShedding {
  /** mean event-loop delay (ms) over a sample above which requests are turned away */
  maxEventLoopDelayMs: number
  /** share of a sample the event loop was busy (0-1) above which requests are turned away; 0: never */
  maxEventLoopUtilization: number
  /** how often the load is measured (ms) */
  sampleIntervalMs: number
  /** the Retry-After a turned-away client gets (s) */
  retryAfterSeconds: number
  /**
   * API requests under way at once, in all and for one user; past either a
   * request is turned away at once (503, Retry-After 1) rather than queue on
   * the database until it times out
   */
  maxInFlight: number
  maxInFlightPerUser: number
}

export const DEFAULT_LOAD_SHEDDING: LoadShedding = {
  maxEventLoopDelayMs: 1000,
  // off: a loop kept busy serving requests at a good pace is not overloaded, and the
  // 503s themselves keep it busy while clients send again at once, so a limit on the
  // busy share turned a saturated service into one that answered almost nothing but 503
  maxEventLoopUtilization: 0,
  sampleIntervalMs: 1000,
  retryAfterSeconds: 5,
  maxInFlight: 64,
  maxInFlightPerUser: 16
}

/**
 * Headers, origins and load shedding, shared by every route:
 * helmet's security headers; CORS only for configured origins; the rate
 * limiter that login and register use; and 503 with Retry-After when the
 * process is overloaded, rather than requests timing out in a queue.
 */
export default fp<SecurityOptions>(async function security (app, options) {
  // Helmet's middleware, built once: @fastify/helmet builds it again for every request
  // (its options parsed and its content security policy written anew)
  const securityHeaders = helmet({
    // the /docs page runs swagger-ui's scripts and styles from this origin
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        imgSrc: ["'self'", 'data:', 'validator.swagger.io'],
        scriptSrc: ["'self'", "'unsafe-inline'"],
        styleSrc: ["'self'", "'unsafe-inline'"]
      }
    }
  })
  // onRequest, so that every answer has them, errors and 404s included
  app.addHook('onRequest', (request, reply, done) => {
    // every answer of the API is one user's data or a token: no cache may keep it
    if (request.url.startsWith('/api/')) reply.raw.setHeader('cache-control', 'no-store')
    securityHeaders(request.raw, reply.raw, (error) => { done(error as Error | undefined) })
  })
  if (options.corsOrigins.length > 0) {
    // a page of an allowed origin may read where a request's time went (plugins/timing.ts)
    await app.register(cors, { origin: [...options.corsOrigins], methods: ['GET', 'POST'], exposedHeaders: ['Server-Timing'] })
  }
  await app.register(rateLimit, { global: false })
  // Two limits on one request: createRateLimit gives counters that the plugin's
  // own hooks would not run twice (after one limiter, a request skips the rest).
  const { perAddress, perAccount, windowMs } = app.authRateLimit
  const counter = (max: number, key: (request: FastifyRequest) => string) => {
    const count = app.createRateLimit({ max, timeWindow: windowMs, keyGenerator: key })
    return async (request: FastifyRequest): Promise<number | null> => {
      const verdict = await count(request)
      return verdict.isAllowed || !verdict.isExceeded ? null : verdict.ttlInSeconds
    }
  }
  const limiter = (wait: (request: FastifyRequest) => Promise<number | null>) => async (request: FastifyRequest): Promise<void> => {
    const seconds = await wait(request)
    if (seconds === null) return
    throw new TooManyAttemptsError(seconds)
  }
  const accountAttemptWait = counter(perAccount, (request) => {
    const email = (request.body as { email?: unknown } | undefined)?.email
    return `account:${typeof email === 'string' ? normaliseEmail(email) : ''}`
  })
  app.decorate('limitAttemptsByAddress', limiter(counter(perAddress, (request) => `address:${request.ip}`)))
  app.decorate('limitAttemptsByAccount', limiter(accountAttemptWait))
  app.decorate('accountAttemptWait', accountAttemptWait)
  const shedding = { ...DEFAULT_LOAD_SHEDDING, ...options.loadShedding }

  // Requests under way: a request holds its place until its answer is sent or its
  // connection closes. The database serves a bounded amount of work at a time;
  // more requests waiting on it only wait longer, and time out with nothing to show.
  let inFlight = 0
  const inFlightByUser = new Map<string, number>()
  const turnAway = (reply: FastifyReply, what: string): never => {
    void reply.header('retry-after', 1)
    throw new OverloadedError(what, undefined)
  }
  app.addHook('onRequest', async (request, reply) => {
    if (!request.url.startsWith('/api/')) return
    if (inFlight >= shedding.maxInFlight) turnAway(reply, `requests under way (${shedding.maxInFlight})`)
    inFlight += 1
    reply.raw.once('close', () => { inFlight -= 1 })
  })
  app.decorate('admitUser', (userID: string, reply: FastifyReply) => {
    const held = inFlightByUser.get(userID) ?? 0
    if (held >= shedding.maxInFlightPerUser) turnAway(reply, `requests under way for one user (${shedding.maxInFlightPerUser})`)
    inFlightByUser.set(userID, held + 1)
    reply.raw.once('close', () => {
      const left = (inFlightByUser.get(userID) ?? 1) - 1
      if (left === 0) inFlightByUser.delete(userID)
      else inFlightByUser.set(userID, left)
    })
  })
  // The samples taken while the app starts (schemas compiled, plugins loaded) show a busy
  // event loop that is no sign of overload; pressure counts from the first sample after that.
  let sheddingFrom = Infinity
  app.addHook('onReady', async () => { sheddingFrom = Date.now() + 2 * shedding.sampleIntervalMs })
  await app.register(underPressure, {
    maxEventLoopDelay: shedding.maxEventLoopDelayMs,
    maxEventLoopUtilization: shedding.maxEventLoopUtilization,
    // per sample: the plugin's default adds up the utilisation since start-up, which
    // after a quiet hour would hide an overload for a long time
    eventLoopUtilizationMode: 'interval',
    sampleInterval: shedding.sampleIntervalMs,
    retryAfter: shedding.retryAfterSeconds,
    message: 'the service is overloaded; retry shortly',
    pressureHandler: async (_request, reply, type, value) => {
      if (Date.now() < sheddingFrom) return
      void reply.header('retry-after', shedding.retryAfterSeconds)
      // the error handler answers 503 and logs what was over its limit
      throw new OverloadedError(type, value)
    }
  })
}, { name: 'security' })
