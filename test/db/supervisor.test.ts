import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { test } from 'tap'
import { buildApp } from '../../src/app.js'
import { startEmbeddedDatabase, type DatabaseProcessEvent } from '../../src/db/embedded.js'
import { post, registerUser, TEST_SECRET } from '../helpers/app.js'
import { eventually, killAndHoldPort, release } from '../helpers/database-process.js'

/** A data folder of the test's own: killing its database disturbs no other test. */
async function dataDirOf (t: { teardown: (fn: () => unknown) => void }): Promise<string> {
  const dataDir = await mkdtemp(join(tmpdir(), 'supervisor-test-'))
  t.teardown(() => rm(dataDir, { recursive: true, force: true }))
  return dataDir
}

const count = (events: readonly DatabaseProcessEvent[], kind: DatabaseProcessEvent['kind']): number =>
  events.filter((event) => event.kind === kind).length

test('killed six times, each time soon after it came back: started again every time, and the service serves each time', async (t) => {
  const events: DatabaseProcessEvent[] = []
  // the default restart policy, as the service runs it
  const database = await startEmbeddedDatabase({ dataDir: await dataDirOf(t), report: (event) => events.push(event) })
  t.teardown(() => database.stop())
  const app = await buildApp({ mongodbUrl: `${database.url}/supervisor`, jwtSecret: TEST_SECRET, databaseProcess: database.state })
  t.teardown(() => app.close())
  const user = await registerUser(app)

  for (let kill = 1; kill <= 6; kill++) {
    const killed = database.pid()
    process.kill(killed as number, 'SIGKILL')
    const back = await eventually(() => count(events, 'restarted') === kill || count(events, 'gave-up') > 0, 30_000)
    t.ok(back && count(events, 'gave-up') === 0, `kill ${kill}: the database was started again (${events.map((event) => event.kind).join(', ')})`)
    t.not(database.pid(), killed, `kill ${kill}: a new database process`)

    const ready = await eventually(async () => (await app.inject({ method: 'GET', url: '/health' })).statusCode === 200, 20_000)
    t.ok(ready, `kill ${kill}: /health answers 200 again`)
    let answer = 0
    await eventually(async () => {
      answer = (await post(app, 'get-user', { jwtToken: user.jwtToken })).statusCode
      return answer === 200
    }, 20_000)
    t.equal(answer, 200, `kill ${kill}: the API answers again`)
    // the next kill comes soon after this start, well within the time that would count it as stable
    await sleep(1000)
  }

  t.equal(database.state(), 'running', 'running at the end')
  t.equal(count(events, 'exited'), 6, 'six exits seen')
  t.equal(count(events, 'gave-up'), 0, 'never given up')
})

test('only restarts that fail in a row count: a restart that works resets them; enough failures in a row give up', async (t) => {
  const events: DatabaseProcessEvent[] = []
  const policy = { attempts: 3, firstDelayMs: 300, maxDelayMs: 600 }
  const database = await startEmbeddedDatabase({ dataDir: await dataDirOf(t), restart: policy, report: (event) => events.push(event) })
  t.teardown(() => database.stop())
  const port = Number(new URL(database.url).port)

  // twice: two restarts fail (the port is taken), then the third works
  for (let round = 1; round <= 2; round++) {
    const failedBefore = count(events, 'restart-failed')
    const held = await killAndHoldPort(port, () => database.pid())
    const failedTwice = await eventually(() => count(events, 'restart-failed') >= failedBefore + 2, 20_000, 20)
    await release(held)
    t.ok(failedTwice, `round ${round}: two restarts failed while the port was taken`)
    t.ok(await eventually(() => count(events, 'restarted') === round, 20_000), `round ${round}: the next restart worked`)
    t.equal(database.state(), 'running')
  }
  t.equal(count(events, 'restart-failed'), 4, `more failures in all than the ${policy.attempts} attempts, never that many in a row`)
  t.equal(count(events, 'gave-up'), 0)

  const held = await killAndHoldPort(port, () => database.pid())
  t.teardown(() => release(held))
  t.ok(await eventually(() => count(events, 'gave-up') === 1, 30_000), `${policy.attempts} failures in a row: given up`)
  t.equal(count(events, 'restart-failed'), 4 + policy.attempts)
  t.equal(database.state(), 'failed')
  t.equal(database.pid(), undefined, 'no database process')
})

/** The processes whose command line names `dataDir`: the database servers of that folder. */
async function serversOf (dataDir: string): Promise<number[]> {
  const pids = (await readdir('/proc')).filter((name) => /^\d+$/.test(name)).map(Number)
  const commandLines = await Promise.all(pids.map(async (pid) => await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')))
  return pids.filter((_, index) => commandLines[index]?.includes('secantusd-rs') === true && commandLines[index].includes(dataDir))
}

test('stopped while a restart is starting the server: that server is stopped too', async (t) => {
  const dataDir = await dataDirOf(t)
  const database = await startEmbeddedDatabase({ dataDir, restart: { firstDelayMs: 0 } })
  t.teardown(() => database.stop())
  const killed = database.pid() as number
  process.kill(killed, 'SIGKILL')
  // the restart has started a new server, which is not listening yet
  const starting = await eventually(async () => (await serversOf(dataDir)).some((pid) => pid !== killed), 10_000, 5)
  t.ok(starting, 'a restart started a server')
  await database.stop()
  t.strictSame(await serversOf(dataDir), [], 'no server runs on the folder once stop() has returned')
  t.equal(database.state(), 'stopped')
})
