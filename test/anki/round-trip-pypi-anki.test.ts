// The way back to the collection a deck came from, proven by Anki itself (PyPI `anki`): the fixture
// collection imported here, notes edited here and a card added, exported with export-anki, and the
// package imported with Anki's default options into the original collection (collection.colpkg,
// the collection collection.apkg was exported from). Anki must find every note it has under its
// guid and note type: no new note but the one added here, no new note type, the notes edited here
// updated, the others left as they are, and Check Database finding nothing to repair.
import t from 'tap'
import { exportedFile } from '../helpers/anki-export.js'
import { fixture, importAnki, importedCards, LEARNER } from '../helpers/anki-import.js'
import { buildTestApp, expectOk, registerUser } from '../helpers/app.js'
import { FIXTURES } from '../helpers/anki.js'
import { assertAnki, needsAnki, runAnkiScript } from '../helpers/pypi-anki.js'
import { join } from 'node:path'

// making the environment the first time downloads Anki's wheels; an import runs a worker of its own
t.setTimeout(15 * 60 * 1000)

interface CollectionState {
  notes: Record<string, { id: number, notetype: string, fields: string[], tags: string[], mod: number }>
  /** the notes counted, not by guid: two of one guid would be one in notes */
  noteCount: number
  cardCount: number
  cards: Record<string, { id: number, queue: number, type: number, revlog: number }>
  notetypes: string[]
  revlogCount: number
  revlogIds: number
}

interface RoundTrip {
  before: CollectionState
  after: CollectionState
  imported: { new: number, updated: number, duplicate: number, conflicting: number, missingNotetype: number }
  media: string[]
  problems: string[]
  problemsBefore: string[]
}

function intoOriginal (apkg: string): RoundTrip {
  return JSON.parse(runAnkiScript('round_trip.py', [join(FIXTURES, 'collection.colpkg'), apkg], LEARNER.timezone)) as RoundTrip
}

/** What Check Database says besides that it ran: after the import, and in the original untouched. */
function repairs (trip: RoundTrip): { after: string[], original: string[] } {
  const said = (lines: string[]): string[] => lines.filter((line) => !/^Database rebuilt and optimized/.test(line))
  return { after: said(trip.problems), original: said(trip.problemsBefore) }
}

t.test('an export of an imported collection, imported into that collection, changes nothing in it', needsAnki, async (t) => {
  assertAnki()
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app, LEARNER)
  t.equal((await importAnki(app, user.jwtToken, fixture('collection.apkg'))).state, 'done')

  const trip = intoOriginal(await exportedFile(t, app, user))
  t.equal(trip.imported.new, 0, 'no note added')
  t.equal(trip.imported.conflicting, 0, 'no note found under another note type')
  t.equal(trip.imported.updated, 0, 'no note changed')
  t.equal(trip.imported.duplicate, Object.keys(trip.before.notes).length, 'every note found as it is')
  t.strictSame(trip.after.notetypes, trip.before.notetypes, 'no note type added ("Basic+")')
  t.strictSame(Object.keys(trip.after.notes).sort(), Object.keys(trip.before.notes).sort(), 'the same notes')
  t.strictSame([trip.after.noteCount, trip.after.cardCount], [trip.before.noteCount, trip.before.cardCount], 'as many notes and cards, counted')
  t.strictSame(trip.after.notes, trip.before.notes, 'each note with its fields, tags and time as they were')
  t.strictSame(Object.keys(trip.after.cards).sort(), Object.keys(trip.before.cards).sort(), 'the same cards')
  t.equal(trip.after.revlogCount, trip.before.revlogCount, 'no review twice')
  const checked = repairs(trip)
  t.strictSame(checked.after, checked.original, 'Check Database repairs nothing the original did not need already')
})

t.test('notes edited here reach the collection they came from, every card of them, and a card added here arrives as a note of its Basic', needsAnki, async (t) => {
  assertAnki()
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app, LEARNER)
  t.equal((await importAnki(app, user.jwtToken, fixture('collection.apkg'))).state, 'done')
  const cards = await importedCards(app, user)
  const reversed = cards.get('fixture-reversed/0')
  const basic = cards.get('fixture-learning/0')
  const custom = cards.get('fixture-custom1/0')
  if (reversed === undefined || basic === undefined || custom === undefined) throw new Error('the fixture\'s notes were not imported')
  const call = async <T>(operation: string, body: object): Promise<T> => await expectOk<T>(app, operation, { jwtToken: user.jwtToken, ...body })

  // a reversed note through edit-note: both of its cards show the change
  const note = await call<{ noteID: string, fields: Record<string, string>, cardIDs: string[] }>('get-note', { noteID: reversed.noteID })
  t.strictSame(Object.keys(note.fields), ['Front', 'Back'], 'get-note gives the fields by name')
  t.equal(note.cardIDs.length, 2, 'and both cards of the note')
  await call('edit-note', { noteID: reversed.noteID, fields: { Front: 'the dog' }, tags: ['vocab', 'edited'] })
  const after = await importedCards(app, user)
  t.match(after.get('fixture-reversed/0')?.frontHtml, /the dog/, 'card 1 asks the edited front')
  t.match(after.get('fixture-reversed/1')?.backHtml, /the dog/, 'card 2 answers it')
  // a Basic card through edit-card, which edits its note
  await call('edit-card', { flashcardID: basic.flashcard.flashcardID, cardID: basic.cardID, back: 'due in a few minutes', format: 'text' })
  // a card of a custom note type: edit-card names edit-note, and changes nothing
  const refused = await app.inject({ method: 'POST', url: '/api/edit-card', payload: { jwtToken: user.jwtToken, flashcardID: custom.flashcard.flashcardID, cardID: custom.cardID, front: 'x' } })
  t.match([refused.statusCode, refused.json()], [400, { code: 'use_edit_note' }], 'edit-card of a card of a custom note type names edit-note')
  // a card made here, and reviewed
  const { cardIDs: [added] } = await expectOk<{ cardIDs: string[] }>(app, 'add-cards', { jwtToken: user.jwtToken, flashcardID: basic.flashcard.flashcardID, cards: [{ front: 'made here', back: 'on the service' }] }, 201)
  await call('review-card', { flashcardID: basic.flashcard.flashcardID, cardID: added as string, rating: 'good' })

  const trip = intoOriginal(await exportedFile(t, app, user))
  t.equal(trip.imported.new, 1, 'one note added: the card made here')
  t.equal(trip.imported.updated, 2, 'the two notes edited here updated')
  t.equal(trip.imported.conflicting, 0, 'no note found under another note type')
  t.strictSame(trip.after.notetypes, trip.before.notetypes, 'no note type added: the card made here is a note of the collection\'s Basic')
  t.strictSame(trip.after.notes['fixture-reversed']?.fields, ['the dog', trip.before.notes['fixture-reversed']?.fields[1]], 'the reversed note\'s edited front, its back as it was')
  t.strictSame(trip.after.notes['fixture-reversed']?.tags, ['edited', 'vocab'], 'and its tags')
  t.strictSame(trip.after.notes['fixture-learning']?.fields, ['Learning now', 'due in a few minutes'], 'the Basic note\'s edited back')
  const made = Object.entries(trip.after.notes).filter(([guid]) => trip.before.notes[guid] === undefined)
  t.strictSame(made.map(([, one]) => [one.notetype, one.fields]), [['Basic', ['made here', 'on the service']]], 'the card made here as a Basic note')
  const unchanged = Object.keys(trip.before.notes).filter((guid) => guid !== 'fixture-reversed' && guid !== 'fixture-learning')
  t.strictSame(unchanged.map((guid) => trip.after.notes[guid]), unchanged.map((guid) => trip.before.notes[guid]), 'every other note as it was')
  t.equal(Object.keys(trip.after.cards).length, Object.keys(trip.before.cards).length + 1, 'one card more')
  t.strictSame([trip.after.noteCount, trip.after.cardCount], [trip.before.noteCount + 1, trip.before.cardCount + 1], 'one note and one card more, counted')
  t.equal(trip.after.revlogCount, trip.before.revlogCount + 1, 'the review given here to the card made here, once; no review twice')
  const checked = repairs(trip)
  t.strictSame(checked.after, checked.original, 'Check Database repairs nothing the original did not need already')
})
