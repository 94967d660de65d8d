// A demo account with a history: run `npm run seed`, then the printed curl line.
// The history is replayed through the service itself with a moved clock, so
// every document is exactly what real use would have written. Running it again
// replaces the demo account rather than adding to it.
import type { FastifyInstance } from 'fastify'
import { buildApp } from '../src/app.js'
import { ConfigError, loadConfig } from '../src/config.js'
import { formatDay, userDay } from '../src/domain/calendar.js'
import { deleteAccountData } from '../src/services/accounts.js'
import { openRuntime } from '../src/runtime.js'

const DEMO = { email: 'demo@example.com', password: 'demo-password', displayName: 'Demo Learner', timezone: 'Europe/London' }
const DAY = 24 * 60 * 60 * 1000

const config = loadConfig()
const base = `http://${config.HOST}:${config.PORT}`

if (config.MONGODB_URL === undefined && await answers(`${base}/health`)) {
  console.error(`A service already answers at ${base} and uses the embedded database in ${config.DATA_DIR}.\n` +
    'Stop it (Ctrl-C), run `npm run seed`, then start it again with `npm start`.')
  process.exit(1)
}

const realNow = new Date()
let now = realNow
const runtime = await openRuntime(config, { info: (line) => console.error(line), error: (line) => console.error(line), fatal: (line) => console.error(line) })
const app = await buildApp({ mongodbUrl: runtime.mongodbUrl, jwtSecret: runtime.jwtSecret, clock: () => now })
try {
  await app.ready()
  const token = await seed(app)
  const tree = await call(app, 'get-today-cards', { jwtToken: token })
  const due = JSON.stringify(tree).match(/"review_status"/g)?.length ?? 0
  console.log(`
Demo account ready: ${DEMO.email} / ${DEMO.password} (${DEMO.timezone}); ${due} cards due today.
Start the service with \`npm start\`, then in another terminal:

  curl -s -X POST ${base}/api/get-today-cards -H 'Content-Type: application/json' -d '{"jwtToken":"${token}"}'

or log in for a fresh token:

  curl -s -X POST ${base}/api/login -H 'Content-Type: application/json' -d '{"email":"${DEMO.email}","password":"${DEMO.password}"}'
`)
} finally {
  await app.close()
  await runtime.stop()
}

async function answers (url: string): Promise<boolean> {
  try {
    await fetch(url, { signal: AbortSignal.timeout(1000) })
    return true
  } catch {
    return false
  }
}

async function call (app: FastifyInstance, operation: string, body: object): Promise<Record<string, unknown>> {
  const response = await app.inject({ method: 'POST', url: `/api/${operation}`, payload: body })
  if (response.statusCode >= 300) throw new Error(`${operation} answered ${response.statusCode}: ${response.body}`)
  return response.json()
}

function at (daysAgo: number, hour = 12): Date {
  const day = new Date(realNow.getTime() - daysAgo * DAY)
  day.setUTCHours(hour, 0, 0, 0)
  return day
}

function displayDate (instant: Date): string {
  return formatDay(userDay(instant, { timezone: DEMO.timezone, dayStartHour: 4 }).day)
}

interface Flashcard { flashcardID: string, cardIDs: string[] }

async function seed (app: FastifyInstance): Promise<string> {
  const existing = await app.repositories.users.findByEmail(DEMO.email)
  if (existing !== null) await deleteAccountData(app, existing._id)

  now = at(40)
  const { jwtToken } = await call(app, 'register', DEMO) as { jwtToken: string }
  const make = async (folder: string[], flashcardName: string, cards: Array<[string, string]>): Promise<Flashcard> => {
    await app.inject({ method: 'POST', url: '/api/create-folder', payload: { jwtToken, path: folder } })
    return await call(app, 'create-flashcard', {
      jwtToken, folder, flashcardName, cards: cards.map(([front, back]) => ({ front, back }))
    }) as unknown as Flashcard
  }
  const review = async (flashcard: Flashcard, index: number, rating: string): Promise<void> => {
    await call(app, 'review-card', { jwtToken, flashcardID: flashcard.flashcardID, cardID: flashcard.cardIDs[index], rating })
  }

  // three levels deep
  const verbs = await make(['Languages', 'Spanish', 'Verbs'], 'Ser y estar', [
    ['to be (identity)', 'ser'], ['to be (state)', 'estar'], ['I am', 'soy / estoy'], ['they are', 'son / están']
  ])
  const food = await make(['Languages', 'Spanish', 'Vocabulary'], 'Food', [
    ['apple', 'la manzana'], ['bread', 'el pan'], ['water', 'el agua']
  ])
  // one level deep
  const capitals = await make(['Geography'], 'European capitals', [
    ['France', 'Paris'], ['Portugal', 'Lisbon'], ['Poland', 'Warsaw'], ['Norway', 'Oslo']
  ])
  const history = await make(['History'], 'Dates', [
    ['Fall of the Berlin Wall', '1989'], ['Magna Carta', '1215']
  ])

  // goals set 40 days ago: one of each type that was met, one that was missed
  now = at(40)
  await call(app, 'create-goal', { jwtToken, type: 'Card', target: 4, end_date: displayDate(at(35)) })
  await call(app, 'create-goal', { jwtToken, type: 'XP', target: 40, end_date: displayDate(at(35)) })
  await call(app, 'create-goal', { jwtToken, type: 'Card', target: 100, end_date: displayDate(at(30)) })
  await call(app, 'create-goal', { jwtToken, type: 'XP', target: 5000, end_date: displayDate(at(30)) })

  // the history: reviews 38 days ago complete the first two goals
  now = at(38)
  for (let index = 0; index < 2; index++) {
    await review(history, index, 'easy')
    await review(capitals, index, 'good')
  }
  // long-known capitals, last seen 30 days ago with a long interval: not due today
  now = at(30)
  await review(capitals, 0, 'easy')
  // cards in review that came due in the last days: due today, most overdue first
  now = at(12)
  await review(verbs, 0, 'easy')
  await review(verbs, 1, 'good')
  now = at(6)
  await review(verbs, 1, 'good')
  await review(capitals, 1, 'easy')
  // a card relearning since an hour ago: due again within minutes
  now = new Date(realNow.getTime() - 60 * 60 * 1000)
  await review(food, 0, 'again')
  // reviewed yesterday and known well: not due today
  now = at(1)
  await review(history, 0, 'easy')
  await review(history, 1, 'easy')

  // goals still open, and the settled statuses of the old ones
  now = realNow
  await call(app, 'create-goal', { jwtToken, type: 'Card', target: 25, end_date: displayDate(at(-7)) })
  await call(app, 'create-goal', { jwtToken, type: 'XP', target: 300, end_date: displayDate(at(-14)) })
  await call(app, 'update-goal-status', { jwtToken })
  return jwtToken
}

process.on('unhandledRejection', (error) => {
  console.error(error instanceof ConfigError ? error.message : error)
  process.exit(1)
})
