// What browse-cards costs on a library of 100,000 cards, in process: one user
// (20,000 reviewed, 2,000 of them due, 80,000 new; one card suspended, none
// flagged or buried), seeded as the benchmark seeds (data.ts), on the embedded
// database unless MONGODB_URL names one. Each shape of the request is timed
// through app.inject (PROBE_SAMPLES runs, the median), and every read it sends
// is explained (executionStats): the index it used and what it examined.
// For comparing one version of the code with another on this machine.
import { loadavg } from 'node:os'
import type { CommandStartedEvent, CommandSucceededEvent, Document } from 'mongodb'
import { buildApp } from '../../src/app.js'
import { searchTextOf } from '../../src/domain/search-text.js'
import type { CardDocument } from '../../src/repositories/cards.js'
import { ensureIndexes } from '../../src/repositories/indexes.js'
import { searchPagesRepository } from '../../src/repositories/search-pages.js'
import { JWT_SECRET, probeDatabase } from './common.js'
import { PASSWORD, seedUsers, type UserProfile } from './data.js'
import { summarise } from './explain.js'
import { percentile } from './load.js'

const SAMPLES = Number(process.env.PROBE_SAMPLES ?? 7)
// PROBE_EXPLAIN=0 leaves explain out (each read's own time is still shown); PROBE_ONLY=word times only the shapes named with it
const EXPLAIN = process.env.PROBE_EXPLAIN !== '0'
const ONLY = process.env.PROBE_ONLY
const ENVELOPE = new Set(['lsid', 'txnNumber', 'autocommit', 'startTransaction', 'writeConcern', 'readConcern', 'apiVersion', 'apiStrict', 'apiDeprecationErrors'])

const PROFILE: UserProfile = {
  label: 'browse-100k',
  email: 'bench-browse-100k@example.com',
  timezone: 'Europe/Berlin',
  cards: 100_000,
  due: 2000,
  newCards: 80_000,
  folderShape: [4, 5],
  flashcards: 100,
  historyDays: 0,
  historyReviewsPerDay: 0,
  goals: []
}

const database = await probeDatabase(`probe_browse_${Date.now()}`)
const app = await buildApp({
  mongodbUrl: database.url,
  jwtSecret: JWT_SECRET,
  attemptLimits: { perAddress: 100_000, perAccount: 100_000, windowMs: 60_000 },
  loadShedding: { maxInFlight: 100_000, maxInFlightPerUser: 100_000 },
  monitorCommands: true
})
await app.ready()
const db = app.databaseClient.db()
const log = (line: string): void => { process.stderr.write(`${line}\n`) }

try {
  const { users: [seeded] } = await seedUsers(app, db, [PROFILE], log)
  if (seeded === undefined) throw new Error('nothing seeded')
  const { userID } = seeded
  const started = performance.now()
  const pages = searchPagesRepository(db)
  const byFlashcard = new Map<string, CardDocument[]>()
  for await (const card of db.collection<CardDocument>('cards').find({ userID })) {
    byFlashcard.set(card.flashcardID, [...byFlashcard.get(card.flashcardID) ?? [], card])
  }
  for (const [flashcardID, cards] of byFlashcard) await pages.add(userID, flashcardID, cards.map((card) => ({ cardID: card._id, text: searchTextOf(card) })))
  log(`  search pages in ${((performance.now() - started) / 1000).toFixed(1)} s`)

  const call = async (operation: string, body: object): Promise<Record<string, unknown>> => {
    const response = await app.inject({ method: 'POST', url: `/api/${operation}`, payload: body })
    if (response.statusCode !== 200) throw new Error(`${operation}: ${response.statusCode} ${response.body}`)
    return response.json()
  }
  const { jwtToken } = await call('login', { email: PROFILE.email, password: PASSWORD }) as { jwtToken: string }
  const someReview = await db.collection<CardDocument>('cardStates').findOne({ userID, state: 2 })
  const someNew = await db.collection<CardDocument>('cardStates').findOne({ userID, state: 0 }, { skip: 50_000 })
  if (someReview === null || someNew === null) throw new Error('no review or new card')
  await call('set-card-standing', { jwtToken, action: 'suspend', cards: [{ flashcardID: someReview.flashcardID, cardID: someReview._id }] })
  const folderID = (await db.collection('trees').findOne({ _id: userID as never }) as Document).folders[0].folders[0].id as string

  const shapes: Array<[string, Record<string, unknown>]> = [
    ['created asc', {}],
    ['created desc', { order: 'desc' }],
    ['one deck', { flashcardID: someNew.flashcardID }],
    ['one folder (5 decks)', { folderID }],
    ['due asc', { sort: 'due' }],
    ['due desc', { sort: 'due', order: 'desc' }],
    ['new, created', { standing: 'new' }],
    ['new, due', { standing: 'new', sort: 'due' }],
    ['review, due', { standing: 'review', sort: 'due' }],
    ['learning, due', { standing: 'learning', sort: 'due' }],
    ['suspended (1)', { standing: 'suspended' }],
    ['suspended (1), due', { standing: 'suspended', sort: 'due' }],
    ['flagged (0)', { standing: 'flagged' }],
    ['flagged (0), due desc', { standing: 'flagged', sort: 'due', order: 'desc' }],
    ['buried (0)', { standing: 'buried' }],
    ['query "term 1"', { query: 'term 1' }],
    ['query "term 1", due', { query: 'term 1', sort: 'due' }]
  ]
  const client = app.databaseClient
  if (process.env.PROBE_INDEX !== undefined) {
    // how long an existing database takes to build one index of the cards at its first start with it
    const cards = db.collection('cards')
    await cards.dropIndex(process.env.PROBE_INDEX)
    const at = performance.now()
    await ensureIndexes(db)
    log(`${process.env.PROBE_INDEX} built over 100,000 cards in ${((performance.now() - at) / 1000).toFixed(1)} s`)
  }
  log(`load average ${loadavg().map((load) => load.toFixed(2)).join(' ')}`)
  for (const [label, body] of shapes) {
    if (ONLY !== undefined && !ONLY.split(',').some((word) => label.includes(word))) continue
    const first = await call('browse-cards', { jwtToken, ...body }) as { cards: unknown[], total: string, nextCursor?: string }
    const timeOf = async (extra: object): Promise<number> => {
      const times: number[] = []
      for (let n = 0; n < SAMPLES; n++) {
        const at = performance.now()
        await call('browse-cards', { jwtToken, ...body, ...extra })
        times.push(performance.now() - at)
      }
      return percentile(times, 0.5)
    }
    const firstMs = await timeOf({})
    const nextMs = first.nextCursor === undefined ? null : await timeOf({ cursor: first.nextCursor })
    const sent: CommandStartedEvent[] = []
    const took = new Map<number, number>()
    const listen = (event: CommandStartedEvent): void => { if (event.databaseName === db.databaseName) sent.push(event) }
    const done = (event: CommandSucceededEvent): void => { took.set(event.requestId, event.duration) }
    client.on('commandStarted', listen)
    client.on('commandSucceeded', done)
    try {
      await call('browse-cards', { jwtToken, ...body })
    } finally {
      client.off('commandStarted', listen)
      client.off('commandSucceeded', done)
    }
    const reads: string[] = []
    for (const event of sent.filter((event) => ['find', 'aggregate', 'count'].includes(event.commandName) && ['cards', 'cardStates'].includes(String(event.command[event.commandName])))) {
      const command: Document = {}
      for (const [key, value] of Object.entries(event.command)) if (!key.startsWith('$') && !ENVELOPE.has(key)) command[key] = value
      const ms = `${(took.get(event.requestId) ?? NaN).toFixed(0)} ms`
      if (!EXPLAIN) {
        reads.push(`${event.commandName} ${ms}`)
        continue
      }
      const row = summarise(await db.command({ explain: command, verbosity: 'executionStats' }))
      reads.push(`${event.commandName} ${ms} ${row.indexes.join('+') || row.plan} keys ${row.keysExamined} docs ${row.docsExamined} returned ${row.returned}`)
    }
    process.stdout.write(`${label.padEnd(24)} total ${first.total.padStart(6)} rows ${String(first.cards.length).padStart(3)}  first ${firstMs.toFixed(0).padStart(5)} ms  next ${nextMs === null ? '    -' : nextMs.toFixed(0).padStart(5)} ms\n`)
    for (const read of reads) process.stdout.write(`    ${read}\n`)
  }
  log(`load average ${loadavg().map((load) => load.toFixed(2)).join(' ')}`)
} finally {
  await db.dropDatabase().catch(() => {})
  await app.close()
  await database.stop()
}
