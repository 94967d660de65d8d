import { test } from 'tap'
import type { CommandStartedEvent } from 'mongodb'
import { buildTestApp, makeDeck, post, registerUser } from '../helpers/app.js'

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
  await makeDeck(app, user, { folder: ['Spanish'], name: 'Spanish', cards: 5 })

  const sent: CommandStartedEvent[] = []
  app.databaseClient.on('commandStarted', (event) => sent.push(event))

  await t.test('get-today-cards: one database call in the header per query sent', async (t) => {
    sent.length = 0
    const response = await post(app, 'get-today-cards', { jwtToken: user.jwtToken })
    t.equal(response.statusCode, 200)
    t.same(Object.keys(response.json()), ['Spanish'], 'the tree itself is unchanged')
    const timing = serverTiming(response.headers['server-timing'])
    // the account, the tree, and the windows of the queues (how many depends on where the cards lie)
    t.ok(timing.calls >= 3, `${timing.calls} calls`)
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
    const callsOf = async (jwtToken: string): Promise<number> => serverTiming((await post(app, 'get-today-cards', { jwtToken })).headers['server-timing']).calls
    // each alone first (a queue's first read may widen its windows): then the calls each makes every time
    for (const jwtToken of [user.jwtToken, other.jwtToken, user.jwtToken, other.jwtToken]) await callsOf(jwtToken)
    const [mine, theirs] = [await callsOf(user.jwtToken), await callsOf(other.jwtToken)]
    t.not(mine, theirs, 'the two users make different numbers of calls')
    const answers = await Promise.all([
      ...Array.from({ length: 5 }, async () => await callsOf(user.jwtToken)),
      ...Array.from({ length: 5 }, async () => await callsOf(other.jwtToken))
    ])
    t.same(answers, [...Array(5).fill(mine), ...Array(5).fill(theirs)], 'side by side, each counts its own calls only')
  })
})
