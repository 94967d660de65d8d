// Random studying, compared request by request with a full sort of the
// user's cards: whatever writes came in whatever order, the starts the
// queues are read from (src/domain/queues.ts) never hide a card.
import fc from 'fast-check'
import { test } from 'tap'
import { buildTestApp, post, registerUser } from '../helpers/app.js'
import { entriesOf, fullSort, learner, pairsOf } from '../helpers/today-queues.js'

const MINUTE = 60_000
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR

test('random studying: today\'s cards are always those of a full sort', async (t) => {
  const clock = { now: new Date('2026-10-01T08:00:00Z') }
  const app = await buildTestApp(t, import.meta.filename, { clock: () => clock.now })
  const rating = fc.constantFrom('again', 'hard', 'good', 'easy')
  const operation = fc.oneof(
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('create' as const), size: fc.oneof(fc.integer({ min: 1, max: 40 }), fc.constant(400)) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('add' as const), size: fc.integer({ min: 1, max: 20 }), deck: fc.nat() }) },
    { weight: 5, arbitrary: fc.record({ kind: fc.constant('study' as const), count: fc.integer({ min: 1, max: 6 }), rating }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('review any' as const), card: fc.nat(), rating }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('undo' as const) }) },
    { weight: 3, arbitrary: fc.record({ kind: fc.constant('wait' as const), ms: fc.constantFrom(1, 3, MINUTE, 10 * MINUTE, 2 * HOUR, DAY, 4 * DAY, 30 * DAY) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('limits' as const), newCardsPerDay: fc.integer({ min: 0, max: 30 }), reviewsPerDay: fc.integer({ min: 0, max: 60 }) }) },
    // another instance's clock, a little behind or ahead
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('skew' as const), ms: fc.integer({ min: -2 * HOUR, max: 2 * HOUR }) }) }
  )
  await fc.assert(fc.asyncProperty(fc.array(operation, { minLength: 5, maxLength: 30 }), async (operations) => {
    clock.now = new Date('2026-10-01T08:00:00Z')
    const me = learner(app, await registerUser(app), clock)
    const decks: Array<{ flashcardID: string, cardIDs: string[] }> = []
    for (const op of operations) {
      if (op.kind === 'create') {
        decks.push(await me.flashcard(op.size))
      } else if (op.kind === 'add' && decks.length > 0) {
        const deck = decks[op.deck % decks.length] as { flashcardID: string, cardIDs: string[] }
        deck.cardIDs.push(...await me.addCards(deck.flashcardID, op.size))
      } else if (op.kind === 'study') {
        for (const [flashcardID, cardID] of pairsOf(await me.today()).slice(0, op.count)) await me.review(flashcardID, cardID, op.rating)
      } else if (op.kind === 'review any' && decks.length > 0) {
        const all = decks.flatMap((deck) => deck.cardIDs.map((cardID) => [deck.flashcardID, cardID] as const))
        const [flashcardID, cardID] = all[op.card % all.length] as readonly [string, string]
        await me.review(flashcardID, cardID, op.rating)
      } else if (op.kind === 'undo') {
        const response = await post(app, 'undo-review', { jwtToken: me.user.jwtToken })
        if (response.statusCode !== 200 && response.statusCode !== 404) throw new Error(`undo-review: ${response.statusCode} ${response.body}`)
      } else if (op.kind === 'wait') {
        clock.now = new Date(clock.now.getTime() + op.ms)
      } else if (op.kind === 'limits') {
        await me.settings({ newCardsPerDay: op.newCardsPerDay, reviewsPerDay: op.reviewsPerDay })
      } else if (op.kind === 'skew') {
        const kept = clock.now
        clock.now = new Date(kept.getTime() + op.ms)
        decks.push(await me.flashcard(3))
        clock.now = kept
      }
      const answer = entriesOf(await me.today())
      const expected = entriesOf(await fullSort(app, me.user.userID, clock.now))
      if (JSON.stringify(answer) !== JSON.stringify(expected)) {
        throw new Error(`after ${op.kind} at ${clock.now.toISOString()}: today's cards ${JSON.stringify(answer)}, the full sort ${JSON.stringify(expected)}`)
      }
    }
  }), { numRuns: 40, endOnFailure: true })
  t.pass('every answer was the full sort\'s')
})
