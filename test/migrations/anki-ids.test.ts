import { MongoClient } from 'mongodb'
import { test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { buildApp } from '../../src/app.js'
import { newId } from '../../src/domain/ids.js'
import { CardState } from '../../src/domain/scheduling.js'
import type { CardDocument } from '../../src/repositories/cards.js'
import { migrate } from '../../src/repositories/migrations.js'
import type { UserDocument } from '../../src/repositories/users.js'
import { expectOk, TEST_SECRET, testDatabaseUrl } from '../helpers/app.js'

const made = new Date('2026-01-01T00:00:00Z')
const T = made.getTime()

/** A new card as an earlier version stored it: no Anki id. */
function oldCard (userID: string, flashcardID: string, createdOrder: number, extra: Partial<CardDocument> = {}): Record<string, unknown> {
  const createdAt = new Date(Math.floor(createdOrder / 1000))
  return {
    _id: newId(), userID, flashcardID, front: 'front', back: 'back', state: CardState.New, due: createdAt,
    stability: 0, difficulty: 0, elapsedDays: 0, scheduledDays: 0, learningSteps: 0, reps: 0, lapses: 0,
    lastReview: null, isNew: true, createdOrder, createdAt, version: 0, lastReviewID: null, ...extra
  }
}

test('cards made before Anki ids were kept get theirs once, in creation order, and cards made after get the next ones', async (t) => {
  const url = testDatabaseUrl(import.meta.filename)
  const client = await MongoClient.connect(url)
  t.teardown(async () => {
    await client.db().dropDatabase().catch(() => {})
    await client.close()
  })
  const db = client.db()
  const userID = newId()
  const [deck, other] = [newId(), newId()]
  await db.collection<Record<string, unknown> & { _id: string }>('users').insertOne({
    _id: userID, email: `${userID}@example.com`, passwordHash: 'not used', displayName: 'old', timezone: 'UTC', dayStartHour: 4,
    newCardsPerDay: 20, reviewsPerDay: 200, desiredRetention: 0.9, totalXp: 0, createdAt: made
  } as never)
  await db.collection('trees').insertOne({
    _id: userID as never, userID, version: 1,
    folders: [{ id: newId(), name: 'Old', folders: [], flashcards: [{ id: deck, name: 'Deck', description: '' }, { id: other, name: 'Other', description: '' }] }]
  })
  const note = newId()
  const cards = [
    // three cards made in one millisecond, a cloze note's two cards in it too, in another flashcard
    oldCard(userID, deck, T * 1000), oldCard(userID, deck, T * 1000 + 1), oldCard(userID, deck, T * 1000 + 2),
    oldCard(userID, other, T * 1000, { noteID: note, clozeNumber: 1 }), oldCard(userID, other, T * 1000 + 1, { noteID: note, clozeNumber: 2 }),
    // one made a millisecond later, and one an Anki import brought
    oldCard(userID, deck, (T + 1) * 1000),
    oldCard(userID, deck, (T + 2) * 1000, { ankiID: 1_500_000_000_000, ankiGuid: 'from-anki', noteID: newId(), ankiOrd: 0 })
  ]
  await db.collection('cards').insertMany(cards as never[])

  const app: FastifyInstance = await buildApp({ mongodbUrl: url, jwtSecret: TEST_SECRET, clock: () => made, loadShedding: { maxInFlight: 1000, maxInFlightPerUser: 1000 } })
  await app.ready()
  t.teardown(async () => { await app.close() })

  const stored = async (): Promise<Map<string, CardDocument>> => new Map((await db.collection<CardDocument>('cards').find({ userID }).toArray()).map((card) => [card._id, card]))
  const byId = await stored()
  const idsOf = (from: number, to: number): Array<[number | undefined, number | undefined]> =>
    cards.slice(from, to).map((card) => [byId.get(card._id as string)?.ankiID, byId.get(card._id as string)?.ankiNoteID])
  const ankiIDs = [...byId.values()].map((card) => card.ankiID)
  t.equal(new Set(ankiIDs).size, cards.length, 'every card has an id, and no two the same')
  // in creation order: the cards of one millisecond one after another, then the one made after them
  t.strictSame(idsOf(0, 6).map(([id]) => id).sort(), [T, T + 1, T + 2, T + 3, T + 4, T + 5], 'the creation millisecond, or the next one free')
  const [first, second] = idsOf(3, 5) as [[number, number], [number, number]]
  t.equal(first[1], first[0], 'a cloze note made here has the id of its first card')
  t.equal(second[1], first[0], 'which its other cards share')
  t.strictSame(idsOf(6, 7), [[1_500_000_000_000, undefined]], 'a card from Anki keeps Anki\'s id')
  t.equal((await db.collection<UserDocument>('users').findOne({ _id: userID }))?.lastAnkiID, T + 5, 'the account keeps the last')

  // run again: nothing moves
  await db.collection('migrations').deleteOne({ _id: 'anki-ids-of-cards' as never })
  await migrate(db, () => {})
  t.strictSame([...(await stored()).values()].map((card) => [card.ankiID, card.ankiNoteID]), [...byId.values()].map((card) => [card.ankiID, card.ankiNoteID]), 'a run again gives no card another id')

  // cards made now, in the same millisecond as the old: ids past the last
  const added = await expectOk<{ cardIDs: string[] }>(app, 'add-cards', {
    jwtToken: app.issueToken(userID), flashcardID: other, cards: [{ front: 'new', back: 'one' }, { cloze: '{{c1::a}} {{c2::b}}' }]
  }, 201)
  const now = await stored()
  t.strictSame(added.cardIDs.map((cardID) => now.get(cardID)?.ankiID), [T + 7, T + 8, T + 9], 'each new card the next id')
  t.strictSame(added.cardIDs.slice(1).map((cardID) => now.get(cardID)?.ankiNoteID), [T + 6, T + 6], 'a new cloze note one of its own, which its cards share')

  // a number added to a cloze note, old or new: its new card has the note's id
  for (const [cardID, noteID] of [[cards[3]?._id as string, first[0]], [added.cardIDs[1] as string, T + 6]] as const) {
    const flashcardID = now.get(cardID)?.flashcardID as string
    await expectOk(app, 'edit-card', { jwtToken: app.issueToken(userID), flashcardID, cardID, cloze: '{{c1::a}} {{c2::b}} {{c3::c}}' })
    const note = now.get(cardID)?.noteID
    const third = [...(await stored()).values()].find((card) => card.noteID === note && card.clozeNumber === 3)
    t.equal(third?.ankiNoteID, noteID, 'the card of the number added shares its note\'s id')
    t.ok(third?.ankiID !== undefined && third.ankiID > T + 9, 'and has an id of its own past the others')
  }
})
