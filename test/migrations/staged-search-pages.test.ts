// An Anki import's staged cards write no search pages (the account makes its own at its next
// search), and the pages earlier imports left under their staging owners are removed at start-up,
// the accounts' own pages kept.
import { test } from 'tap'
import { migrate } from '../../src/repositories/migrations.js'
import { fixture, importAnki } from '../helpers/anki-import.js'
import { buildTestApp, databaseOf, expectOk, makeDeck, registerUser } from '../helpers/app.js'

test('an import leaves no search page under its staging owner, its cards are found; pages left by earlier versions go at start-up', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app)
  await makeDeck(app, user, { folder: ['Mine'], name: 'Own', cards: [{ front: 'perro', back: 'dog' }] })
  t.equal((await importAnki(app, user.jwtToken, fixture('collection.apkg'))).state, 'done')
  const pages = databaseOf(app).collection<{ userID: string }>('searchPages')
  t.equal(await pages.countDocuments({ userID: { $regex: '^anki-import:' } }), 0, 'no page under a staging owner')
  const found = await expectOk<{ results: unknown[] }>(app, 'search-cards', { jwtToken: user.jwtToken, query: 'dog' })
  t.ok(found.results.length >= 2, 'the first search finds the imported cards and the account\'s own')
  const own = await pages.countDocuments({ userID: user.userID })
  t.ok(own > 0, 'the account\'s pages')

  // as an earlier version left them
  await pages.insertMany([
    { userID: 'anki-import:000000000000000000000000000000000000001', flashcardID: 'x', open: true, entries: [] },
    { userID: 'anki-import:000000000000000000000000000000000000002', flashcardID: 'y', open: true, entries: [] }
  ] as never[])
  await databaseOf(app).collection('migrations').deleteOne({ _id: 'staged-search-pages-removed' as never })
  await migrate(databaseOf(app), () => {})
  t.equal(await pages.countDocuments({ userID: { $regex: '^anki-import:' } }), 0, 'removed')
  t.equal(await pages.countDocuments({ userID: user.userID }), own, 'the account\'s pages kept')
})
