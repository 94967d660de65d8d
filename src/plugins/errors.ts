import fp from 'fastify-plugin'
import type { FastifyError } from 'fastify'
import {
  MongoBulkWriteError, MongoClientClosedError, MongoExpiredSessionError, MongoNetworkError, MongoNotConnectedError, MongoServerClosedError,
  MongoOperationTimeoutError, MongoServerError, MongoServerSelectionError, MongoTopologyClosedError
} from 'mongodb'
import { DomainError, type Refusal } from '../domain/errors.js'
import { TooManyAttemptsError } from '../errors.js'

const REFUSAL_STATUS: Record<Refusal, 400 | 404 | 409> = { invalid: 400, 'not-found': 404, conflict: 409 }

/**
 * The one error contract: 4xx carry a message a person can act on;
 * 5xx are logged with the request id and masked for the client.
 */
export default fp(async function errors (app) {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const status = isDatabaseUnavailable(error) ? 503 : error.statusCode ?? 500
    if (error.validation !== undefined) {
      return reply.code(400).send({ error: validationMessage(error) + tokenHint(error, request.headers.authorization) })
    }
    if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      return reply.code(415).send({ error: 'send the body as JSON with the header Content-Type: application/json' })
    }
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      return reply.code(413).send({
        error: `the body is larger than ${request.routeOptions.bodyLimit / 1024 / 1024} MiB, the most one request may send: ` +
          'send fewer cards a request, or import a long file in parts'
      })
    }
    if (error instanceof DomainError) {
      return reply.code(REFUSAL_STATUS[error.refusal]).send({ error: error.message })
    }
    if (error instanceof TooManyAttemptsError) void reply.header('retry-after', error.retryAfterSeconds)
    if (status >= 400 && status < 500) {
      if (status === 429) request.log.info({ err: error }, 'rate limited')
      return reply.code(status).send({ error: error.message })
    }
    if (status === 503) {
      // an outage or overload, not a bug: logged once per request at warn level, so that
      // shedding load does not add an error report to every request it turns away
      // turned away by the service itself: the reason is enough, a stack per request is not
      if (error.statusCode === 503) request.log.warn({ reason: error.message }, 'service unavailable')
      else request.log.warn({ err: error }, 'service unavailable')
      if (!reply.hasHeader('retry-after')) void reply.header('retry-after', DATABASE_RETRY_AFTER_SECONDS)
      return reply.code(503).send({ error: 'service unavailable, try again shortly', requestId: request.id })
    }
    request.log.error({ err: error }, 'request failed')
    return reply.code(status >= 500 && status < 600 ? status : 500)
      .send({ error: 'internal error', requestId: request.id })
  })

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? ''
    // the operation exists, asked for with another method: say which one it takes
    const allowed = ['GET', 'POST'].filter((method) => app.hasRoute({ method, url: path }))
    if (allowed.length > 0) {
      return reply.code(405).header('allow', allowed.join(', '))
        .send({ error: `${path} takes ${allowed.join(' or ')}, not ${request.method}${allowed.includes('POST') ? ', with a JSON body' : ''}` })
    }
    return reply.code(404).send({ error: `no operation ${request.method} ${path}` })
  })
}, { name: 'errors' })

/** A database that went away usually answers again within a second or two (a restart, an election). */
const DATABASE_RETRY_AFTER_SECONDS = 2

/**
 * Server answers that mean "not now" rather than "never": shutting down,
 * interrupted, not the primary (yet). The codes the driver retries on.
 */
const TRANSIENT_SERVER_CODES = new Set([6, 7, 89, 91, 189, 262, 9001, 10107, 11600, 11602, 13435, 13436])

/** Whether an error says the database cannot be reached now, so the client should retry (503). */
export function isDatabaseUnavailable (error: Error): boolean {
  // a bulk write (insertMany) cut off by a lost connection wraps the network error it met
  if (error instanceof MongoBulkWriteError && error.errorResponse instanceof Error) return isDatabaseUnavailable(error.errorResponse)
  if (error instanceof MongoServerError) {
    return typeof error.code === 'number' && TRANSIENT_SERVER_CODES.has(error.code)
  }
  return error instanceof MongoNetworkError || // a lost connection, a socket time-out, a cleared pool
    error instanceof MongoServerSelectionError || // no server reachable in time
    error instanceof MongoTopologyClosedError || // the client closed while the request waited (shutdown)
    error instanceof MongoClientClosedError ||
    error instanceof MongoNotConnectedError || // closed to reconnect (plugins/database.ts)
    error instanceof MongoExpiredSessionError ||
    error instanceof MongoServerClosedError ||
    error instanceof MongoOperationTimeoutError ||
    error.name === 'MongoWaitQueueTimeoutError' || // every pooled connection busy for too long
    error.name === 'MongoPoolClosedError' ||
    // the driver (7.x) lets a write on a socket the server just closed through unwrapped;
    // the database is the only peer this service opens sockets to
    SOCKET_ERROR_CODES.has((error as NodeJS.ErrnoException).code ?? '')
}

const SOCKET_ERROR_CODES = new Set(['EPIPE', 'ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH'])

/** A token sent as a header, as many APIs take it, is missed here: say where it goes. */
function tokenHint (error: FastifyError, authorization: string | undefined): string {
  const first = error.validation?.[0]
  const missing = first?.keyword === 'required' && (first.params as { missingProperty?: unknown }).missingProperty === 'jwtToken'
  return missing && authorization !== undefined
    ? ': the token goes in the JSON body as "jwtToken", not in the Authorization header'
    : ''
}

function validationMessage (error: FastifyError): string {
  const first = error.validation?.[0]
  if (first === undefined) return error.message
  const where = `${error.validationContext ?? 'body'}${first.instancePath.replaceAll('/', '.')}`
  const params = first.params as Record<string, unknown>
  switch (first.keyword) {
    case 'required':
      return `${where} is missing the field "${String(params.missingProperty)}"`
    case 'additionalProperties':
      return `${where} has an unknown field "${String(params.additionalProperty)}"`
    case 'enum':
      return `${where} must be one of ${(params.allowedValues as unknown[]).map((value) => JSON.stringify(value)).join(', ')}`
    case 'type':
      return `${where} must be ${String(params.type)}`
    default:
      return `${where} ${first.message ?? 'is invalid'}`
  }
}
