import fp from 'fastify-plugin'
import type { Socket } from 'node:net'
import type { ServerOptions } from 'node:http'
import type { FastifyInstance, FastifyServerOptions } from 'fastify'
import type { RefusalCode } from '../domain/refusals.js'

/** What a connection may hold of the service before anything is counted as a request under way. */
export interface ConnectionLimits {
  /** a request must arrive whole, headers and body, within this time (ms), or it gets 408 and its connection is closed */
  requestTimeoutMs: number
  /** connections open at once from one client address; past it a new one gets 429 and is closed; 0: no cap */
  perAddress: number
}

export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = { requestTimeoutMs: 10_000, perAddress: 100 }

/** An answer written straight to the socket, before any request reached Fastify, in the error contract. */
function rawAnswer (status: string, headers: string, code: RefusalCode, error: string): string {
  const body = JSON.stringify({ error, code })
  return `HTTP/1.1 ${status}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
    `Cache-Control: no-store\r\nConnection: close\r\n${headers}\r\n${body}`
}

/**
 * The HTTP server's side of the limits, for Fastify's constructor: Node's own
 * request timeout, checked every second rather than every 30 s, and the
 * answers to what goes wrong before a request reaches Fastify, in the
 * service's error contract.
 */
export function connectionServerOptions (limits: ConnectionLimits): Pick<FastifyServerOptions, 'requestTimeout' | 'clientErrorHandler'> & { http: ServerOptions } {
  const seconds = limits.requestTimeoutMs / 1000
  const timedOut = rawAnswer('408 Request Timeout', '', 'request_timeout',
    `the request did not arrive whole within ${seconds} seconds: send its headers and body at once`)
  const malformed = rawAnswer('400 Bad Request', '', 'malformed_request', 'the request is not well-formed HTTP/1.1: send a valid request')
  const headersTooLarge = rawAnswer('431 Request Header Fields Too Large', '', 'headers_too_large', 'the request headers are too large: send fewer or shorter headers')
  return {
    requestTimeout: limits.requestTimeoutMs,
    // the headers too: a connection that sends nothing is a request that does not arrive
    http: { headersTimeout: limits.requestTimeoutMs, connectionsCheckingInterval: Math.min(1000, limits.requestTimeoutMs) },
    clientErrorHandler (this: FastifyInstance, error: NodeJS.ErrnoException, socket: Socket) {
      if (error.code === 'ECONNRESET' || socket.destroyed) return
      const answer = error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? timedOut
        : error.code === 'HPE_HEADER_OVERFLOW' ? headersTooLarge : malformed
      this.log.debug({ err: error, remoteAddress: socket.remoteAddress }, 'client error before a request was read')
      if (socket.writable) socket.end(answer)
      socket.destroySoon()
    }
  }
}

/**
 * Caps the connections open at once from one client address, so that one
 * client cannot hold the server's sockets. Behind a proxy every client has
 * the proxy's address: the cap is then set to 0 (off) and left to the proxy.
 */
export default fp<ConnectionLimits>(async function connections (app, limits) {
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
