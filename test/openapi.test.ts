import SwaggerParser from '@apidevtools/swagger-parser'
import { readFile } from 'node:fs/promises'
import { test } from 'tap'
import { buildTestApp } from './helpers/app.js'

interface Operation { summary?: string, requestBody?: unknown, responses?: Record<string, unknown> }

/**
 * Every route the app serves, as "METHOD /path", read from Fastify's own route
 * table. It prints a tree in which each line holds its path relative to the
 * line above it at one level less of indentation.
 */
function routesOf (printed: string): string[] {
  const routes: string[] = []
  const above: string[] = []
  for (const line of printed.split('\n')) {
    const match = /^([│ ]*)[├└]── (\S*)(?: \(([^)]+)\))?/.exec(line)
    if (match === null) continue
    const depth = (match[1] ?? '').length / 4
    above.length = depth
    above.push(match[2] ?? '')
    for (const method of (match[3] ?? '').split(', ')) {
      if (method !== '' && method !== 'HEAD') routes.push(`${method} ${above.join('')}`)
    }
  }
  return routes
}

test('the OpenAPI document', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const response = await app.inject({ method: 'GET', url: '/openapi.json' })
  t.equal(response.statusCode, 200)
  const document = response.json()

  await t.test('is a valid OpenAPI 3 document', async (t) => {
    const validated = await SwaggerParser.validate(structuredClone(document))
    t.match((validated as { openapi?: string }).openapi, /^3\./)
  })

  await t.test("names the service's version, as package.json gives it", async (t) => {
    const { version } = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
    t.equal(document.info.version, version)
  })

  await t.test('lists every route the service serves', async (t) => {
    // the documentation's own routes (/docs and its files, /openapi.json) are not operations
    const served = routesOf(app.printRoutes({ commonPrefix: false }))
      .filter((route) => / \/(api\/|health)/.test(route))
    const api = served.filter((route) => route.startsWith('POST /api/'))
    t.ok(api.length >= 9, `found ${api.length} operations`)
    for (const route of served) {
      const [method = '', path = ''] = route.split(' ')
      t.ok(document.paths[path]?.[method.toLowerCase()], `${route} is documented`)
    }
  })

  await t.test('every operation has a summary, a request schema and its error responses', async (t) => {
    for (const [path, methods] of Object.entries(document.paths as Record<string, Record<string, Operation>>)) {
      for (const [method, operation] of Object.entries(methods)) {
        t.ok(operation.summary, `${method} ${path} has a summary`)
        const statuses = Object.keys(operation.responses ?? {})
        t.ok(statuses.some((status) => status.startsWith('2')), `${method} ${path} documents its success`)
        if (!path.startsWith('/api/')) continue
        t.ok(operation.requestBody, `${method} ${path} documents its body`)
        t.ok(statuses.includes('400'), `${method} ${path} documents 400`)
        // the operations that take no token: the ways into an account
        const open = ['/api/register', '/api/login', '/api/request-password-reset', '/api/reset-password', '/api/confirm-email-change']
        if (!open.includes(path)) t.ok(statuses.includes('401'), `${method} ${path} documents 401`)
      }
    }
  })

  await t.test('the published operations are there as the published interface names them', async (t) => {
    t.ok(document.paths['/api/update-goal-status']?.post)
    t.ok(document.paths['/api/get-today-cards']?.post)
  })
})
