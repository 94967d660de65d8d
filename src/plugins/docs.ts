import fp from 'fastify-plugin'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import { readFileSync } from 'node:fs'

/** The service's version, as package.json gives it: the API's version in the OpenAPI document. */
const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }

/**
 * The OpenAPI 3 document, generated from the route schemas, at /openapi.json,
 * and an interactive page at /docs. Registered before the routes, so that it
 * sees every one of them.
 */
export default fp(async function docs (app) {
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Flashcard learning service',
        version,
        description: 'Folders of flashcards, spaced-repetition reviews (FSRS) and goals. ' +
          'Every operation is POST /api/<operation> with a JSON body (upload-media: a multipart form); authenticated operations take the token in the body field jwtToken. ' +
          'Response values are strings; calendar dates are DD/MM/YYYY in the user\'s calendar; errors are {"error": "..."}.'
      },
      tags: [
        { name: 'account', description: 'registration, login, settings' },
        { name: 'library', description: 'folders, flashcards and cards' },
        { name: 'study', description: "today's cards and reviews" },
        { name: 'goals', description: 'goals and their status' },
        { name: 'media', description: 'images and sounds for cards: upload-media, and the signed URLs that serve them' },
        { name: 'service', description: 'health' }
      ]
    }
  })
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list', deepLinking: true } })
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger())
}, { name: 'docs' })
