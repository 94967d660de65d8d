// Rescheduling the studied cards (reset-schedule or optimize-schedule with
// reschedule) gives suspended and buried cards their new schedules too, kept
// for when they come back, and leaves them out of today's cards meanwhile.
import { test } from 'tap'
import { DEFAULT_PARAMETERS } from '../../src/domain/memory-model.js'
import type { CardDocument } from '../../src/repositories/cards.js'
import { buildTestApp, databaseOf, expectOk, makeDeck, registerUser } from '../helpers/app.js'
import { storeHistory } from '../helpers/review-history.js'
import { syntheticLog } from '../helpers/synthetic-reviews.js'

const AFTER_HISTORY = new Date('2024-09-02T12:00:00Z')
const DAY = 86_400_000

test('suspended and buried cards are rescheduled with the others, and stay out of today\'s cards', async (t) => {
  const app = await buildTestApp(t, import.meta.filename, { clock: () => AFTER_HISTORY })
  const user = await registerUser(app)
  const { flashcardID, cardIDs } = await makeDeck(app, user, { folder: ['Studied'], name: 'Studied', cards: 30 })
  const log = syntheticLog({ parameters: DEFAULT_PARAMETERS, reviews: 3000, seed: 6 })
  const real = new Map(cardIDs.map((cardID, index) => [`card-${String(index).padStart(6, '0')}`, cardID]))
  await storeHistory(app, user.userID, log, (id) => real.get(id) ?? id)
  const cards = databaseOf(app).collection<CardDocument>('cardStates')
  // in review since their last answer in the log, all due long ago: every one of them is today's
  for (const [synthetic, cardID] of real) {
    const last = Math.max(...log.filter((entry) => entry.cardID === synthetic).map((entry) => entry.at))
    await cards.updateOne({ _id: cardID }, { $set: { state: 2, isNew: false, lastReview: new Date(last), due: new Date(last + DAY), scheduledDays: 1, stability: 1, difficulty: 5, reps: 5 } })
  }
  const [suspended, buried] = cardIDs as [string, string]
  await expectOk(app, 'suspend-card', { jwtToken: user.jwtToken, flashcardID, cardID: suspended })
  await expectOk(app, 'bury-card', { jwtToken: user.jwtToken, flashcardID, cardID: buried })
  const before = await cards.find({ _id: { $in: [suspended, buried] } }).toArray()

  const reset = await expectOk<{ rescheduled: string }>(app, 'reset-schedule', { jwtToken: user.jwtToken, reschedule: true })
  t.equal(reset.rescheduled, '30', 'every studied card, the suspended and the buried one among them')
  for (const card of before) {
    const after = await cards.findOne({ _id: card._id }) as CardDocument
    t.not(after.due.getTime(), card.due.getTime(), 'a new schedule')
    t.equal(after.version, card.version + 1)
    t.equal(after.isNew, card.isNew, 'still out of the queues')
  }
  t.equal((await cards.findOne({ _id: suspended }))?.suspended, true)
  const today = JSON.stringify(await expectOk(app, 'get-today-cards', { jwtToken: user.jwtToken }))
  t.notOk(today.includes(suspended) || today.includes(buried), 'neither among today\'s cards')
  t.ok(cardIDs.slice(2).every((cardID) => today.includes(cardID)), 'the others are')
})
