// get-study-queue answers a page of today's queue (at most 1,000 cards and
// 4 MiB of them) with the counts of the whole queue, and a cursor for the
// cards after it: a learner who asks again studies the whole queue, no card
// given twice while unanswered, none left out.
import tap, { test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { MAX_CARDS_PER_PAGE, MAX_PAGE_BYTES } from '../../src/domain/limits.js'
import type { CardDocument } from '../../src/repositories/cards.js'
import { buildTestApp, databaseOf, expectOk, expectRefusal, makeDeck, post, registerUser, type Deck, type TestUser } from '../helpers/app.js'
import { learner, type Clock } from '../helpers/today-queues.js'

// a learner answers 2,500 cards one by one through the API
tap.setTimeout(600_000)

const DAY = 24 * 3_600_000

interface Counts { new: string, learning: string, review: string }
interface QueueCard { cardID: string, flashcardID: string, queue: string, front: string }
interface StudyPage { counts: Counts, cards: QueueCard[], countsAfter?: Counts, nextCursor?: string }

/** `count` new cards added to a flashcard, `perRequest` at a time, a millisecond apart: their ids in creation order. */
async function addCards (app: FastifyInstance, user: TestUser, clock: Clock, flashcardID: string, count: number,
  card: (n: number) => { front: string, back: string }, perRequest = 1000): Promise<string[]> {
  const ids: string[] = []
  for (let from = 0; from < count; from += perRequest) {
    const cards = Array.from({ length: Math.min(perRequest, count - from) }, (_, i) => card(from + i))
    ids.push(...(await expectOk<{ cardIDs: string[] }>(app, 'add-cards', { jwtToken: user.jwtToken, flashcardID, cards }, 201)).cardIDs)
    clock.now = new Date(clock.now.getTime() + 1)
  }
  return ids
}

/**
 * Every card of a flashcard of new cards made a review card, as if each had
 * been answered "easy" in the instant the first was: the first is answered
 * through the API, which places the queue's start before it, and its schedule
 * is copied to the others, which then follow it in the queue (the same due,
 * created after it). Thousands of answers through the API would take minutes.
 */
async function reviewedAlike (app: FastifyInstance, user: TestUser, deck: Deck): Promise<void> {
  const [first] = deck.cardIDs as [string]
  await expectOk(app, 'review-card', { jwtToken: user.jwtToken, flashcardID: deck.flashcardID, cardID: first, rating: 'easy' })
  const cards = databaseOf(app).collection<CardDocument>('cardStates')
  const schedule = await cards.findOne({ _id: first }, {
    projection: { _id: 0, isNew: 1, state: 1, due: 1, stability: 1, difficulty: 1, elapsedDays: 1, scheduledDays: 1, learningSteps: 1, reps: 1, lapses: 1, lastReview: 1 }
  })
  await cards.updateMany({ userID: user.userID, flashcardID: deck.flashcardID, _id: { $ne: first } }, { $set: schedule as Partial<CardDocument> })
}

function total (counts: Counts): number {
  return Number(counts.new) + Number(counts.learning) + Number(counts.review)
}

test('a queue of 2,500 due cards: pages of 1,000 with the counts of the whole queue, and a learner who asks again studies every card once', async (t) => {
  const clock = { now: new Date('2026-03-01T08:00:00Z') }
  const app = await buildTestApp(t, import.meta.filename, { clock: () => clock.now })
  const user = await registerUser(app)
  const me = learner(app, user, clock)
  await me.settings({ reviewsPerDay: 9999, newCardsPerDay: 9999 })
  const deck = await makeDeck(app, user, { folder: ['Due'], name: 'Many', cards: 1 })
  clock.now = new Date(clock.now.getTime() + 1)
  const ids = [...deck.cardIDs, ...await addCards(app, user, clock, deck.flashcardID, 2499, (n) => ({ front: `card ${n}`, back: 'b' }))]
  // learnt together, and due again a hundred days later, in creation order
  await reviewedAlike(app, user, { flashcardID: deck.flashcardID, cardIDs: ids })
  clock.now = new Date(clock.now.getTime() + 100 * DAY)

  const first = await expectOk<StudyPage>(app, 'get-study-queue', { jwtToken: user.jwtToken })
  t.equal(first.cards.length, MAX_CARDS_PER_PAGE, 'the first answer: 1,000 cards')
  t.strictSame(first.cards.map((card) => card.cardID), ids.slice(0, 1000), 'the queue\'s first 1,000, most overdue first')
  t.strictSame(first.counts, { new: '0', learning: '0', review: '2500' }, 'the counts of the whole queue')
  t.strictSame(first.countsAfter, { new: '0', learning: '0', review: '1500' }, 'and of the cards after the page')
  t.type(first.nextCursor, 'string', 'a cursor, as more cards follow')

  // the learner answers about half of what it holds, then asks for the cards after those given, and so on
  const given: string[] = []
  const held: string[] = []
  const answered = new Set<string>()
  let page = first
  const answers: StudyPage[] = []
  for (;;) {
    answers.push(page)
    t.equal(total(page.counts), ids.length - answered.size, 'every answer counts the whole queue left: the cards not answered')
    for (const card of page.cards) {
      if (given.includes(card.cardID)) t.fail(`card ${card.cardID} given twice`)
      given.push(card.cardID)
      held.push(card.cardID)
    }
    const cursor = page.nextCursor
    for (const cardID of held.splice(0, cursor === undefined ? held.length : Math.ceil(held.length / 2))) {
      await me.review(deck.flashcardID, cardID, 'good')
      answered.add(cardID)
    }
    if (cursor === undefined) break
    page = await expectOk<StudyPage>(app, 'get-study-queue', { jwtToken: user.jwtToken, cursor })
  }
  t.strictSame(given, ids, 'every card of the queue given once, in the queue\'s order: none twice, none left out, none answered given again')
  t.ok(answers.every((answer) => answer.cards.length <= MAX_CARDS_PER_PAGE), 'no answer past 1,000 cards')
  t.strictSame(answers.map((answer) => typeof answer.nextCursor), [...Array(answers.length - 1).fill('string'), 'undefined'], 'a cursor on every page but the last')
  t.strictSame(answers.at(-1)?.countsAfter, undefined, 'the last page counts nothing after it')
  const after = await expectOk<StudyPage>(app, 'get-study-queue', { jwtToken: user.jwtToken })
  t.strictSame(after, { counts: { new: '0', learning: '0', review: '0' }, cards: [] }, 'all 2,500 studied: nothing left today')
})

test('cards of 10,000-character sides come in answers of at most a little over 4 MiB, each card once, the counts of the whole queue in each', async (t) => {
  const clock = { now: new Date('2026-03-01T08:00:00Z') }
  const app = await buildTestApp(t, import.meta.filename, { clock: () => clock.now })
  const user = await registerUser(app)
  await expectOk(app, 'update-settings', { jwtToken: user.jwtToken, newCardsPerDay: 9999 })
  const deck = await makeDeck(app, user, { folder: ['Long'], name: 'Long sides', cards: [{ front: 'short', back: 'card' }] })
  clock.now = new Date(clock.now.getTime() + 1)
  // '&' is shown as "&amp;": each side's HTML five times its text; as many cards a request as the 1 MiB body takes
  const side = (n: number, what: string) => `${what} ${n} `.padEnd(10_000, '&')
  const ids = [...deck.cardIDs, ...await addCards(app, user, clock, deck.flashcardID, 150, (n) => ({ front: side(n, 'front'), back: side(n, 'back') }), 45)]

  const bodies: number[] = []
  const seen: string[] = []
  let cursor: string | undefined
  do {
    // the flashcard's own queue: a part of the library, read by its flashcards
    const response = await post(app, 'get-study-queue', { jwtToken: user.jwtToken, flashcardID: deck.flashcardID, ...(cursor === undefined ? {} : { cursor }) })
    t.equal(response.statusCode, 200)
    const page = response.json<StudyPage>()
    t.strictSame(page.counts, { new: String(ids.length), learning: '0', review: '0' }, 'the whole queue, nothing answered')
    bodies.push(Buffer.byteLength(response.body))
    seen.push(...page.cards.map((card) => card.cardID))
    if (page.nextCursor !== undefined) t.equal(total(page.countsAfter as Counts), ids.length - seen.length, 'countsAfter: the cards the next pages hold')
    cursor = page.nextCursor
  } while (cursor !== undefined)
  t.strictSame(seen, ids, 'every card once, in creation order')
  t.ok(bodies.length >= 4, `pages: ${bodies.length}`)
  t.ok(bodies.every((bytes) => bytes <= MAX_PAGE_BYTES + 16 * 1024), `every answer at most a little over 4 MiB: ${bodies.join(', ')} bytes`)
  t.ok(bodies.slice(0, -1).every((bytes) => bytes > MAX_PAGE_BYTES - 256 * 1024), 'each but the last nearly full: no page stops early')
})

test('a cursor continues its own part of the library only, on the day it was given; any other cursor is refused', async (t) => {
  const clock = { now: new Date('2026-03-01T08:00:00Z') }
  const app = await buildTestApp(t, import.meta.filename, { clock: () => clock.now })
  const user = await registerUser(app)
  await expectOk(app, 'update-settings', { jwtToken: user.jwtToken, newCardsPerDay: 9999 })
  const deck = await makeDeck(app, user, { folder: ['Words'], name: 'Big', cards: 1 })
  clock.now = new Date(clock.now.getTime() + 1)
  const ids = [...deck.cardIDs, ...await addCards(app, user, clock, deck.flashcardID, 1200, (n) => ({ front: `word ${n}`, back: 'b' }))]
  const whole = await expectOk<StudyPage>(app, 'get-study-queue', { jwtToken: user.jwtToken })
  const ofDeck = await expectOk<StudyPage>(app, 'get-study-queue', { jwtToken: user.jwtToken, flashcardID: deck.flashcardID })
  t.type(whole.nextCursor, 'string')

  const flashcardPage = await expectOk<{ nextCursor?: string }>(app, 'get-flashcard', { jwtToken: user.jwtToken, flashcardID: deck.flashcardID })
  const mixed = await expectRefusal(t, app, 'get-study-queue', { jwtToken: user.jwtToken, flashcardID: deck.flashcardID, cursor: whole.nextCursor }, 400, 'invalid_field',
    'the whole library\'s cursor for a flashcard\'s queue')
  t.match(mixed.error, /a cursor of get-study-queue for this part of the library.*send the nextCursor of the previous answer/, 'the sentence says what to send')
  await expectRefusal(t, app, 'get-study-queue', { jwtToken: user.jwtToken, cursor: ofDeck.nextCursor }, 400, 'invalid_field', 'a flashcard\'s cursor for the whole library')
  await expectRefusal(t, app, 'get-study-queue', { jwtToken: user.jwtToken, cursor: flashcardPage.nextCursor }, 400, 'invalid_field', 'a cursor of get-flashcard')
  await expectRefusal(t, app, 'get-study-queue', { jwtToken: user.jwtToken, cursor: 'not-a-cursor' }, 400, 'invalid_field', 'a cursor no service gave')

  const next = await expectOk<StudyPage>(app, 'get-study-queue', { jwtToken: user.jwtToken, cursor: whole.nextCursor })
  t.strictSame(next.cards.map((card) => card.cardID), ids.slice(1000), 'the same day: the cards after the page')
  clock.now = new Date(clock.now.getTime() + DAY)
  const nextDay = await expectOk<StudyPage>(app, 'get-study-queue', { jwtToken: user.jwtToken, cursor: whole.nextCursor })
  t.strictSame(nextDay.cards.map((card) => card.cardID), ids.slice(0, 1000), 'a cursor of a day past: today\'s first page')
})

test('a card answered "again" is due again in minutes: it comes again on a later page, as learning, the only card given twice', async (t) => {
  const clock = { now: new Date('2026-03-01T08:00:00Z') }
  const app = await buildTestApp(t, import.meta.filename, { clock: () => clock.now })
  const user = await registerUser(app)
  const me = learner(app, user, clock)
  await me.settings({ reviewsPerDay: 9999, newCardsPerDay: 9999 })
  const deck = await makeDeck(app, user, { folder: ['Due'], name: 'Some', cards: 1 })
  clock.now = new Date(clock.now.getTime() + 1)
  const ids = [...deck.cardIDs, ...await addCards(app, user, clock, deck.flashcardID, 1099, (n) => ({ front: `card ${n}`, back: 'b' }))]
  await reviewedAlike(app, user, { flashcardID: deck.flashcardID, cardIDs: ids })
  clock.now = new Date(clock.now.getTime() + 100 * DAY)

  const first = await expectOk<StudyPage>(app, 'get-study-queue', { jwtToken: user.jwtToken })
  const failed = first.cards[0]?.cardID as string
  await me.review(deck.flashcardID, failed, 'again')
  const second = await expectOk<StudyPage>(app, 'get-study-queue', { jwtToken: user.jwtToken, cursor: first.nextCursor })
  t.strictSame(second.cards.map((card) => card.cardID), [...ids.slice(1000), failed],
    'the cards after the first page (the rest of the first page held, unanswered, not again), then the failed card, due last')
  t.equal(second.cards.at(-1)?.queue, 'learning')
  t.strictSame(second.counts, { new: '0', learning: '1', review: '1099' })
  t.equal(second.nextCursor, undefined, 'the last page')
})

test('new cards by card type across pages: 600 cloze notes of two cards, every first card, then every second, each once', async (t) => {
  const clock = { now: new Date('2026-03-01T08:00:00Z') }
  const app = await buildTestApp(t, import.meta.filename, { clock: () => clock.now })
  const user = await registerUser(app)
  await learner(app, user, clock).settings({ newCardsPerDay: 9999 })
  const deck = await makeDeck(app, user, { folder: ['Cloze'], name: 'Notes', cards: 0 })
  const ids: string[] = []
  for (let from = 0; from < 600; from += 250) {
    const cards = Array.from({ length: 250 }, (_, i) => ({ cloze: `{{c1::word ${from + i}}} and {{c2::its pair}}` })).slice(0, 600 - from)
    ids.push(...(await expectOk<{ cardIDs: string[] }>(app, 'add-cards', { jwtToken: user.jwtToken, flashcardID: deck.flashcardID, cards }, 201)).cardIDs)
    clock.now = new Date(clock.now.getTime() + 1)
  }
  const firsts = ids.filter((_, index) => index % 2 === 0)
  const seconds = ids.filter((_, index) => index % 2 === 1)
  const first = await expectOk<StudyPage>(app, 'get-study-queue', { jwtToken: user.jwtToken })
  t.strictSame(first.cards.map((card) => card.cardID), [...firsts, ...seconds.slice(0, 400)], 'the first page: the 600 first cards in creation order, then 400 second cards')
  const second = await expectOk<StudyPage>(app, 'get-study-queue', { jwtToken: user.jwtToken, cursor: first.nextCursor })
  t.strictSame(second.cards.map((card) => card.cardID), seconds.slice(400), 'the next page goes on among the second cards')
  t.equal(second.nextCursor, undefined, 'and ends the queue')
})
