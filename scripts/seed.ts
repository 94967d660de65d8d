// The demo learner: run `npm run seed`, then log in with what it prints. A
// year of study (scripts/demo/), made through the service with its clock
// moved: decks of formatted, image, sound and cloze cards, a review every day
// of the last months, goals met, missed and under way, and parameters fitted
// to that history. Running it again replaces the demo account.
import { buildApp } from '../src/app.js'
import { ConfigError, loadConfig } from '../src/config.js'
import { openRuntime } from '../src/runtime.js'
import { DEMO_ACCOUNT, seedDemo } from './demo/seed-demo.js'

const config = loadConfig()
const base = `http://${config.HOST}:${config.PORT}`

if (config.MONGODB_URL === undefined && await answers(`${base}/health`)) {
  console.error(`A service already answers at ${base} and uses the embedded database in ${config.DATA_DIR}.\n` +
    'Stop it (Ctrl-C), run `npm run seed`, then start it again with `npm start`.')
  process.exit(1)
}

const started = performance.now()
const now = new Date()
let clock = now
const runtime = await openRuntime(config, { info: (line) => console.error(line), error: (line) => console.error(line), fatal: (line) => console.error(line) })
// one client sending one request at a time, between stretches of planning: nothing to shed
const unshed = { maxInFlight: 100_000, maxInFlightPerUser: 100_000, maxEventLoopDelayMs: 0, maxEventLoopUtilization: 0 }
const app = await buildApp({ mongodbUrl: runtime.mongodbUrl, jwtSecret: runtime.jwtSecret, clock: () => clock, loadShedding: unshed })
try {
  await app.ready()
  const demo = await seedDemo(app, (instant) => { clock = instant }, now, (line) => { console.error(line) })
  const seconds = Math.round((performance.now() - started) / 1000)
  console.log(`
Demo learner ready in ${seconds} s: ${DEMO_ACCOUNT.email} / ${DEMO_ACCOUNT.password}
  ${demo.cards.toLocaleString('en')} cards (${demo.media} images and sounds), ${(demo.answers.inBulk + demo.answers.throughService).toLocaleString('en')} answers on ${demo.days.studied} days since ${demo.days.first},
  parameters fitted to ${Number(demo.fit.items).toLocaleString('en')} reviews (adopted: ${demo.fit.adopted}), ${demo.dueToday} cards to study today.

Start the service with \`npm start\`, open ${base}/ and log in, or in another terminal:

  curl -s -X POST ${base}/api/get-stats -H 'Content-Type: application/json' -d '{"jwtToken":"${demo.jwtToken}"}'

The token is valid for 7 days; log in for a fresh one:

  curl -s -X POST ${base}/api/login -H 'Content-Type: application/json' -d '{"email":"${DEMO_ACCOUNT.email}","password":"${DEMO_ACCOUNT.password}"}'
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

process.on('unhandledRejection', (error) => {
  console.error(error instanceof ConfigError ? error.message : error)
  process.exit(1)
})
