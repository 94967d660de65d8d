// `npm run bench`: the service end to end through HTTP on a million cards,
// measured against the bars of issue 16, and docs/performance.md written.
//
// 1. Data: about a million cards (scripts/bench/data.ts): a measured user of
//    10,000 cards among 99 of 8,500, a user of 100 cards, a user of 100,000
//    new cards and one of 50,000 overdue cards, each with a 100-card user
//    showing as many cards today; built once into .scratch/ and kept.
// 2. The hot queries' plans: each explained as the repository makes it.
// 3. The service as `npm start` runs it, on that data: start-up time, each
//    operation's latency (requests one after another), the 100-card user
//    taking turns with a second service holding only that user on an empty
//    database, the long queues taking turns with their 100-card peers, 20
//    connections on get-today-cards, and the memory of the service and its
//    database.
// 4. The ceiling: a bare Fastify app serving the same answer, one request at
//    a time (the floor) and under the same 20 connections.
// 5. Libraries of 1,000 and 20,000 folders and flashcards, and media (a 100 KB
//    image from GridFS against the ceiling serving the same bytes, its 304,
//    a 5 MB upload, a 100-card deck of images), each on a database of its own.
// 6. Fitting FSRS parameters (optimize-schedule) to a log of 100,000 reviews,
//    on a database of its own, and other users' get-today-cards meanwhile.
// 7. search-cards on an account of 200,000 cards (the quota), on a database
//    of its own, and its first search after the upgrade that brought search.
//
// 8. import-anki of a generated collection of 100,000 cards and 1,000,000
//    review rows (written with Node's SQLite here), on a database of its own, with
//    other users' get-today-cards meanwhile and the service's memory sampled;
//    then of the largest package the limits allow (bench/anki-import.ts, LARGEST),
//    for the service's memory.
//
// 9. npm run backup of the data of step 1 on the service running on it, a
//    learner reviewing and another reading today's cards meanwhile, then npm run
//    restore into a new data folder and the service started on that.
//
// 10. The start-up migrations on a copy of the data of step 1, every step
//    pending, as an upgrade from a version before them runs them.
//
// BENCH_SAMPLES (30) and BENCH_LOAD_SECONDS (10) tune a run; BENCH_ONLY=fitting
// runs step 6 alone and prints its rows, writing no report; BENCH_ONLY=search
// step 7, BENCH_ONLY=import step 8, BENCH_ONLY=backup step 9 and
// BENCH_ONLY=migrations step 10 (each of the last two with step 1), each
// writing its section. With MONGODB_URL
// (a replica set) the data lives in a database there rather than in the
// embedded SecantusDB; DATABASE_CACHE_SIZE sizes the embedded database's cache
// as it does for `npm start`.
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises'
import { cpus, loadavg, platform, release, tmpdir, totalmem } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { BSON, MongoClient, type Db } from 'mongodb'
import { buildApp } from '../src/app.js'
import { DEFAULT_CACHE_SIZE, startEmbeddedDatabase } from '../src/db/embedded.js'
import { SECANTUS_VERSION } from '../src/db/secantus-install.js'
import type { CardDocument } from '../src/repositories/cards.js'
import type { TreeDocument } from '../src/repositories/trees.js'
import type { FolderNode } from '../src/domain/library-tree.js'
import { cardsIn, JWT_SECRET, withDatabase } from './bench/common.js'
import {
  benchUsers, BIG_USER, DATA_DAYS_VALID, DATA_VERSION, expectedTodayCards, MARKER_COLLECTION, NEW_CARDS_PEER, NEW_CARDS_USER, OVERDUE_PEER,
  OVERDUE_USER, PASSWORD, seedUsers, SMALL_USER, type SeedResult, type UserProfile
} from './bench/data.js'
import { explainHotQueries, concernOf, type ExplainRow } from './bench/explain.js'
import { LIBRARY_SIZES, measureLibrary, median, seedLibraries, type LibraryFigures } from './bench/libraries.js'
import { DECK_CARDS, IMAGE_BYTES, measureMedia, seedMedia, UPLOAD_BYTES, type MediaFigures } from './bench/media.js'
import { FITTING_REVIEWS, measureFitting, p99, seedFitting, timeFitAlone, type FittingFigures } from './bench/fitting.js'
import { IMPORT_CARDS, IMPORT_REVLOG, LARGEST, measureImport, measureImportDeletion, measureNoteTypeEdit, seedImport, timeAnkiOwnImport, type AnkiOwnImport, type DeletionFigures, type ImportFigures, type NoteTypeEditFigures } from './bench/anki-import.js'
import { measureSearch, SEARCH_CARDS, seedSearch, timeFirstSearchAfterUpgrade, type SearchFigures } from './bench/search.js'
import { loadRun, percentile, post, stopLoad, timeInTurns, type LoadRequest, type LoadResult, type Target } from './bench/load.js'
import { childPidNamed, cpuSeconds, residentMemory, startCeiling, startService, type Service } from './bench/processes.js'
import { keepTraffic, runScript, sizeOf, type ScriptFigures, type Traffic } from './bench/backup.js'
import { explainTable, resultsTable, writeReport, writeSection, type ResultRow } from './bench/report.js'
import { measureMigrations, type MigrationFigures } from './bench/migrations.js'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')

function setting (name: string, fallback: number): number {
  const text = process.env[name]
  if (text === undefined || text === '') return fallback
  const value = Number(text)
  if (!Number.isInteger(value) || value < 1) {
    console.error(`${name} must be a whole number of at least 1, got ${JSON.stringify(text)}`)
    process.exit(2)
  }
  return value
}

const SAMPLES = setting('BENCH_SAMPLES', 30)
const LOAD_SECONDS = setting('BENCH_LOAD_SECONDS', 10)
const WARMUP = 5
const CONNECTIONS = 20
/** more connections on one user than the service serves at once (maxInFlightPerUser): the excess must get a fast 429 (a limit of that client) */
const OVERLOAD_CONNECTIONS = 50
const LOAD_WARMUP_SECONDS = 2
// a run that hangs somewhere is stopped and cleaned up rather than left running: well past a whole run
const RUN_TIME_LIMIT_MS = 50 * 60_000
const MONGODB_URL = process.env.MONGODB_URL === '' ? undefined : process.env.MONGODB_URL
const CACHE_SIZE = process.env.DATABASE_CACHE_SIZE === undefined || process.env.DATABASE_CACHE_SIZE === '' ? DEFAULT_CACHE_SIZE : process.env.DATABASE_CACHE_SIZE
const SCRATCH = join(root, '.scratch')
const DATA_DIR = join(SCRATCH, `bench-data-v${DATA_VERSION}`)
// the database src/runtime.ts gives the service on the embedded server
const SERVICE_DATABASE = 'flashcards'
const REPORT = join(root, 'docs', 'performance.md')
const GIB = 1024 ** 3

// ---- progress and clean-up: child processes, databases, temp dirs; on success, error and Ctrl-C alike

const runStarted = performance.now()
function progress (line: string): void {
  console.log(`[${((performance.now() - runStarted) / 1000).toFixed(0).padStart(4)} s] ${line}`)
}

const cleanups: Array<{ what: string, run: () => Promise<unknown> }> = []
function onCleanup (what: string, run: () => Promise<unknown>): () => Promise<void> {
  const step = { what, run }
  cleanups.push(step)
  // done early: taken off the list, so that it runs once however often it is called
  return async () => {
    const index = cleanups.indexOf(step)
    if (index === -1) return
    cleanups.splice(index, 1)
    await run()
  }
}

async function cleanUp (): Promise<void> {
  for (const step of cleanups.splice(0).reverse()) {
    try {
      await step.run()
    } catch (error) {
      console.error(`clean-up: could not ${step.what}: ${error instanceof Error ? error.message : String(error)}`)
    }
  }
}

async function stop (reason: string, exitCode: number): Promise<never> {
  console.error(`\n${reason}: stopping and cleaning up`)
  stopLoad()
  await cleanUp()
  process.exit(exitCode)
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => { void stop(signal, 130) })
}
setTimeout(() => { void stop(`still running after ${RUN_TIME_LIMIT_MS / 60_000} min`, 1) }, RUN_TIME_LIMIT_MS).unref()

// ---- the bench database, opened by this process to build it and explain its queries

interface OpenDatabase { url: string, client: MongoClient, db: Db, close: () => Promise<void> }

/** The embedded database on `dataDir` (as the service would start it), or the database `name` on MONGODB_URL. */
async function openDatabase (dataDir: string, name: string): Promise<OpenDatabase> {
  let url: string
  let stopServer = async (): Promise<void> => {}
  if (MONGODB_URL !== undefined) {
    url = withDatabase(MONGODB_URL, name)
  } else {
    const embedded = await startEmbeddedDatabase({ dataDir: join(dataDir, 'secantus'), cacheSize: CACHE_SIZE, log: (line) => progress(`  ${line}`) })
    stopServer = onCleanup(`stop the database on ${dataDir}`, embedded.stop)
    url = `${embedded.url}/${SERVICE_DATABASE}`
  }
  // command events let the explain step catch the queries the repositories send
  const client = new MongoClient(url, { monitorCommands: true, appName: 'flashcard-bench' })
  const closeClient = onCleanup('close the benchmark\'s connection', () => client.close())
  await client.connect()
  return { url, client, db: client.db(), close: async () => { await closeClient(); await stopServer() } }
}

/** Builds `profiles` into an empty database: the service, built in process on it, creates the indexes and registers the accounts. */
async function seed (database: OpenDatabase, profiles: readonly UserProfile[], log: (line: string) => void): Promise<SeedResult> {
  const collections = await database.db.listCollections({}, { nameOnly: true }).toArray()
  if (collections.length > 0) throw new Error(`${database.db.databaseName} is not empty (${collections.map((c) => c.name).join(', ')})`)
  // the indexes are made by the app's start-up while the collections are empty: on this engine
  // an index built over a full collection takes far longer than the data
  const app = await buildApp({
    mongodbUrl: database.url,
    jwtSecret: JWT_SECRET,
    attemptLimits: { perAddress: 1_000_000, perAccount: 1_000_000, windowMs: 60_000 }
  })
  try {
    await app.ready()
    return await seedUsers(app, database.db, profiles, log)
  } finally {
    await app.close()
  }
}

interface Marker extends SeedResult {
  _id: 'seed'
  version: number
  seededAt: Date
  seconds: number
}

/** Why the kept data cannot be used, or null when it can. */
function staleness (marker: Marker | null): string | null {
  if (marker === null) return 'no complete data yet'
  if (marker.version !== DATA_VERSION) return `data version ${marker.version}, not ${DATA_VERSION}`
  const ageDays = (Date.now() - marker.seededAt.getTime()) / 86_400_000
  if (ageDays > DATA_DAYS_VALID) return `the data is ${ageDays.toFixed(0)} days old: cards due later than today fall due from day ${DATA_DAYS_VALID} on`
  return null
}

interface BenchData {
  marker: Marker
  seededNow: boolean
  explain: ExplainRow[]
  /** cards of the measured user due long after today: reviewing them leaves today's cards as they are */
  laterCards: Array<Pick<CardDocument, '_id' | 'flashcardID'>>
}

/** The bench data, built when missing or stale; its hot queries explained unless `explain` is false (a step that does not report them). */
async function prepareData (explain = true): Promise<BenchData> {
  const name = `flashcard_bench_v${DATA_VERSION}`
  let database = await openDatabase(DATA_DIR, name)
  let marker = await database.db.collection<Marker>(MARKER_COLLECTION).findOne({ _id: 'seed' })
  const stale = staleness(marker)
  if (stale !== null) {
    const profiles = benchUsers()
    progress(`Building the bench data (${stale}): ${profiles.reduce((sum, profile) => sum + profile.cards, 0).toLocaleString('en')} cards, a few minutes`)
    if (MONGODB_URL === undefined) {
      await database.close()
      // earlier versions' data too: nothing reads it any more
      for (const entry of await readdir(SCRATCH)) {
        if (entry.startsWith('bench-data-v')) await rm(join(SCRATCH, entry), { recursive: true, force: true })
      }
      database = await openDatabase(DATA_DIR, name)
    } else {
      await database.db.dropDatabase()
    }
    const started = performance.now()
    const result = await seed(database, profiles, (line) => progress(line))
    const seconds = (performance.now() - started) / 1000
    marker = { _id: 'seed', version: DATA_VERSION, seededAt: new Date(), seconds, ...result }
    // written last: an interrupted build leaves no marker and is built again
    await database.db.collection<Marker>(MARKER_COLLECTION).insertOne(marker)
    progress(`Seeding took ${(seconds / 60).toFixed(1)} min (${seconds.toFixed(0)} s)`)
  } else if (marker !== null) {
    progress(`Reusing the bench data in ${MONGODB_URL === undefined ? DATA_DIR : name}, built ${marker.seededAt.toISOString().slice(0, 10)} in ${marker.seconds.toFixed(0)} s`)
  }
  if (marker === null) throw new Error('no data')
  const big = userOf(marker, BIG_USER)

  const queueUsers = [NEW_CARDS_USER, NEW_CARDS_PEER, OVERDUE_USER, OVERDUE_PEER].map((profile) => ({ label: profile.label, userID: userOf(marker, profile) }))
  if (explain) progress('Explaining the hot queries (the measured user)')
  const explained = explain ? await explainHotQueries(database.client, database.db, big, new Date(), (line) => progress(`  ${line}`), queueUsers) : []
  const laterCards = await database.db.collection<CardDocument>('cardStates')
    .find({ userID: big, isNew: false, due: { $gt: new Date(Date.now() + 2 * 86_400_000) } }, { projection: { _id: 1, flashcardID: 1 } })
    .limit(2000).toArray()
  progress('Stopping the bench database')
  await database.close()
  return { marker, seededNow: stale !== null, explain: explained, laterCards }
}

function userOf (result: SeedResult, profile: UserProfile): string {
  const user = result.users.find((candidate) => candidate.email === profile.email)
  if (user === undefined) throw new Error(`the data has no user ${profile.email}`)
  return user.userID
}

// ---- measuring

interface Measured { samples: number[], firstAnswer: string, failure?: string, database?: Array<{ ms: number, calls: number }> }

/** Times requests with timeInTurns, one label per target; a failure is reported, not thrown, so that the other figures still come. */
async function measure (labels: readonly string[], targets: readonly Target[]): Promise<Measured[]> {
  try {
    const timed = await timeInTurns(targets, SAMPLES, WARMUP)
    for (const [k, { samples }] of timed.entries()) {
      progress(`  ${labels[k] ?? ''}: median ${percentile(samples, 0.5).toFixed(1)} ms, p90 ${percentile(samples, 0.9).toFixed(1)} ms`)
    }
    return timed
  } catch (error) {
    const failure = error instanceof Error ? error.message : String(error)
    progress(`  ${labels.join(' / ')}: FAILED: ${failure}`)
    return targets.map(() => ({ samples: [], firstAnswer: '', failure }))
  }
}

async function measureOne (label: string, target: Target): Promise<Measured> {
  return (await measure([label], [target]))[0] as Measured
}

async function measureLoad (url: string, request: LoadRequest, connections = CONNECTIONS): Promise<LoadResult | string> {
  try {
    const load = await loadRun(url, request, connections, LOAD_SECONDS, LOAD_WARMUP_SECONDS)
    progress(`  ${load.requestsPerSecond.toFixed(0)} answers 200 a second, latency of all answers p50 ${load.p50} ms, p90 ${load.p90} ms` +
      (load.problems === null ? '' : `; ${load.problems}`))
    return load
  } catch (error) {
    const failure = error instanceof Error ? error.message : String(error)
    progress(`  FAILED: ${failure}`)
    return failure
  }
}

async function login (service: Service, profile: UserProfile): Promise<string> {
  const { status, text } = await post(`${service.origin}/api/login`, JSON.stringify({ email: profile.email, password: PASSWORD }))
  if (status !== 200) throw new Error(`login of ${profile.email}: ${status} ${text}`)
  return (JSON.parse(text) as { jwtToken: string }).jwtToken
}

function expectCards (expected: number): (text: string) => string | null {
  return (text) => {
    const found = cardsIn(text)
    return found === expected ? null : `returned ${found} cards, not ${expected}`
  }
}

function serviceEnvironment (dataDir: string, databaseName: string): NodeJS.ProcessEnv {
  if (MONGODB_URL !== undefined) return { MONGODB_URL: withDatabase(MONGODB_URL, databaseName), JWT_SECRET, DATA_DIR: dataDir }
  // as `npm start`: the embedded database in DATA_DIR/secantus, the token secret kept in DATA_DIR
  return { MONGODB_URL: '', JWT_SECRET: '', DATA_DIR: dataDir, DATABASE_CACHE_SIZE: CACHE_SIZE }
}

async function startMeasuredService (dataDir: string, databaseName: string, label: string): Promise<Service> {
  const service = await startService(root, serviceEnvironment(dataDir, databaseName), label)
  const stopService = onCleanup(`stop the ${label}`, service.stop)
  return { ...service, stop: stopService }
}

/** A second service on a fresh database holding only the 100-card user; `close` stops it and removes its data. */
async function startEmptyDatabaseService (): Promise<{ service: Service, token: string, close: () => Promise<void> }> {
  const dataDir = await mkdtemp(join(tmpdir(), 'flashcard-bench-empty-'))
  const removeDir = onCleanup(`remove ${dataDir}`, () => rm(dataDir, { recursive: true, force: true }))
  const name = `flashcard_bench_empty_${randomBytes(4).toString('hex')}`
  const database = await openDatabase(dataDir, name)
  const dropDatabase = onCleanup(`drop the database ${name}`, async () => { if (MONGODB_URL !== undefined) await database.db.dropDatabase() })
  await seed(database, [SMALL_USER], () => {})
  // the embedded server goes, so that the service can open the same files
  if (MONGODB_URL === undefined) await database.close()
  const service = await startMeasuredService(dataDir, name, 'service on the empty database')
  const token = await login(service, SMALL_USER)
  return {
    service,
    token,
    close: async () => {
      await service.stop()
      await dropDatabase()
      await database.close()
      await removeDir()
    }
  }
}

/** A long queue of today's cards and its 100-card peer, measured taking turns. */
interface QueueShape { label: string, cards: number, long: Measured, peer: Measured }

interface ServiceFigures {
  startupMs: number
  todayBig: Measured
  todaySmall: Measured
  todaySmallEmpty: Measured
  queueShapes: QueueShape[]
  review: Measured
  goals: Measured
  allCards: Measured
  load: LoadResult | string
  overload: LoadResult | string
  memory: { service: number | null, database: number | null }
}

async function measureService (data: BenchData): Promise<ServiceFigures> {
  progress('Starting the service on the bench data')
  const service = await startMeasuredService(DATA_DIR, `flashcard_bench_v${DATA_VERSION}`, 'service')
  progress(`  start-up: ${(service.startupMs / 1000).toFixed(2)} s from spawning to /health answering 200`)
  const big = await login(service, BIG_USER)
  const small = await login(service, SMALL_USER)
  const api = (operation: string): string => `${service.origin}/api/${operation}`
  const bigToken = JSON.stringify({ jwtToken: big })

  progress(`Requests one after another: ${WARMUP} to warm up, then ${SAMPLES} measured`)
  const todayBig = await measureOne(`get-today-cards, 10k-card user (${expectedTodayCards(BIG_USER)} cards)`,
    { url: api('get-today-cards'), body: bigToken, check: expectCards(expectedTodayCards(BIG_USER)) })
  // a different card each time, each with its own reviewID, rated good or easy: all due long
  // after today, so today's cards stay as they are
  const runTag = randomBytes(4).toString('hex')
  const cards = [...data.laterCards].sort(() => Math.random() - 0.5)
  let next = 0
  const reviewBody = (): string => {
    const card = cards[next % cards.length]
    next += 1
    return JSON.stringify({ jwtToken: big, flashcardID: card?.flashcardID, cardID: card?._id, rating: next % 3 === 0 ? 'easy' : 'good', reviewID: `bench-${runTag}-${next}` })
  }
  const review = await measureOne('review-card, 10k-card user', {
    url: api('review-card'), body: reviewBody, check: (text) => text.includes('"review_status"') ? null : `unexpected answer ${text.slice(0, 200)}`
  })
  const goals = await measureOne('update-goal-status, 10k-card user', {
    url: api('update-goal-status'),
    body: bigToken,
    check: (text) => {
      const count = Object.keys(JSON.parse(text) as object).length
      return count === BIG_USER.goals.length ? null : `${count} goals, not ${BIG_USER.goals.length}`
    }
  })
  const allCards = await measureOne('get-all-cards, 10k-card user', { url: api('get-all-cards'), body: bigToken, check: expectCards(BIG_USER.cards) })

  progress('The 100-card user here and alone on an empty database (a second service), the two taking turns')
  const empty = await startEmptyDatabaseService()
  const smallCards = expectCards(expectedTodayCards(SMALL_USER))
  const [todaySmall, todaySmallEmpty] = await measure(
    [`get-today-cards, 100-card user (${expectedTodayCards(SMALL_USER)} cards)`, 'the same, empty database'],
    [
      { url: api('get-today-cards'), body: JSON.stringify({ jwtToken: small }), check: smallCards },
      { url: `${empty.service.origin}/api/get-today-cards`, body: JSON.stringify({ jwtToken: empty.token }), check: smallCards }
    ]
  ) as [Measured, Measured]
  await empty.close()

  const queueShapes: QueueShape[] = []
  for (const [label, long, peer] of [['100,000 new cards', NEW_CARDS_USER, NEW_CARDS_PEER], ['50,000 overdue cards', OVERDUE_USER, OVERDUE_PEER]] as const) {
    const cards = expectedTodayCards(long)
    if (expectedTodayCards(peer) !== cards) throw new Error(`${peer.label} shows ${expectedTodayCards(peer)} cards, ${long.label} ${cards}: not a pair`)
    progress(`A user of ${label} and a 100-card user, both with ${cards} cards today, taking turns`)
    const [longToken, peerToken] = [await login(service, long), await login(service, peer)]
    const [longTimes, peerTimes] = await measure([`get-today-cards, ${label} (${cards} cards)`, `the same, 100-card user (${cards} cards)`], [
      { url: api('get-today-cards'), body: JSON.stringify({ jwtToken: longToken }), check: expectCards(cards) },
      { url: api('get-today-cards'), body: JSON.stringify({ jwtToken: peerToken }), check: expectCards(cards) }
    ]) as [Measured, Measured]
    queueShapes.push({ label, cards, long: longTimes, peer: peerTimes })
  }

  progress(`${CONNECTIONS} connections on get-today-cards (10k-card user) for ${LOAD_SECONDS} s after ${LOAD_WARMUP_SECONDS} s of warm-up`)
  const load = await measureLoad(api('get-today-cards'), bigToken)
  progress(`${OVERLOAD_CONNECTIONS} connections on get-today-cards (10k-card user), past what the service takes at once`)
  const overload = await measureLoad(api('get-today-cards'), bigToken, OVERLOAD_CONNECTIONS)
  // the requests the load run left queued finish before memory is read and the service stops
  await sleep(2000)

  const databasePid = MONGODB_URL === undefined ? await childPidNamed(service.pid, 'secantusd-rs') : null
  const memory = { service: await residentMemory(service.pid), database: databasePid === null ? null : await residentMemory(databasePid) }
  progress(`  resident memory: service ${megabytes(memory.service)}, database ${megabytes(memory.database)}`)
  await service.stop()
  return { startupMs: service.startupMs, todayBig, todaySmall, todaySmallEmpty, queueShapes, review, goals, allCards, load, overload, memory }
}

/** Libraries of 1,000 and 20,000 folders and flashcards, on a database of their own, each edit and read measured through HTTP. */
async function measureLibraries (): Promise<LibraryFigures[] | string> {
  progress(`Libraries of ${LIBRARY_SIZES.map((size) => size.toLocaleString('en')).join(' and ')} folders and flashcards, on a database of their own`)
  const dataDir = await mkdtemp(join(tmpdir(), 'flashcard-bench-libraries-'))
  const removeDir = onCleanup(`remove ${dataDir}`, () => rm(dataDir, { recursive: true, force: true }))
  const name = `flashcard_bench_libraries_${randomBytes(4).toString('hex')}`
  const database = await openDatabase(dataDir, name)
  const dropDatabase = onCleanup(`drop the database ${name}`, async () => { if (MONGODB_URL !== undefined) await database.db.dropDatabase() })
  try {
    const app = await buildApp({ mongodbUrl: database.url, jwtSecret: JWT_SECRET, attemptLimits: { perAddress: 1_000_000, perAccount: 1_000_000, windowMs: 60_000 } })
    await app.ready()
    // the creates (warm-up and measured) fill each library to its size
    await seedLibraries(app, database.db, WARMUP + SAMPLES)
    await app.close()
    // each tree's size as stored, by its number of folders and flashcards once full
    const bytes = new Map<number, number>()
    for (const document of await database.db.collection<TreeDocument>('trees').find().toArray()) {
      bytes.set(countNodes(document.folders) + WARMUP + SAMPLES, BSON.calculateObjectSize(document))
    }
    if (MONGODB_URL === undefined) await database.close()
    const service = await startMeasuredService(dataDir, name, 'service with the large libraries')
    const figures: LibraryFigures[] = []
    for (const size of LIBRARY_SIZES) {
      progress(`  ${size.toLocaleString('en')} folders and flashcards (a tree of ${((bytes.get(size) ?? 0) / 1024 / 1024).toFixed(2)} MB)`)
      const measured = await measureLibrary(service.origin, size, bytes.get(size) ?? 0, SAMPLES, WARMUP)
      progress(`    create ${median(measured.create).toFixed(1)} ms, rename ${median(measured.rename).toFixed(1)} ms, move ${median(measured.move).toFixed(1)} ms, ` +
        `delete ${median(measured.remove).toFixed(1)} ms, get-library ${median(measured.library).toFixed(1)} ms, get-today-cards ${median(measured.today).toFixed(1)} ms, ` +
        `16 renames at once ${median(measured.bursts).toFixed(0)} ms`)
      figures.push(measured)
    }
    await service.stop()
    return figures
  } catch (error) {
    const failure = error instanceof Error ? error.message : String(error)
    progress(`  FAILED: ${failure}`)
    return failure
  } finally {
    await dropDatabase()
    await database.close()
    await removeDir()
  }
}

interface MediaRun { figures: MediaFigures, serve: LoadResult | string, ceiling: LoadResult | string }

/** Media, on a database of its own: the service as `npm start` runs it, and the bare ceiling serving the same image bytes. */
async function measureMediaRun (): Promise<MediaRun | string> {
  progress('Media: a 100 KB image from GridFS, its 304, a 5 MB upload and a 100-card deck of images, on a database of their own')
  const dataDir = await mkdtemp(join(tmpdir(), 'flashcard-bench-media-'))
  const removeDir = onCleanup(`remove ${dataDir}`, () => rm(dataDir, { recursive: true, force: true }))
  const name = `flashcard_bench_media_${randomBytes(4).toString('hex')}`
  const database = await openDatabase(dataDir, name)
  const dropDatabase = onCleanup(`drop the database ${name}`, async () => { if (MONGODB_URL !== undefined) await database.db.dropDatabase() })
  try {
    const app = await buildApp({ mongodbUrl: database.url, jwtSecret: JWT_SECRET, attemptLimits: { perAddress: 1_000_000, perAccount: 1_000_000, windowMs: 60_000 } })
    await app.ready()
    const seed = await seedMedia(app)
    await app.close()
    // the service signs media URLs with the secret the seeding app used
    await writeFile(join(dataDir, 'jwt-secret'), JWT_SECRET)
    if (MONGODB_URL === undefined) await database.close()
    const service = await startMeasuredService(dataDir, name, 'service with media')
    const figures = await measureMedia(service.origin, seed, SAMPLES, WARMUP)
    progress(`  304 ${median(figures.revalidate).toFixed(1)} ms, 5 MB upload ${median(figures.upload).toFixed(0)} ms, ` +
      `get-flashcard of ${DECK_CARDS} cards with images ${median(figures.withImages).toFixed(1)} ms (plain ${median(figures.plain).toFixed(1)} ms)`)
    progress(`  GET the 100 KB image, ${CONNECTIONS} connections for ${LOAD_SECONDS} s after ${LOAD_WARMUP_SECONDS} s of warm-up`)
    const serve = await measureLoad(`${service.origin}${figures.url}`, { method: 'GET' })
    await service.stop()

    progress('  the ceiling: a bare Fastify app serving the same bytes')
    const responses = await mkdtemp(join(tmpdir(), 'flashcard-bench-media-ceiling-'))
    const removeResponses = onCleanup(`remove ${responses}`, () => rm(responses, { recursive: true, force: true }))
    await writeFile(join(responses, 'image.png'), seed.image)
    const ceilingApp = await startCeiling(root, responses)
    const stopCeiling = onCleanup('stop the media ceiling app', ceilingApp.stop)
    const ceiling = await measureLoad(`${ceilingApp.origin}/media/image`, { method: 'GET' })
    await stopCeiling()
    await removeResponses()
    return { figures, serve, ceiling }
  } catch (error) {
    const failure = error instanceof Error ? error.message : String(error)
    progress(`  FAILED: ${failure}`)
    return failure
  } finally {
    await dropDatabase()
    await database.close()
    await removeDir()
  }
}

function mediaRows (run: MediaRun | string): ResultRow[] {
  if (typeof run === 'string') return [{ operation: 'media: serving, 304, upload, a deck of images', median: 'failed', p90: '', bar: '', met: 'no' }]
  const { figures, serve, ceiling } = run
  const kb = `${IMAGE_BYTES / 1024} KB`
  const rows: ResultRow[] = []
  const serveLabel = `GET a ${kb} image from GridFS by its signed URL, ${CONNECTIONS} connections, ${LOAD_SECONDS} s: answers 200 a second (p99 in the next column)`
  if (typeof serve === 'string' || typeof ceiling === 'string') {
    rows.push({ operation: serveLabel, median: 'failed', p90: '', bar: '', met: 'no' })
  } else {
    const share = serve.requestsPerSecond / ceiling.requestsPerSecond
    rows.push({
      operation: serveLabel + (serve.problems === null ? '' : ` (besides: ${serve.problems})`),
      median: `${serve.requestsPerSecond.toFixed(0)} req/s`,
      p90: `(p99 ${serve.p99} ms)`,
      bar: 'share of the ceiling',
      met: `${(share * 100).toFixed(1)}%`
    }, {
      operation: `ceiling: bare Fastify serving the same ${kb} from memory, ${CONNECTIONS} connections` + (ceiling.problems === null ? '' : ` (besides: ${ceiling.problems})`),
      median: `${ceiling.requestsPerSecond.toFixed(0)} req/s`,
      p90: `(p99 ${ceiling.p99} ms)`,
      bar: '',
      met: ''
    })
  }
  rows.push(
    latencyRow(`GET the ${kb} image with If-None-Match: 304 revalidation`, { samples: figures.revalidate, firstAnswer: '' }, null),
    latencyRow(`upload-media of a ${UPLOAD_BYTES / 1024 / 1024} MB image (multipart, sniffed, hashed, into GridFS; ${figures.upload.length} uploads)`, { samples: figures.upload, firstAnswer: '' }, null),
    latencyRow(`get-flashcard, ${DECK_CARDS}-card deck whose every card shows an image of its own (format html; a signed URL made for each)`,
      { samples: figures.withImages, firstAnswer: '' }, null),
    latencyRow(`get-flashcard, ${DECK_CARDS}-card deck of plain cards (taking turns with the line above)`, { samples: figures.plain, firstAnswer: '' }, null)
  )
  return rows
}

const UPGRADE_SEARCHES = 2

/** search-cards on an account at the card quota, on a database of its own (scripts/bench/search.ts). */
async function measureSearchRun (): Promise<SearchFigures | string> {
  progress(`search-cards on an account of ${SEARCH_CARDS.toLocaleString('en')} cards, on a database of its own`)
  const dataDir = await mkdtemp(join(tmpdir(), 'flashcard-bench-search-'))
  const removeDir = onCleanup(`remove ${dataDir}`, () => rm(dataDir, { recursive: true, force: true }))
  const name = `flashcard_bench_search_${randomBytes(4).toString('hex')}`
  const database = await openDatabase(dataDir, name)
  const dropDatabase = onCleanup(`drop the database ${name}`, async () => { if (MONGODB_URL !== undefined) await database.db.dropDatabase() })
  try {
    const app = await buildApp({ mongodbUrl: database.url, jwtSecret: JWT_SECRET, attemptLimits: { perAddress: 1_000_000, perAccount: 1_000_000, windowMs: 60_000 } })
    const closeApp = onCleanup('close the app that made the search data', () => app.close())
    await app.ready()
    const started = performance.now()
    const queries = await seedSearch(app, (line) => progress(`  ${line}`))
    progress(`  made through create-flashcard in ${((performance.now() - started) / 1000).toFixed(0)} s; the queries: ${JSON.stringify(queries)}`)
    const firstAfterUpgrade = await timeFirstSearchAfterUpgrade(app, database.db, queries, UPGRADE_SEARCHES)
    progress(`  the first search after the upgrade (its pages made): ${firstAfterUpgrade.map((ms) => `${(ms / 1000).toFixed(1)} s`).join(', ')}`)
    await closeApp()
    if (MONGODB_URL === undefined) await database.close()
    const service = await startMeasuredService(dataDir, name, 'service for search')
    const measured = await measureSearch(service.origin, queries, SAMPLES, WARMUP)
    await service.stop()
    for (const [label, timed] of [['rare', measured.rare], ['common', measured.common], ['pair', measured.pair], ['none', measured.none]] as const) {
      progress(`  ${label}: median ${percentile(timed.samples, 0.5).toFixed(1)} ms, p90 ${percentile(timed.samples, 0.9).toFixed(1)} ms`)
    }
    return { ...measured, firstAfterUpgrade }
  } catch (error) {
    const failure = error instanceof Error ? error.message : String(error)
    progress(`  FAILED: ${failure}`)
    return failure
  } finally {
    await dropDatabase()
    await database.close()
    await removeDir()
  }
}

function searchRows (figures: SearchFigures | string): ResultRow[] {
  const size = `${SEARCH_CARDS.toLocaleString('en')}-card account`
  if (typeof figures === 'string') return [{ operation: `search-cards, ${size}`, median: 'failed', p90: '', bar: '<= 100 ms', met: 'no' }]
  const row = (what: string, timed: { samples: number[] }): ResultRow => {
    const p90 = percentile(timed.samples, 0.9)
    return {
      operation: `search-cards, ${size}: ${what}`,
      median: `${percentile(timed.samples, 0.5).toFixed(1)} ms`,
      p90: `${p90.toFixed(1)} ms`,
      bar: '<= 100 ms',
      met: p90 <= 100 ? 'yes' : 'no'
    }
  }
  const { queries } = figures
  return [
    row(`a word on ${queries.rare.cards} cards, all found`, figures.rare),
    row(`a word on ${queries.common.cards.toLocaleString('en')} cards, the first 50`, figures.common),
    row(`two words together on ${queries.pair.cards} cards, each on about ${(SEARCH_CARDS / 50).toLocaleString('en')}: the first 50`, figures.pair),
    row('a word on no card', figures.none),
    {
      operation: `search-cards, ${size} from before search: its first search, which makes its search pages from every card (in the benchmark's process; ${figures.firstAfterUpgrade.length} runs, the slowest in the next column)`,
      median: `${(median(figures.firstAfterUpgrade) / 1000).toFixed(1)} s`,
      p90: `(${(Math.max(...figures.firstAfterUpgrade) / 1000).toFixed(1)} s)`,
      bar: '',
      met: ''
    }
  ]
}

const MEASURED_FITS = 3

/** Fits of a 100,000-review log through HTTP, on a database of their own, with other users reading their cards meanwhile. */
async function measureFittingRun (): Promise<FittingFigures | string> {
  progress(`Fitting FSRS parameters to ${FITTING_REVIEWS.toLocaleString('en')} reviews, on a database of its own`)
  const dataDir = await mkdtemp(join(tmpdir(), 'flashcard-bench-fitting-'))
  const removeDir = onCleanup(`remove ${dataDir}`, () => rm(dataDir, { recursive: true, force: true }))
  const name = `flashcard_bench_fitting_${randomBytes(4).toString('hex')}`
  const database = await openDatabase(dataDir, name)
  const dropDatabase = onCleanup(`drop the database ${name}`, async () => { if (MONGODB_URL !== undefined) await database.db.dropDatabase() })
  try {
    const app = await buildApp({ mongodbUrl: database.url, jwtSecret: JWT_SECRET, attemptLimits: { perAddress: 1_000_000, perAccount: 1_000_000, windowMs: 60_000 } })
    await app.ready()
    await seedFitting(app, database.db)
    await app.close()
    if (MONGODB_URL === undefined) await database.close()
    const service = await startMeasuredService(dataDir, name, 'service for fitting')
    const databasePid = MONGODB_URL === undefined ? await childPidNamed(service.pid, 'secantusd-rs') : null
    const cpuOfService = async (): Promise<number | null> => {
      const used = [await cpuSeconds(service.pid), databasePid === null ? 0 : await cpuSeconds(databasePid)]
      return used.some((seconds) => seconds === null) ? null : (used[0] ?? 0) + (used[1] ?? 0)
    }
    const measured = await measureFitting(service.origin, MEASURED_FITS, cpuOfService)
    await service.stop()
    const alone = await timeFitAlone(MEASURED_FITS)
    const figures: FittingFigures = { ...measured, alone: alone.times, aloneCpu: alone.cpu }
    progress(`  the fit alone, on the log in memory: ${figures.alone.map((ms) => ms.toFixed(0)).join(', ')} ms, using ${figures.aloneCpu.map((seconds) => seconds.toFixed(2)).join(', ')} s of CPU`)
    if (figures.firstCpu !== null) progress(`  the first fit used ${figures.firstCpu.toFixed(2)} s of CPU in the service and its database`)
    progress(`  first fit ${figures.first.toFixed(0)} ms (starts the worker), then ${figures.fits.map((ms) => ms.toFixed(0)).join(', ')} ms; ` +
      `${figures.items.toLocaleString('en')} items of ${figures.reviews.toLocaleString('en')} reviews, adopted: ${String(figures.adopted)}`)
    progress(`  others' get-today-cards: p99 ${p99(figures.peersDuringFits).toFixed(1)} ms during the fits (${figures.peersDuringFits.length} requests), ` +
      `${p99(figures.peersAlone).toFixed(1)} ms without (${figures.peersAlone.length})`)
    return figures
  } catch (error) {
    const failure = error instanceof Error ? error.message : String(error)
    progress(`  FAILED: ${failure}`)
    return failure
  } finally {
    await dropDatabase()
    await database.close()
    await removeDir()
  }
}

function fittingRows (figures: FittingFigures | string): ResultRow[] {
  const fitLabel = `optimize-schedule: fit FSRS parameters to ${FITTING_REVIEWS.toLocaleString('en')} reviews, end to end (the log read, the fit and 5 time-series splits, the workload)`
  const peersLabel = 'get-today-cards of two other users (100 cards each), each 20 times a second, while the fits run: p99'
  if (typeof figures === 'string') {
    return [
      { operation: fitLabel, median: 'failed', p90: '', bar: '<= 3 s', met: 'no' },
      { operation: peersLabel, median: 'failed', p90: '', bar: '< 50 ms', met: 'no' }
    ]
  }
  const slowest = Math.max(...figures.fits)
  const during = p99(figures.peersDuringFits)
  return [{
    operation: `the same fit alone, in the benchmark's process on the log in memory: the optimizer on the whole log and 5 time-series splits, the items, the workload (${figures.alone.length} runs; ` +
      `CPU ${median(figures.aloneCpu).toFixed(2)} s of all its threads, median)`,
    median: `${(median(figures.alone) / 1000).toFixed(2)} s`,
    p90: `(max ${(Math.max(...figures.alone) / 1000).toFixed(2)} s)`,
    bar: '',
    met: ''
  }, {
    operation: `${fitLabel}: ${figures.fits.length} fits after a first (${(figures.first / 1000).toFixed(2)} s, starting the worker` +
      `${figures.firstCpu === null ? '' : `, ${figures.firstCpu.toFixed(2)} s of CPU in the service and its database`}); ` +
      `${figures.items.toLocaleString('en')} items, adopted: ${String(figures.adopted)}`,
    median: `${(median(figures.fits) / 1000).toFixed(2)} s`,
    p90: `(max ${(slowest / 1000).toFixed(2)} s)`,
    bar: '<= 3 s',
    met: slowest <= 3000 ? 'yes' : 'no'
  }, {
    operation: `${peersLabel} (${figures.peersDuringFits.length} requests; without a fit, p99 ${p99(figures.peersAlone).toFixed(1)} ms)`,
    median: `${during.toFixed(1)} ms`,
    p90: `(median ${median(figures.peersDuringFits).toFixed(1)} ms)`,
    bar: '< 50 ms',
    met: during < 50 ? 'yes' : 'no'
  }]
}

type ImportRun = (ImportFigures & { packageBytes: number, collectionBytes: number, revlog: number, generateMs: number, anki?: AnkiOwnImport, noteTypeEdit?: NoteTypeEditFigures, deletion?: DeletionFigures }) | string

/**
 * import-anki of the generated collection through HTTP, on a database of its own, with other users
 * reading their cards meanwhile; with `largest`, of the largest package the limits allow (LARGEST).
 */
async function measureImportRun (largest = false): Promise<ImportRun> {
  progress(largest
    ? `import-anki of the largest package the limits allow: ${LARGEST.cards.toLocaleString('en')} cards, ${LARGEST.revlog.toLocaleString('en')} review rows, ${LARGEST.media} media files of 20 MiB, on a database of its own`
    : `import-anki of a generated collection of ${IMPORT_CARDS.toLocaleString('en')} cards and ${IMPORT_REVLOG.toLocaleString('en')} review rows, on a database of its own`)
  const dataDir = await mkdtemp(join(tmpdir(), 'flashcard-bench-import-'))
  const removeDir = onCleanup(`remove ${dataDir}`, () => rm(dataDir, { recursive: true, force: true }))
  const name = `flashcard_bench_import_${randomBytes(4).toString('hex')}`
  const database = await openDatabase(dataDir, name)
  const dropDatabase = onCleanup(`drop the database ${name}`, async () => { if (MONGODB_URL !== undefined) await database.db.dropDatabase() })
  let stopService: (() => Promise<void>) | undefined
  try {
    const app = await buildApp({ mongodbUrl: database.url, jwtSecret: JWT_SECRET, attemptLimits: { perAddress: 1_000_000, perAccount: 1_000_000, windowMs: 60_000 } })
    await app.ready()
    const packagePath = join(dataDir, 'generated.apkg')
    const seeded = await seedImport(app, packagePath, largest)
    progress(`  the package: ${(seeded.packageBytes / 1024 / 1024).toFixed(1)} MiB (its collection ${(seeded.collectionBytes / 1024 / 1024).toFixed(0)} MiB), ${seeded.revlog.toLocaleString('en')} review rows, written in ${(seeded.generateMs / 1000).toFixed(1)} s`)
    await app.close()
    if (MONGODB_URL === undefined) await database.close()
    // Anki's own import of the same package first, alone on the machine, as the yardstick
    const anki = largest ? undefined : await timeAnkiOwnImport(packagePath)
    if (anki !== undefined) progress(typeof anki === 'string' ? `  Anki's own import: not measured (${anki})` : `  Anki's own import (PyPI anki, in-process): ${anki.seconds.toFixed(1)} s, ${anki.notes.toLocaleString('en')} notes, ${anki.revlog.toLocaleString('en')} review rows`)
    const service = await startMeasuredService(dataDir, name, 'service for the import')
    // stopped before its folder is removed, whatever fails: a database whose folder goes from under it panics
    stopService = service.stop
    const measured = await measureImport(service.origin, service.pid, packagePath, progress)
    // then the shape an import leaves for a learner who changes its note type: every card rendered again
    const noteTypeEdit = largest ? undefined : await measureNoteTypeEdit(service.origin)
    if (noteTypeEdit !== undefined) progress(`  edit-note-type of ${noteTypeEdit.name}: ${noteTypeEdit.status} in ${(noteTypeEdit.answeredMs / 1000).toFixed(1)} s, every card rendered again in ${(noteTypeEdit.renderedMs / 1000).toFixed(1)} s${noteTypeEdit.status === 200 ? '' : `: ${noteTypeEdit.answer}`}`)
    // then the learner deletes it all again, as after an import that went wrong
    const deletion = largest ? undefined : await measureImportDeletion(service.origin)
    if (deletion !== undefined) {
      progress(`  delete-folder of what it brought (${deletion.folders} folders, ${deletion.cards.toLocaleString('en')} cards): answered ${deletion.statuses.join(', ')} in ` +
        `${deletion.answeredMs.map((ms) => `${(ms / 1000).toFixed(1)} s`).join(', ')} (${deletion.underWay} under way), all gone in ${(deletion.goneMs / 1000).toFixed(1)} s`)
    }
    await service.stop()
    progress(`  imported in ${(measured.totalMs / 1000).toFixed(1)} s (upload ${(measured.uploadMs / 1000).toFixed(1)} s), service memory at most ${(measured.peakRss / 1024 / 1024).toFixed(0)} MiB; ` +
      `others' get-today-cards p99 ${p99(measured.peersDuring).toFixed(1)} ms during it (${measured.peersDuring.length} requests), ${p99(measured.peersAlone).toFixed(1)} ms without`)
    return { ...measured, ...seeded, anki, noteTypeEdit, deletion }
  } catch (error) {
    const failure = error instanceof Error ? error.message : String(error)
    progress(`  FAILED: ${failure}`)
    return failure
  } finally {
    await stopService?.()
    await dropDatabase()
    await database.close()
    await removeDir()
  }
}

/** The largest import's row: the service's memory while it imported, against the bound docs/anki.md gives. */
function largestImportRows (figures: ImportRun): ResultRow[] {
  const label = `resident memory of the service (its import worker included) importing the largest package the limits allow (${LARGEST.cards.toLocaleString('en')} cards, ` +
    `${LARGEST.revlog.toLocaleString('en')} review rows, sides of ${LARGEST.sideCharacters.toLocaleString('en')} characters, ${LARGEST.media} media files of 20 MiB), at most`
  if (typeof figures === 'string') return [{ operation: `${label} (failed: ${figures.slice(0, 200)})`, median: 'failed', p90: '', bar: '< 1 GiB', met: 'no' }]
  return [{
    operation: `${label} (a ${(figures.packageBytes / 1024 / 1024).toFixed(0)} MiB .apkg, its collection ${(figures.collectionBytes / 1024 / 1024).toFixed(0)} MiB; imported in ${(figures.totalMs / 1000).toFixed(1)} s; ` +
      `others' get-today-cards p99 ${p99(figures.peersDuring).toFixed(1)} ms meanwhile)`,
    median: `${(figures.peakRss / 1024 / 1024).toFixed(0)} MiB`,
    p90: '',
    bar: '< 1 GiB',
    met: figures.peakRss < 1024 * 1024 * 1024 ? 'yes' : 'no'
  }]
}

function importRows (figures: ImportRun): ResultRow[] {
  const importLabel = `import-anki of a generated collection of ${IMPORT_CARDS.toLocaleString('en')} cards and ${IMPORT_REVLOG.toLocaleString('en')} review rows, from sending the file to get-import-status done`
  const memoryLabel = 'resident memory of the service (its import worker included) during the import, at most'
  const peersLabel = 'get-today-cards of two other users (100 cards each), each 20 times a second, during the import: p99'
  if (typeof figures === 'string') {
    return [
      { operation: `${importLabel} (failed: ${figures.slice(0, 200)})`, median: 'failed', p90: '', bar: '<= 60 s', met: 'no' },
      { operation: memoryLabel, median: 'failed', p90: '', bar: '< 1 GiB', met: 'no' },
      { operation: peersLabel, median: 'failed', p90: '', bar: '< 100 ms', met: 'no' }
    ]
  }
  const during = p99(figures.peersDuring)
  return [{
    operation: `${importLabel} (a ${(figures.packageBytes / 1024 / 1024).toFixed(0)} MiB .apkg of schema 11 written with Node's SQLite; upload ${(figures.uploadMs / 1000).toFixed(1)} s; ` +
      `${String(figures.status.reviews)} reviews logged, ${String(figures.status.media)} media)`,
    median: `${(figures.totalMs / 1000).toFixed(1)} s`,
    p90: '',
    bar: '<= 60 s',
    met: figures.totalMs <= 60_000 ? 'yes' : 'no'
  }, {
    operation: memoryLabel,
    median: `${(figures.peakRss / 1024 / 1024).toFixed(0)} MiB`,
    p90: '',
    bar: '< 1 GiB',
    met: figures.peakRss < 1024 * 1024 * 1024 ? 'yes' : 'no'
  }, {
    operation: `${peersLabel} (${figures.peersDuring.length} requests; without it, p99 ${p99(figures.peersAlone).toFixed(1)} ms)`,
    median: `${during.toFixed(1)} ms`,
    p90: `(median ${median(figures.peersDuring).toFixed(1)} ms)`,
    bar: '< 100 ms',
    met: during < 100 ? 'yes' : 'no'
  }, ...ankiOwnImportRows(figures), ...noteTypeEditRows(figures), ...deletionRows(figures)]
}

/** edit-note-type right after the import: the note type of its cards given a new answer template, every card of it rendered again in one transaction. */
function noteTypeEditRows (figures: Exclude<ImportRun, string>): ResultRow[] {
  const edit = figures.noteTypeEdit
  if (edit === undefined) return []
  const label = `edit-note-type of the imported note type ${edit.name}, an answer template changed, right after the import: until every one of its ${IMPORT_CARDS.toLocaleString('en')} cards is rendered again (500 notes to a transaction, behind the answer)`
  if (edit.status !== 200) return [{ operation: `${label}: answered ${edit.status} (${edit.answer.slice(0, 200)})`, median: `${(edit.answeredMs / 1000).toFixed(1)} s`, p90: '', bar: 'answers 200', met: 'no' }]
  return [{ operation: `${label}; the answer came in ${(edit.answeredMs / 1000).toFixed(1)} s`, median: `${(edit.renderedMs / 1000).toFixed(1)} s`, p90: '', bar: 'answer < 30 s', met: edit.answeredMs < 30_000 ? 'yes' : 'no' }]
}

/** delete-folder of all the import brought, right after it: the longest wait for an answer, and until the library is empty. */
function deletionRows (figures: Exclude<ImportRun, string>): ResultRow[] {
  const deletion = figures.deletion
  if (deletion === undefined) return []
  const longest = Math.max(...deletion.answeredMs)
  const label = `delete-folder of everything the import brought (${deletion.folders} folder${deletion.folders === 1 ? '' : 's'}, ${deletion.cards.toLocaleString('en')} cards), right after it: until the library is empty (500 cards to a transaction, behind the answer)`
  if (deletion.statuses.some((status) => status !== 200)) return [{ operation: `${label}: answered ${deletion.statuses.join(', ')}`, median: `${(deletion.goneMs / 1000).toFixed(1)} s`, p90: '', bar: 'answers 200', met: 'no' }]
  return [{ operation: `${label}; the longest answer came in ${(longest / 1000).toFixed(1)} s${deletion.underWay > 0 ? ', the deletion under way' : ''}`, median: `${(deletion.goneMs / 1000).toFixed(1)} s`, p90: '', bar: 'answer < 30 s', met: longest < 30_000 ? 'yes' : 'no' }]
}

/** Anki's own import of the same package beside the service's: the issue's aim is at most twice Anki's time. */
function ankiOwnImportRows (figures: Exclude<ImportRun, string>): ResultRow[] {
  const { anki } = figures
  const label = 'Anki\'s own import of the same package into an empty collection (PyPI anki, in-process, learning progress kept)'
  if (anki === undefined) return []
  if (typeof anki === 'string') return [{ operation: `${label}: not measured (${anki.slice(0, 200)})`, median: '', p90: '', bar: '', met: '' }]
  const ratio = figures.totalMs / 1000 / anki.seconds
  return [{
    operation: `${label} (${anki.notes.toLocaleString('en')} notes, ${anki.revlog.toLocaleString('en')} review rows); the service's import above took ${ratio.toFixed(1)} times as long`,
    median: `${anki.seconds.toFixed(1)} s`,
    p90: '',
    bar: 'service <= 2x',
    met: ratio <= 2 ? 'yes' : 'no'
  }]
}

interface BackupFigures {
  backup: ScriptFigures
  restore: ScriptFigures
  archiveBytes: number
  /** the requests beside the backup, and the same requests as long before it */
  during: Traffic
  without: Traffic
  restoredStartupMs: number
}
type BackupRun = BackupFigures | string

/**
 * npm run backup of the bench data on the service running on it, while one
 * learner reviews and another reads today's cards (the same requests, as long
 * again, without a backup, to compare); then npm run restore into a new data
 * folder, and the service started on it answering as before.
 */
/** Step 10: the start-up migrations on a copy of the bench data. */
async function measureMigrationsRun (): Promise<MigrationFigures | string> {
  progress('The start-up migrations on a copy of the bench data, every step pending')
  const figures = await measureMigrations(join(DATA_DIR, 'secantus'), SERVICE_DATABASE, CACHE_SIZE, (line) => progress(`  ${line}`))
  if (typeof figures !== 'string') progress(`  all steps: ${(figures.totalMs / 1000).toFixed(2)} s (copying the data first: ${(figures.copyMs / 1000).toFixed(1)} s)`)
  else progress(`  ${figures}`)
  return figures
}

async function measureBackupRun (data: BenchData): Promise<BackupRun> {
  progress('npm run backup of the bench data on the service running on it, a learner reviewing and another reading today\'s cards meanwhile')
  const scratch = await mkdtemp(join(tmpdir(), 'flashcard-bench-backup-'))
  const removeScratch = onCleanup(`remove ${scratch}`, () => rm(scratch, { recursive: true, force: true }))
  const benchName = `flashcard_bench_v${DATA_VERSION}`
  const restoredName = `flashcard_bench_restored_${randomBytes(4).toString('hex')}`
  const dropRestored = onCleanup(`drop the database ${restoredName}`, async () => {
    if (MONGODB_URL === undefined) return
    const client = new MongoClient(withDatabase(MONGODB_URL, restoredName))
    try {
      await client.db().dropDatabase()
    } finally {
      await client.close()
    }
  })
  try {
    const service = await startMeasuredService(DATA_DIR, benchName, 'service')
    const databasePid = MONGODB_URL === undefined ? await childPidNamed(service.pid, 'secantusd-rs') : null
    const todayBody = JSON.stringify({ jwtToken: await login(service, SMALL_USER) })
    const big = await login(service, BIG_USER)
    const runTag = randomBytes(4).toString('hex')
    let next = 0
    const reviewBody = (): string => {
      const card = data.laterCards[next % data.laterCards.length]
      next += 1
      return JSON.stringify({ jwtToken: big, flashcardID: card?.flashcardID, cardID: card?._id, rating: 'good', reviewID: `bench-backup-${runTag}-${next}` })
    }
    const archive = join(scratch, 'bench.backup')
    const started = performance.now()
    const traffic = keepTraffic(service.origin, todayBody, reviewBody)
    const backup = await runScript(root, 'backup', archive, serviceEnvironment(DATA_DIR, benchName), databasePid)
    const during = await traffic.stop()
    // as long again without it
    const alone = keepTraffic(service.origin, todayBody, reviewBody)
    await sleep(performance.now() - started)
    const without = await alone.stop()
    await service.stop()
    if (backup.code !== 0) throw new Error(`npm run backup exited with code ${String(backup.code)}`)
    if (during.failures.length + without.failures.length > 0) throw new Error(`requests beside the backup failed: ${[...during.failures, ...without.failures].slice(0, 3).join('; ')}`)
    const archiveBytes = await sizeOf(archive)
    progress(`  ${backup.said}`)
    progress(`  backup: ${backup.seconds.toFixed(1)} s, at most ${megabytes(backup.peakBytes)}; the database ${megabytes(backup.databaseBefore)} before, at most ${megabytes(backup.databasePeak)} during it; ` +
      `${during.reviews} reviews acknowledged meanwhile, get-today-cards median ${median(during.todayMs).toFixed(1)} ms (without: ${without.reviews} reviews, ${median(without.todayMs).toFixed(1)} ms)`)

    progress('npm run restore of that archive into a new data folder')
    const restoredDir = join(scratch, 'restored')
    const restore = await runScript(root, 'restore', archive, serviceEnvironment(restoredDir, restoredName), null)
    if (restore.code !== 0) throw new Error(`npm run restore exited with code ${String(restore.code)}`)
    progress(`  ${restore.said}`)
    const restored = await startMeasuredService(restoredDir, restoredName, 'service on the restored data')
    const answer = await post(`${restored.origin}/api/get-today-cards`, JSON.stringify({ jwtToken: await login(restored, BIG_USER) }))
    await restored.stop()
    const problem = expectCards(expectedTodayCards(BIG_USER))(answer.text)
    if (answer.status !== 200 || problem !== null) throw new Error(`the service on the restored data answered get-today-cards of the 10k-card user ${answer.status}: ${problem ?? ''}`)
    progress(`  restore: ${restore.seconds.toFixed(1)} s, at most ${megabytes(restore.peakBytes)}, its database at most ${megabytes(restore.databasePeak)}; ` +
      `the service started on it in ${(restored.startupMs / 1000).toFixed(1)} s and answers as before`)
    return { backup, restore, archiveBytes, during, without, restoredStartupMs: restored.startupMs }
  } catch (error) {
    const failure = error instanceof Error ? error.message : String(error)
    progress(`  FAILED: ${failure}`)
    return failure
  } finally {
    await dropRestored()
    await removeScratch()
  }
}

function backupRows (figures: BackupRun, marker: Marker): ResultRow[] {
  const cards = `${(marker.counts.cards ?? 0).toLocaleString('en')} cards`
  const label = `npm run backup of the bench data (${cards}) on the service running on it, a learner reviewing and another reading today's cards meanwhile`
  if (typeof figures === 'string') return [{ operation: `${label} (failed: ${figures.slice(0, 200)})`, median: 'failed', p90: '', bar: '', met: '' }]
  const { backup, restore, during, without } = figures
  const row = (operation: string, value: string, p90 = ''): ResultRow => ({ operation, median: value, p90, bar: '', met: '' })
  return [
    row(`${label} (${/^Backed up ([\d,]+ documents of \d+ collections)/.exec(backup.said)?.[1] ?? backup.said})`, `${backup.seconds.toFixed(1)} s`),
    row('the archive it wrote (zstd)', `${(figures.archiveBytes / 1024 / 1024).toFixed(0)} MiB`),
    row('resident memory of npm run backup, at most', megabytes(backup.peakBytes)),
    row(`resident memory of the database during the backup, at most (before it: ${megabytes(backup.databaseBefore)}; the backup's reads fill its WiredTiger cache, ${CACHE_SIZE})`, megabytes(backup.databasePeak)),
    row(`get-today-cards, 100-card user, one after another during the backup (${during.todayMs.length} requests; as long without it: median ${median(without.todayMs).toFixed(1)} ms, p90 ${percentile(without.todayMs, 0.9).toFixed(1)} ms)`,
      `${median(during.todayMs).toFixed(1)} ms`, `${percentile(during.todayMs, 0.9).toFixed(1)} ms`),
    row(`review-card, 10k-card user, one after another during the backup: reviews acknowledged (as long without it: ${without.reviews})`, String(during.reviews)),
    row('npm run restore of that archive into a new data folder (the embedded database started by the script)', `${restore.seconds.toFixed(1)} s`),
    row(`resident memory of npm run restore, at most (its database: ${megabytes(restore.databasePeak)})`, megabytes(restore.peakBytes)),
    row('start-up of the service on the restored data, to /health answering 200 (get-today-cards of the 10k-card user then answers as before)', `${(figures.restoredStartupMs / 1000).toFixed(1)} s`)
  ]
}

/** What each step does on the bench data, as a row says it. */
const MIGRATION_WORK: Record<string, string> = {
  'activity-from-review-log': 'the review log counted by user and day, each day written',
  'usage-from-data': 'every user\'s cards, folders, flashcards and goals counted, each account\'s usage written',
  'library-to-trees': 'no folder of the old shape to fold into trees: a look, and nothing to drop',
  'queue-starts-from-cards': 'every card grouped by user and queue for its earliest due instant, each account\'s queue starts written',
  'search-pages-pending': 'every account marked to make its search pages at its first search',
  'staged-search-pages-removed': 'the search pages of staged cards removed: none on these data',
  'card-states-apart': 'every card\'s state copied to cardStates, and the two indexes that served it dropped from cards (the copy of the data has the states put back in the cards first, as before the step)'
}

function migrationRows (figures: MigrationFigures | string, marker: Marker): ResultRow[] {
  const data = `${(marker.counts.cards ?? 0).toLocaleString('en')} cards of ${(marker.counts.users ?? 0).toLocaleString('en')} users`
  const label = `start-up migrations on a copy of the bench data (${data}), every step pending, as an upgrade from a version before them runs them`
  if (typeof figures === 'string') return [{ operation: `${label} (${figures.slice(0, 200)})`, median: 'failed', p90: '', bar: '', met: '' }]
  const seconds = (ms: number): string => Number.isNaN(ms) ? 'not logged' : ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`
  return [
    { operation: `${label}: the lock taken, each step run and recorded, the lock given back`, median: seconds(figures.totalMs), p90: '', bar: '', met: '' },
    ...figures.steps.map((step): ResultRow => ({
      operation: `  migration ${step.number} ${step.name}: ${MIGRATION_WORK[step.name] ?? 'as src/repositories/migrations.ts says'}`,
      median: seconds(step.ms), p90: '', bar: '', met: ''
    }))
  ]
}

function countNodes (folders: readonly FolderNode[]): number {
  return folders.reduce((sum, folder) => sum + 1 + folder.flashcards.length + countNodes(folder.folders), 0)
}

function libraryRows (figures: LibraryFigures[] | string): ResultRow[] {
  if (typeof figures === 'string') return [{ operation: 'library edits at 1,000 and 20,000 folders and flashcards', median: 'failed', p90: '', bar: '', met: 'no' }]
  const rows: ResultRow[] = []
  for (const measured of figures) {
    const atQuota = measured.nodes >= 20_000
    const size = `${measured.nodes.toLocaleString('en')} folders and flashcards (${(measured.bytes / 1024 / 1024).toFixed(2)} MB tree)`
    const edit = (operation: string, samples: number[]): ResultRow => latencyRow(`${operation}, ${size}`, { samples, firstAnswer: '' }, atQuota ? 60 : null)
    rows.push(
      edit('create-folder', measured.create),
      edit('rename-folder', measured.rename),
      edit('move-folder (a topic between two subjects)', measured.move),
      edit('delete-folder', measured.remove),
      latencyRow(`get-library, ${size}`, { samples: measured.library, firstAnswer: '' }, null),
      latencyRow(`get-today-cards, ${size}`, { samples: measured.today, firstAnswer: '' }, null)
    )
    const burst = median(measured.bursts)
    rows.push({
      operation: `16 rename-folder sent at once by one user, ${size}: until the last answer (median of ${measured.bursts.length} bursts)`,
      median: `${burst.toFixed(0)} ms`,
      p90: '',
      bar: atQuota ? '<= 1500 ms' : '',
      met: atQuota ? burst <= 1500 ? 'yes' : 'no' : ''
    })
  }
  return rows
}

async function measureCeiling (answer: string): Promise<{ floor: Measured, load: LoadResult | string }> {
  progress('The ceiling: a bare Fastify app answering the same get-today-cards bytes')
  const responses = await mkdtemp(join(tmpdir(), 'flashcard-bench-ceiling-'))
  const removeResponses = onCleanup(`remove ${responses}`, () => rm(responses, { recursive: true, force: true }))
  await writeFile(join(responses, 'get-today-cards.json'), answer)
  const ceiling = await startCeiling(root, responses)
  const stopCeiling = onCleanup('stop the ceiling app', ceiling.stop)
  const url = `${ceiling.origin}/api/get-today-cards`
  const body = JSON.stringify({ jwtToken: 'not read' })
  const floor = await measureOne('one request at a time', { url, body, check: () => null })
  progress(`  ${CONNECTIONS} connections for ${LOAD_SECONDS} s after ${LOAD_WARMUP_SECONDS} s of warm-up`)
  const load = await measureLoad(url, body)
  await stopCeiling()
  await removeResponses()
  return { floor, load }
}

// ---- the report

function megabytes (bytes: number | null): string {
  return bytes === null ? 'not measured' : `${(bytes / 1024 / 1024).toFixed(0)} MiB`
}

/** Where a measured operation's time went, from its answers' Server-Timing: the database's median share and calls. */
function databaseShare (measured: Measured): string {
  const database = measured.database ?? []
  if (database.length === 0) return ''
  const ms = percentile(database.map((one) => one.ms), 0.5)
  const calls = percentile(database.map((one) => one.calls), 0.5)
  return `; of which in the database, by Server-Timing: median ${ms.toFixed(1)} ms in ${calls} calls`
}

function latencyRow (operation: string, measured: Measured, barMs: number | null): ResultRow {
  if (measured.failure !== undefined) return { operation, median: 'failed', p90: '', bar: barMs === null ? '' : `<= ${barMs} ms`, met: barMs === null ? '' : 'no' }
  const median = percentile(measured.samples, 0.5)
  return {
    operation,
    median: `${median.toFixed(1)} ms`,
    p90: `${percentile(measured.samples, 0.9).toFixed(1)} ms`,
    bar: barMs === null ? '' : `<= ${barMs} ms`,
    met: barMs === null ? '' : median <= barMs ? 'yes' : 'no'
  }
}

/** The ratio of two medians, against a bar of 1.5x. */
function ratioRow (operation: string, measured: Measured, against: Measured): ResultRow {
  const ratio = percentile(measured.samples, 0.5) / percentile(against.samples, 0.5)
  return {
    operation,
    median: Number.isFinite(ratio) ? `${ratio.toFixed(2)}x` : '-',
    p90: '',
    bar: '<= 1.5x',
    met: Number.isFinite(ratio) ? ratio <= 1.5 ? 'yes' : 'no' : 'no'
  }
}

function resultRows (figures: ServiceFigures, ceiling: { floor: Measured, load: LoadResult | string }): ResultRow[] {
  const rows: ResultRow[] = [
    latencyRow(`get-today-cards, 10k-card user (${expectedTodayCards(BIG_USER)} cards)`, figures.todayBig, 30),
    latencyRow(`get-today-cards, 100-card user (${expectedTodayCards(SMALL_USER)} cards)`, figures.todaySmall, 15),
    latencyRow('get-today-cards, 100-card user alone on an empty database (taking turns with the line above)', figures.todaySmallEmpty, null)
  ]
  rows.push(ratioRow('get-today-cards, 100-card user: 1M cards against an empty database (medians)', figures.todaySmall, figures.todaySmallEmpty))
  for (const shape of figures.queueShapes) {
    rows.push(
      latencyRow(`get-today-cards, ${shape.label} (${shape.cards} cards)`, shape.long, 30),
      latencyRow(`get-today-cards, 100-card user with as many cards today (${shape.cards}; taking turns with the line above)`, shape.peer, null),
      ratioRow(`get-today-cards, ${shape.label} against the 100-card user (medians)`, shape.long, shape.peer)
    )
  }
  rows.push(
    latencyRow(`review-card, 10k-card user (a different card each time${databaseShare(figures.review)})`, figures.review, 15),
    latencyRow(`update-goal-status, 10k-card user (${BIG_USER.goals.length} goals)`, figures.goals, 15),
    latencyRow(`get-all-cards, 10k-card user (${BIG_USER.cards.toLocaleString('en')} cards)`, figures.allCards, 150),
    latencyRow('floor: bare Fastify answering the same get-today-cards bytes', ceiling.floor, null)
  )
  const overload = figures.overload
  if (typeof overload === 'string') {
    rows.push({ operation: `${OVERLOAD_CONNECTIONS} connections on get-today-cards, 10k-card user`, median: 'failed', p90: '', bar: 'fast 429s, no other non-2xx', met: 'no' })
  } else {
    const answers = Object.values(overload.statuses).reduce((sum, count) => sum + count, 0)
    // one user past its own limit of requests under way: 429 for that user (503 would mean the whole service)
    const turnedAway = overload.statuses['429'] ?? 0
    const otherErrors = Object.entries(overload.statuses).filter(([code]) => code !== '200' && code !== '429').reduce((sum, [, count]) => sum + count, 0)
    rows.push({
      operation: `${OVERLOAD_CONNECTIONS} connections on get-today-cards, 10k-card user, ${LOAD_SECONDS} s: all answers' latency p50 (p99 in the next column); ` +
        `${(100 * turnedAway / Math.max(1, answers)).toFixed(0)}% turned away with 429, ${overload.requestsPerSecond.toFixed(0)} answers 200 a second`,
      median: `${overload.p50} ms`,
      p90: `(${overload.p99} ms)`,
      bar: 'excess turned away at once; no other non-2xx',
      met: otherErrors === 0 && overload.problems?.includes('error') !== true && overload.problems?.includes('timeout') !== true ? 'yes' : `no: ${overload.problems ?? ''}`
    })
  }
  const serviceLoad = figures.load
  const ceilingLoad = ceiling.load
  const loadLabel = `${CONNECTIONS} connections on get-today-cards, 10k-card user, ${LOAD_SECONDS} s: answers 200 a second`
  if (typeof serviceLoad === 'string' || typeof ceilingLoad === 'string') {
    rows.push({ operation: loadLabel, median: 'failed', p90: '', bar: 'aim: 10% of the ceiling', met: 'no' })
  } else {
    const share = serviceLoad.requestsPerSecond / ceilingLoad.requestsPerSecond
    rows.push({
      operation: loadLabel + (serviceLoad.problems === null ? '' : ` (besides: ${serviceLoad.problems})`),
      median: `${serviceLoad.requestsPerSecond.toFixed(0)} req/s`,
      p90: '',
      bar: `aim: 10% of the ceiling, ${(ceilingLoad.requestsPerSecond / 10).toFixed(0)} req/s`,
      met: `${share >= 0.1 ? 'yes' : 'no'}: ${(share * 100).toFixed(share < 0.01 ? 2 : 1)}%`
    }, {
      operation: `ceiling: bare Fastify answering the same bytes, ${CONNECTIONS} connections` + (ceilingLoad.problems === null ? '' : ` (besides: ${ceilingLoad.problems})`),
      median: `${ceilingLoad.requestsPerSecond.toFixed(0)} req/s`,
      p90: '',
      bar: '',
      met: ''
    })
  }
  const { service, database } = figures.memory
  const total = (service ?? 0) + (database ?? 0)
  rows.push({
    operation: MONGODB_URL === undefined
      ? `resident memory after the runs: service ${megabytes(service)} + secantusd-rs ${megabytes(database)}`
      : `resident memory after the runs: service (the database is MONGODB_URL's, not measured)`,
    median: `${(total / GIB).toFixed(2)} GiB`,
    p90: '',
    bar: '< 1.5 GiB',
    met: service === null || (MONGODB_URL === undefined && database === null) ? 'not measured' : total < 1.5 * GIB ? 'yes' : 'no'
  }, {
    operation: 'start-up on the 1M-card data: spawn to /health answering 200',
    median: `${(figures.startupMs / 1000).toFixed(2)} s`,
    p90: '',
    bar: '< 10 s',
    met: figures.startupMs < 10_000 ? 'yes' : 'no'
  })
  return rows
}

function machine (): string {
  const cpuinfo = (() => {
    try {
      return readFileSync('/proc/cpuinfo', 'utf8')
    } catch {
      return ''
    }
  })()
  const model = /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1]?.trim() ?? cpus()[0]?.model.trim() ?? 'unknown CPU'
  return `${model}, ${cpus().length} cores, ${(totalmem() / GIB).toFixed(1)} GiB memory, ${platform()} ${release()}, Node ${process.version}; ` +
    `load average ${loadavg().map((value) => value.toFixed(1)).join(' ')} at the start of the run (other work on the machine shows in the figures)`
}

async function databaseDescription (): Promise<string> {
  if (MONGODB_URL === undefined) return `SecantusDB secantusd-rs ${SECANTUS_VERSION} embedded, WiredTiger, --sync-on-commit, cache ${CACHE_SIZE}`
  const client = new MongoClient(MONGODB_URL, { serverSelectionTimeoutMS: 5000 })
  try {
    const info = await client.db('admin').command({ buildInfo: 1 })
    return `MongoDB ${String(info.version)} at MONGODB_URL`
  } finally {
    await client.close()
  }
}

function dataDescription (marker: Marker): string {
  const { counts } = marker
  const perFolder = BIG_USER.folderShape.reduce((all, count, depth) => all + BIG_USER.folderShape.slice(0, depth + 1).reduce((product, n) => product * n, 1), 0)
  return `${counts.cards?.toLocaleString('en')} cards of ${counts.users} users (the measured one and 99 others of 8,500 cards, ` +
    `the queue shapes of today's cards and 100-card users), ` +
    `${counts.reviews?.toLocaleString('en')} reviews in the log, ${counts.goals} goals. The measured 10k-card user: ${BIG_USER.due} cards due today ` +
    `(a tenth of them in (re)learning) and reviews allowed up to 9,999 a day so that all are shown, ${BIG_USER.newCards.toLocaleString('en')} new cards ` +
    `(20 a day shown), the rest due one to six months ahead; ${BIG_USER.flashcards} flashcards in ${perFolder} folders three levels deep, ` +
    `${(BIG_USER.historyDays * BIG_USER.historyReviewsPerDay).toLocaleString('en')} reviews over ${BIG_USER.historyDays} days, ` +
    `${BIG_USER.goals.length} goals (Card and XP; four in progress, one completed, one failed). The 100-card user: ${SMALL_USER.due} due, ` +
    `${SMALL_USER.newCards} new, a Card and an XP goal. A user of ${NEW_CARDS_USER.cards.toLocaleString('en')} new cards, created by ` +
    `${NEW_CARDS_USER.flashcards} create-flashcard requests ${NEW_CARDS_USER.createdEveryMs ?? 0} ms apart (each request's cards share an instant), ` +
    `against a user of ${NEW_CARDS_PEER.newCards} new cards (one request): ${expectedTodayCards(NEW_CARDS_USER)} cards each today. A user of ` +
    `${OVERDUE_USER.cards.toLocaleString('en')} cards all overdue, by up to a month, ${OVERDUE_USER.settings?.reviewsPerDay ?? 200} reviews a day, ` +
    `against a user of ${OVERDUE_PEER.cards} overdue cards: ${expectedTodayCards(OVERDUE_USER)} cards each today.`
}

// ---- the run

/** `BENCH_ONLY=<step>` of a step on the bench data (step 1, without explaining the queries): its rows written as a section of their own, and printed. */
async function writeDataSection (step: string, title: string, measure: (data: BenchData) => Promise<ResultRow[]>, method: string): Promise<void> {
  const date = new Date()
  const machineLine = machine()
  const database = await databaseDescription()
  const data = await prepareData(false)
  const rows = await measure(data)
  const lines = [
    `Written by \`BENCH_ONLY=${step} npm run bench\` on ${date.toISOString().slice(0, 16).replace('T', ' ')} UTC; a full run puts these rows in the table above.`,
    `Machine: ${machineLine}`,
    `Database: ${database}`,
    `Data: ${dataDescription(data.marker)}`,
    `Method: ${method}`
  ]
  await writeSection(REPORT, title, lines, rows)
  console.log(`\n${resultsTable(rows)}\n`)
}

async function main (): Promise<void> {
  if (process.env.BENCH_ONLY === 'search') {
    const date = new Date()
    const lines = [
      `Written by \`BENCH_ONLY=search npm run bench\` on ${date.toISOString().slice(0, 16).replace('T', ' ')} UTC; a full run puts these rows in the table above.`,
      `Machine: ${machine()}`,
      `Database: ${await databaseDescription()}`,
      `Data: one account of ${SEARCH_CARDS.toLocaleString('en')} cards (the card quota), made by 200 create-flashcard requests of 1,000 cards in 40 folders, ` +
        'on a database of its own; each card a front of 2 to 4 words and a back of 8 to 16, drawn from 8,000 made-up words with accents, a few words on many cards and most on few.',
      `Method: through HTTP from a separate client process to the service as \`npm start\` runs it, ${WARMUP} requests to warm up then ${SAMPLES} measured, the four searches taking turns; ` +
        'the first search after the upgrade in the benchmark\'s process, the account marked as the start-up migration marks it.'
    ]
    const rows = searchRows(await measureSearchRun())
    await writeSection(REPORT, 'search-cards', lines, rows)
    console.log(`\n${resultsTable(rows)}\n`)
    return
  }
  if (process.env.BENCH_ONLY === 'fitting') {
    const rows = fittingRows(await measureFittingRun())
    console.log(`\n${resultsTable(rows)}\n`)
    return
  }
  if (process.env.BENCH_ONLY === 'backup') {
    await writeDataSection('backup', 'Backup and restore', async (data) => backupRows(await measureBackupRun(data), data.marker),
      '`npm run backup` and `npm run restore` each run as npm runs them (node on the script, a process of its own); the backup on the service as `npm start` runs it on the bench data, ' +
        'reaching its database at the address the service keeps in DATA_DIR; the restore into a new DATA_DIR, starting its own embedded database. Memory is VmRSS from /proc, read every 100 ms. ' +
        'Beside the backup, one client reads the 100-card user\'s today\'s cards and another reviews cards of the 10k-card user due long after today, each one request after another; then the same for as long without a backup. ' +
        'The bench data holds no media (test/backup-under-writes.test.ts backs up and restores media).')
    return
  }
  if (process.env.BENCH_ONLY === 'migrations') {
    await writeDataSection('migrations', 'Migrations', async (data) => migrationRows(await measureMigrationsRun(), data.marker),
      'the bench data\'s files copied (its database stopped), the record of the steps done removed from the copy, and the steps run by `migrate` as a start-up of the service runs them, ' +
        'in the benchmark\'s process on the embedded database started on the copy; each step\'s time is the one its run logs ("migration N name done in X ms"). The copy goes afterwards.')
    return
  }
  if (process.env.BENCH_ONLY === 'import') {
    const date = new Date()
    const lines = [
      `Written by \`BENCH_ONLY=import npm run bench\` on ${date.toISOString().slice(0, 16).replace('T', ' ')} UTC; a full run puts these rows in the table above.`,
      `Machine: ${machine()}`,
      `Database: ${await databaseDescription()}`,
      'Method: the packages written by the benchmark (scripts/bench/anki-package.ts), sent to the service as `npm start` runs it on a database of its own, ' +
        'get-import-status read every 250 ms until done, the service\'s VmRSS read meanwhile; two other users\' get-today-cards every 50 ms each throughout, ' +
        'then as long again (at most 20 s) without the import.'
    ]
    const rows = [...importRows(await measureImportRun()), ...largestImportRows(await measureImportRun(true))]
    await writeSection(REPORT, 'Importing from Anki', lines, rows)
    console.log(`\n${resultsTable(rows)}\n`)
    return
  }
  const date = new Date()
  const machineLine = machine()
  const database = await databaseDescription()
  progress(`Machine: ${machineLine}`)
  progress(`Database: ${database}`)
  const data = await prepareData()
  const figures = await measureService(data)
  const ceiling = await measureCeiling(figures.todayBig.firstAnswer === '' ? '{}' : figures.todayBig.firstAnswer)
  const libraries = await measureLibraries()
  const media = await measureMediaRun()
  const fitting = await measureFittingRun()
  const search = await measureSearchRun()
  const imported = await measureImportRun()
  const importedLargest = await measureImportRun(true)
  const backup = await measureBackupRun(data)
  const migrations = await measureMigrationsRun()

  const rows = [...resultRows(figures, ceiling), ...libraryRows(libraries), ...mediaRows(media), ...fittingRows(fitting), ...searchRows(search), ...importRows(imported), ...largestImportRows(importedLargest), ...backupRows(backup, data.marker), ...migrationRows(migrations, data.marker)]
  const totalSeconds = (performance.now() - runStarted) / 1000
  await writeReport(REPORT, {
    date,
    machine: machineLine,
    database,
    data: dataDescription(data.marker),
    method: `each operation through HTTP from a separate client process to the service as \`npm start\` runs it, ${WARMUP} requests to warm up then ${SAMPLES} ` +
      'measured one after another (sending to last byte read); memory is VmRSS from /proc.',
    rows,
    explain: data.explain,
    dataNote: data.seededNow
      ? `This run built the data in ${(data.marker.seconds / 60).toFixed(1)} min; the whole run took ${(totalSeconds / 60).toFixed(1)} min.`
      : `The data was built on ${data.marker.seededAt.toISOString().slice(0, 10)} in ${(data.marker.seconds / 60).toFixed(1)} min; this run took ${(totalSeconds / 60).toFixed(1)} min.`
  })
  console.log(`\n${resultsTable(rows)}\n\n${explainTable(data.explain)}\n`)
  const concerns = data.explain.filter((row) => concernOf(row) !== '')
  if (concerns.length > 0) console.log(`Queries that read more than they return: ${concerns.map((row) => `${row.query} (${row.usedBy}): ${concernOf(row)}`).join('; ')}`)
  progress(`Written to ${REPORT}; the run took ${(totalSeconds / 60).toFixed(1)} min`)
}

try {
  await main()
  await cleanUp()
} catch (error) {
  console.error(error)
  await stop('failed', 1)
}
