import fp from 'fastify-plugin'
import { Socket } from 'node:net'
import type { ServerOptions } from 'node:http'
import type { FastifyInstance, FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify'
import type { RefusalCode } from '../domain/refusals.js'
import type { Refusals } from './errors.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** a file upload (upload-media, import-flashcard-zip, import-anki): its body may take uploadTimeoutMs, as long as it keeps the pace UPLOAD_PACE asks */
    upload?: boolean
  }
  interface FastifyInstance {
    /** the upload places of this instance: load-shedding.ts gives them out, the pace check here takes them back from uploads too slow for how many are in use */
    uploadPlaces: UploadPlaces
  }
}

/** What a connection may hold of the service before anything is counted as a request under way. */
export interface ConnectionLimits {
  /** a request must arrive whole, headers and body, within this time (ms), or it gets 408 and its connection is closed */
  requestTimeoutMs: number
  /**
   * an upload must arrive whole within this time (ms), and bring at least the floor of UPLOAD_PACE in
   * every requestTimeoutMs of it; else 408 and its connection is closed
   */
  uploadTimeoutMs: number
  /** connections open at once from one client address; past it a new one gets 429 and is closed; 0: no cap */
  perAddress: number
}

export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = { requestTimeoutMs: 10_000, uploadTimeoutMs: 3_600_000, perAddress: 100 }

/**
 * The least an upload must bring in each requestTimeoutMs, by the share of this instance's upload
 * places in use when it is checked (the places are per instance, as load-shedding.ts counts them,
 * and so is the floor: it stands for what this instance receives). With up to `risesFrom` of them
 * in use, `baseBytes`: a slow link can still upload while the service is quiet. Past that it rises
 * in proportion, to `topBytes` with every place taken, so that uploads too slow for a busy service
 * give their places up to those that keep up: uploads trickling just over the base floor keep
 * half of the places at most, and lose any more at their next check. The top is what any
 * ordinary link brings to several uploads at once, so a real upload is not cut at any load.
 */
export const UPLOAD_PACE = {
  /** 64 KiB: 6.4 KiB/s at the default period, which any link carries and a trickle does not */
  baseBytes: 64 * 1024,
  /** 256 KiB: 25.6 KiB/s at the default period, 4 MiB for the 16 places together; a 2 Mbit/s link brings more than twice that to each of 4 uploads at once */
  topBytes: 256 * 1024,
  /** the share of places in use past which the floor rises */
  risesFrom: 0.5
}

/** The floor in force (bytes per period) with this share of the upload places in use (0-1). */
export function uploadPaceFloor (share: number): number {
  const rise = Math.min(1, Math.max(0, (share - UPLOAD_PACE.risesFrom) / (1 - UPLOAD_PACE.risesFrom)))
  return Math.round(UPLOAD_PACE.baseBytes + rise * (UPLOAD_PACE.topBytes - UPLOAD_PACE.baseBytes))
}

/**
 * The uploads holding a place on this instance. load-shedding.ts decides who takes one (its caps:
 * `places` in all, so many per account); the pace check here frees the place of an upload cut off.
 */
export interface UploadPlaces {
  /** the places there are: load-shedding.ts's maxUploads */
  places: number
  /** the places held now */
  readonly held: number
  /** the upload of `reply`'s request takes a place, until its answer is sent, its connection closes or it is cut off */
  take: (reply: FastifyReply) => void
  /**
   * With every place taken and another upload waiting: cuts off the upload whose body has come
   * slowest since it began, if that is under the floor in force (408, its place free at once);
   * whether one was. An upload is judged once its body has been coming for half a period, so that
   * one just begun is not taken for slow.
   */
  freeSlowest: () => boolean
}

/** What the pace check knows of an upload's body while it arrives. */
interface Arrival {
  /** its body is still coming (an upload whose body is in is not judged by its pace) */
  arriving: boolean
  /** how long (ms) its body has been coming, and the bytes its socket brought meanwhile */
  elapsed: () => number
  brought: () => number
  /** answers 408 with this answer, gives its place back and closes its connection */
  cut: (answer: RawAnswer) => void
}

/** An answer written straight to the socket, before any request reached Fastify, in the error contract: its code, and its text. */
interface RawAnswer { code: RefusalCode, text: string }

function rawAnswer (status: string, headers: string, code: RefusalCode, error: string): RawAnswer {
  const body = JSON.stringify({ error, code })
  return {
    code,
    text: `HTTP/1.1 ${status}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `Cache-Control: no-store\r\nConnection: close\r\n${headers}\r\n${body}`
  }
}

function timedOutAnswer (ms: number, what = 'the request'): RawAnswer {
  return rawAnswer('408 Request Timeout', '', 'request_timeout', `${what} did not arrive whole within ${ms / 1000} seconds: send its headers and body at once`)
}

/** Answers 408 on the request's connection, which is then closed; what was read of the request is dropped. */
function cutOff (socket: Socket, answer: RawAnswer, refusals: Refusals): void {
  if (socket.destroyed) return
  refusals.answered(answer.code)
  if (socket.writable) socket.end(answer.text)
  socket.destroySoon()
}

/**
 * The HTTP server's side of the limits, for Fastify's constructor: Node's own
 * request timeout, the longest a request may take (an upload's), checked every
 * second rather than every 30 s; the headers' timeout; and the answers to what
 * goes wrong before a request reaches Fastify, in the service's error contract.
 * The shorter time of every request that is not an upload is kept by the
 * plugin below.
 */
export function connectionServerOptions (limits: ConnectionLimits): Pick<FastifyServerOptions, 'requestTimeout' | 'clientErrorHandler'> & { http: ServerOptions } {
  // a backstop past the plugin's own deadlines, which come first with their own words
  const longest = Math.max(limits.requestTimeoutMs, limits.uploadTimeoutMs) + limits.requestTimeoutMs
  const timedOut = timedOutAnswer(longest)
  const malformed = rawAnswer('400 Bad Request', '', 'malformed_request', 'the request is not well-formed HTTP/1.1: send a valid request')
  const headersTooLarge = rawAnswer('431 Request Header Fields Too Large', '', 'headers_too_large', 'the request headers are too large: send fewer or shorter headers')
  return {
    requestTimeout: longest,
    // the headers too: a connection that sends nothing is a request that does not arrive
    http: { headersTimeout: limits.requestTimeoutMs, connectionsCheckingInterval: Math.min(1000, limits.requestTimeoutMs) },
    clientErrorHandler (this: FastifyInstance, error: NodeJS.ErrnoException, socket: Socket) {
      if (error.code === 'ECONNRESET' || socket.destroyed) return
      const answer = error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? timedOut
        : error.code === 'HPE_HEADER_OVERFLOW' ? headersTooLarge : malformed
      this.log.debug({ err: error, remoteAddress: socket.remoteAddress }, 'client error before a request was read')
      cutOff(socket, answer, this.refusals)
    }
  }
}

/**
 * Every request's body must arrive within requestTimeoutMs of its headers. An upload's (a route
 * marked `config.upload`, once load-shedding.ts has admitted it: its token read and its place
 * taken, `uploadPlaces.take`) within uploadTimeoutMs instead, bringing in each requestTimeoutMs at
 * least the floor UPLOAD_PACE sets for the share of upload places in use at that check, counted on
 * its socket, whose bytes are the upload's (a connection's next request is read only once this one
 * is answered). Past either, 408 and the connection closed; an upload cut off under a raised floor
 * is told the service is busy. The time runs until the body has arrived, whether or not the request
 * was answered first (a refusal before its body, a GET sent with one): an answer does not give a
 * body that keeps coming its connection for longer.
 */
function bodyDeadlines (app: FastifyInstance, limits: ConnectionLimits): void {
  const period = limits.requestTimeoutMs
  const seconds = period / 1000
  const timedOut = timedOutAnswer(period)
  // an upload has at least a request's time
  const uploadTimeoutMs = Math.max(limits.uploadTimeoutMs, period)
  const uploadTimedOut = timedOutAnswer(uploadTimeoutMs, 'the upload')
  const tooSlow = rawAnswer('408 Request Timeout', '', 'request_timeout',
    `the upload brought less than ${UPLOAD_PACE.baseBytes / 1024} KiB in ${seconds} seconds: send it over a faster link, or send a smaller file`)
  const kib = (bytes: number): number => Math.floor(bytes / 1024)
  const busy = (why: string, brought: number, floor: number): RawAnswer => rawAnswer('408 Request Timeout', '', 'request_timeout',
    `the service is busy (${why}), and this upload brought ${kib(brought)} KiB per ${seconds} seconds, less than the ${kib(floor)} KiB ` +
    'it asks of each upload now: retry over a faster link, or later')

  const held = new Map<FastifyRequest, Arrival | undefined>()
  const arrivals = new WeakMap<FastifyRequest, Arrival>()
  const share = (): number => held.size / places.places
  const places: UploadPlaces = {
    places: Infinity,
    get held () { return held.size },
    take (reply) {
      const { request } = reply
      // an injected request (tests) holds its place too, with no pace to judge
      held.set(request, arrivals.get(request))
      reply.raw.once('close', () => held.delete(request))
    },
    freeSlowest () {
      const floor = uploadPaceFloor(share())
      let slowest: { arrival: Arrival, perPeriod: number } | undefined
      for (const arrival of held.values()) {
        if (arrival === undefined || !arrival.arriving || arrival.elapsed() < period / 2) continue
        const perPeriod = arrival.brought() * period / arrival.elapsed()
        if (perPeriod < floor && (slowest === undefined || perPeriod < slowest.perPeriod)) slowest = { arrival, perPeriod }
      }
      if (slowest === undefined) return false
      slowest.arrival.cut(busy('every upload place is taken and another upload is waiting', slowest.perPeriod, floor))
      return true
    }
  }
  app.decorate('uploadPlaces', places)

  app.addHook('onRequest', (request, reply, done) => {
    const { raw } = request
    const socket = raw.socket
    // a request without a body, one that has all of its body, and one injected without a network (tests) have nothing to time
    const withBody = (raw.headers['content-length'] !== undefined && raw.headers['content-length'] !== '0') || raw.headers['transfer-encoding'] !== undefined
    if (!withBody || raw.complete || !(socket instanceof Socket)) {
      done()
      return
    }
    const began = { at: Date.now(), read: socket.bytesRead }
    let read = socket.bytesRead
    const arrival: Arrival = {
      arriving: true,
      elapsed: () => Date.now() - began.at,
      brought: () => socket.bytesRead - began.read,
      cut (answer) {
        stop()
        held.delete(request)
        cutOff(socket, answer, app.refusals)
      }
    }
    arrivals.set(request, arrival)
    // a request's body in time; an upload's at the pace of the floor in force, each period. An upload
    // answered is no longer held: what is left of its body has a request's time, not an upload's
    const check = setInterval(() => {
      const brought = socket.bytesRead - read
      read = socket.bytesRead
      if (raw.complete || socket.destroyed) {
        stop()
        return
      }
      if (!held.has(request)) {
        arrival.cut(timedOut)
        return
      }
      const floor = uploadPaceFloor(share())
      if (brought >= floor) return
      arrival.cut(floor > UPLOAD_PACE.baseBytes ? busy('its upload places are filling up', brought, floor) : tooSlow)
    }, period)
    const deadline = setTimeout(() => {
      if (raw.complete) stop()
      else arrival.cut(uploadTimedOut)
    }, uploadTimeoutMs)
    check.unref()
    deadline.unref()
    function stop (): void {
      arrival.arriving = false
      clearInterval(check)
      clearTimeout(deadline)
      raw.off('end', stop)
      socket.off('close', stop)
    }
    raw.once('end', stop)
    socket.once('close', stop)
    done()
  })
}

/**
 * Caps the connections open at once from one client address, so that one
 * client cannot hold the server's sockets. Behind a proxy every client has
 * the proxy's address: the cap is then set to 0 (off) and left to the proxy.
 */
export default fp<ConnectionLimits>(async function connections (app, limits) {
  bodyDeadlines(app, limits)
  if (limits.perAddress <= 0) return
  const tooMany = rawAnswer('429 Too Many Requests', 'Retry-After: 1\r\n', 'too_many_connections',
    `more than ${limits.perAddress} connections are open from this address: reuse an open connection, or close idle ones`)
  const open = new Map<string, number>()
  app.server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? ''
    const count = (open.get(address) ?? 0) + 1
    if (count > limits.perAddress) {
      app.refusals.answered(tooMany.code)
      socket.end(tooMany.text)
      socket.destroySoon()
      return
    }
    open.set(address, count)
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1
      if (left === 0) open.delete(address)
      else open.set(address, left)
    })
  })
}, { name: 'connections', dependencies: ['errors'] })
