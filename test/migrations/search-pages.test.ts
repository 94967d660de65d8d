import { test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { buildApp } from '../../src/app.js'
import { migrate } from '../../src/repositories/migrations.js'
import type { UserDocument } from '../../src/repositories/users.js'
import { newCards } from '../../src/services/library.js'
import { expectOk, registerUser, TEST_SECRET } from '../helpers/app.js'
import { databaseOfItsOwn, oldUserWithFlashcard } from '../helpers/old-data.js'

test('accounts that held cards before search are marked at start-up, and their first search finds every card', async (t) => {
  const { db, url } = await databaseOfItsOwn(t, import.meta.filename)
  // an account as an earlier version stored it, with one flashcard of cards written without search pages
  const { userID, flashcardID } = await oldUserWithFlashcard(db)
  const cards = newCards(userID, flashcardID, [{ front: 'Élan vital', back: 'life force' }, { cloze: 'The {{c1::élan}} of it' }], new Date('2026-01-02T00:00:00Z'))
  await db.collection('cards').insertMany(cards as never[])

  const app: FastifyInstance = await buildApp({ mongodbUrl: url, jwtSecret: TEST_SECRET, loadShedding: { maxInFlight: 1000, maxInFlightPerUser: 1000 } })
  await app.ready()
  t.teardown(async () => { await app.close() })
  const account = async (id: string): Promise<UserDocument | null> => await db.collection<UserDocument>('users').findOne({ _id: id })
  t.equal((await account(userID))?.searchPending, true, 'the earlier account is marked')
  t.equal(await db.collection('searchPages').countDocuments({ userID }), 0, 'no page is made at start-up: that would read every card')

  // a card added after the upgrade, before the first search: written with its page, which the first search leaves as it is
  const { cardIDs: [added] } = await expectOk<{ cardIDs: string[] }>(app, 'add-cards', { jwtToken: app.issueToken(userID), flashcardID, cards: [{ front: 'un élan nouveau', back: 'new' }] }, 201)
  t.equal(await db.collection('searchPages').countDocuments({ userID }), 1, 'the new card\'s page')
  const found = await expectOk<{ results: Array<{ cardID: string }> }>(app, 'search-cards', { jwtToken: app.issueToken(userID), query: 'ELAN' })
  t.strictSame(found.results.map((result) => result.cardID).sort(), [...cards.map((card) => card._id), added].sort(), 'its first search makes its pages and finds its cards, each once')
  t.equal((await account(userID))?.searchPending, undefined)

  const later = await registerUser(app)
  t.equal((await account(later.userID))?.searchPending, undefined, 'an account registered after the step is never marked')

  // run again (its record removed by hand): the account is marked again, and its first search finds every card paged, each once
  await db.collection('migrations').deleteOne({ _id: 'search-pages-pending' as never })
  await migrate(db, () => {})
  const again = await expectOk<{ results: Array<{ cardID: string }> }>(app, 'search-cards', { jwtToken: app.issueToken(userID), query: 'elan' })
  t.equal(again.results.length, 3, 'the same three cards, once each')
})
