// move-cards: cards moved into another flashcard (the card browser's selection), all or nothing;
// each keeps its schedule and history, search finds it in its new flashcard, and a card of a
// cloze note made here takes the note's other cards with it.
import { test } from 'tap'
import type { CardDocument } from '../../src/repositories/cards.js'
import { buildTestApp, databaseOf, everyCardOf, expectOk, expectRefusal, makeDeck, registerUser } from '../helpers/app.js'
import { storedCard } from '../helpers/stored.js'

interface Card { cardID: string, front: string }

test('moves the cards named into another flashcard, each keeping its schedule; search finds them there', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app)
  const words = await makeDeck(app, user, { folder: ['Languages'], name: 'Words', cards: [{ front: 'perro', back: 'dog' }, { front: 'gato', back: 'cat' }, { front: 'pez', back: 'fish' }] })
  const animals = await makeDeck(app, user, { folder: ['Science'], name: 'Animals', cards: 1 })
  await expectOk(app, 'review-card', { jwtToken: user.jwtToken, flashcardID: words.flashcardID, cardID: words.cardIDs[0], rating: 'good' })
  const before = await storedCard(app, words.cardIDs[0] as string)

  const chosen = [0, 2].map((index) => ({ flashcardID: words.flashcardID, cardID: words.cardIDs[index] as string }))
  t.strictSame(await expectOk(app, 'move-cards', { jwtToken: user.jwtToken, cards: [...chosen, chosen[0]], toFlashcardID: animals.flashcardID }),
    { moved: '2', toFlashcardID: animals.flashcardID }, 'a card named twice moves once')
  t.strictSame((await everyCardOf<Card>(app, user.jwtToken, words.flashcardID)).map((card) => card.front), ['gato'], 'Words keeps the other')
  t.strictSame((await everyCardOf<Card>(app, user.jwtToken, animals.flashcardID)).map((card) => card.front).sort(), ['Animals front 0', 'perro', 'pez'], 'Animals has them')
  const after = await storedCard(app, words.cardIDs[0] as string)
  for (const field of ['state', 'due', 'stability', 'difficulty', 'reps', 'lastReview', 'createdOrder'] as const) t.same(after?.[field], before?.[field], `its ${field} kept`)
  t.equal((await databaseOf(app).collection<CardDocument>('cardStates').findOne({ _id: words.cardIDs[0] as string }))?.flashcardID, animals.flashcardID, 'its state in Animals too')
  const found = await expectOk<{ results: Array<{ cardID: string, flashcardID: string }> }>(app, 'search-cards', { jwtToken: user.jwtToken, query: 'perro' })
  t.strictSame(found.results.map((result) => [result.cardID, result.flashcardID]), [[words.cardIDs[0], animals.flashcardID]], 'search finds it in Animals')
  t.equal(await databaseOf(app).collection('reviews').countDocuments({ cardID: words.cardIDs[0] }), 1, 'its review stays in the log')
})

test('a card of a cloze note made here takes its note\'s other cards with it', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app)
  const capitals = await makeDeck(app, user, { folder: ['Geography'], name: 'Capitals', cards: 0 })
  const other = await makeDeck(app, user, { folder: ['Geography'], name: 'Europe', cards: 0 })
  const { cardIDs } = await expectOk<{ cardIDs: string[] }>(app, 'add-cards', { jwtToken: user.jwtToken, flashcardID: capitals.flashcardID, cards: [{ cloze: '{{c1::Madrid}} is in {{c2::Spain}}' }] }, 201)
  t.strictSame(await expectOk(app, 'move-cards', { jwtToken: user.jwtToken, cards: [{ flashcardID: capitals.flashcardID, cardID: cardIDs[0] }], toFlashcardID: other.flashcardID }),
    { moved: '2', toFlashcardID: other.flashcardID })
  t.strictSame((await everyCardOf<Card>(app, user.jwtToken, other.flashcardID)).map((card) => card.cardID).sort(), [...cardIDs].sort(), 'both cards of the note moved')
  // the note is whole in its new flashcard: an edit of it keeps both cards
  const edited = await expectOk<{ kept: string[] }>(app, 'edit-card', { jwtToken: user.jwtToken, flashcardID: other.flashcardID, cardID: cardIDs[1], cloze: '{{c1::Madrid}} is in {{c2::Spain}}.' })
  t.strictSame([...edited.kept].sort(), [...cardIDs].sort())
})

test('a card not in the flashcard named, or a destination not the user\'s, moves nothing', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app)
  const words = await makeDeck(app, user, { folder: ['Languages'], name: 'Words', cards: 2 })
  const animals = await makeDeck(app, user, { folder: ['Science'], name: 'Animals', cards: 1 })
  // the flashcard a card is in, as its content and its state (which keeps a copy) say
  const stored = async (): Promise<string[]> => (await Promise.all(['cards', 'cardStates'].map(async (name) => await databaseOf(app).collection<CardDocument>(name).find({ userID: user.userID }).toArray())))
    .flatMap((cards, part) => cards.map((card) => `${part}:${card._id}:${card.flashcardID}`)).sort()
  const before = await stored()
  await expectRefusal(t, app, 'move-cards', { jwtToken: user.jwtToken, cards: [{ flashcardID: words.flashcardID, cardID: words.cardIDs[0] }, { flashcardID: animals.flashcardID, cardID: words.cardIDs[1] }], toFlashcardID: animals.flashcardID }, 404, 'card_not_found')
  await expectRefusal(t, app, 'move-cards', { jwtToken: user.jwtToken, cards: [{ flashcardID: words.flashcardID, cardID: words.cardIDs[0] }], toFlashcardID: '9'.repeat(39) }, 404, 'flashcard_not_found')
  t.strictSame(await stored(), before, 'no card moved')
})
