// Note types defined here (create-note-type), changed (edit-note-type) and deleted
// (delete-note-type): Anki's rules for what a note type may be, every note and card following a
// change with its schedule kept, and nothing kept lost without confirm: true.
import t from 'tap'
import { exportedFile } from '../helpers/anki-export.js'
import { buildTestApp, databaseOf, expectOk, makeDeck, post, registerUser } from '../helpers/app.js'
import { assertAnki, importIntoAnki, needsAnki } from '../helpers/pypi-anki.js'

interface NoteType { noteTypeID: string, name: string, kind: string, fields: string[], templates: Array<{ name: string, front: string, back: string }>, css: string, sortField: string }
interface Card { cardID: string, frontHtml: string, backHtml: string, noteID?: string, ord?: string, review_status: string, due_date?: string }

const VOCABULARY = {
  name: 'Vocabulary',
  fields: ['Word', 'Meaning', 'Example'],
  templates: [{ name: 'Recognise', front: '<b>{{Word}}</b>', back: '{{FrontSide}}<hr id=answer>{{Meaning}}{{#Example}}<br><i>{{Example}}</i>{{/Example}}' }],
  css: '.card { font-family: serif; color: navy; }'
}

async function setUp (t: Parameters<typeof buildTestApp>[0]) {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app, { timezone: 'Europe/Madrid' })
  const { flashcardID } = await makeDeck(app, user, { folder: ['Words'], name: 'Spanish', cards: 0 })
  const call = async <T>(operation: string, body: object, status = 200): Promise<T> => await expectOk<T>(app, operation, { jwtToken: user.jwtToken, ...body }, status)
  const refused = async (operation: string, body: object): Promise<[number, string]> => {
    const answer = await post(app, operation, { jwtToken: user.jwtToken, ...body })
    return [answer.statusCode, answer.json<{ code: string }>().code]
  }
  const cardsOf = async (): Promise<Card[]> => (await call<{ cards: Card[] }>('get-flashcard', { flashcardID })).cards
  const noteTypes = async (): Promise<NoteType[]> => (await call<{ noteTypes: NoteType[] }>('get-note-types', {})).noteTypes
  const usage = async (): Promise<number> => ((await databaseOf(app).collection('users').findOne({ _id: user.userID as never }))?.usage as { cards: number }).cards
  return { app, user, flashcardID, call, refused, cardsOf, noteTypes, usage }
}

t.test('create-note-type keeps a note type as defined; add-note makes its cards from its templates', async (t) => {
  const { call, flashcardID, cardsOf, noteTypes } = await setUp(t)
  const made = await call<NoteType>('create-note-type', VOCABULARY, 201)
  t.match(made, { name: 'Vocabulary', kind: 'standard', fields: VOCABULARY.fields, templates: VOCABULARY.templates, css: VOCABULARY.css, sortField: '0' })
  t.match((await noteTypes()).find((noteType) => noteType.noteTypeID === made.noteTypeID), { name: 'Vocabulary', fields: VOCABULARY.fields }, 'get-note-types lists it')
  await call('add-note', { flashcardID, noteTypeID: made.noteTypeID, fields: { Word: 'el perro', Meaning: 'the dog', Example: 'Mi perro ladra' } }, 201)
  const [card] = await cardsOf()
  t.match(card, { frontHtml: /<b>el perro<\/b>/, backHtml: /the dog<br \/><i>Mi perro ladra<\/i>/, ord: '0' }, 'its template renders its fields')

  const cloze = await call<NoteType>('create-note-type', { name: 'Cloze with source', kind: 'cloze', fields: ['Text', 'Source'], templates: [{ name: 'Cloze', front: '{{cloze:Text}}', back: '{{cloze:Text}}<br>{{Source}}' }] }, 201)
  const note = await call<{ cardIDs: string[] }>('add-note', { flashcardID, noteTypeID: cloze.noteTypeID, fields: { Text: '{{c1::Madrid}} and {{c2::Paris}}', Source: 'atlas' } }, 201)
  t.equal(note.cardIDs.length, 2, 'a cloze note type: a card for each number')
})

t.test('create-note-type refuses what Anki refuses, and a name the account has, storing nothing', async (t) => {
  const { app, call, refused } = await setUp(t)
  const create = async (change: object) => await refused('create-note-type', { ...VOCABULARY, ...change })
  t.strictSame(await create({ fields: ['Word', 'word'] }), [400, 'invalid_field'], 'two fields of one name (Anki compares without case)')
  t.strictSame(await create({ fields: ['Word', 'Mean:ing'] }), [400, 'invalid_field'], 'a field name a template cannot name')
  t.strictSame(await create({ fields: ['#Word'] }), [400, 'invalid_field'], 'a field name read as a section')
  t.strictSame(await create({ templates: [{ name: 'Card 1', front: 'no field here', back: '' }] }), [400, 'invalid_field'], 'a front that names no field never makes a card')
  t.strictSame(await create({ templates: [{ name: 'Card 1', front: '{{Missing}}', back: '' }] }), [400, 'invalid_field'], 'a template naming a field the note type lacks')
  t.strictSame(await create({ templates: [{ name: 'Card 1', front: '{{#Word}}{{Word}}', back: '' }] }), [400, 'invalid_field'], 'a section left open')
  t.strictSame(await create({ templates: [VOCABULARY.templates[0], { ...VOCABULARY.templates[0] }] }), [400, 'invalid_field'], 'two templates of one name')
  t.strictSame(await create({ kind: 'cloze', templates: [{ name: 'Cloze', front: '{{Word}}', back: '' }] }), [400, 'invalid_field'], 'a cloze note type without {{cloze:…}}')
  t.strictSame(await create({ sortField: 3 }), [400, 'invalid_field'], 'a sort field past the fields')
  t.strictSame(await create({ name: 'Basic' }), [409, 'name_taken'], 'the name of a stock note type the account is offered')
  t.equal(await databaseOf(app).collection('noteTypes').countDocuments({}), 0, 'none stored')
  await call('create-note-type', VOCABULARY, 201)
  t.strictSame(await create({}), [409, 'name_taken'], 'the name of one it keeps')
  t.equal(await databaseOf(app).collection('noteTypes').countDocuments({}), 1)
})

t.test('edit-note-type: a renamed field keeps its text, a changed template renders every card again, and each card keeps its schedule', async (t) => {
  const { call, flashcardID, cardsOf, noteTypes } = await setUp(t)
  const { noteTypeID } = await call<NoteType>('create-note-type', VOCABULARY, 201)
  const { noteID } = await call<{ noteID: string }>('add-note', { flashcardID, noteTypeID, fields: { Word: 'el perro', Meaning: 'the dog' } }, 201)
  await call('add-note', { flashcardID, noteTypeID, fields: { Word: 'el gato', Meaning: 'the cat' } }, 201)
  const [reviewed] = await cardsOf()
  await call('review-card', { flashcardID, cardID: reviewed?.cardID, rating: 'good' })
  const scheduled = (await cardsOf())[0]

  const edited = await call<NoteType & { notes: string, added: string[], removed: string[] }>('edit-note-type', {
    noteTypeID,
    fields: [{ name: 'Spanish', from: 'Word' }, { name: 'Meaning' }, { name: 'Example' }],
    templates: [{ name: 'Recognise', front: '<u>{{Spanish}}</u>', back: '{{FrontSide}}<hr id=answer>{{Meaning}}' }]
  })
  t.match(edited, { fields: ['Spanish', 'Meaning', 'Example'], notes: '2', added: [], removed: [] })
  t.match(await call('get-note', { noteID }), { fields: { Spanish: 'el perro', Meaning: 'the dog', Example: '' } }, 'the renamed field keeps its text')
  const cards = await cardsOf()
  t.strictSame(cards.map((card) => card.frontHtml.match(/<u>([^<]*)<\/u>/)?.[1]), ['el perro', 'el gato'], 'every card shows the new template')
  t.match(cards[0], { cardID: scheduled?.cardID, review_status: scheduled?.review_status, due_date: scheduled?.due_date }, 'the reviewed card keeps its schedule')

  await call('edit-note-type', { noteTypeID, css: '.card { color: red; }' })
  t.equal((await noteTypes()).find((noteType) => noteType.noteTypeID === noteTypeID)?.css, '.card { color: red; }', 'the CSS changed')
  t.strictSame((await cardsOf()).map((card) => card.frontHtml), cards.map((card) => card.frontHtml), 'a change of CSS alone leaves the cards as they were')
})

t.test('edit-note-type: a new template makes the cards its notes fill; dropping a template with cards or a field with text asks for confirm', async (t) => {
  const { app, call, refused, flashcardID, cardsOf, usage } = await setUp(t)
  const { noteTypeID } = await call<NoteType>('create-note-type', VOCABULARY, 201)
  const dog = await call<{ noteID: string, cardIDs: string[] }>('add-note', { flashcardID, noteTypeID, fields: { Word: 'el perro', Meaning: 'the dog', Example: 'Mi perro ladra' } }, 201)
  const cat = await call<{ noteID: string, cardIDs: string[] }>('add-note', { flashcardID, noteTypeID, fields: { Word: 'el gato', Meaning: 'the cat' } }, 201)

  const produce = { name: 'Use', front: '{{#Example}}{{Meaning}}?{{/Example}}', back: '{{Example}}' }
  const grown = await call<{ added: string[] }>('edit-note-type', { noteTypeID, templates: [{ ...VOCABULARY.templates[0] }, produce] })
  t.equal(grown.added.length, 1, 'only the note whose Example is filled makes a card of the new template')
  t.match(await call('get-note', { noteID: dog.noteID }), { cardIDs: [dog.cardIDs[0], grown.added[0]] })
  t.equal(await usage(), 3, 'the new card counts toward the quota')

  const before = await cardsOf()
  const notesBefore = await databaseOf(app).collection('notes').find({}).sort({ _id: 1 }).toArray()
  t.strictSame(await refused('edit-note-type', { noteTypeID, templates: [produce] }), [409, 'note_type_in_use'], 'dropping a template that has cards')
  const withoutExample = [{ name: 'Recognise', front: '{{Word}}', back: '{{Meaning}}' }, { name: 'Use', front: '{{Meaning}}?', back: '{{Word}}' }]
  t.strictSame(await refused('edit-note-type', { noteTypeID, fields: [{ name: 'Word' }, { name: 'Meaning' }], templates: withoutExample }), [409, 'note_type_in_use'], 'dropping a field that holds text')
  t.strictSame(await refused('edit-note-type', { noteTypeID, fields: [{ name: 'Word' }, { name: 'Meaning' }] }), [400, 'invalid_field'], 'dropping a field a template names')
  t.strictSame(await cardsOf(), before, 'the cards as they were')
  t.strictSame(await databaseOf(app).collection('notes').find({}).sort({ _id: 1 }).toArray(), notesBefore, 'the notes as they were')
  t.strictSame(await refused('edit-note-type', { noteTypeID }), [400, 'nothing_to_change'], 'an edit naming nothing')

  const shrunk = await call<{ removed: string[] }>('edit-note-type', { noteTypeID, templates: [produce], confirm: true })
  t.strictSame(shrunk.removed.sort(), [dog.cardIDs[0], cat.cardIDs[0]].sort(), 'confirmed: the cards of the dropped template are deleted')
  t.match(await call('get-note', { noteID: dog.noteID }), { cardIDs: [grown.added[0]] }, 'the note keeps its card of the other template')
  t.equal(await databaseOf(app).collection('notes').countDocuments({ _id: cat.noteID as never }), 0, 'a note whose last card went goes with it')
  t.equal(await usage(), 1, 'the quota given back')
  const [left] = await cardsOf()
  t.match(left, { cardID: grown.added[0], ord: '0' }, 'the card left is its template\'s, now the first')

  await call('edit-note-type', { noteTypeID, fields: [{ name: 'Word' }, { name: 'Meaning' }], templates: [{ name: 'Recognise', front: '{{Word}}', back: '{{Meaning}}' }], confirm: true })
  t.match(await call('get-note', { noteID: dog.noteID }), { fields: { Word: 'el perro', Meaning: 'the dog' } }, 'confirmed: the dropped field is gone')
})

t.test('delete-note-type: one with notes asks for confirm, then goes with every note and card of it; a stock one unused is not deleted', async (t) => {
  const { app, user, call, refused, flashcardID, cardsOf, noteTypes, usage } = await setUp(t)
  const { noteTypeID } = await call<NoteType>('create-note-type', VOCABULARY, 201)
  const { noteID } = await call<{ noteID: string }>('add-note', { flashcardID, noteTypeID, fields: { Word: 'el perro', Meaning: 'the dog' } }, 201)
  t.strictSame(await refused('delete-note-type', { noteTypeID }), [409, 'note_type_in_use'])
  t.equal((await cardsOf()).length, 1, 'its card stays')
  const deleted = await call<{ removed: string[] }>('delete-note-type', { noteTypeID, confirm: true })
  t.equal(deleted.removed.length, 1)
  t.strictSame(await cardsOf(), [], 'its cards gone')
  t.equal(await usage(), 0, 'the quota given back')
  t.equal(await databaseOf(app).collection('notes').countDocuments({ _id: noteID as never }), 0, 'its notes gone')
  t.notOk((await noteTypes()).some((noteType) => noteType.noteTypeID === noteTypeID), 'no longer listed')
  t.strictSame(await refused('delete-note-type', { noteTypeID }), [404, 'note_type_not_found'])

  const basic = (await noteTypes()).find((noteType) => noteType.name === 'Basic')?.noteTypeID as string
  t.strictSame(await refused('delete-note-type', { noteTypeID: basic }), [409, 'stock_note_type'], 'a stock one the account keeps none of')
  await call('add-note', { flashcardID, noteTypeID: basic, fields: { Front: 'a', Back: 'b' } }, 201)
  await call('delete-note-type', { noteTypeID: basic, confirm: true })
  t.ok((await noteTypes()).some((noteType) => noteType.name === 'Basic'), 'the stock Basic is offered again')

  const other = await registerUser(app)
  const mine = await call<NoteType>('create-note-type', VOCABULARY, 201)
  const foreign = await post(app, 'delete-note-type', { jwtToken: other.jwtToken, noteTypeID: mine.noteTypeID, confirm: true })
  t.match([foreign.statusCode, foreign.json()], [404, { code: 'note_type_not_found' }], 'another account\'s note type is not found')
  const foreignEdit = await post(app, 'edit-note-type', { jwtToken: other.jwtToken, noteTypeID: mine.noteTypeID, css: '' })
  t.equal(foreignEdit.statusCode, 404)
  t.ok((await noteTypes()).some((noteType) => noteType.noteTypeID === mine.noteTypeID), 'and stays')
  void user
})

t.test('a note type defined here reaches Anki as defined: its name, fields and the cards its templates make', needsAnki, async (t) => {
  assertAnki()
  const { app, user, call, flashcardID } = await setUp(t)
  const { noteTypeID } = await call<NoteType>('create-note-type', { ...VOCABULARY, templates: [...VOCABULARY.templates, { name: 'Produce', front: '{{Meaning}}', back: '{{Word}}' }] }, 201)
  await call('add-note', { flashcardID, noteTypeID, fields: { Word: 'el perro', Meaning: 'the dog', Example: 'Mi perro ladra' } }, 201)
  await call('edit-note-type', { noteTypeID, fields: [{ name: 'Spanish', from: 'Word' }, { name: 'Meaning' }, { name: 'Example' }], templates: [{ name: 'Recognise', front: '{{Spanish}}', back: '{{Meaning}}' }, { name: 'Produce', front: '{{Meaning}}', back: '{{Spanish}}' }] })
  const imported = importIntoAnki(await exportedFile(t, app, user), 'Europe/Madrid')
  t.strictSame(imported.problems.filter((line) => !/^Database rebuilt and optimized/.test(line)), [], 'Check Database repairs nothing')
  t.strictSame(Object.values(imported.notes).map((note) => [note.notetype, note.fields]), [['Vocabulary', ['el perro', 'the dog', 'Mi perro ladra']]])
  t.equal(imported.noteCount, 1, 'one note, counted')
  t.strictSame(imported.cards.map((card) => card.ord).sort(), [0, 1], 'a card of each template')
})

t.test('{{Deck}} and {{Subdeck}} name the card\'s flashcard by its place in the library, when a note is added, edited, or its note type changed', async (t) => {
  const { call, flashcardID, cardsOf } = await setUp(t)
  const { noteTypeID } = await call<NoteType>('create-note-type', { name: 'Placed', fields: ['Word'], templates: [{ name: 'Card 1', front: '{{Word}} ({{Deck}}; {{Subdeck}})', back: '{{Word}}' }] }, 201)
  const { noteID } = await call<{ noteID: string }>('add-note', { flashcardID, noteTypeID, fields: { Word: 'perro' } }, 201)
  t.match((await cardsOf())[0], { frontHtml: /perro \(Words::Spanish; Spanish\)/ }, 'added')
  await call('edit-note', { noteID, fields: { Word: 'gato' } })
  t.match((await cardsOf())[0], { frontHtml: /gato \(Words::Spanish; Spanish\)/ }, 'a note edited')
  await call('edit-note-type', { noteTypeID, templates: [{ name: 'Card 1', front: '{{Deck}}: {{Word}}', back: '{{Word}}' }] })
  t.match((await cardsOf())[0], { frontHtml: /Words::Spanish: gato/ }, 'its note type changed')
})

t.test('reshaping a note type of more notes than one transaction changes is refused whole; its CSS still changes', async (t) => {
  const { app, user, call, refused, noteTypes } = await setUp(t)
  const { noteTypeID } = await call<NoteType>('create-note-type', VOCABULARY, 201)
  // as many notes as the limit and one more (they need no cards for the count)
  const now = new Date()
  await databaseOf(app).collection('notes').insertMany(Array.from({ length: 10_001 }, (_, index) => ({
    _id: `${String(index).padStart(39, '0')}` as never, userID: user.userID, noteTypeID, ankiID: index, guid: `g${index}`, fields: ['w', 'm', ''], tags: [], modified: 1, createdAt: now
  })))
  t.strictSame(await refused('edit-note-type', { noteTypeID, fields: [{ name: 'Word' }, { name: 'Meaning' }, { name: 'Example' }, { name: 'Audio' }] }), [409, 'note_type_too_large'], 'a field added')
  t.strictSame((await noteTypes()).find((noteType) => noteType.noteTypeID === noteTypeID)?.fields, VOCABULARY.fields, 'the note type as it was')
  t.equal(await databaseOf(app).collection('notes').countDocuments({ fields: ['w', 'm', ''] }), 10_001, 'every note as it was')
  await call('edit-note-type', { noteTypeID, css: '.card { color: teal; }' })
  t.equal((await noteTypes()).find((noteType) => noteType.noteTypeID === noteTypeID)?.css, '.card { color: teal; }', 'a change of CSS has no such limit')
  // deleted a batch of notes at a time, the note type with the last
  t.strictSame(await refused('delete-note-type', { noteTypeID }), [409, 'note_type_in_use'])
  await call('delete-note-type', { noteTypeID, confirm: true })
  t.equal(await databaseOf(app).collection('notes').countDocuments({ noteTypeID }), 0, 'every note gone')
  t.notOk((await noteTypes()).some((noteType) => noteType.noteTypeID === noteTypeID), 'and the note type')
})

t.test('a rendering longer than the request waits goes on behind the answer; one an instance left is taken over where it was', async (t) => {
  const app = await buildTestApp(t, import.meta.filename, { noteTypeRendering: { waitMs: 0, leaseMs: 300 } })
  const user = await registerUser(app)
  const { flashcardID } = await makeDeck(app, user, { folder: ['Words'], name: 'Spanish', cards: 0 })
  const call = async <T>(operation: string, body: object, status = 200): Promise<T> => await expectOk<T>(app, operation, { jwtToken: user.jwtToken, ...body }, status)
  const fronts = async (): Promise<string[]> => (await call<{ cards: Card[] }>('get-flashcard', { flashcardID })).cards.map((card) => card.frontHtml)
  const until = async (wanted: (shown: string[]) => boolean | Promise<boolean>, what: string): Promise<void> => {
    const deadline = Date.now() + 20_000
    while (!await wanted(await fronts())) {
      if (Date.now() > deadline) throw new Error(`${what}: not within 20 s`)
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }
  const { noteTypeID } = await call<NoteType>('create-note-type', VOCABULARY, 201)
  for (const word of ['perro', 'gato', 'pájaro']) await call('add-note', { flashcardID, noteTypeID, fields: { Word: word, Meaning: 'x' } }, 201)

  const answer = await call<{ underWay?: string }>('edit-note-type', { noteTypeID, templates: [{ name: 'Recognise', front: '<i>{{Word}}</i>', back: '{{Meaning}}' }] })
  t.equal(answer.underWay, 'true', 'answered before the cards were rendered again')
  await until((shown) => shown.every((front) => front.startsWith('<i>')), 'rendered behind the answer')
  t.pass('every card rendered with the new template')
  const noteTypes = databaseOf(app).collection('noteTypes')

  // as another instance leaves it half-way: the note type changed, its cards not yet
  const rendering = async (): Promise<string | undefined> => (await call<{ noteTypes: Array<NoteType & { rendering?: string }> }>('get-note-types', {})).noteTypes.find((one) => one.noteTypeID === noteTypeID)?.rendering
  await noteTypes.updateOne({ _id: noteTypeID as never }, {
    $set: { 'templates.0.front': '<u>{{Word}}</u>', rendering: { run: 'left-behind', after: null, holder: 'another instance', until: new Date(Date.now() + 60_000) } }
  })
  await new Promise((resolve) => setTimeout(resolve, 500))
  t.equal(await rendering(), 'true', 'get-note-types says its cards are being rendered')
  t.ok((await fronts()).every((front) => front.startsWith('<i>')), 'a rendering another instance holds is left to it')
  // that instance stopped: its lease runs out
  await noteTypes.updateOne({ _id: noteTypeID as never }, { $set: { 'rendering.until': new Date(Date.now() - 1000) } })
  await until((shown) => shown.every((front) => front.startsWith('<u>')), 'taken over')
  t.pass('taken over by a running instance, every card rendered')
  await until(async () => await rendering() === undefined, 'ended')
  t.pass('get-note-types no longer says so')
})
