// `npm run bench`: the published operations under load, next to the ceiling of
// a bare Fastify route serving the same bytes on the same machine.
//
// Generates a user with 10,000 cards and one with 100,000 (folders three levels
// deep, 500 cards due today each, limits raised so all 500 are shown, 10 goals)
// among other users' documents, starts the service as a child process, and
// drives get-today-cards, update-goal-status and review-card with autocannon.
// Against the embedded FerretDB by default; against MONGODB_URL when it is set
// (in a fresh database there, dropped at the end), where every query of the
// operations is also explained.
//
// BENCH_DURATION (s, default 10), BENCH_CONNECTIONS (10), BENCH_WARMUP (s, 2),
// BENCH_ALTERNATING (rounds of get-today-cards alternating the two users at the end, 5),
// BENCH_SAMPLES (sequential requests read for Server-Timing, 200), BENCH_MIN_SAMPLES
// (taken even past the sampling time limit, 5: a median needs several on a slow
// database), BENCH_SAMPLE_SECONDS (that limit, 20 or twice BENCH_DURATION) and
// BENCH_TIMEOUT (s, 1200: the whole run, then it stops and cleans up) tune a run.
import { randomBytes } from 'node:crypto'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { cpus, loadavg, platform, release, tmpdir, totalmem } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { MongoClient, type Db } from 'mongodb'
import { buildApp } from '../src/app.js'
import { startEmbeddedDatabase } from '../src/db/embedded.js'
import { SECANTUS_VERSION } from '../src/db/secantus-install.js'
import { ensureIndexes } from '../src/repositories/indexes.js'
import { EXPECTED_DUE, JWT_SECRET, todayCardsIn, withDatabase } from './bench/common.js'
import { BIG_USERS, generateUsers, OTHER_USERS, type GeneratedUser } from './bench/data.js'
import { explainOperation } from './bench/explain.js'
import { measure, median, sampleTimings, stopLoad, type BodySource, type LoadResult, type LoadSettings, type TimingSample } from './bench/load.js'
import { childPidNamed, memoryOf, startCeiling, startService, waitUntilIdle, type Memory } from './bench/processes.js'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const OPERATIONS = ['get-today-cards', 'update-goal-status', 'review-card'] as const
type Operation = typeof OPERATIONS[number]

function setting (name: string, fallback: number, integer: boolean): number {
  const text = process.env[name]
  if (text === undefined || text === '') return fallback
  const value = Number(text)
  if (!Number.isFinite(value) || value < 0 || (integer && !Number.isInteger(value))) {
    console.error(`${name} must be a ${integer ? 'whole ' : ''}number of at least 0, got ${JSON.stringify(text)}`)
    process.exit(2)
  }
  return value
}

const load: LoadSettings = {
  durationSeconds: Math.max(1, setting('BENCH_DURATION', 10, false)),
  connections: Math.max(1, setting('BENCH_CONNECTIONS', 10, true)),
  warmupSeconds: setting('BENCH_WARMUP', 2, false)
}
const SAMPLES = setting('BENCH_SAMPLES', 200, true)
const MIN_SAMPLES = Math.min(SAMPLES, setting('BENCH_MIN_SAMPLES', 5, true))
const ALTERNATING_ROUNDS = Math.max(1, setting('BENCH_ALTERNATING', 5, true))
// sequential sampling stops after this long on a slow database (once MIN_SAMPLES are in) rather than stretching the run
const SAMPLE_TIME_LIMIT_MS = setting('BENCH_SAMPLE_SECONDS', Math.max(20, load.durationSeconds * 2), false) * 1000
// a run that hangs somewhere is stopped and cleaned up rather than left running
const RUN_TIME_LIMIT_MS = setting('BENCH_TIMEOUT', 20 * 60, false) * 1000

// ---- clean-up: child processes, temp dir, bench database; on success, error and Ctrl-C alike

const cleanups: Array<{ what: string, run: () => Promise<unknown> }> = []
let cleaning: Promise<void> | null = null
let stopping = false

function onCleanup (what: string, run: () => Promise<unknown>): void {
  cleanups.push({ what, run })
}

function cleanUp (): Promise<void> {
  cleaning ??= (async () => {
    for (const step of cleanups.reverse()) {
      try {
        await step.run()
      } catch (error) {
        console.error(`clean-up: could not ${step.what}: ${error instanceof Error ? error.message : String(error)}`)
      }
    }
  })()
  return cleaning
}

async function stop (reason: string, exitCode: number): Promise<never> {
  stopping = true
  console.error(`\n${reason}: stopping and cleaning up`)
  stopLoad()
  await cleanUp()
  process.exit(exitCode)
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => { void stop(signal, 130) })
}
setTimeout(() => { void stop(`still running after ${RUN_TIME_LIMIT_MS / 1000} s`, 1) }, RUN_TIME_LIMIT_MS).unref()

// ---- the database: embedded FerretDB in a temp dir, or a fresh database on MONGODB_URL

function hostsOf (url: string): string {
  return /^mongodb(?:\+srv)?:\/\/(?:[^@/]*@)?([^/?]*)/.exec(url)?.[1] ?? 'unknown'
}

interface BenchDatabase { url: string, db: Db, description: string, isFerretdb: boolean, embedded: boolean }

async function openDatabase (workDir: string): Promise<BenchDatabase> {
  const serverUrl = process.env.MONGODB_URL
  let url: string
  if (serverUrl !== undefined && serverUrl !== '') {
    url = withDatabase(serverUrl, `flashcard_bench_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`)
  } else {
    const embedded = await startEmbeddedDatabase({ dataDir: join(workDir, 'secantus'), log: (line) => console.log(`  ${line}`) })
    onCleanup('stop the embedded FerretDB', embedded.stop)
    url = `${embedded.url}/flashcard_bench`
  }
  const client = new MongoClient(url, { serverSelectionTimeoutMS: 5000, appName: 'flashcard-bench' })
  await client.connect()
  onCleanup('close the benchmark\'s database connection', () => client.close())
  const db = client.db()
  const external = serverUrl !== undefined && serverUrl !== ''
  if (external) onCleanup(`drop the benchmark database ${db.databaseName}`, () => db.dropDatabase())

  const info = await db.admin().command({ buildInfo: 1 })
  const isFerretdb = typeof info.ferretdbVersion === 'string'
  const hello = await db.admin().command({ hello: 1 }).catch(() => ({} as Record<string, unknown>))
  const topology = typeof hello.setName === 'string' ? `replica set ${hello.setName}` : hello.msg === 'isdbgrid' ? 'sharded (mongos)' : 'standalone'
  const description = !external
    ? `FerretDB ${String(info.ferretdbVersion ?? SECANTUS_VERSION)} embedded (SQLite backend; reports itself as MongoDB ${String(info.version)}), in a temp dir`
    : isFerretdb
      ? `FerretDB ${String(info.ferretdbVersion)} at ${hostsOf(url)} (MONGODB_URL), database ${db.databaseName}`
      : `MongoDB ${String(info.version)} ${topology} at ${hostsOf(url)} (MONGODB_URL), database ${db.databaseName}`
  return { url, db, description, isFerretdb, embedded: !external }
}

// ---- the operations as requests

function bodiesOf (user: GeneratedUser, runTag: string): Record<Operation, BodySource> {
  const token = JSON.stringify({ jwtToken: user.jwtToken })
  let next = 0
  return {
    'get-today-cards': token,
    'update-goal-status': token,
    // a different card each time, each review with its own reviewID; only cards due
    // after today, rated good or easy, so that today's 500 cards stay as they are
    'review-card': () => {
      const card = user.laterCards[next % user.laterCards.length]
      next += 1
      return JSON.stringify({
        jwtToken: user.jwtToken,
        flashcardID: card?.flashcardID,
        cardID: card?.cardID,
        rating: next % 4 === 0 ? 'easy' : 'good',
        reviewID: `bench-${runTag}-${user.profile.label}-${next}`
      })
    }
  }
}

function bodyOnce (body: BodySource): string {
  return typeof body === 'string' ? body : body()
}

// ---- output

interface Row {
  operation: Operation
  user: string
  /** undefined when one request alone was too slow for a load run to say anything */
  load: LoadResult | undefined
  samples: TimingSample[]
  failed: boolean
}

function fixed (value: number | undefined, digits: number): string {
  return value !== undefined && Number.isFinite(value) ? value.toFixed(digits) : '-'
}

/** Requests per second with the digits that matter: 12345, 123, 12.3, 1.23. */
function rate (value: number): string {
  return fixed(value, value >= 100 ? 0 : value >= 10 ? 1 : 2)
}

function share (part: number, whole: number): string {
  const percent = 100 * part / whole
  return `${percent >= 1 || percent === 0 ? fixed(percent, 1) : percent.toPrecision(2)}%`
}

function rangeOf (values: readonly number[]): string {
  if (values.length === 0) return '-'
  const low = Math.min(...values)
  const high = Math.max(...values)
  return low === high ? String(low) : `${median(values)} (${low}-${high})`
}

function table (header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)))
  const line = (cells: readonly string[]): string => cells
    .map((cell, column) => column < 2 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0)).join('  ')
  return [line(header), widths.map((width) => '-'.repeat(width)).join('  '), ...rows.map(line)].join('\n')
}

function megabytes (bytes: number | undefined): string {
  return bytes === undefined || !Number.isFinite(bytes) ? 'unavailable' : `${(bytes / 1024 / 1024).toFixed(0)} MB`
}

function problemsOf (result: LoadResult): string | null {
  if (result.non2xx === 0 && result.errors === 0 && result.timeouts === 0) return null
  return `${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts (status codes: ${result.statusCodes || 'none'})`
}

function seconds (ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`
}

// ---- the run

async function main (): Promise<void> {
  const runStarted = performance.now()
  console.log(`Benchmark: ${load.durationSeconds} s per operation after a ${load.warmupSeconds} s warm-up, ${load.connections} connections; ` +
    `up to ${SAMPLES} sequential requests each (at most ${seconds(SAMPLE_TIME_LIMIT_MS)}, but at least ${MIN_SAMPLES}) read for Server-Timing\n`)

  const workDir = await mkdtemp(join(tmpdir(), 'flashcard-bench-'))
  onCleanup(`remove ${workDir}`, () => rm(workDir, { recursive: true, force: true }))
  const database = await openDatabase(workDir)
  console.log(`Database: ${database.description}`)
  const databasePid = database.embedded ? await childPidNamed('ferretdb') : null

  // ---- data
  console.log('\nGenerating data (accounts through the service, documents in batches of 1,000):')
  const generationStarted = performance.now()
  await ensureIndexes(database.db)
  // command events let the explain step see the queries an operation sends
  const app = await buildApp({ mongodbUrl: database.url, jwtSecret: JWT_SECRET, monitorCommands: true })
  let appOpen = true
  const closeApp = async (): Promise<void> => {
    if (!appOpen) return
    appOpen = false
    await app.close()
  }
  onCleanup('close the in-process app', closeApp)
  await app.ready()
  const users = await generateUsers(app, database.db, [...BIG_USERS, ...OTHER_USERS], (line) => console.log(line))
  const counts = await Promise.all(['users', 'library', 'cards', 'reviews', 'goals']
    .map(async (name) => `${(await database.db.collection(name).estimatedDocumentCount()).toLocaleString('en')} ${name}`))
  console.log(`Generated in ${seconds(performance.now() - generationStarted)}: ${counts.join(', ')}`)
  const bigUsers = users.filter((user) => BIG_USERS.includes(user.profile))
  const runTag = Date.now().toString(36)
  const bodies = new Map(bigUsers.map((user) => [user, bodiesOf(user, runTag)]))
  const bodyOf = (user: GeneratedUser, operation: Operation): BodySource => (bodies.get(user) as Record<Operation, BodySource>)[operation]

  // ---- explain, in process, before any load
  console.log('\nQuery plans (explain executionStats of every command each operation sends):')
  if (database.isFerretdb) {
    console.log('  skipped: explain summaries need MongoDB (FerretDB 1.24 reports no executionStats); set MONGODB_URL to a MongoDB server')
    // what FerretDB's explain does say: whether a filter reaches SQLite, or every row is read and filtered in FerretDB
    const probe = await database.db.command({ explain: { find: 'cards', filter: { userID: bigUsers[0]?.userID } }, verbosity: 'queryPlanner' })
    console.log(`  FerretDB's own explain of a cards query on userID: filterPushdown ${String(probe.filterPushdown)}` +
      (probe.filterPushdown === false ? ' (every per-user query reads and decodes the whole collection)' : ''))
  } else {
    for (const user of bigUsers) {
      for (const operation of OPERATIONS) {
        const body = JSON.parse(bodyOnce(bodyOf(user, operation))) as object
        console.log(`  ${operation}, ${user.profile.label} user:`)
        for (const summary of await explainOperation(app, database.db, operation, body)) {
          const plan = summary.collectionScan ? 'COLLECTION SCAN' : summary.indexes.length > 0 ? `index ${summary.indexes.join(', ')}` : 'no index'
          console.log(`    ${summary.command.padEnd(24)} keys examined ${String(summary.keysExamined).padStart(6)}  ` +
            `docs examined ${String(summary.docsExamined).padStart(6)}  returned ${String(summary.returned).padStart(5)}  ${plan}`)
        }
      }
    }
  }
  await closeApp()

  // ---- the service, operation by operation
  const service = await startService(root, { mongodbUrl: database.url, jwtSecret: JWT_SECRET, dataDir: join(workDir, 'service-data') })
  onCleanup('stop the service', service.stop)
  console.log(`\nService (pid ${service.pid}) at ${service.origin}:`)
  const busyPids = databasePid === null ? [service.pid] : [service.pid, databasePid]
  const settle = async (): Promise<void> => {
    const waited = await waitUntilIdle(busyPids, 120_000)
    if (waited > 2000) console.log(`    (waited ${seconds(waited)} for the service and the database to go idle: requests left in flight)`)
  }
  const rows: Row[] = []
  const ceilingResponses = new Map<Operation, { request: string, response: Buffer, user: string }>()
  // set inside callbacks, which the compiler's narrowing does not follow
  const serviceMemory: { early: Memory | null, when: string } = { early: null, when: '' }
  const noteMemory = async (when: string): Promise<void> => {
    if (serviceMemory.early !== null) return
    serviceMemory.early = await memoryOf(service.pid)
    serviceMemory.when = when
  }
  const failures: string[] = []
  const allDueCards = (response: Buffer): string | null => {
    const cards = todayCardsIn(response)
    return cards === EXPECTED_DUE ? null : `returned ${cards} cards, not ${EXPECTED_DUE}`
  }
  for (const user of bigUsers) {
    for (const operation of OPERATIONS) {
      if (stopping) return
      const exit = service.unexpectedExit()
      if (exit !== null) throw new Error(`the service ended (${exit}) before ${operation} for the ${user.profile.label} user; the benchmark did not stop it`)
      const url = `${service.origin}/api/${operation}`
      const body = bodyOf(user, operation)
      // every answer of get-today-cards is checked: 500 cards, whatever ran before
      const check = operation === 'get-today-cards' ? allDueCards : undefined
      // sequential requests first: Server-Timing of uncontended requests, and a warm-up
      await settle()
      const { samples, firstResponse, failure } = await sampleTimings(url, body, { count: SAMPLES, atLeast: MIN_SAMPLES, timeLimitMs: SAMPLE_TIME_LIMIT_MS }, check)
      const sequentialMs = median(samples.map((sample) => sample.clientMs))
      let note = samples.length === 0 ? '' : `${samples.length} sequential: median ${fixed(sequentialMs, 1)} ms`
      if (firstResponse !== undefined) {
        if (operation === 'get-today-cards') note += `, ${todayCardsIn(firstResponse)} cards`
        if (operation === 'update-goal-status') note += `, ${Object.keys(JSON.parse(firstResponse.toString()) as object).length} goals`
        note += `, ${firstResponse.length.toLocaleString('en')} bytes`
        // the ceiling serves the biggest user's bytes, or another's should that user get no answer
        if (user === bigUsers[bigUsers.length - 1] || !ceilingResponses.has(operation)) {
          ceilingResponses.set(operation, { request: bodyOnce(body), response: firstResponse, user: user.profile.label })
        }
      }

      let result: LoadResult | undefined
      if (failure !== undefined) {
        // give the exit event a moment to arrive: a refused connection is often a dead service
        await sleep(200)
        const exit = service.unexpectedExit()
        if (exit !== null) throw new Error(`the service ended (${exit}) during ${operation} for the ${user.profile.label} user; the benchmark did not stop it`)
        failures.push(`${operation}, ${user.profile.label} user: ${failure}`)
        note += `${note === '' ? '' : '; '}FAILED: ${failure}`
      } else if (sequentialMs > load.durationSeconds * 1000 / 10) {
        // fewer than ten requests in a run's time even alone: a load run would measure its own cut-off
        note += `; too slow to load-test (over ${seconds(load.durationSeconds * 100)} a request)`
      } else {
        result = await measure(url, body, load, { settle, afterWarmup: async () => { await noteMemory('after the first warm-up') } })
        const problems = problemsOf(result)
        note += `; load: ${rate(result.requestsPerSecond)} req/s over ${result.requests.toLocaleString('en')} requests${problems === null ? '' : `; WARNING ${problems}`}`
      }
      await noteMemory('after the first operation\'s sequential requests')
      rows.push({ operation, user: user.profile.label, load: result, samples, failed: failure !== undefined })
      console.log(`  ${operation.padEnd(19)} ${user.profile.label.padEnd(5)} ${note}`)
    }
  }
  const serviceMemoryAtEnd = await memoryOf(service.pid)
  const databaseMemory = databasePid === null ? null : await memoryOf(databasePid)

  // The reviews made above were of cards due later, rated good or easy: today's cards must be
  // as they were. The same requests, the two users taking turns on a service that everything
  // above has warmed, also give get-today-cards' app share for the same 500 cards over a
  // library ten times the size, each user's requests as warm as the other's.
  const alternating = new Map<GeneratedUser, TimingSample[]>(bigUsers.map((user) => [user, []]))
  const alternatingFailures = new Map<GeneratedUser, string>()
  for (let round = 0; round < ALTERNATING_ROUNDS; round++) {
    for (const user of bigUsers) {
      if (stopping) return
      if (alternatingFailures.has(user)) continue
      const exit = service.unexpectedExit()
      if (exit !== null) throw new Error(`the service ended (${exit}) before the final check; the benchmark did not stop it`)
      await settle()
      const { samples, failure } = await sampleTimings(`${service.origin}/api/get-today-cards`, bodyOf(user, 'get-today-cards'),
        { count: 1, atLeast: 1, timeLimitMs: 0 }, allDueCards)
      if (failure !== undefined) {
        alternatingFailures.set(user, failure)
        failures.push(`get-today-cards, ${user.profile.label} user, after the reviews: ${failure}`)
      }
      alternating.get(user)?.push(...samples)
    }
  }
  for (const user of bigUsers) {
    const samples = alternating.get(user) ?? []
    const failure = alternatingFailures.get(user)
    const appMs = samples.map((sample) => sample.appMs)
    console.log(`  get-today-cards     ${user.profile.label.padEnd(5)} after all the reviews, taking turns with the other user: ` +
      (failure !== undefined
        ? `FAILED: ${failure}`
        : `${EXPECTED_DUE} cards in each of ${samples.length} answers; app share median ${fixed(median(appMs), 2)} ms ` +
          `(${fixed(Math.min(...appMs), 2)}-${fixed(Math.max(...appMs), 2)}), ${rangeOf(samples.map((sample) => sample.roundTrips))} round trips`))
  }
  await service.stop()

  // ---- the ceiling: the same bytes from memory, same duration, connections and request bodies
  const ceilingDir = join(workDir, 'ceiling')
  await mkdir(ceilingDir)
  for (const [operation, { response }] of ceilingResponses) await writeFile(join(ceilingDir, `${operation}.json`), response)
  const ceiling = await startCeiling(root, ceilingDir)
  onCleanup('stop the ceiling app', ceiling.stop)
  console.log(`\nCeiling: a bare Fastify app (pid ${ceiling.pid}) answering with the service's response bytes from memory:`)
  const ceilings = new Map<Operation, LoadResult>()
  for (const [operation, { request, response, user }] of ceilingResponses) {
    const result = await measure(`${ceiling.origin}/api/${operation}`, request, load)
    ceilings.set(operation, result)
    const problems = problemsOf(result)
    console.log(`  ${operation.padEnd(19)} ${rate(result.requestsPerSecond).padStart(6)} req/s, ` +
      `${response.length.toLocaleString('en')} bytes (the ${user} user's answer)${problems === null ? '' : `; WARNING ${problems}`}`)
  }
  await ceiling.stop()

  // ---- report
  const header = ['operation', 'user', 'req/s', 'p50 ms', 'p99 ms', 'vs ceiling', 'errors', 'round trips', 'app ms', 'db ms']
  const errorsOf = (result: LoadResult): string => String(result.non2xx + result.errors + result.timeouts)
  const lines = rows.map((row) => {
    const ceilingRate = ceilings.get(row.operation)?.requestsPerSecond
    return [
      row.operation,
      row.user,
      row.failed ? 'FAILED' : row.load === undefined ? 'not run' : rate(row.load.requestsPerSecond),
      fixed(row.load?.p50, 0),
      fixed(row.load?.p99, 0),
      row.load === undefined || ceilingRate === undefined ? '-' : share(row.load.requestsPerSecond, ceilingRate),
      row.load === undefined ? '-' : errorsOf(row.load),
      rangeOf(row.samples.map((sample) => sample.roundTrips)),
      fixed(median(row.samples.map((sample) => sample.appMs)), 2),
      fixed(median(row.samples.map((sample) => sample.databaseMs)), 2)
    ]
  })
  for (const [operation, result] of ceilings) {
    lines.push([operation, 'ceil.', rate(result.requestsPerSecond), fixed(result.p50, 0), fixed(result.p99, 0), '100%', errorsOf(result), '0', '-', '-'])
  }
  const sampleCounts = rows.map((row) => row.samples.length).filter((count) => count > 0)
  console.log(`\n${table(header, lines)}`)
  console.log(`\nreq/s, p50, p99: autocannon, ${load.connections} connections for ${load.durationSeconds} s, latency in whole ms ` +
    '("not run": one request alone took over a tenth of the run). vs ceiling: req/s as a share of the bare Fastify route ' +
    'serving the same response bytes (rows "ceil."). errors: non-2xx answers, connection errors and timeouts under load ' +
    '(req/s, p50 and p99 count 2xx answers only). round trips, app ms, db ms: medians of the Server-Timing header over ' +
    `${Math.min(...sampleCounts)}-${Math.max(...sampleCounts)} sequential requests (db: wall time waiting for the database; app: the rest).`)
  // the scaling question: the same 500 due cards, ten times the library, equally warm
  const [small, big] = bigUsers.map((user) => median((alternating.get(user) ?? []).map((sample) => sample.appMs)))
  if (small !== undefined && big !== undefined && Number.isFinite(small) && Number.isFinite(big)) {
    console.log(`\nget-today-cards app share (median, the two users taking turns), ${bigUsers[0]?.profile.label} -> ${bigUsers[1]?.profile.label} user: ` +
      `${fixed(small, 2)} -> ${fixed(big, 2)} ms (${big >= small ? '+' : ''}${fixed((big / small - 1) * 100, 0)}%)`)
  }
  console.log(`\nService memory: peak resident ${megabytes(serviceMemoryAtEnd?.peak)} (VmHWM), ` +
    `${megabytes(serviceMemory.early?.rss)} ${serviceMemory.when}, ${megabytes(serviceMemoryAtEnd?.rss)} at the end`)
  if (databaseMemory !== null) console.log(`FerretDB memory: peak resident ${megabytes(databaseMemory.peak)} (VmHWM)`)
  const cpu = cpus()
  console.log(`Machine: ${cpu[0]?.model.trim() ?? 'unknown CPU'}, ${cpu.length} cores, ${(totalmem() / 1024 ** 3).toFixed(1)} GB memory, ` +
    `${platform()} ${release()}, Node ${process.version}, load average ${loadavg().map((value) => value.toFixed(1)).join(' ')}; ` +
    'the load generator, the service and the database share it')
  console.log(`Database: ${database.description}`)
  console.log(`Total time: ${seconds(performance.now() - runStarted)}`)
  if (failures.length > 0) {
    console.log(`\nFAILED (${failures.length}):\n  ${failures.join('\n  ')}`)
    process.exitCode = 1
  }
}

try {
  await main()
  await cleanUp()
} catch (error) {
  if (!stopping) {
    console.error(error)
    await cleanUp()
    process.exit(1)
  }
}
