// A part of the library (a folder's or a flashcard's cards) is read two ways
// by get-study-queue: whole, by its flashcards (queuesOfFlashcards), when it
// holds few cards, or through the user's queues with a filter (todayQueue with
// `within`) when it holds many. Both must give the part's cards of the full
// sort, in order, within the allowance.
import { test } from 'tap'
import { userDay } from '../../src/domain/calendar.js'
import { todayQueueRanges } from '../../src/domain/queues.js'
import type { UserDocument } from '../../src/repositories/users.js'
import { buildTestApp, databaseOf, expectOk, registerUser } from '../helpers/app.js'
import { fullSortOrdered, learner, pairsOf } from '../helpers/today-queues.js'

const HOUR = 3_600_000
const DAY = 24 * HOUR

test('a part read whole and a part read through the queues give the same cards, the full sort\'s', async (t) => {
  const clock = { now: new Date('2026-02-01T08:00:00Z') }
  const app = await buildTestApp(t, import.meta.filename, { clock: () => clock.now })
  const user = await registerUser(app)
  const me = learner(app, user, clock)
  await me.settings({ newCardsPerDay: 9999, reviewsPerDay: 9999 })
  const decks = []
  for (let n = 0; n < 5; n++) {
    decks.push(await me.flashcard(12 + n * 7))
    clock.now = new Date(clock.now.getTime() + 1)
  }
  // cards studied on several days, some again, some easy: learning and review cards due at many instants
  for (let day = 0; day < 6; day++) {
    const today = pairsOf(await me.today())
    for (const [index, [flashcardID, cardID]] of today.slice(0, 15).entries()) {
      await me.review(flashcardID, cardID, ['again', 'good', 'easy', 'hard'][(index + day) % 4] ?? 'good')
    }
    clock.now = new Date(clock.now.getTime() + DAY + 3 * HOUR)
  }
  const some = decks[1]?.cardIDs[3] as string
  await expectOk(app, 'suspend-card', { jwtToken: user.jwtToken, flashcardID: decks[1]?.flashcardID ?? '', cardID: some })

  const { cardStates } = app.repositories
  const account = await databaseOf(app).collection<UserDocument>('users').findOne({ _id: user.userID }) as UserDocument
  const today = userDay(clock.now, account)
  const parts = [[decks[0]], [decks[1]], [decks[2], decks[4]], decks].map((part) => part.map((deck) => deck?.flashcardID as string))
  for (const [index, part] of parts.entries()) {
    for (const allowance of [{ reviews: 9999, newCards: 9999 }, { reviews: 3, newCards: 2 }, { reviews: 0, newCards: 5 }]) {
      const whole = await cardStates.queuesOfFlashcards(user.userID, part, today.end, allowance)
      const filtered = await cardStates.todayQueue(user.userID, todayQueueRanges(account.queueFrom, today.end, clock.now), allowance, part)
      await me.settings({ newCardsPerDay: allowance.newCards, reviewsPerDay: allowance.reviews })
      const { ordered } = await fullSortOrdered(app, user.userID, clock.now, new Set(part))
      await me.settings({ newCardsPerDay: 9999, reviewsPerDay: 9999 })
      const expected = ordered.map((card) => card._id)
      const label = `part ${index}, allowance ${allowance.reviews}/${allowance.newCards}`
      t.strictSame([...whole.due, ...whole.new].map((card) => card._id), expected, `${label}: read whole`)
      t.strictSame([...filtered.due, ...filtered.new].map((card) => card._id), expected, `${label}: read through the queues`)
    }
  }
  const all = await cardStates.queuesOfFlashcards(user.userID, parts[3] ?? [], today.end, { reviews: 9999, newCards: 9999 })
  t.ok(all.due.length > 5 && all.new.length > 5, 'learning and review cards among them, and new ones')
})
