// Two exports, proven by Anki itself (PyPI `anki`, in .tools/anki-fixtures-venv): a collection that
// imported the whole library finds everything of a folder's export a day later as it holds it,
// under the same ids, and adds no deck, note or card. Without Python the test is skipped, except in
// CI (CI=true), where it fails.
import t from 'tap'
import { exportedFile, libraryWithHistory, packageIds } from '../helpers/anki-export.js'
import { assertAnki, needsAnki, runAnkiScript } from '../helpers/pypi-anki.js'

// making the environment the first time downloads Anki's wheels
t.setTimeout(15 * 60 * 1000)

const DAY = 86_400_000

interface CollectionState {
  decks: Record<string, number>
  notes: Record<string, number>
  cards: Record<string, number>
  noteCount: number
  cardCount: number
}

interface ImportLog { new: number, updated: number, duplicate: number, conflicting: number, missingNotetype: number }

interface TwoImports {
  first: ImportLog
  afterFirst: CollectionState
  second: ImportLog
  afterSecond: CollectionState
}

/** The entries of `part` that `whole` holds too, as `whole` has them. */
function asIn (whole: Record<string, number>, part: Record<string, number>): Record<string, number | undefined> {
  return Object.fromEntries(Object.keys(part).map((key) => [key, whole[key]]))
}

t.test('a collection that imported the whole library imports a folder of it, exported a day later, as the notes and cards it holds', needsAnki, async (t) => {
  assertAnki()
  const { app, user, ids, setNow } = await libraryWithHistory(t, import.meta.filename)
  const first = await exportedFile(t, app, user)
  setNow(new Date(Date.now() + DAY))
  const second = await exportedFile(t, app, user, { folderID: ids.other })
  const written = await packageIds(second)
  const anki = JSON.parse(runAnkiScript('import_twice.py', [first, second], 'America/New_York')) as TwoImports

  t.equal(anki.first.new, 7, 'the first export\'s seven notes are new')
  t.strictSame(anki.afterSecond.decks, anki.afterFirst.decks, 'the second adds no deck')
  t.strictSame([anki.afterSecond.noteCount, anki.afterSecond.cardCount], [anki.afterFirst.noteCount, anki.afterFirst.cardCount], 'and no note or card')
  t.equal(anki.second.new, 0, 'no note of it is new to Anki')
  t.strictSame(anki.afterSecond.notes, anki.afterFirst.notes, 'every note under the id it had')
  t.strictSame(anki.afterSecond.cards, anki.afterFirst.cards, 'every card too')
  t.strictSame(asIn(anki.afterFirst.notes, written.notes), written.notes, 'the ids Anki holds the notes under are those the second package writes')
  t.strictSame(asIn(anki.afterFirst.cards, written.cards), written.cards, 'and the cards')
  t.equal(Object.keys(written.cards).length, 1, 'the folder\'s one card')
})
