// An Anki package of 20,000 cards, a deck size learners bring, imports whole: the hand-over past the
// size of one transaction follows the plan's (it failed as "Transaction is too large" when the
// plan's transaction took 20,000 cards with their notes).
import { readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'tap'
import { writeAnkiPackage } from '../../scripts/bench/anki-package.js'
import { importAnki } from '../helpers/anki-import.js'
import { buildTestApp, databaseOf, registerUser } from '../helpers/app.js'

test('a package of 20,000 cards and 16,000 review rows imports whole', { timeout: 300_000 }, async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app)
  const path = join(tmpdir(), `import-anki-size-${process.pid}.apkg`)
  t.teardown(async () => { await rm(path, { force: true }); await rm(`${path}.collection`, { force: true }) })
  await writeAnkiPackage(path, { cards: 20_000, revlog: 16_000, media: 0 })
  const status = await importAnki(app, user.jwtToken, await readFile(path))
  t.match(status, { state: 'done', cards: '20000', notes: '20000' }, 'done')
  t.equal(await databaseOf(app).collection('cards').countDocuments({ userID: user.userID }), 20_000, 'every card the account\'s')
  t.equal(await databaseOf(app).collection('notes').countDocuments({ userID: user.userID }), 20_000, 'every note')
})
