import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'tap'
import { buildApp } from '../../src/app.js'
import { startEmbeddedDatabase } from '../../src/db/embedded.js'
import { buildTestApp, TEST_SECRET } from '../helpers/app.js'

test('health says ready while the database answers', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const response = await app.inject({ method: 'GET', url: '/health' })
  t.equal(response.statusCode, 200)
  t.same(response.json(), { status: 'ok', database: 'ready' })
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
  t.same(response.json(), { status: 'unavailable', database: 'unavailable' })
  t.ok(Date.now() - started < 5000, 'the answer does not wait for the driver\'s long time-outs')
})
