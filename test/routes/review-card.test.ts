import { t, test } from 'tap'
import { buildTestApp, databaseOf, expectOk, expectRefusal, makeDeck, post, registerUser, type TestUser } from '../helpers/app.js'
import { storedCard } from '../helpers/stored.js'

type Tree = Record<string, unknown>

const DAY = 24 * 3600_000
const ANSWER_KEYS = ['cardID', 'due', 'last_review', 'review_status', 'total_xp', 'xp_gained']

/** DD/MM/YYYY of an instant's UTC date. */
function utcDay (instant: Date): string {
  const [year, month, day] = instant.toISOString().slice(0, 10).split('-')
  return `${day}/${month}/${year}`
}

let current = new Date('2026-05-04T12:00:00Z')
// one app for the file: each test sets the clock and reviews as users of its own
const app = await buildTestApp(t, import.meta.filename, { clock: () => current })

function reviewCard (user: TestUser, body: Record<string, unknown>) {
  return post(app, 'review-card', { jwtToken: user.jwtToken, ...body })
}

function cardDocument (cardID: string) {
  return storedCard(app, cardID)
}

async function totalXp (user: TestUser): Promise<unknown> {
  return (await databaseOf(app).collection<{ _id: string, totalXp: number }>('users').findOne({ _id: user.userID }))?.totalXp
}

/** Everything a review may change, to compare before and after a request that must change nothing. */
async function snapshot () {
  return {
    cards: await databaseOf(app).collection('cards').find().sort({ _id: 1 }).toArray(),
    cardStates: await databaseOf(app).collection('cardStates').find().sort({ _id: 1 }).toArray(),
    reviews: await databaseOf(app).collection('reviews').find().sort({ _id: 1 }).toArray(),
    xp: (await databaseOf(app).collection('users').find().sort({ _id: 1 }).toArray()).map((user) => user.totalXp)
  }
}

async function statusInTree (user: TestUser, cardID: string): Promise<string | undefined> {
  const tree = await expectOk<Tree>(app, 'get-today-cards', { jwtToken: user.jwtToken })
  const deck = Object.values((tree.Reviews ?? {}) as Record<string, { cards: Record<string, { review_status: string }> }>)
  return deck.map((flashcard) => flashcard.cards[cardID]?.review_status).find((status) => status !== undefined)
}

test('review_status goes from 0.0 through learning (0.N) to review (D.0), with due and XP', async (t) => {
  current = new Date('2026-05-04T12:00:00Z')
  const user = await registerUser(app)
  const { flashcardID, cardIDs: [cardID] } = await makeDeck(app, user, { folder: ['Reviews'], name: 'Lifecycle', cards: 1 }) as { flashcardID: string, cardIDs: [string] }
  t.equal(await statusInTree(user, cardID), '0.0', 'a new card')

  const first = await reviewCard(user, { flashcardID, cardID, rating: 'good' })
  t.equal(first.statusCode, 200)
  const learning = first.json()
  t.strictSame(Object.keys(learning).sort(), ANSWER_KEYS)
  t.ok(Object.values(learning).every((value) => typeof value === 'string'), 'every value a string')
  t.equal(learning.cardID, cardID)
  t.match(learning.review_status, /^0\.[1-9]$/, 'learning')
  t.equal(learning.last_review, '04/05/2026')
  t.equal(learning.xp_gained, '10')
  t.equal(learning.total_xp, '10')
  const learningDue = Date.parse(learning.due)
  t.equal(new Date(learningDue).toISOString(), learning.due, 'due is an ISO-8601 UTC instant')
  t.ok(learningDue > current.getTime() && learningDue < current.getTime() + 3600_000, 'a learning step is minutes away')
  t.equal(await statusInTree(user, cardID), learning.review_status, "today's cards show the same status")

  current = new Date(learningDue)
  const second = await reviewCard(user, { flashcardID, cardID, rating: 'good' })
  t.equal(second.statusCode, 200)
  const review = second.json()
  t.match(review.review_status, /^[1-9]\d*\.0$/, 'in review')
  const interval = Number(review.review_status.split('.')[0])
  t.equal(Date.parse(review.due) - current.getTime(), interval * DAY, 'due the interval in days later')
  t.equal(review.total_xp, '20')
  t.equal(await statusInTree(user, cardID), undefined, 'no longer due today')

  current = new Date(Date.parse(review.due))
  const lapse = await reviewCard(user, { flashcardID, cardID, rating: 'again' })
  t.equal(lapse.statusCode, 200)
  t.match(lapse.json().review_status, /^0\.[1-9]$/, 'forgotten: relearning')
  t.equal(lapse.json().last_review, utcDay(current), 'the day of this review (the user is on UTC, reviewing after 04:00)')
  t.equal(lapse.json().total_xp, '30')

  t.equal(await totalXp(user), 30)
  t.equal((await post(app, 'get-user', { jwtToken: user.jwtToken })).json().total_xp, '30')
  const log = await databaseOf(app).collection('reviews').find({ userID: user.userID }).sort({ reviewedAt: 1 }).toArray()
  t.strictSame(log.map((entry) => [entry.rating, entry.xp, entry.seq]), [['good', 10, 1], ['good', 10, 2], ['again', 10, 3]])
  t.equal(log[2]?.reviewedAt.toISOString(), current.toISOString(), 'the log keeps the time of each review')
  t.equal((await cardDocument(cardID))?.reps, 3)
})

test('XP is 10 a review, added across cards and flashcards', async (t) => {
  current = new Date('2026-05-05T12:00:00Z')
  const user = await registerUser(app)
  const one = await makeDeck(app, user, { folder: ['Reviews'], name: 'One', cards: 2 })
  const two = await makeDeck(app, user, { folder: ['Reviews'], name: 'Two', cards: 1 })
  const totals: string[] = []
  for (const [flashcardID, cardID] of [[one.flashcardID, one.cardIDs[0]], [one.flashcardID, one.cardIDs[1]], [two.flashcardID, two.cardIDs[0]], [one.flashcardID, one.cardIDs[0]]]) {
    const response = await reviewCard(user, { flashcardID, cardID, rating: 'hard' })
    t.equal(response.json().xp_gained, '10')
    totals.push(response.json().total_xp)
  }
  t.strictSame(totals, ['10', '20', '30', '40'])
  t.equal(await totalXp(user), 40)
})

test('a retried review (same reviewID) returns the first answer and changes nothing', async (t) => {
  current = new Date('2026-05-06T12:00:00Z')
  const user = await registerUser(app)
  const { flashcardID, cardIDs: [cardID] } = await makeDeck(app, user, { folder: ['Reviews'], name: 'Retries', cards: 1 })
  const first = await reviewCard(user, { flashcardID, cardID, rating: 'good', reviewID: 'review-0001' })
  t.equal(first.statusCode, 200)
  const before = { card: await cardDocument(cardID as string), reviews: await databaseOf(app).collection('reviews').countDocuments(), xp: await totalXp(user) }
  t.equal(before.xp, 10)

  // later, and even with another rating: the retry is the same review
  current = new Date('2026-05-06T13:00:00Z')
  for (const rating of ['good', 'again', 'easy']) {
    const retry = await reviewCard(user, { flashcardID, cardID, rating, reviewID: 'review-0001' })
    t.equal(retry.statusCode, 200)
    t.equal(retry.body, first.body, `retried with ${rating}: the identical answer`)
  }
  t.strictSame(await cardDocument(cardID as string), before.card, 'the card is unchanged')
  t.equal(await databaseOf(app).collection('reviews').countDocuments(), before.reviews, 'no review logged')
  t.equal(await totalXp(user), before.xp, 'no XP added')

  // a new reviewID is a new review (the control case)
  const next = await reviewCard(user, { flashcardID, cardID, rating: 'good', reviewID: 'review-0002' })
  t.equal(next.statusCode, 200)
  t.equal(next.json().total_xp, '20')
  t.equal((await cardDocument(cardID as string))?.reps, 2)
})

test('a reviewID already used for another card answers 409 and changes nothing', async (t) => {
  current = new Date('2026-05-06T14:00:00Z')
  const user = await registerUser(app)
  const { flashcardID, cardIDs: [first, second] } = await makeDeck(app, user, { folder: ['Reviews'], name: 'Reused key', cards: 2 })
  t.equal((await reviewCard(user, { flashcardID, cardID: first, rating: 'good', reviewID: 'reused' })).statusCode, 200)
  const before = { card: await cardDocument(second as string), reviews: await databaseOf(app).collection('reviews').countDocuments({ userID: user.userID }), xp: await totalXp(user) }
  const reused = await expectRefusal(t, app, 'review-card', { jwtToken: user.jwtToken, flashcardID, cardID: second, rating: 'good', reviewID: 'reused' }, 409, 'review_id_reused')
  t.match(reused.error, /reviewID reused was used for another card/)
  t.strictSame(await cardDocument(second as string), before.card, 'the second card is not reviewed')
  t.equal(await databaseOf(app).collection('reviews').countDocuments({ userID: user.userID }), before.reviews)
  t.equal(await totalXp(user), before.xp)
})

test('concurrent retries with one reviewID make one review', async (t) => {
  current = new Date('2026-05-06T15:00:00Z')
  const user = await registerUser(app)
  const { flashcardID, cardIDs: [cardID] } = await makeDeck(app, user, { folder: ['Reviews'], name: 'Concurrent retries', cards: 1 })
  const responses = await Promise.all(Array.from({ length: 10 }, () => reviewCard(user, { flashcardID, cardID, rating: 'good', reviewID: 'same-click' })))
  t.strictSame(responses.map((response) => response.statusCode), Array(10).fill(200))
  t.equal(new Set(responses.map((response) => response.body)).size, 1, 'one answer for all')
  t.equal(responses[0]?.json().total_xp, '10')
  t.equal((await cardDocument(cardID as string))?.reps, 1)
  t.equal(await databaseOf(app).collection('reviews').countDocuments({ userID: user.userID }), 1)
  t.equal(await totalXp(user), 10)
})

test('different users may use the same reviewID', async (t) => {
  current = new Date('2026-05-07T12:00:00Z')
  const ann = await registerUser(app)
  const bob = await registerUser(app)
  const annDeck = await makeDeck(app, ann, { folder: ['Reviews'], name: 'Ann', cards: 1 })
  const bobDeck = await makeDeck(app, bob, { folder: ['Reviews'], name: 'Bob', cards: 1 })
  const annAnswer = await reviewCard(ann, { flashcardID: annDeck.flashcardID, cardID: annDeck.cardIDs[0], rating: 'easy', reviewID: 'shared-key' })
  const bobAnswer = await reviewCard(bob, { flashcardID: bobDeck.flashcardID, cardID: bobDeck.cardIDs[0], rating: 'good', reviewID: 'shared-key' })
  t.equal(annAnswer.statusCode, 200)
  t.equal(bobAnswer.statusCode, 200)
  t.equal(bobAnswer.json().cardID, bobDeck.cardIDs[0], "Bob gets his own review, not Ann's answer")
  t.not(bobAnswer.json().review_status, annAnswer.json().review_status)
  t.equal(bobAnswer.json().total_xp, '10')
  t.equal((await cardDocument(bobDeck.cardIDs[0] as string))?.reps, 1)
  t.equal(await totalXp(ann), 10)
  t.equal(await totalXp(bob), 10)
})

test("an unknown card or another user's card gives 404 and changes nothing", async (t) => {
  current = new Date('2026-05-08T12:00:00Z')
  const ann = await registerUser(app)
  const bob = await registerUser(app)
  const annDeck = await makeDeck(app, ann, { folder: ['Reviews'], name: 'Ann', cards: 1 })
  const annOther = await makeDeck(app, ann, { folder: ['Reviews'], name: 'Ann other', cards: 1 })
  const bobDeck = await makeDeck(app, bob, { folder: ['Reviews'], name: 'Bob', cards: 1 })
  const before = await snapshot()

  const unknown = '9'.repeat(39)
  const cases: Record<string, { flashcardID: unknown, cardID: unknown }> = {
    'an unknown card': { flashcardID: annDeck.flashcardID, cardID: unknown },
    'an unknown flashcard': { flashcardID: unknown, cardID: annDeck.cardIDs[0] },
    'a card of another of her flashcards': { flashcardID: annDeck.flashcardID, cardID: annOther.cardIDs[0] },
    "Bob's card": { flashcardID: bobDeck.flashcardID, cardID: bobDeck.cardIDs[0] },
    "Bob's card in her flashcard": { flashcardID: annDeck.flashcardID, cardID: bobDeck.cardIDs[0] }
  }
  for (const [what, ids] of Object.entries(cases)) {
    const answer = await expectRefusal(t, app, 'review-card', { jwtToken: ann.jwtToken, ...ids, rating: 'good', reviewID: 'lost-review' }, 404, 'card_not_found', what)
    t.notOk(JSON.stringify(answer).includes('front'), 'nothing of the card is revealed')
  }
  t.strictSame(await snapshot(), before)

  // the reviewID of a failed request is still free
  const real = await reviewCard(ann, { flashcardID: annDeck.flashcardID, cardID: annDeck.cardIDs[0], rating: 'good', reviewID: 'lost-review' })
  t.equal(real.statusCode, 200)
  t.equal(real.json().cardID, annDeck.cardIDs[0])
  t.equal(real.json().total_xp, '10')
})

test('a bad rating or malformed body gives 400 and changes nothing', async (t) => {
  current = new Date('2026-05-09T12:00:00Z')
  const user = await registerUser(app)
  const { flashcardID, cardIDs: [cardID] } = await makeDeck(app, user, { folder: ['Reviews'], name: 'Validation', cards: 1 })
  const before = await snapshot()
  const bodies: Array<Record<string, unknown>> = [
    { flashcardID, cardID, rating: 'excellent' },
    { flashcardID, cardID, rating: 'Good' },
    { flashcardID, cardID, rating: '' },
    { flashcardID, cardID, rating: 3 },
    { flashcardID, cardID, rating: null },
    { flashcardID, cardID, rating: ['good'] },
    { flashcardID, cardID },
    { flashcardID, rating: 'good' },
    { cardID, rating: 'good' },
    { flashcardID: 'abc', cardID, rating: 'good' },
    { flashcardID, cardID: 42, rating: 'good' },
    { flashcardID, cardID, rating: 'good', reviewID: '' },
    { flashcardID, cardID, rating: 'good', reviewID: 'has spaces' },
    { flashcardID, cardID, rating: 'good', reviewID: 'x'.repeat(101) }
  ]
  for (const body of bodies) await expectRefusal(t, app, 'review-card', { jwtToken: user.jwtToken, ...body }, 400, 'invalid_field')
  t.strictSame(await snapshot(), before)
  t.equal((await reviewCard(user, { flashcardID, cardID, rating: 'good' })).statusCode, 200, 'the same card with a good body (the control case)')
})

test('an invalid token gives 401 and changes nothing', async (t) => {
  current = new Date('2026-05-09T13:00:00Z')
  const user = await registerUser(app)
  const { flashcardID, cardIDs: [cardID] } = await makeDeck(app, user, { folder: ['Reviews'], name: 'Tokens', cards: 1 })
  const before = await snapshot()
  for (const jwtToken of ['not.a.token', '', `${user.jwtToken}x`]) {
    await expectRefusal(t, app, 'review-card', { jwtToken, flashcardID, cardID, rating: 'good' }, 401, 'invalid_token', `review-card with ${JSON.stringify(jwtToken.slice(0, 12))}`)
  }
  t.strictSame(await snapshot(), before)
})

test('20 concurrent reviews of one card all count', async (t) => {
  current = new Date('2026-05-10T12:00:00Z')
  const user = await registerUser(app)
  const { flashcardID, cardIDs: [cardID] } = await makeDeck(app, user, { folder: ['Reviews'], name: 'Busy', cards: 1 })
  const responses = await Promise.all(Array.from({ length: 20 }, (_, i) =>
    reviewCard(user, { flashcardID, cardID, rating: 'good', reviewID: `burst-${i}` })))
  t.strictSame(responses.map((response) => response.statusCode), Array(20).fill(200))
  t.strictSame(responses.map((response) => Number(response.json().total_xp)).sort((a, b) => a - b),
    Array.from({ length: 20 }, (_, i) => (i + 1) * 10), 'each review saw its own XP total')

  t.equal((await cardDocument(cardID as string))?.reps, 20)
  const log = await databaseOf(app).collection('reviews').find({ userID: user.userID }).toArray()
  t.equal(log.length, 20, 'one log entry per review')
  t.strictSame(log.map((entry) => entry.reviewID).sort(), Array.from({ length: 20 }, (_, i) => `burst-${i}`).sort())
  t.strictSame(log.map((entry) => entry.before.reps).sort((a, b) => a - b), Array.from({ length: 20 }, (_, i) => i),
    'each review applied to the card as the one before left it')
  t.equal(await totalXp(user), 200)
})
