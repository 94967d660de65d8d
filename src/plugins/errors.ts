import fp from 'fastify-plugin'
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import {
  MongoBulkWriteError, MongoClientClosedError, MongoExpiredSessionError, MongoNetworkError, MongoNotConnectedError, MongoServerClosedError,
  MongoOperationTimeoutError, MongoServerError, MongoServerSelectionError, MongoTopologyClosedError
} from 'mongodb'
import { Refusal, type RefusalCode } from '../domain/refusals.js'
import { statusOf } from '../schemas/errors.js'
import { Id } from '../schemas/common.js'
import { EMAIL_PATTERN, LINK_TOKEN_PATTERN } from '../schemas/accounts.js'
import { PARENT_ID_PATTERN } from '../schemas/library-manage.js'
import { REVIEW_ID_PATTERN } from '../schemas/study.js'
import { NAME_PATTERN } from '../domain/names.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** every refusal answered, by its code, wherever it is answered: what metrics count (plugins/metrics.ts) */
    refusals: Refusals
  }
}

export interface Refusals {
  /** said by what answers a refusal, once per answer */
  answered: (code: RefusalCode) => void
  /** `listener` hears of every refusal answered from now on */
  listen: (listener: (code: RefusalCode) => void) => void
}

function refusalListeners (): Refusals {
  const listeners: Array<(code: RefusalCode) => void> = []
  return {
    answered: (code) => { for (const listener of listeners) listener(code) },
    listen: (listener) => { listeners.push(listener) }
  }
}

/** What a Fastify error (raised before a route's handler) is, as a refusal; null for what is not the client's doing. */
function frameworkRefusal (error: FastifyError, request: FastifyRequest): Refusal | null {
  if (error.validation !== undefined) return new Refusal('invalid_field', tokenInHeader(error, request.headers.authorization) ?? validationMessage(error))
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new Refusal('unsupported_content_type', 'send the body as JSON with the header Content-Type: application/json')
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new Refusal('body_too_large', `the body is larger than ${request.routeOptions.bodyLimit / 1024 / 1024} MiB, the most one request may send: ` +
        'send fewer cards a request, or import a long file in parts')
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new Refusal('malformed_json', 'the body is empty: send a JSON object')
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new Refusal('malformed_json', `the body is not valid JSON (${error.message}): send one JSON object`)
  }
  const status = error.statusCode ?? 500
  if (status >= 500) return null
  // the JSON parser's own errors: a syntax error, or a field named __proto__ or constructor.prototype
  if (error instanceof SyntaxError) return new Refusal('malformed_json', `the body is not valid JSON (${error.message}): send one JSON object`)
  if (/prototype/.test(error.message)) return new Refusal('malformed_json', `${error.message}: send a body without a field named __proto__ or constructor.prototype`)
  return new Refusal(status === 413 ? 'body_too_large' : status === 415 ? 'unsupported_content_type' : 'malformed_request', error.message)
}

/**
 * The one error contract: every error answer is {error, code}, the code one
 * of the closed list (domain/refusals.ts) and its status decided by
 * schemas/errors.ts. 4xx carry a sentence a person can act on; 5xx are
 * logged with the request id and masked for the client.
 */
export default fp(async function errors (app) {
  app.decorate('refusals', refusalListeners())
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const refusal = error instanceof Refusal
      ? error
      : isDatabaseUnavailable(error)
        ? new Refusal('database_unavailable', 'the database is unavailable; nothing was stored: retry shortly', DATABASE_RETRY_AFTER_SECONDS)
        : frameworkRefusal(error, request)
    app.refusals.answered(refusal?.code ?? 'internal_error')
    if (refusal === null) {
      request.log.error({ err: error }, 'request failed')
      return reply.code(500).send({ error: 'internal error', code: 'internal_error', requestId: request.id })
    }
    const status = statusOf(refusal.code)
    if (refusal.retryAfterSeconds !== undefined) void reply.header('retry-after', refusal.retryAfterSeconds)
    if (status === 503) {
      // an outage or overload, not a bug: logged once per request at warn level, without a
      // stack when the service turned the request away itself
      if (error instanceof Refusal) request.log.warn({ code: refusal.code, reason: refusal.message }, 'service unavailable')
      else request.log.warn({ err: error }, 'service unavailable')
      if (!reply.hasHeader('retry-after')) void reply.header('retry-after', DATABASE_RETRY_AFTER_SECONDS)
      return reply.code(503).send({ error: refusal.message, code: refusal.code, requestId: request.id })
    }
    if (status === 429) request.log.info({ code: refusal.code, reason: refusal.message }, 'a client over its limit')
    return reply.code(status).send({ error: refusal.message, code: refusal.code })
  })

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? ''
    // the operation exists, asked for with another method: say which one it takes
    const allowed = ['GET', 'POST'].filter((method) => app.hasRoute({ method, url: path }))
    if (allowed.length > 0) {
      app.refusals.answered('method_not_allowed')
      return reply.code(405).header('allow', allowed.join(', ')).send({
        error: `${path} takes ${allowed.join(' or ')}, not ${request.method}${allowed.includes('POST') ? ', with a JSON body' : ''}`,
        code: 'method_not_allowed'
      })
    }
    const refusal = unknownOperation(request.method, path)
    app.refusals.answered(refusal.code)
    return reply.code(404).send({ error: refusal.message, code: refusal.code })
  })
}, { name: 'errors' })

/** What the service answers a path it does not have, or does not show to this request (404). */
export function unknownOperation (method: string, path: string): Refusal {
  return new Refusal('unknown_operation', `no operation ${method} ${path}: see /docs for the operations`)
}

/**
 * Errors of the router itself, met before a request reaches a route or the
 * error handler (Fastify's `frameworkErrors`): a path whose percent-encoding
 * is broken, or a path parameter longer than the router reads. Answered in
 * the error contract, as a request that is not well-formed.
 */
export function frameworkErrors (error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  const refusal = error.code === 'FST_ERR_MAX_PARAM_LENGTH'
    ? new Refusal('malformed_request', 'a part of the path is longer than any id this service gives: send an id as it was given')
    : new Refusal('malformed_request', 'the path is not a valid URL (a broken %-escape): send the path as it was given')
  reply.server.refusals.answered(refusal.code)
  void reply.code(statusOf(refusal.code)).send({ error: refusal.message, code: refusal.code })
}

/** A database that went away usually answers again within a second or two (a restart, an election). */
export const DATABASE_RETRY_AFTER_SECONDS = 2

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
function tokenInHeader (error: FastifyError, authorization: string | undefined): string | null {
  const first = error.validation?.[0]
  const missing = first?.keyword === 'required' && (first.params as { missingProperty?: unknown }).missingProperty === 'jwtToken'
  return missing && authorization !== undefined
    ? 'body is missing the field "jwtToken": the token goes in the JSON body as "jwtToken", not in the Authorization header'
    : null
}

/** What a value matching each pattern of the schemas is, in words (an Ajv error names the pattern, not its meaning). */
const PATTERN_MEANINGS: Record<string, string> = {
  [Id.pattern as string]: 'an id as the service gave it: 30 to 64 decimal digits',
  [NAME_PATTERN]: 'text without control characters (U+0000-U+001F, U+007F-U+009F)',
  [EMAIL_PATTERN]: 'an email address such as ada@example.com',
  [LINK_TOKEN_PATTERN]: 'the token of a link the service mailed: the 43 letters, digits, - and _ after token= in the link',
  [REVIEW_ID_PATTERN]: 'printable ASCII characters without spaces',
  [PARENT_ID_PATTERN]: 'a folder id, or "" for the top level'
}

const TYPE_NAMES: Record<string, string> = {
  string: 'a string (text in double quotes)',
  integer: 'a whole number',
  number: 'a number',
  boolean: 'true or false',
  array: 'an array ([...])',
  object: 'a JSON object ({...})'
}

/** The first validation error as a sentence that says what to send instead. */
function validationMessage (error: FastifyError): string {
  const first = error.validation?.[0]
  if (first === undefined) return error.message
  const where = `${error.validationContext ?? 'body'}${first.instancePath.replaceAll('/', '.')}`
  const params = first.params as Record<string, unknown>
  const limit = Number(params.limit)
  switch (first.keyword) {
    case 'required':
      return `${where} is missing the field "${String(params.missingProperty)}": send it (/docs shows every field)`
    case 'additionalProperties':
      return `${where} has an unknown field "${String(params.additionalProperty)}": leave it out`
    case 'enum':
      return `${where} must be one of ${(params.allowedValues as unknown[]).map((value) => JSON.stringify(value)).join(', ')}: send one of them`
    case 'type':
      return `${where} must be ${TYPE_NAMES[String(params.type)] ?? String(params.type)}`
    case 'pattern':
      return `${where} must be ${PATTERN_MEANINGS[String(params.pattern)] ?? 'as /docs describes it'}`
    case 'minLength':
      return limit === 1 ? `${where} is empty: send at least one character` : `${where} is too short: send at least ${limit} characters`
    case 'maxLength':
      return `${where} is too long: send at most ${limit.toLocaleString('en')} characters`
    case 'minimum':
      return `${where} is too small: send ${limit} or more`
    case 'maximum':
      return `${where} is too large: send ${limit.toLocaleString('en')} or less`
    case 'minItems':
      return `${where} has too few items: send at least ${limit}`
    case 'maxItems':
      return `${where} has too many items: send at most ${limit.toLocaleString('en')}`
    default:
      return `${where} ${first.message ?? 'is invalid'}: /docs shows what to send`
  }
}
