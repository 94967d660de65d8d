// search-cards: cards found by what they show, regardless of case and
// accents, across the library; never another user's; kept in step with every
// write of a card.
import type { FastifyInstance } from 'fastify'
import { test } from 'tap'
import { newCards } from '../../src/services/library.js'
import { buildTestApp, databaseOf, expectOk, expectRefusal, makeDeck, registerUser, type TestUser } from '../helpers/app.js'
import { insertStoredCards } from '../helpers/stored.js'

interface Found { cardID: string, flashcardID: string, flashcardName: string, folder: string[], snippet: string }
interface Answer { results: Found[], more: string }

function searcher (app: FastifyInstance, user: TestUser) {
  return async (query: string, limit?: number): Promise<Answer> =>
    await expectOk<Answer>(app, 'search-cards', { jwtToken: user.jwtToken, query, ...(limit === undefined ? {} : { limit }) })
}

const ids = (answer: Answer): string[] => answer.results.map((result) => result.cardID).sort()

test('words are found regardless of case and accents, each anywhere in a card\'s front or back, every word in one card', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app)
  const search = searcher(app, user)
  const deck = await makeDeck(app, user, {
    folder: ['Languages', 'Español'],
    name: 'Vocabulario',
    cards: [
      { front: 'el Árbol', back: 'the tree' },
      { front: 'la CANCIÓN', back: 'the song' },
      { front: 'die Straße', back: 'the street' },
      { front: 'Łódź', back: 'a city in Poland' },
      { front: 'el niño canta una canción', back: 'the child sings a song' },
      { front: 'ﬁne ＡＢＣ', back: 'København' }
    ]
  })
  const [arbol, cancion, strasse, lodz, nino, fine] = deck.cardIDs as [string, string, string, string, string, string]
  t.strictSame(ids(await search('arbol')), [arbol], 'an accent left out')
  t.strictSame(ids(await search('ÁRBOL')), [arbol], 'upper case, with the accent')
  t.strictSame(ids(await search('cancion')), [cancion, nino].sort(), 'part of a word, in either card')
  t.strictSame(ids(await search('strasse')), [strasse], 'ß is ss')
  t.strictSame(ids(await search('LODZ')), [lodz], 'Ł and ź')
  t.strictSame(ids(await search('kobenhavn abc fine')), [fine], 'ø, full-width letters and a ligature; words on either side')
  t.strictSame(ids(await search('  Canción   NIÑO ')), [nino], 'every word in one card, spaces aside')
  t.strictSame(ids(await search('cancion tree')), [], 'words of two different cards find neither')
  t.strictSame(ids(await search('song sings')), [nino], 'the back too')
  t.strictSame(ids(await search('zebra')), [])

  const [found] = (await search('niño')).results
  t.strictSame(found, {
    cardID: nino,
    flashcardID: deck.flashcardID,
    flashcardName: 'Vocabulario',
    folder: ['Languages', 'Español'],
    snippet: 'el niño canta una canción the child sings a song'
  }, 'each result names its flashcard, to open it, with what the card shows as written')
})

test('formatted cards by their text, not their markup; cloze notes with their answers, not their syntax', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app)
  const search = searcher(app, user)
  await makeDeck(app, user, { folder: ['Decks'], name: 'Plain', cards: [{ front: 'Tom & Jerry', back: 'cartoon' }] })
  const formatted = await expectOk<{ flashcardID: string, cardIDs: string[] }>(app, 'create-flashcard', {
    jwtToken: user.jwtToken,
    folder: ['Decks'],
    flashcardName: 'Formatted',
    cards: [
      { front: '<b>Ho</b>la <span class="x" style="color:red">mundo</span>', back: 'bonjour&nbsp;le <i>monde</i><script>secreto()</script>', format: 'html' },
      { cloze: 'La {{c1::capital::city}} de {{c2::Francia}} es París', back: 'Europa' }
    ]
  }, 201)
  const [html, c1, c2] = formatted.cardIDs as [string, string, string]
  t.strictSame(ids(await search('hola mundo')), [html], 'bold around half a word: the word is whole again')
  t.strictSame(ids(await search('bonjour le monde')), [html], 'a non-breaking space between words')
  t.strictSame(ids(await search('span')), [], 'no element names')
  t.strictSame(ids(await search('color')), [], 'no attributes')
  t.strictSame(ids(await search('secreto')), [], 'nothing of what the sanitizer drops')
  t.strictSame(ids(await search('&')), [(await search('tom')).results[0]?.cardID as string], 'a plain text card shows & as written')
  t.strictSame(ids(await search('capital francia paris europa')), [c1, c2].sort(), 'a cloze note with every answer and its back extra, on each of its cards')
  t.strictSame(ids(await search('c1')), [], 'not the cloze syntax')
  t.strictSame(ids(await search('::')), [])
  const [snippet] = (await search('mundo')).results
  t.equal(snippet?.snippet, 'Hola mundo bonjour le monde', 'a snippet is text, without markup')
})

test('at most limit cards, more saying whether there are others; default 50', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app)
  const search = searcher(app, user)
  await makeDeck(app, user, { folder: ['Many'], name: 'Sixty', cards: Array.from({ length: 60 }, (_, n) => ({ front: `word ${n}`, back: 'common' })) })
  t.match(await search('common', 10), { more: 'true' })
  t.equal((await search('common', 10)).results.length, 10)
  t.equal((await search('common')).results.length, 50, 'the default limit')
  t.strictSame([(await search('common', 60)).results.length, (await search('common', 60)).more], [60, 'false'])
  t.strictSame([(await search('common', '200' as unknown as number)).results.length, (await search('common', 61)).more], [60, 'false'], 'a digit string too')
  for (const limit of [0, 201, 'many']) await expectRefusal(t, app, 'search-cards', { jwtToken: user.jwtToken, query: 'common', limit }, 400, 'invalid_field')
  await expectRefusal(t, app, 'search-cards', { jwtToken: user.jwtToken, query: '' }, 400, 'invalid_field')
  await expectRefusal(t, app, 'search-cards', { jwtToken: user.jwtToken, query: 'x'.repeat(201) }, 400, 'invalid_field')
  await expectRefusal(t, app, 'search-cards', { jwtToken: user.jwtToken, query: ' \t ' }, 400, 'invalid_value', 'a query of spaces only')
})

test('another user\'s cards are never found', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const me = await registerUser(app)
  const other = await registerUser(app)
  const mine = await makeDeck(app, me, { folder: ['Mine'], name: 'Shared word', cards: [{ front: 'secret ingredient', back: 'mine' }] })
  await makeDeck(app, other, { folder: ['Theirs'], name: 'Shared word', cards: [{ front: 'secret ingredient', back: 'theirs' }, { front: 'secret sauce', back: 'theirs' }] })
  t.strictSame(ids(await searcher(app, me)('secret')), mine.cardIDs)
  t.strictSame((await searcher(app, other)('mine')).results, [])
})

test('every write of a card keeps what is found in step: edits, cloze edits, deletions, moves', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app)
  const jwtToken = user.jwtToken
  const search = searcher(app, user)
  const deck = await makeDeck(app, user, { folder: ['Edits'], name: 'Deck', cards: [{ front: 'perro', back: 'dog' }, { front: 'gato', back: 'cat' }] })
  const [perro, gato] = deck.cardIDs as [string, string]
  await expectOk(app, 'edit-card', { jwtToken, flashcardID: deck.flashcardID, cardID: perro, front: 'el <b>perrito</b>', format: 'html' })
  t.strictSame(ids(await search('perrito')), [perro], 'the edited text')
  t.strictSame(ids(await search('perrito b')), [], 'as html, its markup is not text')
  await expectOk(app, 'delete-card', { jwtToken, flashcardID: deck.flashcardID, cardID: gato })
  t.strictSame(ids(await search('gato')), [], 'a deleted card')

  const { cardIDs: [note1, note2] } = await expectOk<{ cardIDs: string[] }>(app, 'add-cards', { jwtToken, flashcardID: deck.flashcardID, cards: [{ cloze: '{{c1::uno}} y {{c2::dos}}' }] }, 201)
  await expectOk(app, 'edit-card', { jwtToken, flashcardID: deck.flashcardID, cardID: note1, cloze: '{{c1::uno}} y {{c3::tres}}' })
  t.strictSame(ids(await search('dos')), [], 'a cloze edit: the text gone, its card with it')
  const tres = await search('tres')
  t.equal(tres.results.length, 2, 'the note\'s kept card and its new one')
  t.notOk(ids(tres).includes(note2 as string))
  await expectOk(app, 'delete-card', { jwtToken, flashcardID: deck.flashcardID, cardID: note1 })
  t.equal((await search('tres')).results.length, 1, 'deleting one of a note\'s cards: the note\'s text rewritten on the other, which is still found')

  const folderID = await expectOk<{ folderID: string }>(app, 'create-folder', { jwtToken, path: ['Elsewhere', 'Deeper'] }, 201)
  await expectOk(app, 'move-flashcard-set', { jwtToken, flashcardID: deck.flashcardID, folderID: folderID.folderID })
  t.strictSame((await search('perrito')).results[0]?.folder, ['Elsewhere', 'Deeper'], 'a moved flashcard: its new path')
  await expectOk(app, 'rename-flashcard', { jwtToken, flashcardID: deck.flashcardID, name: 'Renamed' })
  t.equal((await search('perrito')).results[0]?.flashcardName, 'Renamed')

  const imported = await expectOk<{ flashcardID: string }>(app, 'import-cards', { jwtToken, folder: ['Edits'], flashcardName: 'Imported', text: 'caballo\thorse\nvaca\tcow' }, 201)
  t.equal((await search('caballo')).results[0]?.flashcardID, imported.flashcardID, 'imported cards')
  await expectOk(app, 'delete-flashcard', { jwtToken, flashcardID: imported.flashcardID })
  t.strictSame((await search('caballo')).results, [], 'a deleted flashcard')
  await expectOk(app, 'delete-folder', { jwtToken, folderID: folderID.folderID })
  t.strictSame((await search('perrito')).results, [], 'a deleted folder')
  t.equal(await databaseOf(app).collection('searchPages').countDocuments({ userID: user.userID }), 0, 'no page is left of what was deleted')
})

test('a flashcard of many cards, and of long ones, over several pages: each card found, edited and deleted where it is', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app)
  const jwtToken = user.jwtToken
  const search = searcher(app, user)
  const deck = await makeDeck(app, user, { folder: ['Big'], name: 'Thousand', cards: Array.from({ length: 1000 }, (_, n) => ({ front: `term${n}x`, back: 'b' })) })
  const { cardIDs: added } = await expectOk<{ cardIDs: string[] }>(app, 'add-cards', { jwtToken, flashcardID: deck.flashcardID, cards: Array.from({ length: 300 }, (_, n) => ({ front: `added${n}x`, back: 'b' })) }, 201)
  const long = 'lorem ipsum '.repeat(750)
  const { cardIDs: longOnes } = await expectOk<{ cardIDs: string[] }>(app, 'add-cards', { jwtToken, flashcardID: deck.flashcardID, cards: Array.from({ length: 60 }, (_, n) => ({ front: `long${n}x ${long}`, back: 'b' })) }, 201)
  const pages = await databaseOf(app).collection<{ cardIDs: string[], text: string }>('searchPages').find({ userID: user.userID }).toArray()
  t.ok(pages.length >= 5, `${pages.length} pages for 1,360 cards`)
  t.ok(pages.every((page) => page.cardIDs.length <= 500 && page.text.length < 1024 * 1024), 'none over 500 cards or a mebicharacter')
  t.equal(pages.reduce((sum, page) => sum + page.cardIDs.length, 0), 1360, 'every card on one page')
  for (const [query, cardID] of [['term0x', deck.cardIDs[0]], ['term999x', deck.cardIDs[999]], ['added299x', added[299]], ['long59x', longOnes[59]]] as const) {
    t.strictSame(ids(await search(query)), [cardID], query)
  }
  await expectOk(app, 'edit-card', { jwtToken, flashcardID: deck.flashcardID, cardID: added[299], front: 'changed' })
  t.strictSame(ids(await search('changed')), [added[299]])
  t.strictSame(ids(await search('added299x')), [])
  await expectOk(app, 'edit-card', { jwtToken, flashcardID: deck.flashcardID, cardID: longOnes[0], back: 'y'.repeat(10_000) })
  t.strictSame(ids(await search('yyyy long0x')), [longOnes[0]], 'a page made longer by an edit')
  await expectOk(app, 'delete-card', { jwtToken, flashcardID: deck.flashcardID, cardID: deck.cardIDs[999] })
  t.strictSame(ids(await search('term999x')), [])
  t.strictSame(ids(await search('term998x')), [deck.cardIDs[998]], 'its neighbours stay')
})

test('an account that held cards before search: its first search finds them, and every search after', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app)
  const search = searcher(app, user)
  const deck = await makeDeck(app, user, { folder: ['Old'], name: 'Deck', cards: [{ front: 'nuevo', back: 'new' }] })
  // cards as an earlier version wrote them, without pages, and the account marked as the start-up migration marks it
  const db = databaseOf(app)
  const written = newCards(user.userID, deck.flashcardID, [{ front: 'antiguo', back: 'old' }, { front: '<i>viejo</i>', back: 'old', format: 'html' }], new Date())
  await insertStoredCards(db, written)
  t.strictSame(ids(await search('antiguo')), [], 'not found while its pages are not made (before the account is marked)')
  await db.collection('users').updateOne({ _id: user.userID as never }, { $set: { searchPending: true } })
  t.strictSame(ids(await search('old')), written.map((card) => card._id).sort(), 'found at the first search')
  t.strictSame(ids(await search('nuevo')), deck.cardIDs, 'with the cards written since')
  t.equal((await db.collection('users').findOne({ _id: user.userID as never }))?.searchPending, undefined, 'the account is no longer marked')
  t.equal(await db.collection('searchPages').countDocuments({ userID: user.userID }), 1, 'one page of three cards, each once')
  t.strictSame(ids(await search('viejo')), [written[1]?._id as string], 'and after')
})
