// Every card is one card of a note, those made here too: a card of a front and a back (add-cards,
// create-flashcard) is a note of Basic under the card's own id, a cloze note made here one of Cloze
// under the noteID its cards share. get-note, edit-note and delete-note take them as they take a
// note an Anki import brought, and every read of a card's content names its note and ord.
import t from 'tap'
import { buildTestApp, databaseOf, expectOk, makeDeck, post, registerUser } from '../helpers/app.js'
import { storedCard } from '../helpers/stored.js'

interface Card { cardID: string, front: string, back: string, format: string, frontHtml: string, backHtml: string, noteID: string, ord: string, clozeNumber?: string, noteTypeID?: string }
interface Note { noteID: string, noteTypeID: string, fields: Record<string, string>, tags: string[], cardIDs: string[] }

async function setUp (t: Parameters<typeof buildTestApp>[0]) {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app, { timezone: 'Europe/Madrid' })
  const { flashcardID, cardIDs } = await makeDeck(app, user, { folder: ['Words'], name: 'Spanish', cards: [{ front: 'el perro', back: 'the dog\na pet' }] })
  const call = async <T>(operation: string, body: object, status = 200): Promise<T> => await expectOk<T>(app, operation, { jwtToken: user.jwtToken, ...body }, status)
  const refused = async (operation: string, body: object): Promise<[number, string]> => {
    const answer = await post(app, operation, { jwtToken: user.jwtToken, ...body })
    return [answer.statusCode, answer.json<{ code: string }>().code]
  }
  const cardsOf = async (): Promise<Card[]> => (await call<{ cards: Card[] }>('get-flashcard', { flashcardID })).cards
  // the card made whole, as a record of fields that the checks name by their names
  const stored = async (cardID: string) => await storedCard(app, cardID) as Record<string, unknown> | null
  const typeNamed = async (name: string): Promise<string> =>
    (await call<{ noteTypes: Array<{ noteTypeID: string, name: string }> }>('get-note-types', {})).noteTypes.find((noteType) => noteType.name === name)?.noteTypeID ?? ''
  return { app, user, flashcardID, dog: cardIDs[0] as string, call, refused, cardsOf, stored, typeNamed }
}

const SCHEDULE = ['state', 'due', 'stability', 'difficulty', 'reps', 'lapses', 'lastReview', 'lastReviewID', 'createdOrder']

t.test('a card of a front and a back made here is a note of Basic under its own id, which get-note reads and edit-note changes, its schedule kept', async (t) => {
  const { flashcardID, dog, call, refused, cardsOf, stored, typeNamed } = await setUp(t)
  t.match((await cardsOf())[0], { cardID: dog, noteID: dog, ord: '0' }, 'get-flashcard names the card\'s note: its own id')
  t.equal((await cardsOf())[0]?.noteTypeID, undefined, 'a card made here is styled by the page, not by a note type\'s CSS')
  const library = await call<{ library: Record<string, Record<string, { cards: Record<string, { noteID?: string, ord?: string }> }>> }>('get-all-cards', { content: true })
  t.match(library.library.Words?.Spanish?.cards[dog], { noteID: dog, ord: '0' }, 'get-all-cards with content too')

  t.strictSame(await call<Note>('get-note', { noteID: dog }), {
    noteID: dog,
    noteTypeID: await typeNamed('Basic'),
    fields: { Front: 'el perro', Back: 'the dog<br>a pet' },
    tags: [],
    cardIDs: [dog]
  }, 'get-note: the account\'s Basic, the sides as HTML fields')

  await call('review-card', { flashcardID, cardID: dog, rating: 'good' })
  const reviewed = await stored(dog)
  const edited = await call<{ noteID: string, cardIDs: string[], added: string[], removed: string[] }>('edit-note', { noteID: dog, fields: { Back: 'the dog' }, tags: ['animals'] })
  t.strictSame(edited, { noteID: dog, cardIDs: [dog], added: [], removed: [] })
  t.match((await cardsOf())[0], { front: 'el perro', back: 'the dog', format: 'text', backHtml: 'the dog' }, 'a field without markup keeps a plain text card plain')
  const after = await stored(dog)
  for (const field of SCHEDULE) t.same(after?.[field], reviewed?.[field], `its ${field} as the review left it`)
  t.strictSame((await call<Note>('get-note', { noteID: dog })).tags, ['animals'], 'the note\'s tags')
  t.ok((after?.modified as Date | undefined) instanceof Date, 'the card counts as changed here, for the next export and import')

  await call('edit-note', { noteID: dog, fields: { Front: 'el <b>perro</b>' } })
  t.match((await cardsOf())[0], { front: 'el <b>perro</b>', back: 'the dog', format: 'html', frontHtml: 'el <b>perro</b>' }, 'a field with markup makes it an html card')
  t.strictSame((await call<Note>('get-note', { noteID: dog })).fields, { Front: 'el <b>perro</b>', Back: 'the dog' })
  await call('edit-note', { noteID: dog, tags: [] })
  t.strictSame((await call<Note>('get-note', { noteID: dog })).tags, [], 'tags taken off')
  t.equal((await stored(dog))?.tags, undefined)

  const before = await stored(dog)
  t.strictSame(await refused('edit-note', { noteID: dog, fields: { Extra: 'x' } }), [400, 'invalid_field'], 'a field Basic lacks')
  t.strictSame(await refused('edit-note', { noteID: dog, fields: { Front: '' } }), [400, 'invalid_field'], 'an empty front')
  t.strictSame(await refused('edit-note', { noteID: dog, fields: { Back: 'x'.repeat(10_001) } }), [400, 'invalid_field'], 'a side past a card\'s size')
  t.strictSame(await refused('edit-note', { noteID: dog }), [400, 'nothing_to_change'])
  t.same(await stored(dog), before, 'a refused edit changes nothing')
})

t.test('a cloze note made here is a note of Cloze: edit-note changes its text as edit-card does, delete-note takes its cards', async (t) => {
  const { app, flashcardID, call, refused, cardsOf, stored, typeNamed } = await setUp(t)
  const { cardIDs } = await call<{ cardIDs: string[] }>('add-cards', { flashcardID, cards: [{ cloze: '{{c1::Madrid}} is the capital of {{c2::Spain}}', back: 'in Europe' }] }, 201)
  const [one, two] = cardIDs as [string, string]
  const noteID = (await cardsOf()).find((card) => card.cardID === one)?.noteID as string
  t.not(noteID, one, 'a cloze note has an id of its own')
  t.match((await cardsOf()).filter((card) => card.noteID === noteID).map((card) => [card.cardID, card.ord, card.clozeNumber]), [[one, '0', '1'], [two, '1', '2']])
  t.strictSame(await call<Note>('get-note', { noteID }), {
    noteID,
    noteTypeID: await typeNamed('Cloze'),
    fields: { Text: '{{c1::Madrid}} is the capital of {{c2::Spain}}', 'Back Extra': 'in Europe' },
    tags: [],
    cardIDs: [one, two]
  })

  await call('review-card', { flashcardID, cardID: one, rating: 'good' })
  const reviewed = await stored(one)
  const edited = await call<{ cardIDs: string[], added: string[], removed: string[] }>('edit-note', { noteID, fields: { Text: '{{c1::Madrid}} is in {{c3::Spain}}' } })
  t.equal(edited.added.length, 1, 'a new number makes a card')
  t.strictSame(edited.removed, [two], 'the card of a number gone is deleted, as edit-card deletes it')
  t.strictSame(edited.cardIDs, [one, edited.added[0]])
  t.match((await cardsOf()).find((card) => card.cardID === edited.added[0]), { clozeNumber: '3', frontHtml: /Madrid is in <span class="cloze">\[\.\.\.\]<\/span>/ })
  const after = await stored(one)
  for (const field of SCHEDULE) t.same(after?.[field], reviewed?.[field], `card 1's ${field} as the review left it`)
  t.strictSame(await refused('edit-note', { noteID, fields: { Text: 'no deletion left' } }), [400, 'invalid_cloze'], 'a text without a deletion, refused as edit-card refuses it')
  t.strictSame(await refused('edit-note', { noteID, fields: { Front: 'x' } }), [400, 'invalid_field'], 'a field Cloze lacks')

  const usage = async (): Promise<number> => (await databaseOf(app).collection('users').findOne({}))?.usage?.cards as number
  t.equal(await usage(), 3, 'the Basic card and the note\'s two')
  t.strictSame((await call<{ cardIDs: string[] }>('delete-note', { noteID })).cardIDs.sort(), [one, edited.added[0]].sort())
  t.equal((await cardsOf()).length, 1, 'only the Basic card left')
  t.equal(await usage(), 1, 'the quota given back')
  t.strictSame(await refused('get-note', { noteID }), [404, 'note_not_found'], 'the note gone')
})

t.test('delete-note takes a Basic card made here; no account reaches another\'s notes, and an id of no note is 404', async (t) => {
  const { app, dog, call, refused, cardsOf, stored } = await setUp(t)
  const stranger = await registerUser(app)
  for (const operation of ['get-note', 'delete-note']) {
    const answer = await post(app, operation, { jwtToken: stranger.jwtToken, noteID: dog })
    t.equal(answer.statusCode, 404, `${operation} of another account's note`)
  }
  t.equal((await post(app, 'edit-note', { jwtToken: stranger.jwtToken, noteID: dog, fields: { Front: 'mine' } })).statusCode, 404, 'edit-note of another account\'s note')
  t.equal((await stored(dog))?.front, 'el perro', 'the card as it was')
  t.strictSame(await refused('get-note', { noteID: '9'.repeat(30) }), [404, 'note_not_found'])

  t.strictSame(await call('delete-note', { noteID: dog }), { noteID: dog, cardIDs: [dog] })
  t.strictSame(await cardsOf(), [], 'the card gone')
  t.strictSame(await refused('delete-note', { noteID: dog }), [404, 'note_not_found'])
})
