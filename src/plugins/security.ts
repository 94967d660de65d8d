import fp from 'fastify-plugin'
import cors from '@fastify/cors'
import helmet from 'helmet'

export interface SecurityOptions {
  /** origins a browser may call the API from; none unless configured */
  corsOrigins: readonly string[]
}

/**
 * Headers and origins, shared by every route: helmet's security headers,
 * `Cache-Control: no-store` on the API, and CORS only for configured origins.
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
}, { name: 'security' })
