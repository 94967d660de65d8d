// How a script beside the service (npm run backup) finds the embedded database the
// service runs: at the address its start keeps in the data folder, checked against
// the process, and waited for while the service's supervision starts it again.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { test } from 'tap'
import { runningEmbeddedDatabase, startEmbeddedDatabase, type DatabaseProcessEvent } from '../../src/db/embedded.js'
import { runScript } from '../helpers/backup.js'
import { killAndHoldPort, release } from '../helpers/database-process.js'

async function dataDirOf (t: { teardown: (fn: () => unknown) => void }): Promise<string> {
  const dataDir = await mkdtemp(join(tmpdir(), 'running-database-test-'))
  t.teardown(() => rm(dataDir, { recursive: true, force: true }))
  return dataDir
}

test('the address of the database running on a folder, and none once it is stopped or killed', async (t) => {
  const dataDir = join(await dataDirOf(t), 'secantus')
  t.equal(await runningEmbeddedDatabase(dataDir), null, 'none before it starts')
  const database = await startEmbeddedDatabase({ dataDir, restart: { attempts: 1, firstDelayMs: 60_000 } })
  t.teardown(() => database.stop())
  t.equal(await runningEmbeddedDatabase(dataDir), database.url, 'its address while it runs')
  t.equal(await runningEmbeddedDatabase(`${dataDir}-other`), null, 'not that of a folder whose name starts alike')
  process.kill(database.pid() as number, 'SIGKILL')
  await sleep(500)
  const started = Date.now()
  t.equal(await runningEmbeddedDatabase(dataDir, 1000), null, 'none once killed (its address left behind)')
  t.ok(Date.now() - started >= 1000, 'after waiting for it as long as asked')
  await database.stop()
  t.equal(await runningEmbeddedDatabase(dataDir, 5000), null, 'none once stopped, at once')
})

test('a backup started while the service\'s database is being started again waits for it, rather than starting a second one on its folder', async (t) => {
  const dataDir = await dataDirOf(t)
  const events: DatabaseProcessEvent[] = []
  // the service's database, supervised as the service does, with restarts that keep trying
  const database = await startEmbeddedDatabase({ dataDir: join(dataDir, 'secantus'), restart: { attempts: 100, firstDelayMs: 200, maxDelayMs: 500 }, report: (event) => events.push(event) })
  t.teardown(() => database.stop())
  // every restart fails while the port is held
  const held = await killAndHoldPort(Number(new URL(database.url).port), () => database.pid())
  const backup = runScript('backup', [join(dataDir, 'while-restarting.backup')], dataDir)
  await sleep(6000)
  const failedMeanwhile = events.filter((event) => event.kind === 'restart-failed').length
  await release(held)
  const run = await backup
  t.ok(failedMeanwhile > 0, `the database was down meanwhile (${failedMeanwhile} restarts failed)`)
  t.equal(run.code, 0, `the backup succeeded:\n${run.stderr}`)
  t.match(run.stderr, /which a running service holds/, 'on the service\'s database, started again')
  t.notMatch(run.stderr, /starting its embedded database/, 'having started none of its own')
  t.equal(database.state(), 'running', 'which runs on')
  t.equal(events.filter((event) => event.kind === 'restarted').length, 1, 'restarted once, and not stopped since')
})
