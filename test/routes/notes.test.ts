// Notes of Anki's stock note types made here (add-note), changed (edit-note) and deleted
// (delete-note): a note makes the cards Anki would make of it, an edit that fills a template's
// field adds that card (Anki's optional reversed card) and keeps the others' schedules, and
// export-anki gives Anki the notes of their own note types, as Anki itself reads them.
import t from 'tap'
import { STOCK_NOTE_TYPES } from '../../src/domain/notes.js'
import { exportedFile } from '../helpers/anki-export.js'
import { buildTestApp, databaseOf, expectOk, makeDeck, post, registerUser } from '../helpers/app.js'
import { storedCard } from '../helpers/stored.js'
import { assertAnki, importIntoAnki, needsAnki } from '../helpers/pypi-anki.js'

interface NoteType { noteTypeID: string, name: string, fields: string[] }
interface Card { cardID: string, frontHtml: string, backHtml: string, noteID?: string, ord?: string, clozeNumber?: string, review_status: string }

async function setUp (t: Parameters<typeof buildTestApp>[0]) {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app, { timezone: 'Europe/Madrid' })
  const { flashcardID } = await makeDeck(app, user, { folder: ['Words'], name: 'Spanish', cards: 0 })
  const { noteTypes } = await expectOk<{ noteTypes: NoteType[] }>(app, 'get-note-types', { jwtToken: user.jwtToken })
  const typeNamed = (name: string): string => noteTypes.find((noteType) => noteType.name === name)?.noteTypeID ?? ''
  const call = async <T>(operation: string, body: object, status = 200): Promise<T> => await expectOk<T>(app, operation, { jwtToken: user.jwtToken, ...body }, status)
  const cardsOf = async (): Promise<Card[]> => (await call<{ cards: Card[] }>('get-flashcard', { flashcardID })).cards
  return { app, user, flashcardID, noteTypes, typeNamed, call, cardsOf }
}

t.test('an account has Anki\'s stock note types, with Anki\'s names of them, their fields and templates, stored only once used', async (t) => {
  const { app, noteTypes } = await setUp(t)
  t.strictSame(noteTypes.map((noteType) => [noteType.name, noteType.fields]), [
    ['Basic', ['Front', 'Back']],
    ['Basic (and reversed card)', ['Front', 'Back']],
    ['Basic (optional reversed card)', ['Front', 'Back', 'Add Reverse']],
    ['Basic (type in the answer)', ['Front', 'Back']],
    ['Cloze', ['Text', 'Back Extra']]
  ])
  t.equal(await databaseOf(app).collection('noteTypes').countDocuments({}), 0, 'none stored before a note of it is added')
  t.equal(STOCK_NOTE_TYPES.length, 5)
})

t.test('add-note makes the cards Anki makes: one per template its fields fill, one per cloze number; each card names its note and ord', async (t) => {
  const { app, flashcardID, typeNamed, call, cardsOf } = await setUp(t)
  const reversed = await call<{ noteID: string, cardIDs: string[] }>('add-note', { flashcardID, noteTypeID: typeNamed('Basic (and reversed card)'), fields: { Front: 'el perro', Back: 'the dog' }, tags: ['animals'] }, 201)
  t.equal(reversed.cardIDs.length, 2, 'a reversed note: two cards')
  const cloze = await call<{ noteID: string, cardIDs: string[] }>('add-note', { flashcardID, noteTypeID: typeNamed('Cloze'), fields: { Text: '{{c1::Madrid}} is the capital of {{c2::Spain}}' } }, 201)
  t.equal(cloze.cardIDs.length, 2, 'a cloze note of two numbers: two cards')
  const optional = await call<{ noteID: string, cardIDs: string[] }>('add-note', { flashcardID, noteTypeID: typeNamed('Basic (optional reversed card)'), fields: { Front: 'el gato', Back: 'the cat' } }, 201)
  t.equal(optional.cardIDs.length, 1, 'an optional reversed note without Add Reverse: one card')

  const cards = await cardsOf()
  const byID = new Map(cards.map((card) => [card.cardID, card]))
  const [dog1, dog2] = reversed.cardIDs.map((id) => byID.get(id))
  t.match(dog1, { noteID: reversed.noteID, ord: '0', frontHtml: /el perro/, backHtml: /the dog/ }, 'card 1 asks the front')
  t.match(dog2, { noteID: reversed.noteID, ord: '1', frontHtml: /the dog/, backHtml: /el perro/ }, 'card 2 asks the back')
  t.match(byID.get(cloze.cardIDs[1] as string), { noteID: cloze.noteID, ord: '1', clozeNumber: '2', frontHtml: /Madrid is the capital of <span class="cloze">\[\.\.\.\]<\/span>/ }, 'cloze card 2 asks Spain')
  t.match(await call('get-note', { noteID: reversed.noteID }), { noteID: reversed.noteID, noteTypeID: typeNamed('Basic (and reversed card)'), fields: { Front: 'el perro', Back: 'the dog' }, tags: ['animals'], cardIDs: reversed.cardIDs })
  t.equal(await databaseOf(app).collection('noteTypes').countDocuments({}), 3, 'the three stock note types used are stored')
  await call('add-cards', { flashcardID, cards: [{ front: 'made', back: 'here' }] }, 201)
  const browsed = await call<{ cards: Array<{ cardID: string, noteType?: string }> }>('browse-cards', { flashcardID })
  const typeOf = new Map(browsed.cards.map((card) => [card.cardID, card.noteType]))
  t.strictSame(reversed.cardIDs.map((id) => typeOf.get(id)), ['Basic (and reversed card)', 'Basic (and reversed card)'], 'the card browser names each card\'s note type')
  t.equal(typeOf.get(cloze.cardIDs[0] as string), 'Cloze')
  t.strictSame(browsed.cards.filter((card) => !reversed.cardIDs.includes(card.cardID) && !cloze.cardIDs.includes(card.cardID) && card.cardID !== optional.cardIDs[0]).map((card) => card.noteType), ['Basic'],
    'a card made with add-cards is a note of Basic')

  // another account cannot add a note to this flashcard
  const before = await databaseOf(app).collection('cards').countDocuments({})
  const other = await registerUser(app)
  const foreign = await post(app, 'add-note', { jwtToken: other.jwtToken, flashcardID, noteTypeID: typeNamed('Basic'), fields: { Front: 'x' } })
  t.match([foreign.statusCode, foreign.json()], [404, { code: 'flashcard_not_found' }], 'another account\'s flashcard is not found')
  t.equal(await databaseOf(app).collection('cards').countDocuments({}), before, 'nothing stored')
})

t.test('add-note refuses a field its note type lacks, a note that makes no card and a note type the account lacks, storing nothing', async (t) => {
  const { app, user, flashcardID, typeNamed } = await setUp(t)
  const add = async (body: object) => {
    const answer = await post(app, 'add-note', { jwtToken: user.jwtToken, flashcardID, ...body })
    return [answer.statusCode, answer.json<{ code: string }>().code]
  }
  t.strictSame(await add({ noteTypeID: typeNamed('Basic'), fields: { Front: 'x', Extra: 'y' } }), [400, 'invalid_field'], 'a field Basic lacks')
  t.strictSame(await add({ noteTypeID: typeNamed('Basic'), fields: { Back: 'only a back' } }), [400, 'invalid_field'], 'a Basic note without a front makes no card')
  t.strictSame(await add({ noteTypeID: typeNamed('Cloze'), fields: { Text: 'no deletion' } }), [400, 'invalid_field'], 'a cloze note without a deletion makes no card')
  t.strictSame(await add({ noteTypeID: '1'.repeat(39), fields: { Front: 'x' } }), [404, 'note_type_not_found'])
  t.equal(await databaseOf(app).collection('cards').countDocuments({}), 0, 'no card stored')
  t.equal(await databaseOf(app).collection('notes').countDocuments({}), 0, 'no note stored')
})

t.test('edit-note: filling Add Reverse adds the reversed card; every card shows the edit and keeps its schedule; delete-note takes the note and its cards', async (t) => {
  const { app, user, flashcardID, typeNamed, call, cardsOf } = await setUp(t)
  const { noteID, cardIDs: [first] } = await call<{ noteID: string, cardIDs: string[] }>('add-note', { flashcardID, noteTypeID: typeNamed('Basic (optional reversed card)'), fields: { Front: 'el gato', Back: 'the cat' } }, 201)
  await call('review-card', { flashcardID, cardID: first, rating: 'good' })
  const reviewed = await storedCard(app, first as string)

  const edited = await call<{ cardIDs: string[], added: string[], removed: string[] }>('edit-note', { noteID, fields: { Back: 'the cat (feline)', 'Add Reverse': 'y' } })
  t.equal(edited.added.length, 1, 'the reversed card added')
  t.strictSame(edited.removed, [])
  t.strictSame(edited.cardIDs, [first, edited.added[0]], 'the note\'s cards, card 1 first')
  const cards = await cardsOf()
  t.match(cards.find((card) => card.cardID === first), { backHtml: /the cat \(feline\)/ }, 'card 1 shows the edited back')
  t.match(cards.find((card) => card.cardID === edited.added[0]), { ord: '1', frontHtml: /the cat \(feline\)/, backHtml: /el gato/ }, 'card 2 asks the back')
  t.equal((await storedCard(app, edited.added[0] as string))?.reps, 0, 'a new card')
  const after = await storedCard(app, first as string)
  for (const field of ['state', 'due', 'stability', 'difficulty', 'reps', 'lastReview', 'lastReviewID'] as const) t.same(after?.[field], reviewed?.[field], `card 1's ${field} as the review left it`)

  // edited again without a change to Add Reverse: no card added twice
  t.strictSame((await call<{ added: string[] }>('edit-note', { noteID, tags: ['pets'] })).added, [])
  const refused = await post(app, 'edit-note', { jwtToken: user.jwtToken, noteID, fields: { Nope: 'x' } })
  t.match([refused.statusCode, refused.json()], [400, { code: 'invalid_field', error: /no field "Nope": its fields are "Front", "Back", "Add Reverse"/ }])
  t.match([(await post(app, 'edit-note', { jwtToken: user.jwtToken, noteID })).statusCode], [400], 'nothing to change')

  const usage = async (): Promise<number> => (await databaseOf(app).collection('users').findOne({ _id: user.userID as never }))?.usage?.cards as number
  t.equal(await usage(), 2)
  t.strictSame((await call<{ cardIDs: string[] }>('delete-note', { noteID })).cardIDs.sort(), [first, edited.added[0]].sort())
  t.strictSame(await cardsOf(), [], 'its cards gone')
  t.equal(await usage(), 0, 'the quota given back')
  const gone = await post(app, 'get-note', { jwtToken: user.jwtToken, noteID })
  t.match([gone.statusCode, gone.json()], [404, { code: 'note_not_found' }], 'the note gone')
})

t.test('notes added here reach Anki as notes of Anki\'s note types, each with its cards', needsAnki, async (t) => {
  assertAnki()
  const { app, user, flashcardID, typeNamed, call } = await setUp(t)
  await call('add-note', { flashcardID, noteTypeID: typeNamed('Basic (and reversed card)'), fields: { Front: 'el perro', Back: 'the dog' }, tags: ['animals'] }, 201)
  await call('add-note', { flashcardID, noteTypeID: typeNamed('Cloze'), fields: { Text: '{{c1::Madrid}} is the capital of {{c2::Spain}}', 'Back Extra': 'in Europe' } }, 201)
  await call('add-note', { flashcardID, noteTypeID: typeNamed('Basic (type in the answer)'), fields: { Front: '2 + 2', Back: '4' } }, 201)
  const imported = importIntoAnki(await exportedFile(t, app, user), 'Europe/Madrid')
  t.strictSame(imported.problems.filter((line) => !/^Database rebuilt and optimized/.test(line)), [], 'Check Database repairs nothing')
  // a fresh collection has note types of these names under ids of its own: Anki names the package's beside them with a +
  const notes = Object.values(imported.notes).map((note) => [note.notetype.replace(/\+$/, ''), note.fields]).sort()
  t.strictSame(notes, [
    ['Basic (and reversed card)', ['el perro', 'the dog']],
    ['Basic (type in the answer)', ['2 + 2', '4']],
    ['Cloze', ['{{c1::Madrid}} is the capital of {{c2::Spain}}', 'in Europe']]
  ], 'each note of its own note type, its fields as written')
  t.equal(imported.noteCount, 3, 'three notes counted: no two share a guid')
  t.equal(imported.cards.length, 5, 'two reversed cards, two cloze cards and one typed')
  t.strictSame(imported.cards.map((card) => card.ord).sort(), [0, 0, 0, 1, 1])
})

t.test('a note goes with its last card, whichever deletion takes it: a deck deleted with one card of it leaves the note, the other deck takes it', async (t) => {
  const { app, user, flashcardID, typeNamed, call } = await setUp(t)
  const other = await makeDeck(app, user, { folder: ['Other'], name: 'Elsewhere', cards: 0 })
  const { noteID, cardIDs } = await call<{ noteID: string, cardIDs: string[] }>('add-note', { flashcardID, noteTypeID: typeNamed('Basic (and reversed card)'), fields: { Front: 'el perro', Back: 'the dog' } }, 201)
  await call('move-cards', { cards: [{ flashcardID, cardID: cardIDs[1] }], toFlashcardID: other.flashcardID })
  const notes = databaseOf(app).collection('notes')
  await call('delete-flashcard', { flashcardID })
  t.match(await call('get-note', { noteID }), { cardIDs: [cardIDs[1]] }, 'the note stays with its card in the other deck')
  await call('delete-folder', { folderID: (await call<{ folders: Array<{ folderID: string, name: string }> }>('get-library', {})).folders.find((folder) => folder.name === 'Other')?.folderID })
  t.equal(await notes.countDocuments({ _id: noteID as never }), 0, 'gone with its last card')
  const gone = await post(app, 'get-note', { jwtToken: user.jwtToken, noteID })
  t.equal(gone.statusCode, 404)
})

t.test('a card of a cloze note kept whole is deleted as Anki deletes one: the note and its other cards stay as they are, and an edit does not bring the card back', async (t) => {
  const { flashcardID, typeNamed, call, cardsOf } = await setUp(t)
  const text = '{{c1::Madrid}} is the capital of {{c2::Spain}}'
  const { noteID, cardIDs: [first, second] } = await call<{ noteID: string, cardIDs: string[] }>('add-note', { flashcardID, noteTypeID: typeNamed('Cloze'), fields: { Text: text } }, 201)
  const before = (await cardsOf()).find((card) => card.cardID === second)
  await call('delete-card', { flashcardID, cardID: first })
  t.strictSame((await cardsOf()).map((card) => [card.cardID, card.frontHtml]), [[second, before?.frontHtml]], 'the other card as it was')
  t.match(await call('get-note', { noteID }), { fields: { Text: text }, cardIDs: [second] }, 'the note\'s text as it was')
  const edited = await call<{ added: string[] }>('edit-note', { noteID, fields: { 'Back Extra': 'in Europe' } })
  t.strictSame(edited.added, [], 'the deleted card does not come back')
})

t.test('a cloze note of an import from before notes were kept (no note of its own) moves whole', async (t) => {
  const { app, user, flashcardID, typeNamed, call, cardsOf } = await setUp(t)
  const other = await makeDeck(app, user, { folder: ['Other'], name: 'Elsewhere', cards: 0 })
  const { noteID, cardIDs } = await call<{ noteID: string, cardIDs: string[] }>('add-note', { flashcardID, noteTypeID: typeNamed('Cloze'), fields: { Text: '{{c1::a}} {{c2::b}}' } }, 201)
  // as an import before this version left it: cards naming a note that has no document
  await databaseOf(app).collection('notes').deleteOne({ _id: noteID as never })
  t.strictSame(await call('move-cards', { cards: [{ flashcardID, cardID: cardIDs[0] }], toFlashcardID: other.flashcardID }), { moved: '2', toFlashcardID: other.flashcardID }, 'both of its cards move')
  t.strictSame(await cardsOf(), [])
})
