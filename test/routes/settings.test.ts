import { test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { databaseOf, buildTestApp, expectOk, makeDeck, post, registerUser, type TestUser } from '../helpers/app.js'

/** The cards of one flashcard in today's cards: card id -> {last_review, review_status}. */
async function todayOf (app: FastifyInstance, user: TestUser, name: string): Promise<Record<string, { last_review: string, review_status: string }>> {
  type Cards = Record<string, { last_review: string, review_status: string }>
  const tree = await expectOk<Record<string, Record<string, { cards: Cards } | undefined> | undefined>>(app, 'get-today-cards', { jwtToken: user.jwtToken })
  return tree[name]?.[name]?.cards ?? {}
}

async function settings (app: FastifyInstance, user: TestUser, changes: Record<string, unknown>) {
  return await post(app, 'update-settings', { jwtToken: user.jwtToken, ...changes })
}

test('update-settings', async (t) => {
  let current = new Date('2026-03-10T12:00:00Z')
  const app = await buildTestApp(t, import.meta.filename, { clock: () => current })

  await t.test('each setting is changed, answered and kept', async (t) => {
    const user = await registerUser(app)
    const cases: Array<[Record<string, unknown>, Record<string, string>]> = [
      [{ displayName: 'Ana María 🌍' }, { displayName: 'Ana María 🌍' }],
      [{ timezone: 'Europe/Paris' }, { timezone: 'Europe/Paris' }],
      [{ timezone: 'america/new_york' }, { timezone: 'America/New_York' }],
      [{ dayStartHour: 0 }, { dayStartHour: '0' }],
      [{ dayStartHour: '23' }, { dayStartHour: '23' }],
      [{ newCardsPerDay: 0 }, { newCardsPerDay: '0' }],
      [{ newCardsPerDay: '9999' }, { newCardsPerDay: '9999' }],
      [{ reviewsPerDay: 99999 }, { reviewsPerDay: '99999' }],
      [{ reviewsPerDay: '0' }, { reviewsPerDay: '0' }],
      [{ desiredRetention: 0.85 }, { desiredRetention: '0.85' }],
      [{ desiredRetention: '0.7' }, { desiredRetention: '0.70' }],
      [{ desiredRetention: 0.99 }, { desiredRetention: '0.99' }],
      [{ buryNewSiblings: false }, { buryNewSiblings: 'false', buryReviewSiblings: 'true', buryInterdayLearningSiblings: 'false' }],
      [{ buryReviewSiblings: false, buryInterdayLearningSiblings: true }, { buryNewSiblings: 'false', buryReviewSiblings: 'false', buryInterdayLearningSiblings: 'true' }],
      [{ buryNewSiblings: true, buryInterdayLearningSiblings: false }, { buryNewSiblings: 'true', buryReviewSiblings: 'false', buryInterdayLearningSiblings: 'false' }],
      [{ displayName: 'Ana', timezone: 'Asia/Tokyo', dayStartHour: 6, newCardsPerDay: 15, reviewsPerDay: 150, desiredRetention: 0.9 },
        { displayName: 'Ana', timezone: 'Asia/Tokyo', dayStartHour: '6', newCardsPerDay: '15', reviewsPerDay: '150', desiredRetention: '0.90' }]
    ]
    for (const [changes, expected] of cases) {
      const response = await settings(app, user, changes)
      t.equal(response.statusCode, 200, JSON.stringify(changes))
      t.match(response.json(), { ...expected, userID: user.userID, email: user.email, total_xp: '0' })
      t.match((await post(app, 'get-user', { jwtToken: user.jwtToken })).json(), expected, 'get-user shows it too')
    }
    const stored = await databaseOf(app).collection('users').findOne({ _id: user.userID as never })
    t.match(stored, { dayStartHour: 6, newCardsPerDay: 15, reviewsPerDay: 150, desiredRetention: 0.9 }, 'numbers are stored as numbers')
    t.match(stored, { buryNewSiblings: true, buryReviewSiblings: false, buryInterdayLearningSiblings: false }, 'and booleans as booleans')
  })

  await t.test('a new account buries new and review siblings, not interday learning ones; one made before the settings reads so too', async (t) => {
    const user = await registerUser(app)
    const defaults = { buryNewSiblings: 'true', buryReviewSiblings: 'true', buryInterdayLearningSiblings: 'false' }
    t.match((await post(app, 'get-user', { jwtToken: user.jwtToken })).json(), defaults)
    t.match(await databaseOf(app).collection('users').findOne({ _id: user.userID as never }), { buryNewSiblings: true, buryReviewSiblings: true, buryInterdayLearningSiblings: false })
    await databaseOf(app).collection('users').updateOne({ _id: user.userID as never }, { $unset: { buryNewSiblings: '', buryReviewSiblings: '', buryInterdayLearningSiblings: '' } })
    t.match((await post(app, 'get-user', { jwtToken: user.jwtToken })).json(), defaults)
  })

  await t.test('malformed settings give 400 and change nothing', async (t) => {
    const user = await registerUser(app)
    const profile = (await post(app, 'get-user', { jwtToken: user.jwtToken })).json()
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{}, /at least one setting/],
      [{ unknownSetting: 3 }, /at least one setting/],
      [{ timezone: 'Mars/Olympus' }, /IANA/],
      [{ timezone: '+05:00' }, /IANA/],
      [{ timezone: '' }, /timezone/],
      [{ displayName: '' }, /displayName/],
      [{ displayName: 'x'.repeat(101) }, /displayName/],
      [{ dayStartHour: 24 }, /dayStartHour/],
      [{ dayStartHour: -1 }, /dayStartHour/],
      [{ dayStartHour: 1.5 }, /dayStartHour/],
      [{ dayStartHour: 'four' }, /dayStartHour/],
      [{ dayStartHour: '4a' }, /dayStartHour/],
      [{ newCardsPerDay: 10000 }, /newCardsPerDay/],
      [{ newCardsPerDay: [5] }, /newCardsPerDay/],
      [{ reviewsPerDay: 100000 }, /reviewsPerDay/],
      [{ reviewsPerDay: { n: 1 } }, /reviewsPerDay/],
      [{ desiredRetention: 0.69 }, /desiredRetention/],
      [{ desiredRetention: 1 }, /desiredRetention/],
      [{ desiredRetention: 0.855 }, /two decimals/],
      [{ desiredRetention: 'high' }, /desiredRetention/],
      [{ buryNewSiblings: 'maybe' }, /buryNewSiblings/],
      [{ buryReviewSiblings: [true] }, /buryReviewSiblings/],
      [{ buryInterdayLearningSiblings: { on: true } }, /buryInterdayLearningSiblings/],
      // one bad field spoils the request: the good ones are not applied either
      [{ displayName: 'Changed', dayStartHour: 30 }, /dayStartHour/]
    ]
    for (const [changes, message] of cases) {
      const response = await settings(app, user, changes)
      t.equal(response.statusCode, 400, JSON.stringify(changes))
      t.match(response.json().error, message)
    }
    t.same((await post(app, 'get-user', { jwtToken: user.jwtToken })).json(), profile, 'the profile is as it was')
  })

  await t.test('an invalid token gives 401', async (t) => {
    const response = await post(app, 'update-settings', { jwtToken: 'not.a.token', displayName: 'x' })
    t.equal(response.statusCode, 401)
    t.same(response.json(), { error: 'invalid or expired token', code: 'invalid_token' })
  })

  /**
   * A flashcard of two new cards and a day's allowance of one: the first is
   * studied at 12:00 UTC on 10 March (rated easy, not due again for days), and
   * the clock moves on to 15:00. The id of the card still waiting.
   */
  async function oneNewCardStudied (user: TestUser, name: string): Promise<string> {
    current = new Date('2026-03-10T12:00:00Z')
    await settings(app, user, { newCardsPerDay: 1 })
    const { flashcardID, cardIDs: [started = '', waiting = ''] } = await makeDeck(app, user, { folder: [name], name, cards: 2 })
    await expectOk(app, 'review-card', { jwtToken: user.jwtToken, flashcardID, cardID: started, rating: 'easy' })
    current = new Date('2026-03-10T15:00:00Z')
    return waiting
  }

  await t.test('a new time zone moves the user\'s day in get-today-cards', async (t) => {
    const user = await registerUser(app)
    const waiting = await oneNewCardStudied(user, 'Words')
    t.same(await todayOf(app, user, 'Words'), {}, 'UTC: the review at 12:00 used today\'s one new card')

    // 15:00 UTC is 05:00 on the 11th in Kiritimati (UTC+14): a new day began at 04:00 there
    await settings(app, user, { timezone: 'Pacific/Kiritimati' })
    t.same(await todayOf(app, user, 'Words'), {
      [waiting]: { last_review: '10/03/2026', review_status: '0.0' }
    }, 'Kiritimati: the review was yesterday, a new card is due; it was created at 02:00 on the 11th, still the 10th before 04:00')

    await settings(app, user, { timezone: 'UTC' })
    t.same(await todayOf(app, user, 'Words'), {}, 'back in UTC, the quota is used again')
  })

  await t.test('a new dayStartHour moves the day and the dates shown', async (t) => {
    const user = await registerUser(app)
    const waiting = await oneNewCardStudied(user, 'Hours')
    t.same(await todayOf(app, user, 'Hours'), {})

    // the day now turns over at 13:00: what happened at 12:00 belongs to the 9th
    await settings(app, user, { dayStartHour: 13 })
    t.same(await todayOf(app, user, 'Hours'), { [waiting]: { last_review: '09/03/2026', review_status: '0.0' } })
  })

  await t.test('newCardsPerDay and reviewsPerDay bound today\'s cards', async (t) => {
    const user = await registerUser(app)
    current = new Date('2026-03-10T12:00:00Z')
    const { flashcardID, cardIDs } = await makeDeck(app, user, { folder: ['Limits'], name: 'Limits', cards: 4 })
    // two cards in learning, due within minutes
    for (const cardID of cardIDs.slice(0, 2)) {
      await expectOk(app, 'review-card', { jwtToken: user.jwtToken, flashcardID, cardID, rating: 'again' })
    }
    current = new Date('2026-03-10T13:00:00Z')
    t.equal(Object.keys(await todayOf(app, user, 'Limits')).length, 4, 'defaults: both due cards and both new ones')
    await settings(app, user, { newCardsPerDay: 0 })
    t.same(Object.keys(await todayOf(app, user, 'Limits')).sort(), cardIDs.slice(0, 2).sort(), 'no new cards')
    await settings(app, user, { newCardsPerDay: 20, reviewsPerDay: 0 })
    t.same(Object.keys(await todayOf(app, user, 'Limits')).sort(), cardIDs.slice(2).sort(), 'no reviews')
    await settings(app, user, { newCardsPerDay: '3', reviewsPerDay: '3' })
    // the two new cards started today count against newCardsPerDay: one more is left
    t.same(Object.keys(await todayOf(app, user, 'Limits')).sort(), cardIDs.slice(0, 3).sort(), 'both due cards and the first waiting new one')
  })

  await t.test('desiredRetention changes how far the next review is scheduled', async (t) => {
    const dues: Record<string, number> = {}
    for (const retention of ['0.70', '0.99']) {
      const user = await registerUser(app)
      current = new Date('2026-03-10T12:00:00Z')
      await settings(app, user, { desiredRetention: retention })
      const { flashcardID, cardIDs: [cardID = ''] } = await makeDeck(app, user, { folder: ['Retention'], name: 'Retention', cards: 1 })
      const review = await expectOk<{ due: string }>(app, 'review-card', { jwtToken: user.jwtToken, flashcardID, cardID, rating: 'easy' })
      dues[retention] = Date.parse(review.due)
    }
    t.ok((dues['0.70'] ?? 0) > (dues['0.99'] ?? 0), 'a lower retention waits longer before the next review')
  })
})
