// A deck too large to delete in one transaction (an Anki import of 100,000 cards) is deleted a
// batch of cards at a time, each batch its own transaction, then the deck itself: every card, its
// search pages and its share of the quota go, and no transaction removes more than a batch.
import { Writable } from 'node:stream'
import type { FastifyInstance } from 'fastify'
import { MongoClient, type CommandStartedEvent } from 'mongodb'
import { test } from 'tap'
import { buildApp } from '../../src/app.js'
import { buildTestApp, databaseOf, expectOk, makeDeck, post, registerUser, TEST_SECRET, testDatabaseUrl, type TestUser } from '../helpers/app.js'

/** Adds `count` cards to a flashcard, 1,000 to a request. */
async function fill (app: FastifyInstance, user: TestUser, flashcardID: string, count: number): Promise<void> {
  for (let start = 0; start < count; start += 1000) {
    await expectOk(app, 'add-cards', { jwtToken: user.jwtToken, flashcardID, cards: Array.from({ length: Math.min(1000, count - start) }, (_, index) => ({ front: `w ${start + index}`, back: 'm' })) }, 201)
  }
}

/** Waits until `test` holds, at most 60 s. */
async function until (test: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 60_000
  while (!await test()) {
    if (Date.now() > deadline) throw new Error('the deletion did not end within 60 s')
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** How many cards' removals the app sends to the database from now on (each batch of a thinning is one). */
function cardRemovals (t: { teardown: (fn: () => unknown) => void }, app: FastifyInstance): { count: number } {
  const seen = { count: 0 }
  const watch = (event: CommandStartedEvent): void => {
    if (event.commandName === 'delete' && event.command.delete === 'cards') seen.count += 1
  }
  app.databaseClient.on('commandStarted', watch)
  t.teardown(() => { app.databaseClient.off('commandStarted', watch) })
  return seen
}

test('delete-flashcard and delete-folder of decks of 5,000 cards: removed 500 cards to a transaction, every card, page and count gone', async (t) => {
  const app = await buildTestApp(t, import.meta.filename, { monitorCommands: true })
  const user = await registerUser(app)
  const call = async <T>(operation: string, body: object, status = 200): Promise<T> => await expectOk<T>(app, operation, { jwtToken: user.jwtToken, ...body }, status)
  const big = await makeDeck(app, user, { folder: ['Imported'], name: 'Big', cards: 0 })
  const other = await makeDeck(app, user, { folder: ['Imported', 'Sub'], name: 'Other', cards: 0 })
  const kept = await makeDeck(app, user, { folder: ['Kept'], name: 'Small', cards: 3 })
  await fill(app, user, big.flashcardID, 5000)
  await fill(app, user, other.flashcardID, 5000)
  const db = databaseOf(app)
  const usage = async (): Promise<number> => ((await db.collection('users').findOne({ _id: user.userID as never }))?.usage as { cards: number }).cards
  t.equal(await usage(), 10_003)

  const removals: number[] = []
  const watch = (event: CommandStartedEvent): void => {
    if (event.commandName !== 'delete' || event.command.delete !== 'cards') return
    for (const one of event.command.deletes as Array<{ q: { _id?: { $in?: unknown[] } } }>) removals.push(one.q._id?.$in?.length ?? Infinity)
  }
  app.databaseClient.on('commandStarted', watch)
  t.teardown(() => { app.databaseClient.off('commandStarted', watch) })

  t.match(await call('delete-flashcard', { flashcardID: big.flashcardID }), { cards: '5000' })
  // a batch is removed by its ids; what is left, at most a batch, with the deck in its transaction
  t.ok(removals.filter((count) => count <= 500).length >= 2, `batches of at most 500 cards first (${removals.join(', ')})`)
  t.equal(removals.filter((count) => count > 500).length, 1, 'then the deck\'s remainder, once')
  t.ok((removals.at(-1) as number) > 500, 'last')
  t.equal(await db.collection('cards').countDocuments({ flashcardID: big.flashcardID }), 0, 'every card gone')
  t.equal(await db.collection('cardStates').countDocuments({ flashcardID: big.flashcardID }), 0, 'and every card\'s state')
  t.equal(await db.collection('searchPages').countDocuments({ flashcardID: big.flashcardID }), 0, 'its search pages gone')
  t.equal(await usage(), 5003, 'the quota given back')

  removals.length = 0
  const { folders } = await call<{ folders: Array<{ folderID: string, name: string }> }>('get-library', {})
  t.match(await call('delete-folder', { folderID: folders.find((folder) => folder.name === 'Imported')?.folderID }), { cards: '5000', flashcards: '1', folders: '2' })
  t.ok(removals.filter((count) => count <= 500).length >= 2 && removals.filter((count) => count > 500).length === 1, `a folder's decks too, a batch at a time (${removals.join(', ')})`)
  t.equal(await db.collection('cards').countDocuments({ userID: user.userID }), 3, 'the other deck\'s cards kept')
  t.equal(await db.collection('cardStates').countDocuments({ userID: user.userID }), 3, 'with their states')
  t.equal(await usage(), 3)

  // a folder of many decks, each small, together past a batch
  for (const name of ['A', 'B', 'C']) {
    const deck = await makeDeck(app, user, { folder: ['Many'], name, cards: 0 })
    await call('add-cards', { flashcardID: deck.flashcardID, cards: Array.from({ length: 1000 }, (_, index) => ({ front: `${name} ${index}`, back: 'x' })) }, 201)
  }
  removals.length = 0
  const many = (await call<{ folders: Array<{ folderID: string, name: string }> }>('get-library', {})).folders.find((folder) => folder.name === 'Many')
  t.match(await call('delete-folder', { folderID: many?.folderID }), { cards: '3000', flashcards: '3' })
  t.ok(removals.filter((count) => count <= 500).length >= 2, `decks of 1,000 cards each, 3,000 together: batches first (${removals.join(', ')})`)
  t.equal(await usage(), 3)
  t.equal((await call<{ cards: unknown[] }>('get-flashcard', { flashcardID: kept.flashcardID })).cards.length, 3)
})

test('a deletion past one transaction answers within its wait, the rest going on behind the answer; a small one answers when done', async (t) => {
  // no wait at all: every deletion past a batch answers before it is over
  const app = await buildTestApp(t, import.meta.filename, { largeDeletions: { waitMs: 0 } })
  const user = await registerUser(app)
  const call = async <T>(operation: string, body: object, status = 200): Promise<T> => await expectOk<T>(app, operation, { jwtToken: user.jwtToken, ...body }, status)
  const db = databaseOf(app)
  const usage = async (): Promise<number> => ((await db.collection('users').findOne({ _id: user.userID as never }))?.usage as { cards: number }).cards

  const big = await makeDeck(app, user, { folder: ['Imported'], name: 'Big', cards: 0 })
  await fill(app, user, big.flashcardID, 1500)
  const answer = await call<Record<string, string>>('delete-flashcard', { flashcardID: big.flashcardID })
  t.same(answer, { flashcardID: big.flashcardID, cards: '1500', underWay: 'true' }, 'answered with what is being deleted, under way')
  await until(async () => await db.collection('cards').countDocuments({ flashcardID: big.flashcardID }) === 0 &&
    !JSON.stringify(await call('get-library', {})).includes(big.flashcardID))
  t.equal(await usage(), 0, 'every card, then the deck, gone behind the answer; the quota given back')

  const small = await makeDeck(app, user, { folder: ['Imported'], name: 'Small', cards: 0 })
  await fill(app, user, small.flashcardID, 500)
  t.same(await call('delete-flashcard', { flashcardID: small.flashcardID }), { flashcardID: small.flashcardID, cards: '500' }, 'one transaction: answered done')
  t.equal(await db.collection('cards').countDocuments({ flashcardID: small.flashcardID }), 0)

  const first = await makeDeck(app, user, { folder: ['Many', 'A'], name: 'First', cards: 0 })
  const second = await makeDeck(app, user, { folder: ['Many'], name: 'Second', cards: 0 })
  await fill(app, user, first.flashcardID, 700)
  await fill(app, user, second.flashcardID, 600)
  const many = (await call<{ folders: Array<{ folderID: string, name: string }> }>('get-library', {})).folders.find((folder) => folder.name === 'Many')
  t.same(await call('delete-folder', { folderID: many?.folderID }), { folderID: many?.folderID, folders: '2', flashcards: '2', cards: '1300', underWay: 'true' })
  await until(async () => !(await call<{ folders: Array<{ name: string }> }>('get-library', {})).folders.some((folder) => folder.name === 'Many'))
  t.equal(await db.collection('cards').countDocuments({ userID: user.userID }), 0)
  t.equal(await db.collection('cardStates').countDocuments({ userID: user.userID }), 0)
  t.equal(await usage(), 0)

  // refused before anything is deleted, and answered so
  await call('delete-folder', { folderID: many?.folderID }, 404)
  await call('delete-flashcard', { flashcardID: big.flashcardID }, 404)
})

test('closing stops a deletion going on behind its answer after a batch: what it deleted stays deleted, counted out of the quota, the rest kept whole', async (t) => {
  const url = testDatabaseUrl(import.meta.filename)
  const app = await buildApp({ mongodbUrl: url, jwtSecret: TEST_SECRET, largeDeletions: { waitMs: 0 } })
  await app.ready()
  const client = new MongoClient(url)
  await client.connect()
  t.teardown(async () => {
    await client.db().dropDatabase().catch(() => {})
    await client.close()
  })
  const user = await registerUser(app)
  const deck = await makeDeck(app, user, { folder: ['Imported'], name: 'Big', cards: 0 })
  for (let start = 0; start < 5000; start += 1000) {
    await expectOk(app, 'add-cards', { jwtToken: user.jwtToken, flashcardID: deck.flashcardID, cards: Array.from({ length: 1000 }, (_, index) => ({ front: `w ${start + index}`, back: 'm' })) }, 201)
  }
  t.match(await expectOk(app, 'delete-flashcard', { jwtToken: user.jwtToken, flashcardID: deck.flashcardID }), { cards: '5000', underWay: 'true' })
  await app.close()

  const db = client.db()
  const left = await db.collection('cards').countDocuments({ flashcardID: deck.flashcardID })
  const account = await db.collection<{ _id: string, usage: { cards: number } }>('users').findOne({ _id: user.userID })
  t.equal(account?.usage.cards, left, `the quota counts the ${left} cards left, no more, no less`)
  const tree = JSON.stringify(await db.collection('trees').findOne({ _id: user.userID as never }))
  t.equal(tree.includes(deck.flashcardID), left > 0, 'the deck is there while cards of it are, and gone only with the last')
})

test('two instances on one database: a deletion under way on one, asked of the other, is waited on there, never begun twice nor answered 404', async (t) => {
  const url = testDatabaseUrl(import.meta.filename)
  // the first answers at once, its deletion going on behind; the others are asked while it goes on
  const first = await buildTestApp(t, import.meta.filename, { mongodbUrl: url, largeDeletions: { waitMs: 0 } })
  const answersAtOnce = await buildTestApp(t, import.meta.filename, { mongodbUrl: url, largeDeletions: { waitMs: 0 }, monitorCommands: true })
  const waitsLong = await buildTestApp(t, import.meta.filename, { mongodbUrl: url, largeDeletions: { waitMs: 120_000 }, monitorCommands: true })
  const user = await registerUser(first)
  const db = databaseOf(first)
  const usage = async (): Promise<number> => ((await db.collection('users').findOne({ _id: user.userID as never }))?.usage as { cards: number }).cards
  const library = async (): Promise<string> => JSON.stringify(await expectOk(first, 'get-library', { jwtToken: user.jwtToken }))
  const kept = await makeDeck(first, user, { folder: ['Kept'], name: 'Small', cards: 3 })
  const removalsElsewhere = [cardRemovals(t, answersAtOnce), cardRemovals(t, waitsLong)]

  const big = await makeDeck(first, user, { folder: ['Imported'], name: 'Big', cards: 0 })
  await fill(first, user, big.flashcardID, 5000)
  t.same(await expectOk(first, 'delete-flashcard', { jwtToken: user.jwtToken, flashcardID: big.flashcardID }),
    { flashcardID: big.flashcardID, cards: '5000', underWay: 'true' }, 'the first instance answers at once, deleting behind its answer')
  t.same(await expectOk(waitsLong, 'delete-flashcard', { jwtToken: user.jwtToken, flashcardID: big.flashcardID }),
    { flashcardID: big.flashcardID, cards: '5000' }, 'the other, waiting long enough, answers the end of that deletion: all of it, not 404')
  t.equal(await db.collection('cards').countDocuments({ flashcardID: big.flashcardID }), 0, 'every card gone')
  t.equal(await db.collection('cardStates').countDocuments({ flashcardID: big.flashcardID }), 0, 'and every card\'s state')
  t.notOk((await library()).includes(big.flashcardID), 'and the deck')
  t.equal(await usage(), 3, 'the quota counts the cards kept, each deleted card counted out once')

  const heap = await makeDeck(first, user, { folder: ['Heap'], name: 'A', cards: 0 })
  const other = await makeDeck(first, user, { folder: ['Heap'], name: 'B', cards: 0 })
  await fill(first, user, heap.flashcardID, 3000)
  await fill(first, user, other.flashcardID, 2000)
  const folderID = (await expectOk<{ folders: Array<{ folderID: string, name: string }> }>(first, 'get-library', { jwtToken: user.jwtToken }))
    .folders.find((folder) => folder.name === 'Heap')?.folderID
  t.same(await expectOk(first, 'delete-folder', { jwtToken: user.jwtToken, folderID }), { folderID, folders: '1', flashcards: '2', cards: '5000', underWay: 'true' })
  const again = await post(answersAtOnce, 'delete-folder', { jwtToken: user.jwtToken, folderID })
  t.equal(again.statusCode, 200, `the other instance answers, not 404 (${again.body})`)
  const answer = again.json<Record<string, string>>()
  t.ok(answer.underWay === 'true' ? Number(answer.cards) <= 5000 : answer.cards === '5000', `under way with the cards left, or its end (${again.body})`)
  t.match(answer, { folderID, folders: '1', flashcards: '2' })
  await until(async () => !(await library()).includes(folderID as string))
  t.equal(await db.collection('cards').countDocuments({ userID: user.userID }), 3, 'every card of the folder gone, the kept deck\'s kept')
  t.equal(await usage(), 3)
  t.same(removalsElsewhere.map((seen) => seen.count), [0, 0], 'the instances that were asked again removed no card: one thinning, the first instance\'s')
  t.equal((await expectOk<{ cards: unknown[] }>(first, 'get-flashcard', { jwtToken: user.jwtToken, flashcardID: kept.flashcardID })).cards.length, 3)
})

test('a deletion whose instance died: its record, once past, is taken over; while it lasts, it is waited on', async (t) => {
  const app = await buildTestApp(t, import.meta.filename, { largeDeletions: { waitMs: 60_000 } })
  const user = await registerUser(app)
  const db = databaseOf(app)
  const leases = db.collection<{ _id: string, userID: string, holder: string, until: Date, answer?: Record<string, string> }>('deletionLeases')
  const usage = async (): Promise<number> => ((await db.collection('users').findOne({ _id: user.userID as never }))?.usage as { cards: number }).cards

  // what an instance killed midway leaves: its record, no longer renewed, and the deck with fewer cards
  const past = await makeDeck(app, user, { folder: ['Imported'], name: 'Past', cards: 0 })
  await fill(app, user, past.flashcardID, 1500)
  await leases.insertOne({ _id: `${user.userID}/${past.flashcardID}`, userID: user.userID, holder: 'a killed instance', until: new Date(Date.now() - 1000) })
  t.same(await expectOk(app, 'delete-flashcard', { jwtToken: user.jwtToken, flashcardID: past.flashcardID }), { flashcardID: past.flashcardID, cards: '1500' },
    'a record past its time does not hold the deletion up')
  t.equal(await db.collection('cards').countDocuments({ flashcardID: past.flashcardID }), 0)

  const held = await makeDeck(app, user, { folder: ['Imported'], name: 'Held', cards: 0 })
  await fill(app, user, held.flashcardID, 1500)
  const runsOut = Date.now() + 1500
  await leases.insertOne({ _id: `${user.userID}/${held.flashcardID}`, userID: user.userID, holder: 'a killed instance', until: new Date(runsOut) })
  t.same(await expectOk(app, 'delete-flashcard', { jwtToken: user.jwtToken, flashcardID: held.flashcardID }), { flashcardID: held.flashcardID, cards: '1500' },
    'a record still in its time is waited on, then taken over')
  t.ok(Date.now() >= runsOut, 'not before it ran out')
  t.equal(await db.collection('cards').countDocuments({ flashcardID: held.flashcardID }), 0)
  t.match(await leases.findOne({ _id: `${user.userID}/${held.flashcardID}` }), { answer: { flashcardID: held.flashcardID, cards: '1500' } }, 'ended with its answer')
  t.equal(await usage(), 0)
  await expectOk(app, 'delete-flashcard', { jwtToken: user.jwtToken, flashcardID: held.flashcardID }, 404)
})

test('a deletion that fails is logged once: as the answer of a request waiting for it, or as a failure behind its answer', async (t) => {
  const lines: string[] = []
  const logStream = new Writable({ write (line: Buffer, _encoding, done) { lines.push(line.toString()); done() } })
  const url = testDatabaseUrl(import.meta.filename)
  const patient = await buildTestApp(t, import.meta.filename, { mongodbUrl: url, largeDeletions: { waitMs: 60_000 }, logger: { level: 'warn', stream: logStream } })
  const hasty = await buildTestApp(t, import.meta.filename, { mongodbUrl: url, largeDeletions: { waitMs: 0 }, logger: { level: 'warn', stream: logStream } })
  const user = await registerUser(patient)
  const db = databaseOf(patient)
  const deck = await makeDeck(patient, user, { folder: ['Imported'], name: 'Big', cards: 0 })
  await fill(patient, user, deck.flashcardID, 1500)
  // the account may no longer count fewer cards: the first batch of the deletion fails, as a write the database refuses
  await db.command({ collMod: 'users', validator: { 'usage.cards': { $gte: 1500 } } })
  const failures = (): string[] => lines.filter((line) => line.includes('Document failed validation'))

  const answered = await post(patient, 'delete-flashcard', { jwtToken: user.jwtToken, flashcardID: deck.flashcardID })
  t.equal(answered.statusCode, 500, 'failed within its wait: the answer is the failure')
  t.equal(failures().length, 1, `logged once, with its request (${failures().map((line) => (JSON.parse(line) as { msg: string }).msg).join('; ')})`)

  lines.length = 0
  t.match(await expectOk(hasty, 'delete-flashcard', { jwtToken: user.jwtToken, flashcardID: deck.flashcardID }), { cards: '1500', underWay: 'true' })
  await until(async () => failures().length > 0)
  t.match(failures().map((line) => JSON.parse(line) as { msg: string }), [{ msg: /deletion going on behind its answer failed/ }], 'failed behind its answer: logged as such, once')

  await db.command({ collMod: 'users', validator: {} })
  t.same(await expectOk(patient, 'delete-flashcard', { jwtToken: user.jwtToken, flashcardID: deck.flashcardID }), { flashcardID: deck.flashcardID, cards: '1500' },
    'what failed is deleted when asked again')
})
