// The benchmark's generated Anki package (scripts/bench/anki-package.ts) is one Anki itself imports:
// PyPI `anki`, Anki's own backend, takes its decks, presets, note types, cards, review log and media.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { writeAnkiPackage } from '../../scripts/bench/anki-package.js'
import { assertAnki, importIntoAnki, needsAnki } from '../helpers/pypi-anki.js'

// making the environment the first time downloads Anki's wheels
t.setTimeout(15 * 60 * 1000)

t.test('Anki imports the generated package, its presets too, without error', needsAnki, async (t) => {
  assertAnki()
  const folder = await mkdtemp(join(tmpdir(), 'bench-anki-'))
  t.teardown(async () => { await rm(folder, { recursive: true, force: true }) })
  const path = join(folder, 'generated.apkg')
  const written = await writeAnkiPackage(path, { cards: 300, revlog: 1500, media: 3 })
  for (const withPresets of [false, true]) {
    const imported = importIntoAnki(path, 'UTC', withPresets)
    const what = withPresets ? 'with "Import any deck presets"' : 'with its learning progress'
    t.same(imported.imported, { new: 300, updated: 0, duplicate: 0, conflicting: 0, missingNotetype: 0 }, `${what}: every note`)
    t.equal(imported.cards.length, written.cards, `${what}: every card`)
    t.equal(imported.revlogCount, written.revlog, `${what}: every review`)
    t.equal(Object.keys(imported.media).length, written.media, `${what}: every image`)
    t.equal(imported.decks.filter((name) => name.startsWith('Generated::')).length, 10, `${what}: the ten decks`)
  }
})
