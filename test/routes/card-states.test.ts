// Suspending, burying and flagging a card: out of today's cards and their
// counts, back in as the design says, the schedule kept; every answer of
// today's cards compared with a full sort of the user's cards.
import type { FastifyInstance } from 'fastify'
import { test } from 'tap'
import type { CardDocument } from '../../src/repositories/cards.js'
import { buildTestApp, expectOk, expectRefusal, registerUser, type TestUser } from '../helpers/app.js'
import { storedCard } from '../helpers/stored.js'
import { learner, pairsOf } from '../helpers/today-queues.js'

const MINUTE = 60_000
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR

interface Shown { cardID: string, suspended: string, flag: string, buriedUntil?: string, due: string, review_status: string }
interface Counts { new: string, learning: string, review: string }
interface Outline { due: string, new: string, folders: Array<{ due: string, new: string, flashcards: Array<{ flashcardID: string, due: string, new: string }> }> }

function standing (app: FastifyInstance, user: TestUser) {
  const call = async <T = Shown>(operation: string, body: object): Promise<T> => await expectOk<T>(app, operation, { jwtToken: user.jwtToken, ...body })
  return {
    call,
    shown: async (flashcardID: string, cardID: string): Promise<Shown | undefined> =>
      (await call<{ cards: Shown[] }>('get-flashcard', { flashcardID })).cards.find((card) => card.cardID === cardID),
    counts: async (scope: object = {}): Promise<Counts> => (await call<{ counts: Counts }>('get-study-queue', scope)).counts,
    outline: async (): Promise<Outline> => await call<Outline>('get-library', {})
  }
}

async function stored (app: FastifyInstance, cardID: string): Promise<CardDocument | null> {
  return await storedCard(app, cardID)
}

/** What review-card and undo leave of a card: its schedule, which a change of standing keeps. */
function scheduleOf (card: CardDocument | null): unknown {
  if (card === null) return null
  const { state, due, stability, difficulty, elapsedDays, scheduledDays, learningSteps, reps, lapses, lastReview } = card
  return { state, due, stability, difficulty, elapsedDays, scheduledDays, learningSteps, reps, lapses, lastReview }
}

test('a suspended card leaves today\'s cards and every count, keeps its schedule, and comes back unsuspended', async (t) => {
  const clock = { now: new Date('2026-04-10T10:00:00Z') }
  const app = await buildTestApp(t, import.meta.filename, { clock: () => clock.now })
  const user = await registerUser(app)
  const me = learner(app, user, clock)
  const { call, shown, counts, outline } = standing(app, user)
  const deck = await me.flashcard(4)
  const [studied, fresh] = deck.cardIDs as [string, string]
  await me.review(deck.flashcardID, studied, 'good')
  clock.now = new Date(clock.now.getTime() + 2 * DAY)
  await me.expectToday(t, 'one learning card and three new')
  t.strictSame(await counts(), { new: '3', learning: '1', review: '0' })
  const before = scheduleOf(await stored(app, studied))

  t.match(await call('suspend-card', { flashcardID: deck.flashcardID, cardID: studied }), { cardID: studied, suspended: 'true', flag: '0' }, 'the answer is the card, suspended')
  await call('suspend-card', { flashcardID: deck.flashcardID, cardID: fresh })
  const answer = await me.expectToday(t, 'both suspended cards out')
  t.notOk(pairsOf(answer).some(([, cardID]) => cardID === studied || cardID === fresh))
  t.strictSame(await counts(), { new: '2', learning: '0', review: '0' }, 'nor in the study header\'s counts')
  t.strictSame(await counts({ flashcardID: deck.flashcardID }), { new: '2', learning: '0', review: '0' }, 'nor in the flashcard\'s')
  const library = await outline()
  t.strictSame([library.due, library.new, library.folders[0]?.flashcards[0]?.due, library.folders[0]?.flashcards[0]?.new], ['0', '2', '0', '2'], 'nor in the library\'s')
  t.match(await shown(deck.flashcardID, studied), { suspended: 'true', due: (before as { due: Date }).due.toISOString() }, 'get-flashcard shows it suspended, due as it was')
  t.strictSame(scheduleOf(await stored(app, studied)), before, 'the schedule is kept')
  await call('suspend-card', { flashcardID: deck.flashcardID, cardID: studied })
  t.match(await shown(deck.flashcardID, studied), { suspended: 'true' }, 'suspending again changes nothing')

  clock.now = new Date(clock.now.getTime() + 3 * DAY)
  await me.expectToday(t, 'days later: still out')
  await call('unsuspend-card', { flashcardID: deck.flashcardID, cardID: studied })
  await call('unsuspend-card', { flashcardID: deck.flashcardID, cardID: fresh })
  t.ok(pairsOf(await me.expectToday(t, 'unsuspended: back')).some(([, cardID]) => cardID === studied))
  t.strictSame(await counts(), { new: '3', learning: '1', review: '0' })
  t.match(await shown(deck.flashcardID, studied), { suspended: 'false' })
  t.strictSame(scheduleOf(await stored(app, studied)), before, 'with the schedule it had')
})

test('a suspended card put back before the start a read moved past it is not skipped', async (t) => {
  const clock = { now: new Date('2026-04-10T10:00:00Z') }
  const app = await buildTestApp(t, import.meta.filename, { clock: () => clock.now })
  const user = await registerUser(app)
  const me = learner(app, user, clock)
  const { call } = standing(app, user)
  await me.settings({ newCardsPerDay: 2 })
  const deck = await me.flashcard(5)
  const [first] = deck.cardIDs as [string]
  await call('suspend-card', { flashcardID: deck.flashcardID, cardID: first })
  await me.expectToday(t, 'the second and third cards')
  await me.expectToday(t, 'read again: the new-card queue now starts at the second card')
  await call('unsuspend-card', { flashcardID: deck.flashcardID, cardID: first })
  t.strictSame(pairsOf(await me.expectToday(t, 'the first card is back first')).map(([, cardID]) => cardID), deck.cardIDs.slice(0, 2))

  // the same for a card in review, and for burial
  await me.settings({ newCardsPerDay: 20 })
  for (const [n, cardID] of deck.cardIDs.entries()) {
    clock.now = new Date(clock.now.getTime() + n * HOUR)
    await me.review(deck.flashcardID, cardID, 'easy')
  }
  clock.now = new Date(clock.now.getTime() + 60 * DAY)
  const overdue = pairsOf(await me.expectToday(t, 'every card due, the most overdue first'))[0]?.[1] as string
  await call('bury-card', { flashcardID: deck.flashcardID, cardID: overdue })
  await me.expectToday(t, 'buried: out')
  await me.expectToday(t, 'read again: the due queue now starts after it')
  await call('unbury-card', { flashcardID: deck.flashcardID, cardID: overdue })
  t.equal(pairsOf(await me.expectToday(t, 'unburied: back first'))[0]?.[1], overdue)
})

test('a buried card is out until the user\'s next day begins, in their time zone, across a change of clocks', async (t) => {
  // New York moves its clocks forward at 02:00 on Sunday 8 March 2026: the day that begins at 04:00 that
  // morning begins at 08:00 UTC, not 09:00 as the day before
  const clock = { now: new Date('2026-03-08T03:00:00Z') }
  const app = await buildTestApp(t, import.meta.filename, { clock: () => clock.now })
  const user = await registerUser(app, { timezone: 'America/New_York' })
  const me = learner(app, user, clock)
  const { call, shown, counts } = standing(app, user)
  const deck = await me.flashcard(2)
  const [buried] = deck.cardIDs as [string]
  t.match(await call('bury-card', { flashcardID: deck.flashcardID, cardID: buried }), { buriedUntil: '08/03/2026', suspended: 'false' },
    'at 22:00 on Saturday 7 March there, buried until Sunday 8 March')
  await me.expectToday(t, 'out today')
  t.strictSame(await counts(), { new: '1', learning: '0', review: '0' })
  clock.now = new Date('2026-03-08T07:59:59.999Z')
  t.match(await shown(deck.flashcardID, buried), { buriedUntil: '08/03/2026' })
  t.notOk(pairsOf(await me.expectToday(t, 'at 03:59:59 the next morning, summer time, still out')).some(([, cardID]) => cardID === buried))
  clock.now = new Date('2026-03-08T08:00:00Z')
  t.ok(pairsOf(await me.expectToday(t, 'at 04:00 summer time, the next day, back')).some(([, cardID]) => cardID === buried))
  t.strictSame(await counts(), { new: '2', learning: '0', review: '0' })
  const after = await shown(deck.flashcardID, buried)
  t.equal(after?.buriedUntil, undefined, 'no longer buried')
  t.equal((await stored(app, buried))?.isNew, true, 'back in the new-card queue, as stored')
})

test('buried before the day starts (dayStartHour), a card comes back when that day starts, hours later', async (t) => {
  const clock = { now: new Date('2026-05-10T02:00:00Z') }
  const app = await buildTestApp(t, import.meta.filename, { clock: () => clock.now })
  const user = await registerUser(app)
  const me = learner(app, user, clock)
  const { call } = standing(app, user)
  const deck = await me.flashcard(3)
  const [buried] = deck.cardIDs as [string]
  t.match(await call('bury-card', { flashcardID: deck.flashcardID, cardID: buried }), { buriedUntil: '10/05/2026' },
    'at 02:00 it is still 9 May in a day that starts at 04:00')
  clock.now = new Date('2026-05-10T03:59:00Z')
  await me.expectToday(t, 'out until 04:00')
  clock.now = new Date('2026-05-10T04:00:00Z')
  t.ok(pairsOf(await me.expectToday(t, 'back at 04:00')).some(([, cardID]) => cardID === buried))
})

test('a buried card due before the queue\'s start comes back on its day, most overdue first', async (t) => {
  const clock = { now: new Date('2026-06-01T08:00:00Z') }
  const app = await buildTestApp(t, import.meta.filename, { clock: () => clock.now })
  const user = await registerUser(app)
  const me = learner(app, user, clock)
  const { call, counts } = standing(app, user)
  const deck = await me.flashcard(3)
  for (const [n, cardID] of deck.cardIDs.entries()) {
    clock.now = new Date(clock.now.getTime() + (n + 1) * DAY)
    await me.review(deck.flashcardID, cardID, 'easy')
  }
  clock.now = new Date(clock.now.getTime() + 90 * DAY)
  const first = pairsOf(await me.expectToday(t, 'three cards due'))[0]?.[1] as string
  await call('bury-card', { flashcardID: deck.flashcardID, cardID: first })
  await me.expectToday(t, 'the most overdue buried')
  await me.expectToday(t, 'read again: the due queue starts after it')
  t.strictSame(await counts(), { new: '0', learning: '0', review: '2' })
  clock.now = new Date(clock.now.getTime() + DAY)
  t.equal(pairsOf(await me.expectToday(t, 'the next day, back first'))[0]?.[1], first)
  t.strictSame(await counts(), { new: '0', learning: '0', review: '3' })
})

test('reviews and undo of a suspended or buried card leave it out; suspension and burial each undone on their own', async (t) => {
  const clock = { now: new Date('2026-07-01T08:00:00Z') }
  const app = await buildTestApp(t, import.meta.filename, { clock: () => clock.now })
  const user = await registerUser(app)
  const me = learner(app, user, clock)
  const { call, shown } = standing(app, user)
  const deck = await me.flashcard(3)
  const [suspended, buried] = deck.cardIDs as [string, string]
  await call('suspend-card', { flashcardID: deck.flashcardID, cardID: suspended })
  await call('bury-card', { flashcardID: deck.flashcardID, cardID: buried })
  await me.review(deck.flashcardID, suspended, 'again')
  await me.review(deck.flashcardID, buried, 'again')
  clock.now = new Date(clock.now.getTime() + 30 * MINUTE)
  await me.expectToday(t, 'reviewed, both are due in learning, and still out')
  t.equal((await stored(app, suspended))?.isNew, 'suspended')
  await me.undo()
  await me.undo()
  await me.expectToday(t, 'both reviews undone: both new again, and still out')
  t.equal((await stored(app, buried))?.isNew, 'buried')

  // suspended and buried: unsuspended, it stays buried until the next day; unburied, it stays suspended
  await call('bury-card', { flashcardID: deck.flashcardID, cardID: suspended })
  t.match(await call('unsuspend-card', { flashcardID: deck.flashcardID, cardID: suspended }), { suspended: 'false', buriedUntil: '02/07/2026' })
  await me.expectToday(t, 'unsuspended, still buried')
  await call('suspend-card', { flashcardID: deck.flashcardID, cardID: buried })
  t.match(await call('unbury-card', { flashcardID: deck.flashcardID, cardID: buried }), { suspended: 'true' })
  t.equal((await shown(deck.flashcardID, buried))?.buriedUntil, undefined)
  await me.expectToday(t, 'unburied, still suspended')
  clock.now = new Date(clock.now.getTime() + DAY)
  const answer = await me.expectToday(t, 'the next day: the buried card is back, the suspended one is not')
  t.ok(pairsOf(answer).some(([, cardID]) => cardID === suspended))
  t.notOk(pairsOf(answer).some(([, cardID]) => cardID === buried))
})

test('a flag is a label: 0 to 7, shown by the card reads, changing nothing of the schedule or today\'s cards', async (t) => {
  const clock = { now: new Date('2026-08-01T08:00:00Z') }
  const app = await buildTestApp(t, import.meta.filename, { clock: () => clock.now })
  const user = await registerUser(app)
  const other = await registerUser(app)
  const me = learner(app, user, clock)
  const { call, shown } = standing(app, user)
  const deck = await me.flashcard(2)
  const [cardID] = deck.cardIDs as [string]
  const today = await me.expectToday(t, 'before')
  const before = scheduleOf(await stored(app, cardID))
  t.match(await call('flag-card', { flashcardID: deck.flashcardID, cardID, flag: 3 }), { cardID, flag: '3' })
  t.match(await shown(deck.flashcardID, cardID), { flag: '3', suspended: 'false' })
  t.match(await call('flag-card', { flashcardID: deck.flashcardID, cardID, flag: '7' }), { flag: '7' }, 'a digit string too')
  t.strictSame(await me.expectToday(t, 'flagged'), today, 'today\'s cards as they were')
  t.strictSame(scheduleOf(await stored(app, cardID)), before, 'the schedule as it was')
  t.match(await call('flag-card', { flashcardID: deck.flashcardID, cardID, flag: 0 }), { flag: '0' }, '0 takes the flag off')
  t.equal((await stored(app, cardID))?.flag, undefined, 'nothing stored for no flag')
  const content = (await expectOk<{ library: Record<string, Record<string, { cards: Record<string, { flag: string }> }>> }>(app, 'get-all-cards', { jwtToken: user.jwtToken, content: true })).library
  t.equal(Object.values(content)[0]?.[Object.keys(Object.values(content)[0] ?? {})[0] ?? '']?.cards[cardID]?.flag, '0', 'get-all-cards with content shows it too')

  await expectRefusal(t, app, 'flag-card', { jwtToken: user.jwtToken, flashcardID: deck.flashcardID, cardID, flag: 8 }, 400, 'invalid_field')
  await expectRefusal(t, app, 'flag-card', { jwtToken: user.jwtToken, flashcardID: deck.flashcardID, cardID, flag: -1 }, 400, 'invalid_field')
  for (const operation of ['flag-card', 'suspend-card', 'unsuspend-card', 'bury-card', 'unbury-card']) {
    await expectRefusal(t, app, operation, { jwtToken: other.jwtToken, flashcardID: deck.flashcardID, cardID, flag: 1 }, 404, 'card_not_found', `${operation}, another user's card`)
  }
  await expectRefusal(t, app, 'suspend-card', { jwtToken: user.jwtToken, flashcardID: deck.flashcardID, cardID: '1'.repeat(39) }, 404, 'card_not_found')
  t.match(await shown(deck.flashcardID, cardID), { flag: '0', suspended: 'false' }, 'refusals changed nothing')
})
