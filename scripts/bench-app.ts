// `npm run bench:app`: get-today-cards' own time (the app share of Server-Timing)
// on a database that answers quickly, in process through Fastify's inject.
//
// `npm run bench` reads the same share, but on the embedded FerretDB each of its
// requests waits 15-20 s for a scan of 122,000 cards, and the share it reads is
// that of a service woken from a long idle beside a database that has just used
// both cores. Here one user of the big users' shape (500 cards due today over 500
// flashcards and 105 folders, limits raised) is alone in a small database, so
// requests follow each other every few hundred milliseconds.
//
// BENCH_APP_REQUESTS (per round, default 100) and BENCH_APP_ROUNDS (3) tune a run.
// Against the embedded database by default; against MONGODB_URL when it is set
// (in a fresh database there, dropped at the end). Prints figures; asserts nothing.
import { randomBytes } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { cpus, loadavg, platform, release, tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildApp } from '../src/app.js'
import { startEmbeddedDatabase, type EmbeddedDatabase } from '../src/db/embedded.js'
import { EXPECTED_DUE, JWT_SECRET, todayCardsIn, withDatabase } from './bench/common.js'
import { generateUsers, type UserProfile } from './bench/data.js'
import { median, parseServerTiming } from './bench/load.js'

function count (name: string, fallback: number): number {
  const value = Number(process.env[name] ?? fallback)
  if (!Number.isInteger(value) || value < 1) {
    console.error(`${name} must be a whole number of at least 1`)
    process.exit(2)
  }
  return value
}

const REQUESTS = count('BENCH_APP_REQUESTS', 100)
const ROUNDS = count('BENCH_APP_ROUNDS', 3)

// the big users' tree and due cards, without the rest of their library
const PROFILE: UserProfile = {
  label: 'shape', cards: 1000, dueToday: EXPECTED_DUE, newCards: 0, folderShape: [5, 4, 4], flashcards: 500,
  historyDays: 1, historyPerDay: 1, goals: 1, raisedLimits: true
}

const fixed = (value: number): string => value.toFixed(3)

const workDir = await mkdtemp(join(tmpdir(), 'flashcard-bench-app-'))
let embedded: EmbeddedDatabase | undefined
const external = process.env.MONGODB_URL !== undefined && process.env.MONGODB_URL !== ''
try {
  if (!external) embedded = await startEmbeddedDatabase({ dataDir: join(workDir, 'secantus'), log: () => {} })
  const server = external ? process.env.MONGODB_URL as string : (embedded as EmbeddedDatabase).url
  const app = await buildApp({ mongodbUrl: withDatabase(server, `bench_app_${randomBytes(4).toString('hex')}`), jwtSecret: JWT_SECRET, logger: false })
  await app.ready()
  try {
    console.log(`Machine: ${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores, ${platform()} ${release()}, Node ${process.version}, ` +
      `load average ${loadavg().map((value) => value.toFixed(1)).join(' ')}; database: ${external ? 'MONGODB_URL' : 'embedded FerretDB'}`)
    const [user] = await generateUsers(app, app.db, [PROFILE], (line) => console.log(line))
    if (user === undefined) throw new Error('no user generated')
    console.log(`get-today-cards, ${REQUESTS} requests one after another per round:`)
    for (let round = 1; round <= ROUNDS; round++) {
      const appMs: number[] = []
      const databaseMs: number[] = []
      const calls = new Set<number>()
      for (let n = 0; n < REQUESTS; n++) {
        const response = await app.inject({ method: 'POST', url: '/api/get-today-cards', payload: { jwtToken: user.jwtToken } })
        const timing = parseServerTiming(String(response.headers['server-timing']))
        if (response.statusCode !== 200 || timing === null) throw new Error(`get-today-cards answered ${response.statusCode}: ${response.body.slice(0, 200)}`)
        const cards = todayCardsIn(response.body)
        if (cards !== EXPECTED_DUE) throw new Error(`get-today-cards returned ${cards} cards, not ${EXPECTED_DUE}`)
        appMs.push(timing.appMs)
        databaseMs.push(timing.databaseMs)
        calls.add(timing.roundTrips)
      }
      const sorted = [...appMs].sort((a, b) => a - b)
      console.log(`  round ${round}: app share median ${fixed(median(appMs))} ms (p10 ${fixed(sorted[Math.floor(sorted.length * 0.1)] ?? NaN)}, ` +
        `p90 ${fixed(sorted[Math.floor(sorted.length * 0.9)] ?? NaN)}), database median ${fixed(median(databaseMs))} ms, ${[...calls].join('/')} round trips`)
    }
  } finally {
    await app.db.dropDatabase().catch(() => {})
    await app.close()
  }
} finally {
  await embedded?.stop()
  await rm(workDir, { recursive: true, force: true })
}
