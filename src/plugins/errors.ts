import fp from 'fastify-plugin'
import type { FastifyError } from 'fastify'

/**
 * The one error contract: 4xx carry a message a person can act on;
 * 5xx are logged with the request id and masked for the client.
 */
export default fp(async function errors (app) {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const status = isDatabaseUnavailable(error) ? 503 : error.statusCode ?? 500
    if (error.validation !== undefined) {
      return reply.code(400).send({ error: validationMessage(error) })
    }
    if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      return reply.code(415).send({ error: 'send the body as JSON with the header Content-Type: application/json' })
    }
    if (status >= 400 && status < 500) {
      if (status === 429) request.log.info({ err: error }, 'rate limited')
      return reply.code(status).send({ error: error.message })
    }
    request.log.error({ err: error }, 'request failed')
    return reply.code(status >= 500 && status < 600 ? status : 500)
      .send({ error: status === 503 ? 'service unavailable, try again shortly' : 'internal error', requestId: request.id })
  })

  app.setNotFoundHandler((request, reply) => {
    return reply.code(404).send({ error: `no operation ${request.method} ${request.url.split('?')[0] ?? ''}` })
  })
}, { name: 'errors' })

const DATABASE_UNAVAILABLE = new Set([
  'MongoServerSelectionError', 'MongoNetworkError', 'MongoNetworkTimeoutError', 'MongoTopologyClosedError', 'MongoOperationTimeoutError'
])

function isDatabaseUnavailable (error: Error): boolean {
  return DATABASE_UNAVAILABLE.has(error.name)
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
