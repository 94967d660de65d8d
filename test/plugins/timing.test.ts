import { test } from 'tap'
import type { CommandStartedEvent } from 'mongodb'
import { buildTestApp, flashcardOf, post, registerUser } from '../helpers/app.js'

const HEADER = /^db;dur=(\d+\.\d{3});desc="(\d+) calls", app;dur=(\d+\.\d{3}), total;dur=(\d+\.\d{3})$/

interface Timing { db: number, calls: number, app: number, total: number }

function serverTiming (header: unknown): Timing {
  const match = typeof header === 'string' ? HEADER.exec(header) : null
  if (match === null) throw new Error(`no Server-Timing header of the expected form: ${String(header)}`)
  const [, db, calls, app, total] = match.map(Number)
  return { db: db as number, calls: calls as number, app: app as number, total: total as number }
}

test('Server-Timing splits each answer into database and application time', async (t) => {
  // command events on, so the test can count what actually went to the server
  const app = await buildTestApp(t, import.meta.filename, { monitorCommands: true })
  const user = await registerUser(app)
  await flashcardOf(app, user, 'Spanish', 5)

  const sent: CommandStartedEvent[] = []
  app.databaseClient.on('commandStarted', (event) => sent.push(event))

  await t.test('get-today-cards: four database calls, one per query sent', async (t) => {
    sent.length = 0
    const response = await post(app, 'get-today-cards', { jwtToken: user.jwtToken })
    t.equal(response.statusCode, 200)
    t.same(Object.keys(response.json()), ['Spanish'], 'the tree itself is unchanged')
    const timing = serverTiming(response.headers['server-timing'])
    t.equal(timing.calls, 4, 'the account; then side by side the due cards, the new cards, the folders and flashcards')
    t.equal(sent.length, timing.calls, 'the header counts the commands the server received')
    t.ok(timing.db > 0, 'database time is measured')
    t.ok(Math.abs(timing.db + timing.app - timing.total) <= 0.002, 'db + app = total (to rounding)')
  })

  await t.test('a refusal before any query reports no database time', async (t) => {
    sent.length = 0
    const response = await post(app, 'get-today-cards', { jwtToken: 42 })
    t.equal(response.statusCode, 400)
    const timing = serverTiming(response.headers['server-timing'])
    t.equal(timing.calls, 0)
    t.equal(timing.db, 0)
    t.equal(sent.length, 0)
    t.equal(timing.app, timing.total)
  })

  await t.test('requests running side by side keep their own counts', async (t) => {
    const other = await registerUser(app)
    const answers = await Promise.all([
      ...Array.from({ length: 5 }, async () => await post(app, 'get-today-cards', { jwtToken: user.jwtToken })),
      ...Array.from({ length: 5 }, async () => await post(app, 'get-today-cards', { jwtToken: other.jwtToken }))
    ])
    // the user without cards makes the same calls: the tree is read alongside the cards
    t.same(answers.map((response) => serverTiming(response.headers['server-timing']).calls), [4, 4, 4, 4, 4, 4, 4, 4, 4, 4])
  })
})
