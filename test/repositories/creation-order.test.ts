// The pages of cards read a flashcard's cards, or a user's, in creation order
// (createdOrder, then id) through windows of createdOrder: whatever the orders
// (ties, long gaps, cards before the account's creation or past the horizon)
// and whatever is asked for each time, the reads together give every card
// once, in the order of a full sort.
import { test } from 'tap'
import fc from 'fast-check'
import type { CardPlace } from '../../src/domain/card-pages.js'
import { buildTestApp, databaseOf } from '../helpers/app.js'

const USER = '100000000000000000000000000000000000001'
const FLASHCARD = '200000000000000000000000000000000000002'
const OTHER_FLASHCARD = '200000000000000000000000000000000000003'
const FLOOR = 1_000_000_000
const HORIZON = 9_000_000_000

test('reading in windows gives the full sort, from any place, asked for in any sizes', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const cards = databaseOf(app).collection<{ _id: string, userID: string, flashcardID: string, createdOrder: number }>('cards')
  // each card's state, which a read of cards joins them with (a card without one is left out): its copies of the card's fields are enough here
  const states = databaseOf(app).collection<{ _id: string, userID: string, flashcardID: string, createdOrder: number }>('cardStates')
  // clusters of consecutive orders (a batch), lone cards far apart, ties of one order, cards below the floor and past the horizon
  const orders = fc.oneof(
    fc.array(fc.integer({ min: FLOOR, max: FLOOR + 50 }), { maxLength: 60 }),
    fc.array(fc.oneof(fc.integer({ min: 0, max: HORIZON * 2 }), fc.constantFrom(FLOOR, FLOOR + 1, HORIZON - 1, HORIZON)), { maxLength: 60 }),
    fc.tuple(fc.integer({ min: FLOOR, max: HORIZON }), fc.integer({ min: 1, max: 150 })).map(([start, count]) => Array.from({ length: count }, (_, n) => start + n))
  )
  await fc.assert(fc.asyncProperty(
    orders, fc.array(fc.integer({ min: 1, max: 70 }), { minLength: 1, maxLength: 12 }), fc.nat(), fc.boolean(),
    async (created, asks, startAt, wholeLibrary) => {
      await cards.deleteMany({ userID: USER })
      await states.deleteMany({ userID: USER })
      const documents = created.map((createdOrder, n) => ({
        // ids in no order of their own: ties of createdOrder follow them, not the order of insertion
        _id: String((n * 7919) % 10007).padStart(39, '0'),
        userID: USER,
        flashcardID: n % 5 === 4 ? OTHER_FLASHCARD : FLASHCARD,
        createdOrder
      }))
      if (documents.length > 0) {
        await cards.insertMany(documents)
        await states.insertMany(documents)
      }
      const shown = wholeLibrary ? documents : documents.filter((card) => card.flashcardID === FLASHCARD)
      const sorted = shown.map((card) => ({ createdOrder: card.createdOrder, cardID: card._id }))
        .sort((a, b) => a.createdOrder - b.createdOrder || (a.cardID < b.cardID ? -1 : 1))
      const startIndex = sorted.length === 0 ? 0 : startAt % (sorted.length + 1)
      const after: CardPlace | null = startIndex === 0 ? null : sorted[startIndex - 1] ?? null
      const bounds = { floor: FLOOR, horizon: HORIZON }
      const reader = wholeLibrary
        ? app.repositories.cards.libraryInCreationOrder(USER, after, bounds)
        : app.repositories.cards.flashcardInCreationOrder(USER, FLASHCARD, after, bounds)
      const read: string[] = []
      for (const wanted of [...asks, 1_000]) {
        const got = await reader.next(wanted)
        read.push(...got.map((card) => card._id))
        if (got.length < wanted) break
      }
      const expected = sorted.slice(startIndex).map((place) => place.cardID)
      if (JSON.stringify(read) !== JSON.stringify(expected)) throw new Error(`read ${JSON.stringify(read)}, the full sort ${JSON.stringify(expected)}`)
    }
  ), { numRuns: 60 })
  t.pass('every run read the full sort')
})
