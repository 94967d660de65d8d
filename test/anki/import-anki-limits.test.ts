// import-anki keeps the API's limits: a deck deeper than folders may nest, a name a folder may not
// have, a card side or a note past its size fail the whole import with the API's code and a
// sentence naming the deck or the note's guid; nothing is stored, and the database stays up.
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import tap, { test } from 'tap'
import { writeAnkiPackage, type GeneratedPackage } from '../../scripts/bench/anki-package.js'
import { MAX_CARD_TEXT, MAX_FOLDER_DEPTH, MAX_NOTE_TEXT } from '../../src/domain/limits.js'
import { buildTestApp, databaseOf, expectOk, makeDeck, makeFolder, post, registerUser } from '../helpers/app.js'
import { countsOf, importAnki, NOTHING } from '../helpers/anki-import.js'

tap.setTimeout(600_000)

/** A generated package's bytes: every card in `decks`, each note's fields as `fields` makes them. */
async function generated (t: { teardown: (fn: () => unknown) => void }, spec: GeneratedPackage): Promise<Buffer> {
  const folder = await mkdtemp(join(tmpdir(), 'import-anki-limits-'))
  t.teardown(async () => { await rm(folder, { recursive: true, force: true }) })
  const path = join(folder, 'deck.apkg')
  await writeAnkiPackage(path, spec)
  return await readFile(path)
}

function levels (count: number, name = (level: number) => `L${level}`): string[] {
  return Array.from({ length: count }, (_, index) => name(index + 1))
}

test('a deck nested 1,000 levels deep (a package of a few KB) fails with too_deep naming the deck, and the database serves everyone on', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app)
  const other = await registerUser(app)
  const file = await generated(t, { cards: 3, revlog: 3, decks: [levels(1000)] })
  t.ok(file.length < 20_000, `a small package: ${file.length} bytes`)
  const status = await importAnki(app, user.jwtToken, file)
  t.equal(status.state, 'failed')
  t.equal(status.code, 'too_deep')
  t.match(status.error, /^the deck "L1::L2::L3::…::L999::L1000" \(1,000 levels\): the folder .* would be 999 levels deep, and folders nest at most 20 levels/)
  t.same(await countsOf(app, user), NOTHING, 'nothing stored')
  const today = await post(app, 'get-today-cards', { jwtToken: other.jwtToken })
  t.equal(today.statusCode, 200, 'another user is answered at once: the database is up')
})

test('decks keep the folder depth of create-folder: 20 levels of folders import, 21 fail with too_deep, into a folder too', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app)
  // a deck without subdecks is a flashcard in its parent's folder: 21 names make 20 levels of folders
  const deepest = await importAnki(app, user.jwtToken, await generated(t, { cards: 2, revlog: 2, decks: [levels(MAX_FOLDER_DEPTH + 1)] }))
  t.equal(deepest.state, 'done', JSON.stringify(deepest))
  const library = await expectOk<{ folders: Array<{ folders: unknown[] }> }>(app, 'get-library', { jwtToken: user.jwtToken })
  t.ok(library.folders.length > 0, 'the 20 levels are in the library')

  const over = await registerUser(app)
  const refused = await importAnki(app, over.jwtToken, await generated(t, { cards: 2, revlog: 2, decks: [levels(MAX_FOLDER_DEPTH + 2)] }))
  t.equal(refused.code, 'too_deep', 'a deck of 22 names, 21 levels of folders: refused where it imported 21 levels before')
  t.same(await countsOf(app, over), NOTHING)

  // 15 levels into a folder 20 deep: 34 levels before
  const into = await registerUser(app)
  await makeFolder(app, into, levels(MAX_FOLDER_DEPTH, (level) => `F${level}`))
  const nested = await importAnki(app, into.jwtToken, await generated(t, { cards: 2, revlog: 2, decks: [levels(15)] }), { folder: levels(MAX_FOLDER_DEPTH, (level) => `F${level}`) })
  t.equal(nested.code, 'too_deep')
  t.equal((await countsOf(app, into)).cards, 0, 'no card stored')
})

test('a deck name create-folder refuses fails the import with invalid_name naming the deck', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app)
  const status = await importAnki(app, user.jwtToken, await generated(t, { cards: 2, revlog: 2, decks: [['Languages', 'x'.repeat(101), 'Verbs']] }))
  t.equal(status.code, 'invalid_name', JSON.stringify(status))
  t.match(status.error, /^the deck "Languages::x{101}::Verbs": /)
  t.same(await countsOf(app, user), NOTHING)
})

test('a card side past the API\'s 10,000 characters fails the import with invalid_field naming the note; a side at the limit imports', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app)
  // the back shows the front too, above the answer rule: only the answer is the back
  const atLimit = await importAnki(app, user.jwtToken, await generated(t, { cards: 2, revlog: 2, fields: () => ['f'.repeat(MAX_CARD_TEXT), 'b'.repeat(MAX_CARD_TEXT)] }))
  t.equal(atLimit.state, 'done', JSON.stringify(atLimit))
  t.equal((await countsOf(app, user)).cards, 2)

  const over = await registerUser(app)
  const refused = await importAnki(app, over.jwtToken, await generated(t, { cards: 3, revlog: 3, fields: (index) => index === 1 ? ['a'.repeat(MAX_CARD_TEXT + 1), 'b'] : ['front', 'back'] }))
  t.equal(refused.code, 'invalid_field')
  t.match(refused.error, /^the note with guid "generated-1" \(deck "Generated::Deck 2"\): the front is 10,001 characters long, and a card side holds at most 10,000/)
  t.same(await countsOf(app, over), NOTHING)
})

test('ten notes of 1,000,000 characters fail before any is read whole, naming the first note', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app)
  // text that compresses as text does, not a run of one letter (which the zip's expansion limit refuses first)
  const text = (seed: number): string => Array.from({ length: 1_000_000 }, (_, index) => String.fromCharCode(97 + ((index * 7919 + seed * 104_729) % 9973) % 26)).join('')
  const status = await importAnki(app, user.jwtToken, await generated(t, { cards: 10, revlog: 10, fields: (index) => ['q', text(index)] }))
  t.equal(status.code, 'invalid_field', JSON.stringify(status))
  t.match(status.error, new RegExp(`^the note with guid "generated-0" holds 1,000,0[0-9]{2} characters of fields and tags, and a note may hold at most ${MAX_NOTE_TEXT.toLocaleString('en')}`))
  t.same(await countsOf(app, user), NOTHING)
})

test('edit-card refuses a side past the limit however the card got it: the card stays as it was', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app)
  const made = await makeDeck(app, user, { folder: ['Deck'], name: 'Cards', cards: [{ front: 'q', back: 'a' }] })
  const cardID = made.cardIDs[0] as string
  // as an import before the limit kept it at every door left it
  await databaseOf(app).collection('cards').updateOne({ _id: cardID as never }, { $set: { back: 'b'.repeat(1_000_000) } })
  const edited = await post(app, 'edit-card', { jwtToken: user.jwtToken, flashcardID: made.flashcardID, cardID, front: 'question' })
  t.equal(edited.statusCode, 400)
  t.equal(edited.json().code, 'invalid_field')
  t.match(edited.json().error, /the back is 1,000,000 characters long, and a card side holds at most 10,000: shorten it/)
  const stored = await databaseOf(app).collection('cards').findOne({ _id: cardID as never })
  t.equal(stored?.front, 'q', 'the front as it was')
})
