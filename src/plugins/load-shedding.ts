import fp from 'fastify-plugin'
import underPressure from '@fastify/under-pressure'
import type { FastifyReply } from 'fastify'
import { Refusal } from '../domain/refusals.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** takes one of the user's places for requests under way until the answer is sent, or answers 429 when they are all taken */
    admitUser: (userID: string, reply: FastifyReply) => void
    /** why an API request would be turned away now (every place taken, the process overloaded), or null: what /health reports */
    overload: () => string | null
  }
}


/** When the process counts as overloaded, and what a client turned away is told. */
export interface LoadShedding {
  /** mean event-loop delay (ms) over a sample above which requests are turned away (a loop blocked for a whole sample counts as past any limit); 0: never */
  maxEventLoopDelayMs: number
  /** share of a sample the event loop was busy (0-1) above which requests are turned away; 0: never */
  maxEventLoopUtilization: number
  /** how often the load is measured (ms) */
  sampleIntervalMs: number
  /** the Retry-After a turned-away client gets (s) */
  retryAfterSeconds: number
  /**
   * API requests under way at once, in all and for one user; past either a
   * request is turned away at once (503 when the service is full, 429 when
   * one user is; Retry-After 1) rather than queue on the database until it
   * times out. A request is under way from the moment its whole body is in
   * until its answer is sent.
   */
  maxInFlight: number
  maxInFlightPerUser: number
  /**
   * uploads under way at once (upload-media, import-flashcard-zip, import-anki), counted apart
   * from the requests above: an upload may take an hour to arrive over a slow link, and must not
   * hold the places every other request needs; past it 503, Retry-After 5. The more of them are in
   * use, the faster each must arrive (UPLOAD_PACE in connections.ts), and with all of them taken an
   * account with none gets the place of the slowest under that pace: slow uploads cannot hold
   * them all, however many accounts send them
   */
  maxUploads: number
  /**
   * of which one account's, so that one account cannot hold them all; past it 429. A few, for a
   * client sending several files at once; it cannot keep many accounts from filling the places
   * (accounts are free to make), which the rising pace does
   */
  maxUploadsPerUser: number
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
  maxInFlightPerUser: 16,
  maxUploads: 16,
  maxUploadsPerUser: 4
}

/** Places held per user, each given back when its answer is sent or its connection closes. */
function perUserCount () {
  const held = new Map<string, number>()
  return {
    of: (userID: string): number => held.get(userID) ?? 0,
    take (userID: string, reply: FastifyReply): void {
      held.set(userID, (held.get(userID) ?? 0) + 1)
      reply.raw.once('close', () => {
        const left = (held.get(userID) ?? 1) - 1
        if (left === 0) held.delete(userID)
        else held.set(userID, left)
      })
    }
  }
}

/**
 * 503 with Retry-After when the process is overloaded or every place for
 * requests under way is taken, rather than requests timing out in a queue.
 *
 * The places are counted by this instance. They stand for what this
 * instance can serve at once (its event loop, its pool of database
 * connections), so they are its own; docs/architecture.md says why the
 * per-user count is not shared between instances.
 */
export default fp<Partial<LoadShedding>>(async function loadShedding (app, options) {
  const shedding = { ...DEFAULT_LOAD_SHEDDING, ...options }

  // A request holds its place from the moment its body is in (preValidation) until its
  // answer is sent or its connection closes: a client that sends its headers and then
  // trickles its body, or nothing, holds no place (plugins/connections.ts times it out).
  let inFlight = 0
  const inFlightByUser = perUserCount()
  const uploadsByUser = perUserCount()
  app.addHook('preValidation', async (request, reply) => {
    if (!request.url.startsWith('/api/')) return
    // an upload takes its place once its token is read (admitUser), not before: until then it holds
    // nothing, and has a request's time to arrive (connections.ts)
    if (request.routeOptions.config.upload === true) return
    if (inFlight >= shedding.maxInFlight) {
      throw new Refusal('service_overloaded', `the service is serving ${shedding.maxInFlight} requests, the most it takes at once: retry after the seconds in Retry-After`, 1)
    }
    inFlight += 1
    reply.raw.once('close', () => { inFlight -= 1 })
  })
  app.uploadPlaces.places = shedding.maxUploads
  app.decorate('admitUser', (userID: string, reply: FastifyReply) => {
    if (reply.request.routeOptions.config.upload === true) {
      const uploads = app.uploadPlaces
      const underWay = uploadsByUser.of(userID)
      // every place taken: an account with no upload under way is given the place of the slowest
      // upload under the floor in force (connections.ts), so that slow uploads cannot keep a waiting
      // user out; an account that has uploads under way waits for them, and cannot take places from
      // others again and again
      if (uploads.held >= shedding.maxUploads && (underWay > 0 || !uploads.freeSlowest())) {
        throw new Refusal('service_overloaded', `the service is receiving ${shedding.maxUploads} uploads, the most it takes at once: retry after the seconds in Retry-After`, shedding.retryAfterSeconds)
      }
      if (underWay >= shedding.maxUploadsPerUser) {
        throw new Refusal('too_many_requests', `this account has ${shedding.maxUploadsPerUser} uploads under way, the most at once: ` +
          'wait for them to finish, or retry after the seconds in Retry-After', shedding.retryAfterSeconds)
      }
      uploads.take(reply)
      uploadsByUser.take(userID, reply)
    }
    if (inFlightByUser.of(userID) >= shedding.maxInFlightPerUser) {
      // this client's own limit: only it waits, and the service stays available to everyone else
      throw new Refusal('too_many_requests', `this account has ${shedding.maxInFlightPerUser} requests under way, the most at once: ` +
        'wait for their answers, or retry after the seconds in Retry-After', 1)
    }
    inFlightByUser.take(userID, reply)
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
    pressureHandler: async (_request, _reply, type, value) => {
      if (Date.now() < sheddingFrom) return
      // the error handler answers 503 and logs what was over its limit
      throw new Refusal('service_overloaded', `the service is overloaded (${type}${value === undefined ? '' : ` ${value.toFixed(2)}`} over its limit): ` +
        'retry after the seconds in Retry-After', shedding.retryAfterSeconds)
    }
  })

  app.decorate('overload', () => {
    if (inFlight >= shedding.maxInFlight) return `every place for requests under way (${shedding.maxInFlight}) is taken`
    if (Date.now() >= sheddingFrom && app.isUnderPressure()) return 'the event loop is over its delay limit'
    return null
  })
}, { name: 'load-shedding', dependencies: ['connections'] })
