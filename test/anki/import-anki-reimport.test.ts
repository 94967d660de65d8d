// Importing a package again: every note matched by its guid, its cards' content replaced in the
// transaction that keeps the import, while the import's lease is renewed beside it.
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import tap, { test } from 'tap'
import { writeAnkiPackage } from '../../scripts/bench/anki-package.js'
import { buildTestApp, registerUser } from '../helpers/app.js'
import { importAnki } from '../helpers/anki-import.js'

tap.setTimeout(600_000)

test('a package imported again updates its 4,000 cards in one go, however often the lease is renewed meanwhile', async (t) => {
  const folder = await mkdtemp(join(tmpdir(), 'import-anki-reimport-'))
  t.teardown(() => rm(folder, { recursive: true, force: true }))
  await writeAnkiPackage(join(folder, 'deck.apkg'), { cards: 4000, revlog: 8000 })
  const file = await readFile(join(folder, 'deck.apkg'))
  // a renewal every 60 ms: one lands on the import's document while the keeping transaction runs
  const app = await buildTestApp(t, import.meta.filename, { imports: { leaseMs: 300 } })
  const user = await registerUser(app)
  t.equal((await importAnki(app, user.jwtToken, file)).state, 'done')
  // the same notes, not changed since: taken again only when asked to
  const again = await importAnki(app, user.jwtToken, file, { updateNotes: 'always' })
  t.equal(again.state, 'done', JSON.stringify(again))
  t.match(again.warnings.join(' '), /4000 cards of notes the account has were updated rather than added again/)
})
