// Migration 7 (card-states-apart): each card's learner's state, which an earlier version kept in the
// card's own document, moves to `cardStates` under the card's id, with the copies the queues read;
// the cards keep their content only, and the service reads them as before.
import type { Db, Document } from 'mongodb'
import { test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { buildApp } from '../../src/app.js'
import { BURIED, SUSPENDED } from '../../src/domain/card-states.js'
import { CardState } from '../../src/domain/scheduling.js'
import { STATE_COPIES, STATE_FIELDS, splitCard } from '../../src/repositories/card-states.js'
import type { CardDocument } from '../../src/repositories/cards.js'
import { MIGRATIONS } from '../../src/repositories/migrations.js'
import { newCards } from '../../src/services/library.js'
import { expectOk, TEST_SECRET } from '../helpers/app.js'
import { databaseOfItsOwn, oldUserWithFlashcard } from '../helpers/old-data.js'
import { storedCards } from '../helpers/stored.js'
import { learner } from '../helpers/today-queues.js'

const DAY = 86_400_000
const now = new Date('2026-04-10T12:00:00Z')

const step = MIGRATIONS.find((migration) => migration.name === 'card-states-apart')

/**
 * The cards of one flashcard as an earlier version stored them, each whole in `cards`: new ones,
 * reviewed ones (some due today, some later), a cloze note's, an Anki note's, and cards suspended,
 * buried (by the user and as a sibling) and flagged.
 */
function oldCards (userID: string, flashcardID: string): CardDocument[] {
  const made = newCards(userID, flashcardID, [
    ...Array.from({ length: 12 }, (_, n) => ({ front: `word ${n}`, back: `answer ${n}` })),
    { cloze: '{{c1::Madrid}} is the capital of {{c2::Spain}}' }
  ], new Date(now.getTime() - 30 * DAY))
  const reviewed = (card: CardDocument, dueInDays: number, n: number): CardDocument => ({
    ...card,
    state: CardState.Review,
    isNew: false,
    due: new Date(now.getTime() + dueInDays * DAY),
    stability: 4 + n,
    difficulty: 5.5,
    elapsedDays: 3,
    scheduledDays: 4 + n,
    reps: 2 + n,
    lapses: n % 2,
    lastReview: new Date(now.getTime() - 5 * DAY),
    version: 2 + n,
    lastReviewID: `review-${n}`
  })
  return made.map((card, n) => {
    switch (n) {
      case 0: case 1: case 2: return reviewed(card, -n, n)
      case 3: return reviewed(card, 10, n)
      case 4: return { ...reviewed(card, -1, n), isNew: SUSPENDED, suspended: true }
      case 5: return { ...card, isNew: BURIED, buriedUntil: new Date(now.getTime() + DAY) }
      case 6: return { ...card, isNew: BURIED, buriedUntil: new Date(now.getTime() + DAY), buriedAsSibling: true, ankiGuid: 'anki-note', ankiOrd: 1 }
      case 7: return { ...card, ankiGuid: 'anki-note', ankiOrd: 0, flag: 3 }
      case 8: return { ...reviewed(card, -2, n), flag: 1 }
      default: return card
    }
  })
}

/** A database of the test's own, as the earlier version left it: one user, their tree, their cards whole in `cards` with the indexes that served the state there. */
async function oldDatabase (t: { teardown: (fn: () => unknown) => void }): Promise<{ db: Db, url: string, userID: string, flashcardID: string, written: CardDocument[] }> {
  const { db, url } = await databaseOfItsOwn(t, import.meta.filename)
  const { userID, flashcardID } = await oldUserWithFlashcard(db)
  const written = oldCards(userID, flashcardID)
  await db.collection<CardDocument>('cards').insertMany(written)
  // the queue's and the flags' indexes, as the earlier version made them on `cards`
  await db.collection('cards').createIndexes([
    { key: { userID: 1, isNew: 1, due: 1, createdOrder: 1 }, name: 'user_queue' },
    { key: { userID: 1, flag: 1 }, name: 'user_flag', partialFilterExpression: { flag: { $exists: true } } }
  ])
  return { db, url, userID, flashcardID, written: [...written].sort((a, b) => a._id < b._id ? -1 : 1) }
}

/** The fields of stored documents that are a card's learner's state. */
function stateFieldsIn (documents: Document[]): string[] {
  return documents.flatMap((document) => STATE_FIELDS.filter((field) => field in document).map((field) => `${String(document._id)}.${field}`))
}

/** Every stored state, and what each written card's state is (its state's fields with its copies of the card's own), both by card id. */
async function statesAndWritten (db: Db, written: readonly CardDocument[]): Promise<[Document[], Document[]]> {
  return [await db.collection('cardStates').find({}).sort({ _id: 1 }).toArray(), written.map((card) => splitCard(card).state)]
}

async function cardIndexes (db: Db): Promise<string[]> {
  return (await db.collection('cards').indexes()).map((index) => String(index.name)).sort()
}

/** Both collections and the indexes of `cards`, to compare before and after a run that must change nothing. */
async function snapshot (db: Db): Promise<string> {
  return JSON.stringify({
    cards: await db.collection('cards').find({}).sort({ _id: 1 }).toArray(),
    cardStates: await db.collection('cardStates').find({}).sort({ _id: 1 }).toArray(),
    indexes: await cardIndexes(db)
  })
}

test('cards that hold their state have it moved to cardStates at start-up; the service reads them as before', async (t) => {
  const { db, url, userID, flashcardID, written } = await oldDatabase(t)

  const app: FastifyInstance = await buildApp({ mongodbUrl: url, jwtSecret: TEST_SECRET, clock: () => now, loadShedding: { maxInFlight: 1000, maxInFlightPerUser: 1000 } })
  await app.ready()
  t.teardown(async () => { await app.close() })

  t.strictSame(...await statesAndWritten(db, written), 'every card\'s state is in cardStates under its id, with its copies of the card\'s own fields')
  t.ok((await db.collection('cardStates').find({}).toArray()).every((state) => STATE_COPIES.every((field) => field === 'clozeNumber' || field === 'ankiOrd' || field in state)),
    'each with the copies the queues read')
  const contents = await db.collection('cards').find({}).toArray()
  t.ok(contents.every((card) => typeof card.front === 'string' && card.userID === userID && card.flashcardID === flashcardID), 'and keep their content')
  t.strictSame(await storedCards(db), written, 'the cards made whole again are the cards as written')
  const indexes = await cardIndexes(db)
  t.notOk(indexes.includes('user_queue') || indexes.includes('user_flag'), `the indexes that served the state in cards are gone: ${indexes.join(', ')}`)

  // the service reads them: today's cards are those of a full sort of the cards written, each card shown with its schedule
  const me = learner(app, { userID, jwtToken: app.issueToken(userID), email: '', password: '' }, { now })
  const today = await me.expectToday(t, 'today\'s cards are those of a full sort')
  t.equal([...today.values()].flat().length, 4 + 6, 'the four reviews due and the six new cards, none suspended or buried')
  const flashcard = await expectOk<{ cards: Array<{ cardID: string, review_status: string }> }>(app, 'get-flashcard', { jwtToken: app.issueToken(userID), flashcardID })
  t.strictSame(flashcard.cards.map((card) => card.cardID).sort(), written.map((card) => card._id), 'get-flashcard lists every card')
  const flagged = await expectOk<{ cards: Array<{ cardID: string }> }>(app, 'browse-cards', { jwtToken: app.issueToken(userID), standing: 'flagged' })
  t.strictSame(flagged.cards.map((card) => card.cardID).sort(), written.filter((card) => card.flag !== undefined).map((card) => card._id), 'the browser finds the flagged cards')

  // the old fields the step leaves in the cards are never read: a state changed since reads as changed
  const suspended = written.find((card) => card.suspended === true)
  if (suspended === undefined) throw new Error('no suspended card written')
  t.ok(stateFieldsIn(await db.collection('cards').find({ _id: suspended._id as never }).toArray()).includes(`${suspended._id}.suspended`), 'the card keeps its old fields')
  await expectOk(app, 'set-card-standing', { jwtToken: app.issueToken(userID), action: 'unsuspend', cards: [{ flashcardID, cardID: suspended._id }] })
  const shown = await expectOk<{ cards: Array<{ cardID: string, suspended: string }> }>(app, 'get-flashcard', { jwtToken: app.issueToken(userID), flashcardID })
  t.equal(shown.cards.find((card) => card.cardID === suspended._id)?.suspended, 'false', 'unsuspended since, it reads unsuspended: its state says so, whatever its old fields')
  t.equal((await storedCards(db, { _id: suspended._id }))[0]?.suspended, undefined, 'and a whole read of it has no suspended field')
})

test('run again after a cut-off, the step finishes the job; run again after that, it changes nothing', async (t) => {
  if (step === undefined) throw new Error('no migration card-states-apart')
  const logged: string[] = []
  const log = (message: string): void => { logged.push(message) }

  await t.test('cut off after some states were copied, none unset', async (t) => {
    const { db, written } = await oldDatabase(t)
    // the states of the first five copied, as a first run cut off after its first writes leaves them
    await db.collection('cardStates').insertMany(written.slice(0, 5).map((card) => splitCard(card).state) as Document[])
    await step.run(db, log)
    t.strictSame(...await statesAndWritten(db, written), 'every card\'s state in cardStates, those copied before as they were')
    t.strictSame(await storedCards(db), written, 'the cards made whole are the cards as written')
    t.notOk((await cardIndexes(db)).some((name) => name === 'user_queue' || name === 'user_flag'), 'the indexes gone')

    const before = await snapshot(db)
    await step.run(db, log)
    t.equal(await snapshot(db), before, 'run again: nothing changes')
  })

  await t.test('cut off after every state was copied and the indexes dropped, some cards unset', async (t) => {
    const { db, written } = await oldDatabase(t)
    await db.collection('cardStates').insertMany(written.map((card) => splitCard(card).state) as Document[])
    await db.collection('cards').dropIndexes()
    const unset = Object.fromEntries(STATE_FIELDS.map((field) => [field, '']))
    await db.collection('cards').updateMany({ _id: { $in: written.slice(0, 7).map((card) => card._id) as never[] } }, { $unset: unset })
    await step.run(db, log)
    t.strictSame(...await statesAndWritten(db, written), 'every card\'s state in cardStates as it was')
    t.strictSame(await storedCards(db), written, 'the cards made whole are the cards as written')
  })

  await t.test('cards of many batches, some copied before a cut-off: every state copied, each once', async (t) => {
    const { db, userID, flashcardID, written: few } = await oldDatabase(t)
    // more cards than a few batches of the step's copies hold, made in batches of their own
    const many = Array.from({ length: 9 }, (_, batch) => newCards(userID, flashcardID,
      Array.from({ length: 500 }, (_, n) => ({ front: `card ${batch} ${n}`, back: 'b' })), new Date(now.getTime() - (20 - batch) * DAY))).flat()
    await db.collection<CardDocument>('cards').insertMany(many)
    const written = [...few, ...many].sort((a, b) => a._id < b._id ? -1 : 1)
    await db.collection('cardStates').insertMany(written.filter((_, n) => n % 3 === 0).map((card) => splitCard(card).state) as Document[])
    await step.run(db, log)
    t.equal(await db.collection('cardStates').countDocuments({}), written.length, `one state for each of the ${written.length} cards`)
    t.strictSame(...await statesAndWritten(db, written), 'each the card\'s own')
  })

  await t.test('run whole, then again: the second run changes nothing', async (t) => {
    const { db, written } = await oldDatabase(t)
    await step.run(db, log)
    const before = await snapshot(db)
    await step.run(db, log)
    t.equal(await snapshot(db), before, 'nothing changes')
    t.strictSame(await storedCards(db), written)
  })
})
