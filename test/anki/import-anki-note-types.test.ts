// The note types an Anki import brings are kept with the account (get-note-types): their fields,
// card templates and CSS, as Anki had them; each card made from one names it (noteTypeID), so the
// study page can style the card with its CSS. Importing the collection again brings them up to
// date under the same ids; a package whose note type is past the limits is refused whole.
import tap, { test } from 'tap'
import { buildTestApp, databaseOf, expectOk, registerUser } from '../helpers/app.js'
import { craftedPackage } from '../helpers/anki-craft.js'
import { countsOf, fixture, importAnki, importedCards, LEARNER, NOTHING } from '../helpers/anki-import.js'
import { expected } from '../helpers/anki.js'
import { STOCK_NOTE_TYPES } from '../../src/domain/notes.js'

tap.setTimeout(600_000)

interface NoteType { noteTypeID: string, name: string, kind: string, fields: string[], templates: Array<{ name: string, front: string, back: string }>, css: string, sortField: string }

test('collection.apkg: the note types its notes use, whole, each card naming its own; again on a second import, under the same ids', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app, LEARNER)
  t.equal((await importAnki(app, user.jwtToken, fixture('collection.apkg'))).state, 'done')
  const { noteTypes } = await expectOk<{ noteTypes: NoteType[] }>(app, 'get-note-types', { jwtToken: user.jwtToken })
  const used = [...new Set(Object.values(expected.notes).map((note) => note.notetype))].sort()
  t.strictSame(noteTypes.map((noteType) => noteType.name), used, 'every note type the notes use, by name, and no other')
  const custom = noteTypes.find((noteType) => noteType.name === 'Custom filters')
  t.match(custom, { kind: 'standard', fields: ['Front', 'Back', 'Hint', 'Extra'], css: '.card { font-family: serif; }', sortField: '0' }, 'the custom note type: its fields and CSS')
  t.equal(custom?.templates.length, 1)
  t.match(custom?.templates[0], { name: 'Forward', front: /\{\{Front\}\}/, back: /\{\{FrontSide\}\}|\{\{Back\}\}/ }, 'its template in Anki\'s syntax, as written')
  t.match(noteTypes.find((noteType) => noteType.name === 'Cloze'), { kind: 'cloze', fields: ['Text', 'Back Extra'] })

  const byName = new Map(noteTypes.map((noteType) => [noteType.name, noteType.noteTypeID]))
  const cards = await importedCards(app, user)
  let named = 0
  for (const [key, card] of cards) {
    const guid = key.split('/')[0] ?? ''
    const note = expected.notes[guid]
    if (note === undefined) continue
    t.equal((card as { noteTypeID?: string }).noteTypeID, byName.get(note.notetype), `${key}: names its note type, ${note.notetype}`)
    named++
  }
  t.equal(named, cards.size, 'every card names one')
  const queue = await expectOk<{ cards: Array<{ noteTypeID?: string }> }>(app, 'get-study-queue', { jwtToken: user.jwtToken })
  t.ok(queue.cards.length > 0 && queue.cards.every((card) => card.noteTypeID !== undefined && [...byName.values()].includes(card.noteTypeID)), 'so does every card of the study queue')

  t.equal((await importAnki(app, user.jwtToken, fixture('collection.apkg'))).state, 'done')
  const again = await expectOk<{ noteTypes: NoteType[] }>(app, 'get-note-types', { jwtToken: user.jwtToken })
  t.strictSame(again.noteTypes, noteTypes, 'imported again: the same note types under the same ids, none twice')
  t.equal(await databaseOf(app).collection('noteTypes').countDocuments({}), noteTypes.length, 'nothing staged is left behind')

  const other = await registerUser(app, LEARNER)
  t.equal((await importAnki(app, other.jwtToken, fixture('collection.apkg'))).state, 'done')
  const theirs = await expectOk<{ noteTypes: NoteType[] }>(app, 'get-note-types', { jwtToken: other.jwtToken })
  t.equal(theirs.noteTypes.length, noteTypes.length)
  t.notOk(theirs.noteTypes.some((noteType) => byName.has(noteType.name) && byName.get(noteType.name) === noteType.noteTypeID), 'another account\'s import keeps note types of its own')
})

test('a note type past the limits (CSS of 100,001 characters) is refused naming it, and nothing is kept', async (t) => {
  const file = await craftedPackage(t, { cards: 2, revlog: 2 }, (db) => {
    const models = JSON.parse(String(db.prepare('select models from col').get()?.models)) as Record<string, { css: string }>
    for (const model of Object.values(models)) model.css = `.card { color: red; }${' '.repeat(100_001 - 21)}`
    db.prepare('update col set models = ?').run(JSON.stringify(models))
  })
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app)
  const status = await importAnki(app, user.jwtToken, file)
  t.equal(status.code, 'invalid_field', JSON.stringify(status))
  t.match(status.error, /^the note type "Basic" has 100,001 characters of CSS, and a note type may have at most 100,000/)
  t.same(await countsOf(app, user), NOTHING)
  t.equal(await databaseOf(app).collection('noteTypes').countDocuments({}), 0, 'no note type kept or left staged')
  const left = await expectOk<{ noteTypes: NoteType[] }>(app, 'get-note-types', { jwtToken: user.jwtToken })
  t.strictSame(left.noteTypes.map((noteType) => noteType.name), STOCK_NOTE_TYPES.map((stock) => stock.name).sort(), 'Anki\'s stock note types only, which every account has')
})
