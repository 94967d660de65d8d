// The service killed (SIGKILL, and its database with it, as in a power cut) at a random point of
// an import of a generated Anki package, three times, and started again on the same data each time:
// the import is then either all there (done) or not there at all (failed, cleaned away), never in
// part, and its status says which. The package has more cards than the plan's transaction hands
// over itself, so that the hand-over after it (finished by the next start) is among the points hit.
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { MongoClient, type Db } from 'mongodb'
import tap from 'tap'
import { writeAnkiPackage } from '../../scripts/bench/anki-package.js'
import { loggedReviews } from '../helpers/anki-import.js'
import { call, startServiceProcess, stopped, type RunningService } from '../helpers/service-process.js'

tap.setTimeout(600_000)

const LEASE_SECONDS = 2

async function startService (dataDir: string): Promise<RunningService> {
  return await startServiceProcess(dataDir, { REQUEST_TIMEOUT_MS: '60000', IMPORT_LEASE_SECONDS: String(LEASE_SECONDS) })
}

async function startImport (base: string, jwtToken: string, file: Buffer): Promise<string> {
  const form = new FormData()
  form.append('jwtToken', jwtToken)
  form.append('file', new Blob([new Uint8Array(file)]), 'generated.apkg')
  const response = await fetch(`${base}/api/import-anki`, { method: 'POST', body: form, signal: AbortSignal.timeout(60_000) })
  const answer = await response.json() as { importID?: string }
  if (response.status !== 202 || answer.importID === undefined) throw new Error(`import-anki answered ${response.status} ${JSON.stringify(answer)}`)
  return answer.importID
}

async function ended (base: string, jwtToken: string, importID: string, withinMs: number): Promise<Record<string, unknown>> {
  const deadline = Date.now() + withinMs
  for (;;) {
    const status = (await call(base, 'get-import-status', { jwtToken, importID })).body
    if (status.state === 'done' || status.state === 'failed') return status
    if (Date.now() > deadline) throw new Error(`the import did not end: ${JSON.stringify(status)}`)
    await sleep(100)
  }
}

/** What of one user's import the database holds. */
async function holdings (db: Db, userID: string) {
  const tree = await db.collection('trees').findOne({ _id: userID as never })
  const flashcards = JSON.stringify(tree?.folders ?? []).match(/"description"/g)?.length ?? 0
  const activity = await db.collection('activity').find({ userID }).toArray()
  const account = await db.collection('users').findOne({ _id: userID as never })
  return {
    cards: await db.collection('cards').countDocuments({ userID }),
    staged: await db.collection('cards').countDocuments({ userID: { $regex: '^anki-import:' } }),
    states: await db.collection('cardStates').countDocuments({ userID }),
    stagedStates: await db.collection('cardStates').countDocuments({ userID: { $regex: '^anki-import:' } }),
    reviews: await loggedReviews(db, userID),
    dayCounts: activity.reduce((sum, day) => sum + (day.reviews as number), 0),
    media: await db.collection('media').countDocuments({ userID }),
    flashcards,
    usageCards: account?.usage?.cards ?? 0
  }
}

tap.test('killed at random points of an import, three times: after each restart it is all there or not at all', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'anki-import-crash-'))
  t.teardown(() => rm(dataDir, { recursive: true, force: true }))
  const packagePath = join(dataDir, 'generated.apkg')
  const generated = await writeAnkiPackage(packagePath, { cards: 21_000, revlog: 30_000, media: 5 })
  const file = await readFile(packagePath)
  const databasePidFile = join(dataDir, 'secantus', 'secantusd.pid')

  let service = await startService(dataDir)
  t.teardown(async () => {
    if (service.process.exitCode === null && service.process.signalCode === null) {
      service.process.kill('SIGTERM')
      await stopped(service.process)
    }
  })
  const register = async (n: number) => (await call(service.base, 'register', { email: `crash${n}@example.com`, password: 'long enough password' })).body as { jwtToken: string, userID: string }

  // an import left alone: how long it takes, and what all of it is
  const whole = await register(0)
  const startedAt = Date.now()
  const wholeID = await startImport(service.base, whole.jwtToken, file)
  const wholeStatus = await ended(service.base, whole.jwtToken, wholeID, 120_000)
  const duration = Date.now() - startedAt
  t.equal(wholeStatus.state, 'done', JSON.stringify(wholeStatus))
  t.same(wholeStatus.warnings, [], 'nothing left out')
  let client = new MongoClient(`${service.databaseUrl}/flashcards`)
  await client.connect()
  const all = await holdings(client.db(), whole.userID)
  await client.close()
  t.equal(all.cards, generated.cards, `an import left alone keeps every card (${duration} ms)`)
  t.equal(all.states, generated.cards, 'and each card\'s state')
  const nothing = { cards: 0, staged: 0, states: 0, stagedStates: 0, reviews: 0, dayCounts: 0, media: 0, flashcards: 0, usageCards: 0 }

  const outcomes: string[] = []
  for (let round = 1; round <= 3; round++) {
    const user = await register(round)
    const importID = await startImport(service.base, user.jwtToken, file)
    // a random point of each third of the import: reading and staging first, keeping it last (and a little past its end)
    const killAfter = Math.floor(duration * ((round - 1) / 3 + Math.random() * (round === 3 ? 0.45 : 1 / 3)))
    await sleep(killAfter)
    service.process.kill('SIGKILL')
    await stopped(service.process)
    const databasePid = Number(await readFile(databasePidFile, 'utf8').catch(() => '0'))
    if (databasePid > 0) {
      try { process.kill(databasePid, 'SIGKILL') } catch { /* gone already */ }
    }

    service = await startService(dataDir)
    const status = await ended(service.base, user.jwtToken, importID, 60_000 + LEASE_SECONDS * 3000)
    client = new MongoClient(`${service.databaseUrl}/flashcards`)
    await client.connect()
    const held = await holdings(client.db(), user.userID)
    await client.close()
    outcomes.push(`killed ${killAfter} ms in: ${String(status.state)}${status.recovered === undefined ? '' : ` (${String(status.recovered)})`}`)
    if (status.state === 'done') {
      t.same(held, all, `round ${round}, killed ${killAfter} ms in: done, and all of it is there`)
    } else {
      t.equal(status.code, 'import_interrupted', `round ${round}: failed as interrupted`)
      t.equal(status.recovered, 'cleaned', `round ${round}: and its status says it was cleaned away`)
      t.same(held, nothing, `round ${round}, killed ${killAfter} ms in: failed, and nothing of it is there`)
    }
  }
  t.comment(outcomes.join('; '))
  // the first user's import, done before the kills, is untouched by them
  client = new MongoClient(`${service.databaseUrl}/flashcards`)
  await client.connect()
  t.same(await holdings(client.db(), whole.userID), all, 'an import done before the kills is still whole')
  await client.close()
})
