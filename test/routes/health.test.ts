import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'tap'
import { buildApp } from '../../src/app.js'
import { startEmbeddedDatabase } from '../../src/db/embedded.js'
import { buildTestApp, databaseOf, post, registerUser, TEST_SECRET, testDatabaseUrl } from '../helpers/app.js'

test('health says ready while the database answers', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const response = await app.inject({ method: 'GET', url: '/health' })
  t.equal(response.statusCode, 200)
  t.same(response.json(), { status: 'ok', database: 'ready', load: 'normal' })
})

test('health answers 503 quickly once the database stops', async (t) => {
  // a database of this test's own, so stopping it disturbs no other test
  const dataDir = await mkdtemp(join(tmpdir(), 'health-test-'))
  t.teardown(() => rm(dataDir, { recursive: true, force: true }))
  const database = await startEmbeddedDatabase({ dataDir })
  const app = await buildApp({ mongodbUrl: `${database.url}/health`, jwtSecret: TEST_SECRET })
  await app.ready()
  t.teardown(() => app.close())

  t.equal((await app.inject({ method: 'GET', url: '/health' })).statusCode, 200)
  await database.stop()

  const started = Date.now()
  const response = await app.inject({ method: 'GET', url: '/health' })
  t.equal(response.statusCode, 503)
  t.same(response.json(), { status: 'unavailable', database: 'unavailable', load: 'normal' })
  t.ok(Date.now() - started < 5000, 'the answer does not wait for the driver\'s long time-outs')
})

test('health says what the API would answer: 503 "overloaded" while every place for requests under way is taken', async (t) => {
  const app = await buildApp({ mongodbUrl: testDatabaseUrl(import.meta.filename), jwtSecret: TEST_SECRET, loadShedding: { maxInFlight: 1 } })
  // a request that stays under way until the test lets it go
  let release = (): void => {}
  let entered = (): void => {}
  const inHandler = new Promise<void>((resolve) => { entered = resolve })
  app.post('/api/test-hold', async () => {
    entered()
    await new Promise<void>((resolve) => { release = resolve })
    return { held: 'true' }
  })
  await app.ready()
  t.teardown(async () => {
    await databaseOf(app).dropDatabase()
    await app.close()
  })
  const user = await registerUser(app)

  const held = app.inject({ method: 'POST', url: '/api/test-hold', payload: {} })
  await inHandler
  const health = await app.inject({ method: 'GET', url: '/health' })
  t.equal(health.statusCode, 503)
  t.same(health.json(), { status: 'unavailable', database: 'ready', load: 'overloaded' })
  t.equal((await post(app, 'get-user', { jwtToken: user.jwtToken })).statusCode, 503, 'and the API answers 503 indeed')

  release()
  t.equal((await held).statusCode, 200)
  t.same((await app.inject({ method: 'GET', url: '/health' })).json(), { status: 'ok', database: 'ready', load: 'normal' })
  t.equal((await post(app, 'get-user', { jwtToken: user.jwtToken })).statusCode, 200)
})
