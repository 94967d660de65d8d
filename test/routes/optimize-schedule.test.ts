import { test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { DEFAULT_PARAMETERS, intervalFor, stateAfter } from '../../src/domain/memory-model.js'
import { scheduleReview, type CardSchedule } from '../../src/domain/scheduling.js'
import { trainingItems, type LoggedReview } from '../../src/domain/training-items.js'
import type { CardDocument } from '../../src/repositories/cards.js'
import type { UserDocument } from '../../src/repositories/users.js'
import { buildTestApp, databaseOf, makeDeck, post, registerUser, testDatabaseUrl, type TestUser } from '../helpers/app.js'
import { storeHistory } from '../helpers/review-history.js'
import { storedState } from '../helpers/stored.js'
import type { Static } from '@sinclair/typebox'
import type { ScheduleFit, ScheduleReset, ScheduleStatus } from '../../src/schemas/schedule.js'
import type { ReviewAnswer, ReviewPreview, TreeFlashcard, TreeFolder } from '../../src/schemas/study.js'
import { syntheticLog } from '../helpers/synthetic-reviews.js'

/** A learner who forgets faster than FSRS's average user: parameters fitted to their reviews predict them better than the defaults. */
const FORGETFUL = [0.1, 0.4, 0.9, 3.0, 7.5, 0.5, 1.5, 0.02, 1.2, 0.25, 0.9, 2.2, 0.1, 0.3, 1.9, 0.5, 2.0, 0.4, 0.2, 0.1, 0.45]
/** after the synthetic histories, which start on 2024-01-01 */
const AFTER_HISTORY = new Date('2024-09-02T12:00:00Z')
const DAY = 86_400_000

interface Answers {
  'optimize-schedule': ScheduleFit
  'get-schedule': ScheduleStatus
  'reset-schedule': ScheduleReset
  'preview-review': Static<typeof ReviewPreview>
  'review-card': ReviewAnswer
  'get-today-cards': TreeFolder
}

async function call<Operation extends keyof Answers> (app: FastifyInstance, operation: Operation, body: Record<string, unknown>): Promise<Answers[Operation]> {
  const response = await post(app, operation, body)
  if (response.statusCode !== 200) throw new Error(`${operation}: ${response.statusCode} ${response.body}`)
  return response.json()
}

async function account (app: FastifyInstance, user: TestUser): Promise<UserDocument> {
  const found = await databaseOf(app).collection<UserDocument>('users').findOne({ _id: user.userID })
  if (found === null) throw new Error('no account')
  return found
}

async function withHistory (app: FastifyInstance, log: LoggedReview[], cardIDOf?: (id: string) => string): Promise<TestUser> {
  const user = await registerUser(app)
  await storeHistory(app, user.userID, log, cardIDOf)
  return user
}

/** How many times the app's fitting worker is given a job. */
function countFits (app: FastifyInstance, delayMs = 0): { runs: number } {
  const counted = { runs: 0 }
  const run = app.fitter.run.bind(app.fitter)
  app.fitter.run = async (job) => {
    counted.runs += 1
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs))
    return await run(job)
  }
  return counted
}

test('a log too short to fit to is refused with how many more reviews it takes, and nothing changes', async (t) => {
  const app = await buildTestApp(t, import.meta.filename, { clock: () => AFTER_HISTORY })
  const log = syntheticLog({ parameters: FORGETFUL, reviews: 600, seed: 3 })
  const user = await withHistory(app, log)
  const items = trainingItems(log).items.length
  const before = await storedState(app)

  const refused = await post(app, 'optimize-schedule', { jwtToken: user.jwtToken })
  t.equal(refused.statusCode, 409)
  t.equal(refused.json().code, 'not_enough_history')
  t.match(refused.json().error, new RegExp(`at least 1,000 reviews .* has ${items}: ${1000 - items} more are needed`))
  t.equal(await storedState(app), before, 'nothing stored, no lease left')
  const schedule = await call(app, 'get-schedule', { jwtToken: user.jwtToken })
  t.equal(schedule.fitted, 'false')
  t.equal(schedule.minimumItems, '1000')
  t.notOk('lastFit' in schedule)
})

test('parameters that predict better are adopted, and preview-review and review-card schedule with them until the user goes back to the defaults', async (t) => {
  let now = new Date(AFTER_HISTORY)
  const app = await buildTestApp(t, import.meta.filename, { clock: () => now })
  const user = await withHistory(app, syntheticLog({ parameters: FORGETFUL, reviews: 5000, seed: 2 }))
  const { flashcardID, cardIDs: [cardID] } = await makeDeck(app, user, { folder: ['Words'], name: 'Words', cards: 1 })
  // a card learned and in review: its next interval is what the parameters decide
  await call(app, 'review-card', { jwtToken: user.jwtToken, flashcardID, cardID, rating: 'good' })
  now = new Date(now.getTime() + 10 * 60_000)
  const learned = await call(app, 'review-card', { jwtToken: user.jwtToken, flashcardID, cardID, rating: 'good' })
  now = new Date(learned.due)
  const withDefaults = await call(app, 'preview-review', { jwtToken: user.jwtToken, flashcardID, cardID })

  const fit = await call(app, 'optimize-schedule', { jwtToken: user.jwtToken })
  t.equal(fit.adopted, 'true')
  t.ok(Number(fit.fitted.logLoss) < Number(fit.default.logLoss), `log loss ${fit.fitted.logLoss} < ${fit.default.logLoss}`)
  t.equal(fit.parameters.length, 21)
  t.ok(Number(fit.items) >= 1000 && Number(fit.reviews) > Number(fit.items))
  t.equal(fit.rescheduled, '0', 'cards keep their schedules unless asked')
  t.ok(fit.workload.length >= 7 && fit.workload.every((cost) => /^\d\.\d\d$/.test(cost.desiredRetention) && /^\d+$/.test(cost.reviewsPerDay)))
  t.equal(fit.newCardsPerDay, '20', 'with the new cards a day the estimate adds: the user\'s setting')
  const stored = (await account(app, user)).fsrsParameters
  t.strictSame(stored?.map((w) => w.toFixed(4)), fit.parameters, 'the account keeps the parameters answered')
  const schedule = await call(app, 'get-schedule', { jwtToken: user.jwtToken })
  t.equal(schedule.fitted, 'true')
  t.strictSame(schedule.parameters, fit.parameters)
  t.strictSame(schedule.lastFit, fit)

  // the forgetful learner's parameters give shorter intervals, and previews show them
  const withFitted = await call(app, 'preview-review', { jwtToken: user.jwtToken, flashcardID, cardID })
  t.ok(Date.parse(withFitted.good.due) < Date.parse(withDefaults.good.due), `good: ${withFitted.good.interval} rather than ${withDefaults.good.interval}`)
  const card = await databaseOf(app).collection<CardDocument>('cardStates').findOne({ _id: cardID }) as CardSchedule
  t.equal(withFitted.good.due, scheduleReview(card, 'good', now, { desiredRetention: 0.9, parameters: stored }).due.toISOString(), 'the scheduler with the adopted parameters')
  const reviewed = await call(app, 'review-card', { jwtToken: user.jwtToken, flashcardID, cardID, rating: 'good' })
  t.equal(reviewed.due, withFitted.good.due, 'review-card stores what the preview showed')

  const reset = await call(app, 'reset-schedule', { jwtToken: user.jwtToken })
  t.equal(reset.fitted, 'false')
  t.strictSame(reset.parameters, DEFAULT_PARAMETERS.map((w) => w.toFixed(4)))
  t.equal(reset.rescheduled, '0')
  t.strictSame(reset.lastFit, fit, 'the last fit stays, for comparison')
  t.equal((await account(app, user)).fsrsParameters, undefined)
  const after = await call(app, 'preview-review', { jwtToken: user.jwtToken, flashcardID, cardID })
  const expected = scheduleReview(await databaseOf(app).collection<CardDocument>('cardStates').findOne({ _id: cardID }) as CardSchedule, 'good', now, { desiredRetention: 0.9 })
  t.equal(after.good.due, expected.due.toISOString(), 'the defaults again')
})

test('parameters that predict no better are not adopted: the account keeps the defaults', async (t) => {
  const app = await buildTestApp(t, import.meta.filename, { clock: () => AFTER_HISTORY })
  const user = await withHistory(app, syntheticLog({ parameters: DEFAULT_PARAMETERS, reviews: 3000, newCardsPerDay: 10, seed: 1 }))
  const fit = await call(app, 'optimize-schedule', { jwtToken: user.jwtToken, reschedule: true })
  t.equal(fit.adopted, 'false')
  t.ok(Number(fit.fitted.logLoss) >= Number(fit.default.logLoss))
  t.equal(fit.rescheduled, '0')
  t.equal((await account(app, user)).fsrsParameters, undefined)
  const schedule = await call(app, 'get-schedule', { jwtToken: user.jwtToken })
  t.equal(schedule.fitted, 'false')
  t.equal(schedule.lastFit?.adopted, 'false')
})

test('two calls at once for one user run one fit, and both answer it', async (t) => {
  const app = await buildTestApp(t, import.meta.filename, { clock: () => AFTER_HISTORY })
  const user = await withHistory(app, syntheticLog({ parameters: FORGETFUL, reviews: 3000, seed: 4 }))
  const fits = countFits(app)
  const [first, second] = await Promise.all([1, 2].map(async () => await post(app, 'optimize-schedule', { jwtToken: user.jwtToken })))
  t.equal(first?.statusCode, 200)
  t.equal(second?.statusCode, 200)
  t.equal(second?.body, first?.body, 'the same answer')
  t.equal(fits.runs, 1, 'one fit')
  await call(app, 'optimize-schedule', { jwtToken: user.jwtToken })
  t.equal(fits.runs, 2, 'a call after it is done fits again')
})

test('two instances on one database: a call made while the other fits for the same user waits for that fit and answers it', async (t) => {
  const mongodbUrl = testDatabaseUrl(import.meta.filename)
  const one = await buildTestApp(t, import.meta.filename, { mongodbUrl, fitting: { waitPollMs: 20 } })
  const two = await buildTestApp(t, import.meta.filename, { mongodbUrl, fitting: { waitPollMs: 20 } })
  const user = await withHistory(one, syntheticLog({ parameters: FORGETFUL, reviews: 3000, seed: 5 }))
  // the first instance's fit is held up, so that the second's call surely comes while it runs
  const fitsOfOne = countFits(one, 1000)
  const fitsOfTwo = countFits(two)
  const first = post(one, 'optimize-schedule', { jwtToken: user.jwtToken })
  await new Promise((resolve) => setTimeout(resolve, 300))
  const second = await post(two, 'optimize-schedule', { jwtToken: user.jwtToken })
  t.equal(second.statusCode, 200)
  t.equal(second.body, (await first).body, 'the other instance\'s answer')
  t.equal(fitsOfOne.runs + fitsOfTwo.runs, 1, 'one fit in all')
  t.equal(await databaseOf(one).collection('fitLeases').countDocuments(), 0, 'the lease is given back')
})

test('with reschedule, the studied cards get the schedules the adopted parameters give them, and those now due are among today\'s cards', async (t) => {
  const app = await buildTestApp(t, import.meta.filename, { clock: () => AFTER_HISTORY })
  const user = await registerUser(app)
  const { cardIDs } = await makeDeck(app, user, { folder: ['Studied'], name: 'Studied', cards: 30 })
  // the history's first 30 cards are these cards, each in review since its last answer in the log
  const log = syntheticLog({ parameters: FORGETFUL, reviews: 5000, seed: 6 })
  const real = new Map(cardIDs.map((cardID, index) => [`card-${String(index).padStart(6, '0')}`, cardID]))
  await storeHistory(app, user.userID, log, (id) => real.get(id) ?? id)
  const cards = databaseOf(app).collection<CardDocument>('cardStates')
  for (const [synthetic, cardID] of real) {
    const last = Math.max(...log.filter((entry) => entry.cardID === synthetic).map((entry) => entry.at))
    await cards.updateOne({ _id: cardID }, { $set: { state: 2, isNew: false, lastReview: new Date(last), due: new Date(last + 400 * DAY), scheduledDays: 400, stability: 400, difficulty: 5, reps: 5 } })
  }

  const fit = await call(app, 'optimize-schedule', { jwtToken: user.jwtToken, reschedule: true })
  t.equal(fit.adopted, 'true')
  t.equal(fit.rescheduled, '30')
  const parameters = (await account(app, user)).fsrsParameters ?? []
  const histories = new Map(trainingItems(log).cards.map((card) => [card.cardID, card]))
  for (const [synthetic, cardID] of [...real].slice(0, 5)) {
    const card = await cards.findOne({ _id: cardID }) as CardDocument
    const state = stateAfter(parameters, histories.get(synthetic)?.steps ?? []) ?? { stability: 0, difficulty: 0 }
    const days = Math.max(1, Math.round(intervalFor(parameters, state.stability, 0.9)))
    t.ok(Math.abs(card.stability - state.stability) < 1e-9, `${synthetic}: the stability its history gives`)
    t.equal(card.scheduledDays, days)
    t.equal(card.due.getTime(), (card.lastReview as Date).getTime() + days * DAY, `${synthetic}: due ${days} days after its last review`)
    t.equal(card.version, 1, 'counted as a change of the card')
  }
  // the forgetful learner's cards fall due long before the 400 days they had: those due by now are today's
  const dueNow = (await cards.find({ userID: user.userID, due: { $lt: AFTER_HISTORY } }).toArray()).map((card) => card._id).sort()
  t.ok(dueNow.length > 0, `${dueNow.length} cards due now`)
  const today = await call(app, 'get-today-cards', { jwtToken: user.jwtToken })
  const listed = Object.keys(((today.Studied as TreeFolder).Studied as TreeFlashcard).cards).sort()
  t.ok(dueNow.every((cardID) => listed.includes(cardID)), 'every card due now is among today\'s cards')

  const reset = await call(app, 'reset-schedule', { jwtToken: user.jwtToken, reschedule: true })
  t.equal(reset.rescheduled, '30', 'and back with the defaults')
  const card = await cards.findOne({ _id: cardIDs[0] }) as CardDocument
  const state = stateAfter(DEFAULT_PARAMETERS, histories.get('card-000000')?.steps ?? []) ?? { stability: 0, difficulty: 0 }
  t.ok(Math.abs(card.stability - state.stability) < 1e-9)
})
