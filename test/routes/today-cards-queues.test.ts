// Today's cards read each queue from a start kept with the account (see
// src/domain/queues.ts). Whatever the queues hold and however they got there,
// the answer must be the one a full sort of the user's cards gives: these
// tests compare the two for long queues, after every kind of write, and with
// a write made between a read and the move of a start.
import type { FastifyInstance } from 'fastify'
import { test } from 'tap'
import { buildApp } from '../../src/app.js'
import { userDay } from '../../src/domain/calendar.js'
import { startsAfterRead, todayQueueRanges } from '../../src/domain/queues.js'
import { cardStatesRepository } from '../../src/repositories/card-states.js'
import { usersRepository, type UserDocument } from '../../src/repositories/users.js'
import { buildTestApp, databaseOf, expectOk, registerUser, TEST_SECRET, testDatabaseUrl, type Deck } from '../helpers/app.js'
import { learner, pairsOf, type Clock } from '../helpers/today-queues.js'

const MINUTE = 60_000
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR

test('thousands of new cards created in batches come in creation order, as they are studied, day after day', async (t) => {
  const clock = { now: new Date('2026-05-04T09:00:00Z') }
  const app = await buildTestApp(t, import.meta.filename, { clock: () => clock.now })
  const me = learner(app, await registerUser(app), clock)
  // batches of one request each share an instant, a few milliseconds apart; small ones make the answer span batches
  for (const size of [7, 1000, 3, 1000, 1000, 13, 600]) {
    await me.flashcard(size)
    clock.now = new Date(clock.now.getTime() + 3)
  }
  clock.now = new Date('2026-05-04T10:00:00Z')
  await me.settings({ newCardsPerDay: 15 })
  await me.expectToday(t, 'the first 15 of 3,623 new cards')
  await me.expectToday(t, 'the same again, read from where the first read left the start')

  for (let day = 0; day < 4; day++) {
    // start most of today's cards, one after another as the study app does, checking in between
    const answer = await me.expectToday(t, `day ${day}: before studying`)
    for (const [n, [flashcardID, cardID]] of pairsOf(answer).slice(0, 12).entries()) {
      await me.review(flashcardID, cardID, n % 4 === 0 ? 'again' : 'good')
      if (n % 3 === 0) await me.expectToday(t, `day ${day}: after ${n + 1} reviews`)
    }
    await me.expectToday(t, `day ${day}: after studying`)
    await me.settings({ newCardsPerDay: 15 + 10 * day })
    await me.expectToday(t, `day ${day}: a larger allowance reaches further into the queue`)
    clock.now = new Date(clock.now.getTime() + DAY)
  }
})

test('many overdue cards, many due at one instant, come most overdue first within reviewsPerDay', async (t) => {
  const clock = { now: new Date('2026-06-01T08:00:00Z') }
  const app = await buildTestApp(t, import.meta.filename, { clock: () => clock.now })
  const me = learner(app, await registerUser(app), clock)
  const shared = await me.flashcard(300)
  const varied = await me.flashcard(120)
  // the same first rating at the same instant gives the same due instant: 300 cards share one
  for (const cardID of shared.cardIDs) await me.review(shared.flashcardID, cardID, 'good')
  const ratings = ['again', 'hard', 'good', 'easy']
  for (const [n, cardID] of varied.cardIDs.entries()) {
    clock.now = new Date(clock.now.getTime() + (n % 7) * 17 * MINUTE)
    await me.review(varied.flashcardID, cardID, ratings[n % 4] as string)
  }
  await me.settings({ reviewsPerDay: 90 })
  const reviewed = clock.now.getTime()
  for (const later of [2 * HOUR, 3 * DAY, 20 * DAY]) {
    clock.now = new Date(reviewed + later)
    await me.expectToday(t, `${later / HOUR} hours on: the most overdue 90`)
    const answer = await me.expectToday(t, 'the same again, from the start the read moved')
    for (const [n, [flashcardID, cardID]] of pairsOf(answer).slice(0, 25).entries()) {
      await me.review(flashcardID, cardID, ratings[n % 4] as string)
      if (n % 5 === 0) await me.expectToday(t, `after ${n + 1} reviews`)
    }
    await me.expectToday(t, 'after the reviews: 65 left today')
  }
})

test('undo puts a card back where it was: new again at the head of the queue, or due earlier', async (t) => {
  const clock = { now: new Date('2026-07-01T08:00:00Z') }
  const app = await buildTestApp(t, import.meta.filename, { clock: () => clock.now })
  const me = learner(app, await registerUser(app), clock)
  const deck = await me.flashcard(40)
  await me.settings({ newCardsPerDay: 5 })
  const [first, second] = deck.cardIDs as [string, string]
  t.strictSame(pairsOf(await me.expectToday(t, 'the first five')).map(([, id]) => id), deck.cardIDs.slice(0, 5))
  await me.review(deck.flashcardID, first, 'easy')
  await me.review(deck.flashcardID, second, 'easy')
  await me.expectToday(t, 'the two started: three new left today, the start moved past them')
  await me.undo()
  await me.expectToday(t, 'the second card is new again, back before the start the read had moved')
  clock.now = new Date(clock.now.getTime() + DAY)
  t.strictSame(pairsOf(await me.expectToday(t, 'the next day')).map(([, id]) => id).slice(0, 2), [second, deck.cardIDs[2]],
    'the card put back comes first among the new ones')

  // a card answered easy is due in days; answered again it would have been due in minutes
  const dueSoon = deck.cardIDs[10] as string
  await me.review(deck.flashcardID, dueSoon, 'again')
  clock.now = new Date(clock.now.getTime() + 20 * MINUTE)
  await me.review(deck.flashcardID, dueSoon, 'easy')
  await me.expectToday(t, 'nothing due before the end of today: the read moves the due start to it')
  await me.undo()
  await me.expectToday(t, 'undone: the card is due again, minutes ago, before that start')
})

test('cards added to a flashcard come after those created before them; cards created or imported before the start are not skipped', async (t) => {
  const clock = { now: new Date('2026-08-01T08:00:00Z') }
  const app = await buildTestApp(t, import.meta.filename, { clock: () => clock.now })
  const me = learner(app, await registerUser(app), clock)
  const older = await me.flashcard(30)
  clock.now = new Date(clock.now.getTime() + 1)
  const newer = await me.flashcard(30)
  await me.settings({ newCardsPerDay: 50 })
  await me.expectToday(t, 'the 50 first of 60')
  clock.now = new Date(clock.now.getTime() + 1)
  await me.addCards(older.flashcardID, 25)
  await me.expectToday(t, 'the added cards come last, though their flashcard is older')
  await me.settings({ newCardsPerDay: 100 })
  for (const deck of [older, newer]) {
    for (const cardID of deck.cardIDs) await me.review(deck.flashcardID, cardID, 'easy')
  }
  clock.now = new Date(clock.now.getTime() + 12 * HOUR)
  await me.expectToday(t, 'every card created first studied: the added ones remain')
  // created by an instance whose clock is a day behind: before the start the reads moved
  const kept = clock.now
  clock.now = new Date(kept.getTime() - DAY)
  const behind = await me.flashcard(4)
  clock.now = kept
  const answer = await me.expectToday(t, 'cards created before the start are not skipped')
  t.strictSame(answer.get(behind.flashcardID), behind.cardIDs)
  // and imported ones the same
  clock.now = new Date(kept.getTime() - 2 * DAY)
  const imported = await expectOk<Deck>(app, 'import-cards', { jwtToken: me.user.jwtToken, folder: ['Decks'], flashcardName: 'Imported', text: 'uno\tone\ndos\ttwo' }, 201)
  clock.now = kept
  t.strictSame((await me.expectToday(t, 'imported cards before the start are not skipped either')).get(imported.flashcardID), imported.cardIDs)
})

/** Two services on one database, with clocks of their own, as two instances of the service. */
async function twoInstances (t: { teardown: (fn: () => unknown) => void }, clocks: [Clock, Clock]): Promise<[FastifyInstance, FastifyInstance]> {
  const url = testDatabaseUrl(import.meta.filename)
  const apps: FastifyInstance[] = []
  for (const clock of clocks) {
    const app = await buildApp({
      mongodbUrl: url,
      jwtSecret: TEST_SECRET,
      clock: () => clock.now,
      attemptLimits: { perAddress: 100_000, perAccount: 100_000, windowMs: 60_000 },
      loadShedding: { maxInFlight: 100_000, maxInFlightPerUser: 100_000 }
    })
    await app.ready()
    apps.push(app)
  }
  t.teardown(async () => {
    await databaseOf(apps[0] as FastifyInstance).dropDatabase().catch(() => {})
    for (const app of apps) await app.close()
  })
  return apps as [FastifyInstance, FastifyInstance]
}

/**
 * What get-today-cards does on the first instance, split where the other
 * instance writes: `read` reads the account and then the queues; the
 * returned function moves the starts as that read found them.
 */
async function readThenRaise (app: FastifyInstance, userID: string, now: Date): Promise<() => Promise<void>> {
  const db = databaseOf(app)
  const account = await usersRepository(db).findById(userID)
  if (account?.queueFrom === undefined) throw new Error('no account with starts')
  const ranges = todayQueueRanges(account.queueFrom, userDay(now, account).end, now)
  const allowance = { reviews: account.reviewsPerDay, newCards: account.newCardsPerDay }
  const queues = await cardStatesRepository(db).todayQueue(userID, ranges, allowance)
  const raised = startsAfterRead(ranges, queues, allowance)
  if (Object.keys(raised).length === 0) throw new Error('this read would move no start: the test would show nothing')
  const writes = account.queueFrom.writes
  return async () => { await usersRepository(db).raiseQueueStarts(userID, writes, raised) }
}

async function storedStarts (app: FastifyInstance, userID: string): Promise<UserDocument['queueFrom']> {
  return (await usersRepository(databaseOf(app)).findById(userID))?.queueFrom
}

test('a start is not moved past a new card another instance created after the account was read', async (t) => {
  const here = { now: new Date('2026-09-01T09:00:00Z') }
  // the other instance's clock is half an hour behind
  const there = { now: new Date('2026-09-01T08:30:00Z') }
  const [app, other] = await twoInstances(t, [here, there])
  const user = await registerUser(app)
  const me = learner(app, user, here)
  const meThere = learner(other, user, there)
  const old = await me.flashcard(1)
  here.now = new Date('2026-09-01T10:00:00Z')
  await me.flashcard(5)
  await me.review(old.flashcardID, old.cardIDs[0] as string, 'easy')

  // the new-card queue still starts at 09:00, where the card just reviewed was; its first card is now at 10:00
  const raise = await readThenRaise(app, user.userID, here.now)
  const behind = await meThere.flashcard(2)
  const before = await storedStarts(app, user.userID)
  await raise()
  t.strictSame(await storedStarts(app, user.userID), before, 'the start stays: a card was placed since the account was read')
  const answer = await me.expectToday(t, 'the cards created at 08:30 by the other instance come first')
  t.strictSame(answer.get(behind.flashcardID), behind.cardIDs)

  // the control case: with no write in between, the same steps move the start
  here.now = new Date(here.now.getTime() + MINUTE)
  for (const cardID of behind.cardIDs) await me.review(behind.flashcardID, cardID, 'easy')
  const moved = await readThenRaise(app, user.userID, here.now)
  const unmoved = await storedStarts(app, user.userID)
  await moved()
  t.not((await storedStarts(app, user.userID))?.new.at.getTime(), unmoved?.new.at.getTime(), 'moved up to the first new card')
  await me.expectToday(t, 'and nothing is skipped')
})

test('a start is not moved past a card another instance reviewed after the account was read', async (t) => {
  const clock = { now: new Date('2026-09-10T09:00:00Z') }
  const [app, other] = await twoInstances(t, [clock, clock])
  const user = await registerUser(app)
  const me = learner(app, user, clock)
  const meThere = learner(other, user, clock)
  const deck = await me.flashcard(2)
  const [first, second] = deck.cardIDs as [string, string]
  // answered again, the first card is due in minutes: the due queue starts there
  await me.review(deck.flashcardID, first, 'again')
  clock.now = new Date(clock.now.getTime() + 20 * MINUTE)
  await me.review(deck.flashcardID, first, 'easy')

  // nothing is due before the end of today: the read would move the due start to it
  const raise = await readThenRaise(app, user.userID, clock.now)
  await meThere.review(deck.flashcardID, second, 'again')
  await raise()
  const dueStart = (await storedStarts(app, user.userID))?.due.at
  t.ok(dueStart !== undefined && dueStart < userDay(clock.now, { timezone: 'UTC', dayStartHour: 4 }).end, 'the due start stays before the end of today')
  clock.now = new Date(clock.now.getTime() + 10 * MINUTE)
  const answer = await me.expectToday(t, 'the card the other instance put back in learning is due today')
  t.strictSame(answer.get(deck.flashcardID), [second])
})

