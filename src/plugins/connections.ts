import fp from 'fastify-plugin'
import { Socket } from 'node:net'
import type { ServerOptions } from 'node:http'
import type { FastifyInstance, FastifyServerOptions } from 'fastify'
import type { RefusalCode } from '../domain/refusals.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** a file upload (upload-media, import-flashcard-zip, import-anki): its body may take uploadTimeoutMs, as long as it keeps coming */
    upload?: boolean
  }
  interface FastifyRequest {
    /** an upload whose token was read and which took its place (load-shedding.ts): its body has an upload's time from now on */
    uploadAdmitted: boolean
  }
}

/** What a connection may hold of the service before anything is counted as a request under way. */
export interface ConnectionLimits {
  /** a request must arrive whole, headers and body, within this time (ms), or it gets 408 and its connection is closed */
  requestTimeoutMs: number
  /**
   * an upload must arrive whole within this time (ms), and bring at least UPLOAD_PACE_BYTES in every
   * requestTimeoutMs of it; else 408 and its connection is closed
   */
  uploadTimeoutMs: number
  /** connections open at once from one client address; past it a new one gets 429 and is closed; 0: no cap */
  perAddress: number
}

export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = { requestTimeoutMs: 10_000, uploadTimeoutMs: 3_600_000, perAddress: 100 }

/** The least an upload must bring in each requestTimeoutMs: 64 KiB, 6.4 KiB/s at the default, which any link carries and a trickle does not. */
export const UPLOAD_PACE_BYTES = 64 * 1024

/** An answer written straight to the socket, before any request reached Fastify, in the error contract. */
function rawAnswer (status: string, headers: string, code: RefusalCode, error: string): string {
  const body = JSON.stringify({ error, code })
  return `HTTP/1.1 ${status}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
    `Cache-Control: no-store\r\nConnection: close\r\n${headers}\r\n${body}`
}

function timedOutAnswer (ms: number, what = 'the request'): string {
  return rawAnswer('408 Request Timeout', '', 'request_timeout', `${what} did not arrive whole within ${ms / 1000} seconds: send its headers and body at once`)
}

/** Answers 408 on the request's connection, which is then closed; what was read of the request is dropped. */
function cutOff (socket: Socket, answer: string): void {
  if (socket.destroyed) return
  if (socket.writable) socket.end(answer)
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
      cutOff(socket, answer)
    }
  }
}

/**
 * Every request's body must arrive within requestTimeoutMs of its headers. An upload's (a route
 * marked `config.upload`, once load-shedding.ts has admitted it: its token read and its place
 * taken, `request.uploadAdmitted`) within uploadTimeoutMs instead, bringing at least
 * UPLOAD_PACE_BYTES in each requestTimeoutMs, counted on its socket, whose bytes are the upload's
 * (a connection's next request is read only once this one is answered). Past either, 408 and the
 * connection closed. The time runs until the body has arrived, whether or not the request was
 * answered first (a refusal before its body, a GET sent with one): an answer does not give a
 * body that keeps coming its connection for longer.
 */
function bodyDeadlines (app: FastifyInstance, limits: ConnectionLimits): void {
  const timedOut = timedOutAnswer(limits.requestTimeoutMs)
  // an upload has at least a request's time
  const uploadTimeoutMs = Math.max(limits.uploadTimeoutMs, limits.requestTimeoutMs)
  const uploadTimedOut = timedOutAnswer(uploadTimeoutMs, 'the upload')
  const tooSlow = rawAnswer('408 Request Timeout', '', 'request_timeout',
    `the upload brought less than ${UPLOAD_PACE_BYTES / 1024} KiB in ${limits.requestTimeoutMs / 1000} seconds: send it over a faster link, or send a smaller file`)
  app.decorateRequest('uploadAdmitted', false)
  app.addHook('onRequest', (request, reply, done) => {
    const { raw } = request
    const socket = raw.socket
    // a request without a body, one that has all of its body, and one injected without a network (tests) have nothing to time
    const withBody = (raw.headers['content-length'] !== undefined && raw.headers['content-length'] !== '0') || raw.headers['transfer-encoding'] !== undefined
    if (!withBody || raw.complete || !(socket instanceof Socket)) {
      done()
      return
    }
    let answered = false
    const paced = (): boolean => request.uploadAdmitted && !answered
    let read = socket.bytesRead
    // a request's body in time; an upload's at its pace, each requestTimeoutMs
    const check = setInterval(() => {
      if (raw.complete || socket.destroyed) {
        stop()
      } else if (!paced()) {
        stop()
        cutOff(socket, timedOut)
      } else if (socket.bytesRead - read < UPLOAD_PACE_BYTES) {
        stop()
        cutOff(socket, tooSlow)
      }
      read = socket.bytesRead
    }, limits.requestTimeoutMs)
    const deadline = setTimeout(() => {
      stop()
      if (!raw.complete) cutOff(socket, uploadTimedOut)
    }, uploadTimeoutMs)
    check.unref()
    deadline.unref()
    function stop (): void {
      clearInterval(check)
      clearTimeout(deadline)
      raw.off('end', stop)
      socket.off('close', stop)
    }
    raw.once('end', stop)
    socket.once('close', stop)
    // answered: what is left of its body has a request's time, not an upload's
    reply.raw.once('close', () => { answered = true })
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
      socket.end(tooMany)
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
}, { name: 'connections' })
