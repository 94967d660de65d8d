// A deck too large to delete in one transaction (an Anki import of 100,000 cards) is deleted a
// batch of cards at a time, each batch its own transaction, then the deck itself: every card, its
// search pages and its share of the quota go, and no transaction removes more than a batch.
import type { CommandStartedEvent } from 'mongodb'
import { test } from 'tap'
import { buildTestApp, databaseOf, expectOk, makeDeck, registerUser } from '../helpers/app.js'

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
