import { test } from 'tap'
import { connect } from 'node:net'
import type { FastifyInstance } from 'fastify'
import { buildTestApp, post, registerUser } from '../helpers/app.js'

const TOKEN = 'metrics-token-that-is-long-enough-0123456789'

/** The metrics the app serves at /metrics on its own port, with the token. */
async function scrape (app: FastifyInstance, token = TOKEN): Promise<string> {
  const response = await app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${token}` } })
  if (response.statusCode !== 200) throw new Error(`/metrics answered ${response.statusCode}: ${response.body}`)
  return response.body
}

/** The value of the sample `name` whose labels include `labels`, summed over the others; undefined when there is none. */
function sample (text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  let total: number | undefined
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line)
    if (match === null || match[1] !== name) continue
    const found = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map(([, key, value]) => [key, value]))
    if (Object.entries(labels).every(([key, value]) => found[key] === value)) total = (total ?? 0) + Number(match[3])
  }
  return total
}

const FAMILIES: Array<[string, string]> = [
  ['flashcards_http_request_duration_seconds', 'histogram'],
  ['flashcards_database_call_duration_seconds', 'histogram'],
  ['flashcards_database_up', 'gauge'],
  ['flashcards_refusals_total', 'counter'],
  ['flashcards_anki_imports', 'gauge'],
  ['flashcards_anki_import_running_seconds', 'gauge'],
  ['flashcards_fits', 'gauge'],
  // prom-client's default metrics: the process's event-loop delay and memory
  ['nodejs_eventloop_lag_seconds', 'gauge'],
  ['nodejs_eventloop_lag_p99_seconds', 'gauge'],
  ['process_resident_memory_bytes', 'gauge'],
  ['nodejs_heap_size_used_bytes', 'gauge']
]

test('/metrics, with the token, holds every family after some requests, labelled by route pattern and code', async (t) => {
  const app = await buildTestApp(t, import.meta.filename, { metrics: { token: TOKEN } })
  const user = await registerUser(app)
  t.equal((await post(app, 'get-today-cards', { jwtToken: user.jwtToken })).statusCode, 200)
  t.equal((await post(app, 'get-today-cards', { jwtToken: 'not a token' })).statusCode, 401)
  t.equal((await app.inject({ method: 'GET', url: '/nowhere/1234' })).statusCode, 404)

  const response = await app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } })
  t.equal(response.statusCode, 200)
  t.match(response.headers['content-type'], /^text\/plain; version=0\.0\.4/)
  const text = response.body
  for (const [family, type] of FAMILIES) t.match(text, new RegExp(`^# TYPE ${family} ${type}$`, 'm'), `${family} (${type})`)

  t.equal(sample(text, 'flashcards_http_request_duration_seconds_count', { method: 'POST', route: '/api/get-today-cards', status: '200' }), 1, 'an answer by its route pattern and status')
  t.equal(sample(text, 'flashcards_http_request_duration_seconds_count', { method: 'POST', route: '/api/get-today-cards', status: '401' }), 1)
  t.equal(sample(text, 'flashcards_http_request_duration_seconds_count', { method: 'GET', route: 'unmatched', status: '404' }), 1, 'a path no route has is one series, whatever the path')
  t.ok((sample(text, 'flashcards_database_call_duration_seconds_count', { collection: 'users', operation: 'findOne' }) ?? 0) >= 1, 'the account read, by collection and operation')
  t.equal(sample(text, 'flashcards_database_up'), 1)
  t.equal(sample(text, 'flashcards_refusals_total', { code: 'invalid_token' }), 1)
  t.equal(sample(text, 'flashcards_refusals_total', { code: 'unknown_operation' }), 1)
  t.equal(sample(text, 'flashcards_refusals_total', { code: 'quota_exceeded' }), 0, 'a code not answered yet is there, at 0')
  for (const state of ['arriving', 'waiting', 'running']) t.equal(sample(text, 'flashcards_anki_imports', { state }), 0, `imports ${state}`)
  t.equal(sample(text, 'flashcards_anki_import_running_seconds'), 0)
  for (const state of ['waiting', 'running']) t.equal(sample(text, 'flashcards_fits', { state }), 0, `fits ${state}`)
  t.ok((sample(text, 'process_resident_memory_bytes') ?? 0) > 0, 'the memory the process holds')

  t.notMatch(text, user.email, 'no label holds a request\'s data')
  t.notMatch(text, user.userID)
  t.notMatch(text, '/nowhere')
})

test('the counts move as requests are made', async (t) => {
  const app = await buildTestApp(t, import.meta.filename, { metrics: { token: TOKEN } })
  const user = await registerUser(app)
  const answers = { method: 'POST', route: '/api/get-today-cards', status: '200' }
  const accountReads = { collection: 'users', operation: 'findOne' }

  const before = await scrape(app)
  for (let i = 0; i < 3; i++) await post(app, 'get-today-cards', { jwtToken: user.jwtToken })
  await post(app, 'get-today-cards', { jwtToken: 'not a token' })
  await post(app, 'get-today-cards', { jwtToken: user.jwtToken, extra: 1, cards: 'x'.repeat(10) })
  await post(app, 'create-folder', { jwtToken: user.jwtToken, path: [] })
  const after = await scrape(app)

  t.equal((sample(after, 'flashcards_http_request_duration_seconds_count', answers) ?? 0) - (sample(before, 'flashcards_http_request_duration_seconds_count', answers) ?? 0), 4,
    'three answers more, and the one with an unknown field that is dropped')
  const inBuckets = sample(after, 'flashcards_http_request_duration_seconds_bucket', { ...answers, le: '+Inf' })
  t.equal(inBuckets, sample(after, 'flashcards_http_request_duration_seconds_count', answers), 'every answer in the histogram\'s buckets')
  t.ok((sample(after, 'flashcards_http_request_duration_seconds_sum', answers) ?? 0) > (sample(before, 'flashcards_http_request_duration_seconds_sum', answers) ?? 0), 'their time added')
  t.ok((sample(after, 'flashcards_database_call_duration_seconds_count', accountReads) ?? 0) - (sample(before, 'flashcards_database_call_duration_seconds_count', accountReads) ?? 0) >= 4,
    'the account read by each authenticated request')
  t.equal((sample(after, 'flashcards_refusals_total', { code: 'invalid_token' }) ?? 0) - (sample(before, 'flashcards_refusals_total', { code: 'invalid_token' }) ?? 0), 1)
  t.equal((sample(after, 'flashcards_refusals_total', { code: 'invalid_field' }) ?? 0) - (sample(before, 'flashcards_refusals_total', { code: 'invalid_field' }) ?? 0), 1, 'create-folder of an empty path')
})

test('/metrics answers its token only: without it, it is not there', async (t) => {
  const app = await buildTestApp(t, import.meta.filename, { metrics: { token: TOKEN } })
  t.match(await scrape(app), '# TYPE flashcards_refusals_total counter', 'with the token')
  const nowhere = (await app.inject({ method: 'GET', url: '/nowhere' })).json<{ code: string }>()
  t.equal(nowhere.code, 'unknown_operation')
  for (const authorization of [undefined, `Bearer ${TOKEN}x`, `Bearer ${TOKEN.slice(1)}`, `Basic ${TOKEN}`, TOKEN, 'Bearer ']) {
    const response = await app.inject({ method: 'GET', url: '/metrics', headers: authorization === undefined ? {} : { authorization } })
    t.equal(response.statusCode, 404, `${authorization ?? 'no Authorization'}: 404`)
    t.equal(response.json<{ code: string }>().code, 'unknown_operation', 'as a path the service does not have')
    t.notMatch(response.body, /flashcards_|nodejs_/)
  }
  for (const method of ['POST', 'PUT', 'DELETE', 'HEAD'] as const) {
    const response = await app.inject({ method, url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } })
    t.equal(response.statusCode, 404, `${method} /metrics: 404, not a 405 that would tell a GET is there`)
  }

  const unset = await buildTestApp(t, import.meta.filename)
  const response = await unset.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } })
  t.equal(response.statusCode, 404, 'with no token set, /metrics is served nowhere')
})

test('a port of its own, on loopback, serves /metrics; the service\'s port does not', async (t) => {
  const app = await buildTestApp(t, import.meta.filename, { metrics: { port: 0 } })
  await post(app, 'get-today-cards', { jwtToken: 'not a token' })
  const address = app.metricsAddress()
  if (address === null) throw new Error('no metrics port')
  t.equal(address.address, '127.0.0.1', 'bound to loopback only')
  const base = `http://127.0.0.1:${address.port}`

  const response = await fetch(`${base}/metrics`)
  t.equal(response.status, 200)
  t.match(response.headers.get('content-type'), /^text\/plain; version=0\.0\.4/)
  const text = await response.text()
  for (const [family] of FAMILIES) t.match(text, `# TYPE ${family} `, family)
  t.equal(sample(text, 'flashcards_refusals_total', { code: 'invalid_token' }), 1)
  t.equal((await fetch(`${base}/other`)).status, 404, 'nothing else on that port')
  t.equal((await app.inject({ method: 'GET', url: '/metrics' })).statusCode, 404, 'the service\'s port has no /metrics')

  const guarded = await buildTestApp(t, import.meta.filename, { metrics: { port: 0, token: TOKEN } })
  const guardedBase = `http://127.0.0.1:${guarded.metricsAddress()?.port ?? 0}`
  t.equal((await fetch(`${guardedBase}/metrics`)).status, 404, 'with the token set as well, that port asks for it')
  t.equal((await fetch(`${guardedBase}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).status, 200)
  t.equal((await guarded.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } })).statusCode, 404,
    'and the service\'s port still has none')
})

test('refusals answered before a request reaches Fastify are counted too', async (t) => {
  const app = await buildTestApp(t, import.meta.filename, { metrics: { token: TOKEN } })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as { port: number }
  const before = sample(await scrape(app), 'flashcards_refusals_total', { code: 'malformed_request' }) ?? 0
  const answer = await new Promise<string>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write('NOT HTTP AT ALL\r\n\r\n'))
    let received = ''
    socket.on('data', (chunk) => { received += chunk.toString() })
    socket.on('close', () => resolve(received))
    socket.on('error', reject)
  })
  t.match(answer, /^HTTP\/1\.1 400 .*"code":"malformed_request"/s)
  t.equal((sample(await scrape(app), 'flashcards_refusals_total', { code: 'malformed_request' }) ?? 0) - before, 1)
})
