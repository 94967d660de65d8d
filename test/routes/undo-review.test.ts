import { test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { databaseOf, buildTestApp, makeDeck, post, registerUser, type TestUser } from '../helpers/app.js'
import { storedCard } from '../helpers/stored.js'

const MINUTE = 60_000

/** The stored card without its version, which every change bumps (undo included). */
async function cardState (app: FastifyInstance, cardID: string): Promise<Record<string, unknown>> {
  const card = await storedCard(app, cardID)
  if (card === null) throw new Error(`no card ${cardID}`)
  const state: Record<string, unknown> = { ...card }
  delete state.version
  return state
}

async function totalXp (app: FastifyInstance, user: TestUser): Promise<number> {
  const account = await databaseOf(app).collection('users').findOne({ _id: user.userID as never })
  return account?.totalXp as number
}

test('undo-review', async (t) => {
  let current = new Date('2026-03-10T12:00:00Z')
  const app = await buildTestApp(t, import.meta.filename, { clock: () => current })
  const reviews = databaseOf(app).collection('reviews')

  await t.test('each undo takes back one more review, restoring every earlier state exactly', async (t) => {
    const user = await registerUser(app)
    current = new Date('2026-03-09T12:00:00Z')
    const { flashcardID, cardIDs: [first = '', second = ''] } = await makeDeck(app, user, { folder: ['Spanish'], name: 'Spanish', cards: 2 })
    const steps: Array<{ cardID: string, rating: string, reviewID?: string, minutes: number }> = [
      { cardID: first, rating: 'good', reviewID: 'client-1', minutes: 0 },
      { cardID: first, rating: 'again', minutes: 20 },
      { cardID: second, rating: 'easy', reviewID: 'client-3', minutes: 25 },
      { cardID: first, rating: 'good', reviewID: 'client-4', minutes: 40 },
      // the next day, so the first card reaches the review state
      { cardID: first, rating: 'good', reviewID: 'client-5', minutes: 26 * 60 }
    ]
    const before: Array<Record<string, unknown>> = []
    const answers: Array<Record<string, string>> = []
    for (const step of steps) {
      current = new Date(Date.parse('2026-03-10T12:00:00Z') + step.minutes * MINUTE)
      before.push(await cardState(app, step.cardID))
      const response = await post(app, 'review-card', { jwtToken: user.jwtToken, flashcardID, cardID: step.cardID, rating: step.rating, reviewID: step.reviewID })
      t.equal(response.statusCode, 200)
      answers.push(response.json())
    }
    t.equal(await totalXp(app, user), 50)
    t.equal(await reviews.countDocuments({ userID: user.userID }), 5)
    t.match(answers[4]?.review_status, /^[1-9][0-9]*\.0$/, 'the last review put the card in review')
    const heatmap = async (): Promise<Record<string, string>> => (await post(app, 'get-stats', { jwtToken: user.jwtToken })).json().heatmap
    t.same(await heatmap(), { '10/03/2026': '4', '11/03/2026': '1' }, 'each day counts its reviews')

    for (let index = steps.length - 1; index >= 0; index--) {
      const step = steps[index]!
      const logged = await reviews.findOne({ userID: user.userID, cardID: step.cardID }, { sort: { reviewedAt: -1 } })
      current = new Date('2026-03-12T09:00:00Z')
      const response = await post(app, 'undo-review', { jwtToken: user.jwtToken })
      t.equal(response.statusCode, 200, `undo of review ${index + 1}`)
      const body = response.json()
      t.equal(body.cardID, step.cardID)
      t.equal(body.flashcardID, flashcardID, 'with the flashcard that holds it, so a client can show the card again')
      t.equal(body.undone_reviewID, step.reviewID ?? logged?.reviewID, 'names the review taken back')
      t.equal(body.total_xp, String(index * 10), 'XP as before that review')
      t.equal(await totalXp(app, user), index * 10)
      t.same(await cardState(app, step.cardID), before[index], 'the card is exactly as before that review')
      t.equal(await reviews.countDocuments({ userID: user.userID }), index, 'the review left the log')
      t.equal(await reviews.countDocuments({ _id: logged?._id }), 0)

      const restored = before[index] as { due: Date, lastReview: Date | null }
      t.equal(body.due, restored.due.toISOString())
      let earlier = index - 1
      while (earlier >= 0 && steps[earlier]?.cardID !== step.cardID) earlier--
      t.equal(body.review_status, earlier === -1 ? '0.0' : answers[earlier]?.review_status, 'the status before that review')
      t.equal(body.last_review, earlier === -1 ? '09/03/2026' : '10/03/2026', 'the day of the review before, or of creation')
      t.equal((await heatmap())[index === 4 ? '11/03/2026' : '10/03/2026'], index === 4 || index === 0 ? undefined : String(index), 'the review leaves its day\'s count')
    }

    const nothing = await post(app, 'undo-review', { jwtToken: user.jwtToken })
    t.equal(nothing.statusCode, 404)
    t.match(nothing.json().error, /no review to undo/)
    t.equal(await totalXp(app, user), 0)
  })

  await t.test('a review after an undo lands where the first one did', async (t) => {
    const user = await registerUser(app)
    const { flashcardID, cardIDs: [cardID = ''] } = await makeDeck(app, user, { folder: ['German'], name: 'German', cards: 1 })
    current = new Date('2026-03-10T12:00:00Z')
    const first = await post(app, 'review-card', { jwtToken: user.jwtToken, flashcardID, cardID, rating: 'hard', reviewID: 'again-and-again' })
    t.equal((await post(app, 'undo-review', { jwtToken: user.jwtToken })).statusCode, 200)
    // an undone reviewID is forgotten: sending it again reviews afresh
    const second = await post(app, 'review-card', { jwtToken: user.jwtToken, flashcardID, cardID, rating: 'hard', reviewID: 'again-and-again' })
    t.equal(second.statusCode, 200)
    t.same(second.json(), first.json(), 'same card, same time, same rating: same answer, XP counted once')
    t.equal(await totalXp(app, user), 10)
    t.equal(await reviews.countDocuments({ userID: user.userID }), 1)
  })

  await t.test('undo brings a new card back to the new cards of today', async (t) => {
    const user = await registerUser(app)
    current = new Date('2026-03-10T12:00:00Z')
    t.equal((await post(app, 'update-settings', { jwtToken: user.jwtToken, newCardsPerDay: 1 })).statusCode, 200)
    const { flashcardID, cardIDs: [cardID = ''] } = await makeDeck(app, user, { folder: ['Italian'], name: 'Italian', cards: 2 })
    await post(app, 'review-card', { jwtToken: user.jwtToken, flashcardID, cardID, rating: 'easy' })
    const reviewed = (await post(app, 'get-today-cards', { jwtToken: user.jwtToken })).json()
    t.same(reviewed, {}, 'the day\'s one new card is used up, the reviewed one is not due today')
    await post(app, 'undo-review', { jwtToken: user.jwtToken })
    const today = (await post(app, 'get-today-cards', { jwtToken: user.jwtToken })).json()
    t.same(Object.keys(today.Italian.Italian.cards), [cardID])
    t.equal(today.Italian.Italian.cards[cardID].review_status, '0.0')
  })

  await t.test('a card changed since its last review is left alone: 409, nothing undone', async (t) => {
    const user = await registerUser(app)
    const { flashcardID, cardIDs: [cardID = ''] } = await makeDeck(app, user, { folder: ['French'], name: 'French', cards: 1 })
    current = new Date('2026-03-10T12:00:00Z')
    await post(app, 'review-card', { jwtToken: user.jwtToken, flashcardID, cardID, rating: 'good' })
    // as a newer review that reached the card but not yet the log would leave it
    await databaseOf(app).collection('cardStates').updateOne({ _id: cardID as never }, { $set: { lastReviewID: 'in-flight' }, $inc: { version: 1 } })
    const card = await cardState(app, cardID)
    const response = await post(app, 'undo-review', { jwtToken: user.jwtToken })
    t.equal(response.statusCode, 409)
    t.match(response.json().error, /changed since/)
    t.same(await cardState(app, cardID), card, 'the card is untouched')
    t.equal(await reviews.countDocuments({ userID: user.userID }), 1, 'the review stays in the log')
    t.equal(await totalXp(app, user), 10, 'the XP stays')
  })

  await t.test('a review of a card deleted since leaves the log and takes its XP back', async (t) => {
    const user = await registerUser(app)
    const { flashcardID, cardIDs: [kept = '', deleted = ''] } = await makeDeck(app, user, { folder: ['Latin'], name: 'Latin', cards: 2 })
    current = new Date('2026-03-10T12:00:00Z')
    await post(app, 'review-card', { jwtToken: user.jwtToken, flashcardID, cardID: kept, rating: 'good' })
    current = new Date('2026-03-10T12:01:00Z')
    await post(app, 'review-card', { jwtToken: user.jwtToken, flashcardID, cardID: deleted, rating: 'good', reviewID: 'gone' })
    await databaseOf(app).collection('cards').deleteOne({ _id: deleted as never })
    await databaseOf(app).collection('cardStates').deleteOne({ _id: deleted as never })
    const response = await post(app, 'undo-review', { jwtToken: user.jwtToken })
    t.equal(response.statusCode, 200)
    t.match(response.json(), { cardID: deleted, undone_reviewID: 'gone', review_status: '0.0', total_xp: '10' })
    t.equal(await reviews.countDocuments({ userID: user.userID, reviewID: 'gone' }), 0)
    // and undo goes on past it
    const next = await post(app, 'undo-review', { jwtToken: user.jwtToken })
    t.equal(next.statusCode, 200)
    t.equal(next.json().cardID, kept)
    t.equal(await totalXp(app, user), 0)
  })

  await t.test('concurrent undos never take XP twice nor leave card and log apart', async (t) => {
    const user = await registerUser(app)
    const { flashcardID, cardIDs: [cardID = ''] } = await makeDeck(app, user, { folder: ['Dutch'], name: 'Dutch', cards: 1 })
    const states: Array<Record<string, unknown>> = [await cardState(app, cardID)]
    for (const [index, rating] of ['good', 'good', 'again', 'good'].entries()) {
      current = new Date(Date.parse('2026-03-10T12:00:00Z') + index * 30 * MINUTE)
      await post(app, 'review-card', { jwtToken: user.jwtToken, flashcardID, cardID, rating })
      states.push(await cardState(app, cardID))
    }
    const responses = await Promise.all(Array.from({ length: 3 }, async () => await post(app, 'undo-review', { jwtToken: user.jwtToken })))
    for (const response of responses) t.ok([200, 409].includes(response.statusCode), `answered ${response.statusCode}`)
    t.ok(responses.some((response) => response.statusCode === 200), 'at least one undo went through')
    const left = await reviews.countDocuments({ userID: user.userID })
    t.ok(left < 4, `${4 - left} reviews undone`)
    t.equal(await totalXp(app, user), left * 10, 'XP matches the reviews left')
    t.same(await cardState(app, cardID), states[left], 'the card matches the reviews left')
  })

  await t.test('an invalid token gives 401 and changes nothing', async (t) => {
    const response = await post(app, 'undo-review', { jwtToken: 'not.a.token' })
    t.equal(response.statusCode, 401)
    t.same(response.json(), { error: 'invalid or expired token', code: 'invalid_token' })
    const missing = await post(app, 'undo-review', {})
    t.equal(missing.statusCode, 400)
  })
})
