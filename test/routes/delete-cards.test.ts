// delete-cards: many cards deleted at once (the card browser's selection), all
// or nothing, each as delete-card deletes one: reviews stay in the log, the
// card quota is given back, a cloze note loses the deletions of its cards
// deleted (once for all of them) and its other cards keep their schedules,
// and media only the deleted cards showed go with them.
import type { FastifyInstance } from 'fastify'
import { test } from 'tap'
import type { CardDocument } from '../../src/repositories/cards.js'
import { buildTestApp, databaseOf, everyCardOf, expectOk, expectRefusal, makeDeck, makeFolder, registerUser, type TestUser } from '../helpers/app.js'
import { samples, storedMedia, uploaded } from '../helpers/media.js'
import { storedCard, storedCards } from '../helpers/stored.js'

interface Card { cardID: string, front: string, frontHtml: string }

function cardsOf (app: FastifyInstance) {
  return databaseOf(app).collection<CardDocument>('cards')
}

async function usage (app: FastifyInstance, user: TestUser): Promise<{ cards?: number, mediaBytes?: number }> {
  return (await databaseOf(app).collection('users').findOne({ _id: user.userID as never }))?.usage ?? {}
}

test('deletes the cards named, across flashcards, each once; their reviews stay and the quota is given back', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app)
  const words = await makeDeck(app, user, { folder: ['Languages'], name: 'Words', cards: 4 })
  const units = await makeDeck(app, user, { folder: ['Science'], name: 'Units', cards: 2 })
  await expectOk(app, 'review-card', { jwtToken: user.jwtToken, flashcardID: words.flashcardID, cardID: words.cardIDs[0], rating: 'good' })
  t.equal((await usage(app, user)).cards, 6)
  const chosen = [
    { flashcardID: words.flashcardID, cardID: words.cardIDs[0] as string },
    { flashcardID: words.flashcardID, cardID: words.cardIDs[2] as string },
    { flashcardID: units.flashcardID, cardID: units.cardIDs[1] as string }
  ]

  t.strictSame(await expectOk(app, 'delete-cards', { jwtToken: user.jwtToken, cards: [...chosen, chosen[0]] }), { deleted: '3' }, 'a card named twice is deleted once')
  t.strictSame((await everyCardOf<Card>(app, user.jwtToken, words.flashcardID)).map((card) => card.cardID), [words.cardIDs[1], words.cardIDs[3]], 'the others of Words stay, in order')
  t.strictSame((await everyCardOf<Card>(app, user.jwtToken, units.flashcardID)).map((card) => card.cardID), [units.cardIDs[0]], 'and of Units')
  t.equal(await cardsOf(app).countDocuments({ _id: { $in: chosen.map((card) => card.cardID) } }), 0, 'none of them stored')
  t.equal(await databaseOf(app).collection<CardDocument>('cardStates').countDocuments({ _id: { $in: chosen.map((card) => card.cardID) } }), 0, 'nor their states')
  t.equal((await usage(app, user)).cards, 3, 'the card quota given back')
  t.equal(await databaseOf(app).collection('reviews').countDocuments({ cardID: words.cardIDs[0] }), 1, 'the review given stays in the log')
  const library = await expectOk<{ folders: Array<{ flashcards: Array<{ cards: string }> }> }>(app, 'get-library', { jwtToken: user.jwtToken })
  t.strictSame(library.folders.map((folder) => folder.flashcards.map((flashcard) => flashcard.cards)), [['2'], ['1']], 'the library counts what is left')
  const search = await expectOk<{ results: Array<{ cardID: string }> }>(app, 'search-cards', { jwtToken: user.jwtToken, query: 'front' })
  t.strictSame(search.results.map((result) => result.cardID).sort(), [words.cardIDs[1], words.cardIDs[3], units.cardIDs[0]].sort(), 'search finds the cards left only')
})

test('a cloze note loses the deletions of its cards deleted, once for all; its other card keeps its schedule', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app)
  await makeFolder(app, user, ['Geography'])
  const deck = await expectOk<{ flashcardID: string, cardIDs: string[] }>(app, 'create-flashcard', {
    jwtToken: user.jwtToken, folder: ['Geography'], flashcardName: 'Capitals', cards: [{ cloze: '{{c1::Paris}} is the capital of {{c2::France}}, on the {{c3::Seine::river}}.' }]
  }, 201)
  const [c1, c2, c3] = deck.cardIDs as [string, string, string]
  await expectOk(app, 'review-card', { jwtToken: user.jwtToken, flashcardID: deck.flashcardID, cardID: c2, rating: 'good' })
  const before = await storedCard(app, c2)

  await expectOk(app, 'delete-cards', { jwtToken: user.jwtToken, cards: [{ flashcardID: deck.flashcardID, cardID: c1 }, { flashcardID: deck.flashcardID, cardID: c3 }] })
  const left = await everyCardOf<Card>(app, user.jwtToken, deck.flashcardID)
  t.strictSame(left.map((card) => card.cardID), [c2], 'card 2 is left')
  t.equal(left[0]?.front, 'Paris is the capital of {{c2::France}}, on the Seine.', 'both deletions gone from the note\'s text, their answers kept as text')
  t.equal(left[0]?.frontHtml, 'Paris is the capital of <span class="cloze">[...]</span>, on the Seine.')
  const after = await storedCard(app, c2)
  for (const field of ['state', 'due', 'stability', 'difficulty', 'reps', 'lastReview'] as const) t.same(after?.[field], before?.[field], `card 2's ${field} kept`)

  await expectOk(app, 'delete-cards', { jwtToken: user.jwtToken, cards: [{ flashcardID: deck.flashcardID, cardID: c2 }] })
  t.strictSame(await everyCardOf<Card>(app, user.jwtToken, deck.flashcardID), [], 'the last card goes like any other')
})

test('media only the deleted cards showed go with them; media another card shows stays', async (t) => {
  let now = Date.parse('2026-05-04T08:00:00Z')
  const app = await buildTestApp(t, import.meta.filename, { clock: () => new Date(now), media: { graceSeconds: 600 } })
  const user = await registerUser(app)
  const deck = await makeDeck(app, user, { folder: ['Birds'], name: 'Birds', cards: 3 })
  const robin = await uploaded(app, user.jwtToken, samples.jpeg(30_000))
  const wren = await uploaded(app, user.jwtToken, samples.jpeg(20_000))
  const show = async (cardID: string, media: string[]) => await cardsOf(app).updateOne({ _id: cardID }, { $set: { media } })
  await show(deck.cardIDs[0] as string, [robin.mediaID])
  await show(deck.cardIDs[1] as string, [robin.mediaID, wren.mediaID])
  await show(deck.cardIDs[2] as string, [wren.mediaID])
  now += 601_000

  await expectOk(app, 'delete-cards', { jwtToken: user.jwtToken, cards: deck.cardIDs.slice(0, 2).map((cardID) => ({ flashcardID: deck.flashcardID, cardID })) })
  t.equal((await app.inject({ method: 'GET', url: robin.url })).statusCode, 404, 'the image only the deleted cards showed is gone')
  t.equal((await app.inject({ method: 'GET', url: wren.url })).statusCode, 200, 'the one the third card shows stays')
  t.same(await storedMedia(app), { records: 1, files: 1, chunks: 1, unrecorded: 0 })
  t.equal((await usage(app, user)).mediaBytes, 20_000, 'its bytes given back')
})

test('all or nothing: an unknown card, a card of another flashcard or another user\'s refuses the whole request and deletes nothing', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app)
  const stranger = await registerUser(app)
  const deck = await makeDeck(app, user, { folder: ['Languages'], name: 'Words', cards: 3 })
  const second = await makeDeck(app, user, { folder: ['Languages'], name: 'Verbs', cards: 1 })
  const theirs = await makeDeck(app, stranger, { folder: ['Theirs'], name: 'Deck', cards: 1 })
  const mine = deck.cardIDs.map((cardID) => ({ flashcardID: deck.flashcardID, cardID }))
  const stored = async () => await storedCards(app)
  const before = await stored()
  const refuse = async (extra: { flashcardID: string, cardID: string }, what: string) =>
    await expectRefusal(t, app, 'delete-cards', { jwtToken: user.jwtToken, cards: [...mine, extra] }, 404, 'card_not_found', what)
  await refuse({ flashcardID: deck.flashcardID, cardID: '1'.repeat(30) }, 'an unknown card')
  await refuse({ flashcardID: deck.flashcardID, cardID: second.cardIDs[0] as string }, 'a card of another flashcard')
  await refuse({ flashcardID: theirs.flashcardID, cardID: theirs.cardIDs[0] as string }, 'another user\'s card')
  await expectRefusal(t, app, 'delete-cards', { jwtToken: user.jwtToken, cards: [] }, 400, 'invalid_field', 'no card')
  await expectRefusal(t, app, 'delete-cards', { jwtToken: user.jwtToken, cards: Array.from({ length: 501 }, () => mine[0]) }, 400, 'invalid_field', 'more than 500')
  t.strictSame(await stored(), before, 'no card of anyone deleted or changed')
  t.equal((await usage(app, user)).cards, 4, 'the quota as it was')
})
