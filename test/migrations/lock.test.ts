import { MongoClient, type Db } from 'mongodb'
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { test } from 'tap'
import { buildApp } from '../../src/app.js'
import { MIGRATIONS, migrate, type MigrationStep } from '../../src/repositories/migrations.js'
import { TEST_SECRET, testDatabaseUrl } from '../helpers/app.js'
import { stopped } from '../helpers/service-process.js'

/** A short lease, so that a holder's death is seen within the test. */
const LEASE_MS = 600

interface Teardown { teardown: (fn: () => unknown) => void }

/** One database of this test's own, and a client of it for each instance of the service; dropped when the test ends. */
async function instancesOn (t: Teardown, count: number): Promise<{ url: string, instances: Db[] }> {
  const url = testDatabaseUrl(import.meta.filename)
  const clients = await Promise.all(Array.from({ length: count }, async () => await MongoClient.connect(url)))
  t.teardown(async () => {
    await clients[0]?.db().dropDatabase().catch(() => {})
    await Promise.all(clients.map(async (client) => { await client.close() }))
  })
  return { url, instances: clients.map((client) => client.db()) }
}

/** Steps numbered 1, 2, 3... that count their runs in `runs`; those named in `slow` take `slowMs`. */
function countingSteps (names: string[], runs: Map<string, number>, slow: { names: string[], ms: number } = { names: [], ms: 0 }): MigrationStep[] {
  return names.map((name, index) => ({
    number: index + 1,
    name,
    run: async () => {
      runs.set(name, (runs.get(name) ?? 0) + 1)
      if (slow.names.includes(name)) await sleep(slow.ms)
    }
  }))
}

/** A step that waits until the test lets it finish, and says when it has started. */
function heldStep (number: number, name: string) {
  let started = (): void => {}
  let finish = (): void => {}
  const hasStarted = new Promise<void>((resolve) => { started = resolve })
  const finished = new Promise<void>((resolve) => { finish = resolve })
  const step: MigrationStep = { number, name, run: async () => { started(); await finished } }
  return { step, hasStarted, finish }
}

async function recordedSteps (db: Db): Promise<Array<{ _id: string, number?: number }>> {
  return await db.collection<{ _id: string, number?: number }>('migrations')
    .find({ _id: { $ne: 'lock' } }, { projection: { _id: 1, number: 1 } }).sort({ number: 1, _id: 1 }).toArray()
}

async function within<T> (promise: Promise<T>, ms: number, what: string): Promise<T> {
  return await Promise.race([promise, sleep(ms).then(() => { throw new Error(`${what} did not happen within ${ms} ms`) })])
}

test('two instances starting at once on a fresh database run each step once', async (t) => {
  const { instances: [first, second] } = await instancesOn(t, 2)
  const logs: string[][] = [[], []]
  await Promise.all([
    migrate(first as Db, (message) => logs[0]?.push(message)),
    migrate(second as Db, (message) => logs[1]?.push(message))
  ])
  const runs = new Map<string, number>()
  for (const message of logs.flat()) {
    const done = /^migration (?:\d+ )?(\S+) done in \d+ ms$/.exec(message)
    if (done !== null) runs.set(done[1] as string, (runs.get(done[1] as string) ?? 0) + 1)
  }
  t.same(Object.fromEntries(runs), Object.fromEntries(MIGRATIONS.map((step) => [step.name, 1])), 'every step run, and by one instance only')
  t.same(await recordedSteps(first as Db), MIGRATIONS.map((step) => ({ _id: step.name, number: step.number })), 'each recorded with its number')
})

test('a step that runs longer than the lease is renewed, and run once, however many instances start', async (t) => {
  const { instances } = await instancesOn(t, 3)
  const runs = new Map<string, number>()
  const steps = countingSteps(['first', 'slower-than-the-lease', 'last'], runs, { names: ['slower-than-the-lease'], ms: 4 * LEASE_MS })
  await Promise.all(instances.map(async (db) => { await migrate(db, () => {}, { steps, leaseMs: LEASE_MS }) }))
  t.same(Object.fromEntries(runs), { first: 1, 'slower-than-the-lease': 1, last: 1 })
  t.same(await recordedSteps(instances[0] as Db), [{ _id: 'first', number: 1 }, { _id: 'slower-than-the-lease', number: 2 }, { _id: 'last', number: 3 }])
  t.equal(await instances[0]?.collection('migrations').countDocuments({ _id: 'lock' as never }), 0, 'the lock is given back')
})

test('a holder that stopped renewing is taken over once its lease runs out, and the steps it left run', async (t) => {
  const { instances: [db] } = await instancesOn(t, 1)
  const migrations = (db as Db).collection<Record<string, unknown> & { _id: string }>('migrations')
  // an instance that died during step 2: step 1 recorded, its lease about to run out
  await migrations.insertMany([
    { _id: 'first', number: 1, doneAt: new Date() },
    { _id: 'lock', holder: 'a dead instance', host: 'host-a (pid 1)', since: new Date(Date.now() - 60_000), until: new Date(Date.now() + 2 * LEASE_MS), step: '2 cut-off' }
  ])
  const runs = new Map<string, number>()
  const logged: string[] = []
  await migrate(db as Db, (message) => logged.push(message), { steps: countingSteps(['first', 'cut-off', 'last'], runs), leaseMs: LEASE_MS })
  t.same(Object.fromEntries(runs), { 'cut-off': 1, last: 1 }, 'the step cut off runs again whole, the one done does not')
  t.same(await recordedSteps(db as Db), [{ _id: 'first', number: 1 }, { _id: 'cut-off', number: 2 }, { _id: 'last', number: 3 }])
  t.match(logged.join('\n'), /waits for host-a \(pid 1\), which holds the lock since .* \(step 2 cut-off\)[^]*host-a \(pid 1\) no longer holds the lock, with steps left/)
  t.equal(await migrations.countDocuments({ _id: 'lock' }), 0, 'the lock is given back')
})

test('an instance killed in the middle of a step is taken over by one waiting for it, which runs the steps left', async (t) => {
  const { url, instances: [db] } = await instancesOn(t, 1)
  const killed = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, '..', 'helpers', 'migrating-process.ts'), url, String(LEASE_MS)], { stdio: ['ignore', 'pipe', 'inherit'] })
  t.teardown(() => { killed.kill('SIGKILL') })
  await within(new Promise<void>((resolve) => {
    let output = ''
    killed.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString()
      if (output.includes('step 2 started')) resolve()
    })
  }), 30_000, 'the other process\'s step 2')

  const runs = new Map<string, number>()
  const logged: string[] = []
  const waiting = migrate(db as Db, (message) => logged.push(message), { steps: countingSteps(['first', 'cut-off', 'last'], runs), leaseMs: LEASE_MS, waitMs: 30_000 })
  // several leases while the other process lives: it renews, so nothing is taken from it
  await sleep(4 * LEASE_MS)
  t.same(Object.fromEntries(runs), {}, 'nothing run while the holder lives')
  killed.kill('SIGKILL')
  await stopped(killed)
  await waiting
  t.same(Object.fromEntries(runs), { 'cut-off': 1, last: 1 }, 'the cut-off step again whole, then the rest')
  t.same(await recordedSteps(db as Db), [{ _id: 'first', number: 1 }, { _id: 'cut-off', number: 2 }, { _id: 'last', number: 3 }])
  t.match(logged.join('\n'), /waits for .*\(step 2 cut-off\)[^]*no longer holds the lock, with steps left/)
})

test('an instance whose run fails midway gives the lock back, and the next one runs the steps left', async (t) => {
  const { instances: [first, second] } = await instancesOn(t, 2)
  const failing: MigrationStep[] = [
    { number: 1, name: 'first', run: async () => {} },
    { number: 2, name: 'second', run: async () => { throw new Error('the database went away') } }
  ]
  await t.rejects(migrate(first as Db, () => {}, { steps: failing, leaseMs: LEASE_MS }), /the database went away/)
  const runs = new Map<string, number>()
  await within(migrate(second as Db, () => {}, { steps: countingSteps(['first', 'second', 'third'], runs), leaseMs: 60_000 }), 10_000, 'the next run')
  t.same(Object.fromEntries(runs), { second: 1, third: 1 }, 'at once, without waiting for a lease to run out')
})

test('an instance that waits starts only once every step is recorded', async (t) => {
  const { instances: [first, second] } = await instancesOn(t, 2)
  const held = heldStep(2, 'second')
  const holderRuns = new Map<string, number>()
  const [one, , three] = countingSteps(['first', 'second', 'third'], holderRuns)
  const holding = migrate(first as Db, () => {}, { steps: [one as MigrationStep, held.step, three as MigrationStep], leaseMs: LEASE_MS })
  await within(held.hasStarted, 20_000, 'the holder\'s step 2')

  const waiterRuns = new Map<string, number>()
  let seenAtReturn: Array<{ _id: string }> | null = null
  const waiting = migrate(second as Db, () => {}, { steps: countingSteps(['first', 'second', 'third'], waiterRuns), leaseMs: LEASE_MS })
    .then(async () => { seenAtReturn = await recordedSteps(second as Db) })
  // several leases: the holder renews, so the waiter neither takes over nor returns
  await sleep(5 * LEASE_MS)
  t.equal(seenAtReturn, null, 'still waiting while step 2 runs')
  held.finish()
  await Promise.all([holding, waiting])
  t.same(seenAtReturn, [{ _id: 'first', number: 1 }, { _id: 'second', number: 2 }, { _id: 'third', number: 3 }], 'it returned with every step recorded')
  t.same(Object.fromEntries(holderRuns), { first: 1, third: 1 })
  t.same(Object.fromEntries(waiterRuns), {}, 'and ran none')
})

test('a database migrated when steps were recorded by name runs none of them again, and runs a step added since with the next number', async (t) => {
  const { instances: [db] } = await instancesOn(t, 1)
  const doneAt = new Date('2026-01-01T00:00:00Z')
  await (db as Db).collection<{ _id: string, doneAt: Date }>('migrations').insertMany(MIGRATIONS.map((step) => ({ _id: step.name, doneAt })))
  const runs = new Map<string, number>()
  const counted = (step: MigrationStep): MigrationStep => ({ ...step, run: async () => { runs.set(step.name, (runs.get(step.name) ?? 0) + 1) } })
  const added = { number: MIGRATIONS.length + 1, name: 'a-step-added-since', run: async () => {} }
  const steps = [...MIGRATIONS, added].map(counted)
  await migrate(db as Db, () => {}, { steps })
  await migrate(db as Db, () => {}, { steps })
  t.same(Object.fromEntries(runs), { 'a-step-added-since': 1 })
  t.same(await recordedSteps(db as Db), [
    ...MIGRATIONS.map((step) => ({ _id: step.name })).sort((a, b) => a._id < b._id ? -1 : 1),
    { _id: 'a-step-added-since', number: MIGRATIONS.length + 1 }
  ], 'the old records as they were, the new one numbered')
})

test('a start that waits longer than it may for another instance\'s migrations fails, saying why', async (t) => {
  const { url, instances: [db] } = await instancesOn(t, 1)
  // an instance busy with a long step: its lease renewed all along
  await (db as Db).collection<Record<string, unknown> & { _id: string }>('migrations').insertOne({
    _id: 'lock', holder: 'a busy instance', host: 'host-b (pid 2)', since: new Date(), until: new Date(Date.now() + 600_000), step: '3 library-to-trees'
  })
  await t.rejects(async () => {
    const app = await buildApp({ mongodbUrl: url, jwtSecret: TEST_SECRET, databaseTimeouts: { migrationWaitMs: 1500 } })
    await app.ready()
    await app.close()
  }, /waited 2 s for host-b \(pid 2\), which has held the migration lock since .* and runs step 3 library-to-trees/)
  t.equal(await (db as Db).collection('migrations').countDocuments({ _id: { $ne: 'lock' as never } }), 0, 'it ran nothing')
})
