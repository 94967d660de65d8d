// A deck too large to delete in one transaction (an Anki import of 100,000 cards) is deleted a
// batch of cards at a time, each batch its own transaction, then the deck itself: every card, its
// search pages and its share of the quota go, and no transaction removes more than a batch.
import { MongoClient, type CommandStartedEvent } from 'mongodb'
import { test } from 'tap'
import { buildApp } from '../../src/app.js'
import { buildTestApp, databaseOf, expectOk, makeDeck, registerUser, TEST_SECRET, testDatabaseUrl } from '../helpers/app.js'

test('delete-flashcard and delete-folder of decks of 5,000 cards: removed 500 cards to a transaction, every card, page and count gone', async (t) => {
  const app = await buildTestApp(t, import.meta.filename, { monitorCommands: true })
  const user = await registerUser(app)
  const call = async <T>(operation: string, body: object, status = 200): Promise<T> => await expectOk<T>(app, operation, { jwtToken: user.jwtToken, ...body }, status)
  const fill = async (flashcardID: string): Promise<void> => {
    for (let request = 0; request < 5; request++) {
      await call('add-cards', { flashcardID, cards: Array.from({ length: 1000 }, (_, index) => ({ front: `word ${request}-${index}`, back: 'meaning' })) }, 201)
    }
  }
  const big = await makeDeck(app, user, { folder: ['Imported'], name: 'Big', cards: 0 })
  const other = await makeDeck(app, user, { folder: ['Imported', 'Sub'], name: 'Other', cards: 0 })
  const kept = await makeDeck(app, user, { folder: ['Kept'], name: 'Small', cards: 3 })
  await fill(big.flashcardID)
  await fill(other.flashcardID)
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
  t.equal(await db.collection('searchPages').countDocuments({ flashcardID: big.flashcardID }), 0, 'its search pages gone')
  t.equal(await usage(), 5003, 'the quota given back')

  removals.length = 0
  const { folders } = await call<{ folders: Array<{ folderID: string, name: string }> }>('get-library', {})
  t.match(await call('delete-folder', { folderID: folders.find((folder) => folder.name === 'Imported')?.folderID }), { cards: '5000', flashcards: '1', folders: '2' })
  t.ok(removals.filter((count) => count <= 500).length >= 2 && removals.filter((count) => count > 500).length === 1, `a folder's decks too, a batch at a time (${removals.join(', ')})`)
  t.equal(await db.collection('cards').countDocuments({ userID: user.userID }), 3, 'the other deck\'s cards kept')
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
  const fill = async (flashcardID: string, count: number): Promise<void> => {
    for (let start = 0; start < count; start += 1000) {
      await call('add-cards', { flashcardID, cards: Array.from({ length: Math.min(1000, count - start) }, (_, index) => ({ front: `w ${start + index}`, back: 'm' })) }, 201)
    }
  }
  const gone = async (test: () => Promise<boolean>): Promise<void> => {
    const deadline = Date.now() + 60_000
    while (!await test()) {
      if (Date.now() > deadline) throw new Error('the deletion did not end within 60 s')
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }

  const big = await makeDeck(app, user, { folder: ['Imported'], name: 'Big', cards: 0 })
  await fill(big.flashcardID, 1500)
  const answer = await call<Record<string, string>>('delete-flashcard', { flashcardID: big.flashcardID })
  t.same(answer, { flashcardID: big.flashcardID, cards: '1500', underWay: 'true' }, 'answered with what is being deleted, under way')
  await gone(async () => await db.collection('cards').countDocuments({ flashcardID: big.flashcardID }) === 0 &&
    !JSON.stringify(await call('get-library', {})).includes(big.flashcardID))
  t.equal(await usage(), 0, 'every card, then the deck, gone behind the answer; the quota given back')

  const small = await makeDeck(app, user, { folder: ['Imported'], name: 'Small', cards: 0 })
  await fill(small.flashcardID, 500)
  t.same(await call('delete-flashcard', { flashcardID: small.flashcardID }), { flashcardID: small.flashcardID, cards: '500' }, 'one transaction: answered done')
  t.equal(await db.collection('cards').countDocuments({ flashcardID: small.flashcardID }), 0)

  const first = await makeDeck(app, user, { folder: ['Many', 'A'], name: 'First', cards: 0 })
  const second = await makeDeck(app, user, { folder: ['Many'], name: 'Second', cards: 0 })
  await fill(first.flashcardID, 700)
  await fill(second.flashcardID, 600)
  const many = (await call<{ folders: Array<{ folderID: string, name: string }> }>('get-library', {})).folders.find((folder) => folder.name === 'Many')
  t.same(await call('delete-folder', { folderID: many?.folderID }), { folderID: many?.folderID, folders: '2', flashcards: '2', cards: '1300', underWay: 'true' })
  await gone(async () => !(await call<{ folders: Array<{ name: string }> }>('get-library', {})).folders.some((folder) => folder.name === 'Many'))
  t.equal(await db.collection('cards').countDocuments({ userID: user.userID }), 0)
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
