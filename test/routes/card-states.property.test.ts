// Random studying with suspensions and burials, compared request by request
// with a full sort of the user's cards: cards leaving and entering the queues
// in any order, days passing, never make the reads from the queues' starts
// (src/domain/queues.ts) hide or show a card wrongly. The study queue of the
// whole library, of a folder and of a flashcard, and the library's counts,
// are checked against the same full sort.
import fc from 'fast-check'
import type { FastifyInstance } from 'fastify'
import { test } from 'tap'
import { userDay } from '../../src/domain/calendar.js'
import { todayQueueRanges } from '../../src/domain/queues.js'
import type { UserDocument } from '../../src/repositories/users.js'
import { allowanceToday } from '../../src/services/today.js'
import { buildTestApp, databaseOf, expectOk, post, registerUser, type Deck } from '../helpers/app.js'
import { entriesOf, fullSort, fullSortOrdered, learner, pairsOf } from '../helpers/today-queues.js'

const MINUTE = 60_000
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR

interface StudyQueue { counts: { new: string, learning: string, review: string }, cards: Array<{ cardID: string, queue: string }> }
interface OutlineFolder { folderID: string, due: string, new: string, folders: OutlineFolder[], flashcards: Array<{ flashcardID: string, due: string, new: string }> }

/** The study queue's cards and counts, as the full sort gives them for the cards of `within` (all when undefined). */
async function expectedQueue (app: FastifyInstance, userID: string, now: Date, within?: ReadonlySet<string>): Promise<{ cardIDs: string[], counts: StudyQueue['counts'] }> {
  const { ordered } = await fullSortOrdered(app, userID, now, within)
  const count = (states: number[]): string => String(ordered.filter((card) => states.includes(card.state)).length)
  return { cardIDs: ordered.map((card) => card._id), counts: { new: count([0]), learning: count([1, 3]), review: count([2]) } }
}

// each run makes a user and checks every answer against a full sort: minutes on a loaded machine
test('random studying with suspensions and burials: today\'s cards, the study queues and the counts are always the full sort\'s', { timeout: 600_000 }, async (t) => {
  const clock = { now: new Date('2026-10-20T08:00:00Z') }
  const app = await buildTestApp(t, import.meta.filename, { clock: () => clock.now })
  const rating = fc.constantFrom('again', 'hard', 'good', 'easy')
  // a card taken out is most often the first of today's, as studying meets it; put back, one of those taken out
  const out = fc.record({ kind: fc.constant('out' as const), change: fc.constantFrom('suspend-card', 'bury-card'), card: fc.oneof(fc.constant(0), fc.nat()), any: fc.boolean() })
  const back = fc.record({ kind: fc.constant('back' as const), change: fc.constantFrom('unsuspend-card', 'unbury-card'), card: fc.oneof(fc.constant(-1), fc.nat()) })
  const operation = fc.oneof(
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('create' as const), size: fc.oneof(fc.integer({ min: 1, max: 30 }), fc.constant(200)), folder: fc.nat(2) }) },
    { weight: 4, arbitrary: fc.record({ kind: fc.constant('study' as const), count: fc.integer({ min: 1, max: 6 }), rating }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('review any' as const), card: fc.nat(), rating, taken: fc.boolean() }) },
    { weight: 4, arbitrary: out },
    { weight: 3, arbitrary: back },
    // bury the card on show, study on, and come back the next day
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('bury and come back' as const), count: fc.integer({ min: 0, max: 4 }), rating }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('undo' as const) }) },
    { weight: 4, arbitrary: fc.record({ kind: fc.constant('wait' as const), ms: fc.constantFrom(1, MINUTE, 20 * MINUTE, 3 * HOUR, 10 * HOUR, DAY, DAY, 3 * DAY, 20 * DAY) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('limits' as const), newCardsPerDay: fc.integer({ min: 0, max: 25 }), reviewsPerDay: fc.integer({ min: 0, max: 40 }) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('calendar' as const), timezone: fc.constantFrom('UTC', 'Pacific/Auckland', 'America/Los_Angeles'), dayStartHour: fc.integer({ min: 0, max: 23 }) }) },
    { weight: 3, arbitrary: fc.record({ kind: fc.constant('check part' as const), part: fc.nat() }) }
  )
  await fc.assert(fc.asyncProperty(fc.array(operation, { minLength: 5, maxLength: 25 }), async (operations) => {
    clock.now = new Date('2026-10-20T08:00:00Z')
    const user = await registerUser(app)
    const me = learner(app, user, clock)
    for (const folder of [0, 1, 2]) await expectOk(app, 'create-folder', { jwtToken: user.jwtToken, path: [`Folder ${folder}`] }, 201)
    const decks: Array<Deck & { folder: number }> = []
    const taken: Array<[string, string]> = []
    const everyCard = (): Array<[string, string]> => decks.flatMap((deck) => deck.cardIDs.map((cardID): [string, string] => [deck.flashcardID, cardID]))
    let made = 0
    for (const op of operations) {
      if (op.kind === 'create') {
        made += 1
        const deck = await expectOk<Deck>(app, 'create-flashcard', {
          jwtToken: user.jwtToken,
          folder: [`Folder ${op.folder}`],
          flashcardName: `Deck ${made}`,
          cards: Array.from({ length: op.size }, (_, n) => ({ front: `front ${n}`, back: `back ${n}` }))
        }, 201)
        decks.push({ ...deck, folder: op.folder })
        clock.now = new Date(clock.now.getTime() + 1)
      } else if (op.kind === 'study') {
        for (const [flashcardID, cardID] of pairsOf(await me.today()).slice(0, op.count)) await me.review(flashcardID, cardID, op.rating)
      } else if (op.kind === 'review any' && decks.length > 0) {
        // any card, or one taken out of the queues, which stays out
        const all = op.taken && taken.length > 0 ? taken : everyCard()
        const [flashcardID, cardID] = all[op.card % all.length] as [string, string]
        await me.review(flashcardID, cardID, op.rating)
      } else if (op.kind === 'out' && decks.length > 0) {
        // a card of today's in the order they are studied, as the study page acts on the card it shows, or any card
        const today = (await expectOk<{ cards: Array<{ flashcardID: string, cardID: string }> }>(app, 'get-study-queue', { jwtToken: user.jwtToken })).cards
          .map((card): [string, string] => [card.flashcardID, card.cardID])
        const from = !op.any && today.length > 0 ? today : everyCard()
        const card = from[op.card % from.length] as [string, string]
        await expectOk(app, op.change, { jwtToken: user.jwtToken, flashcardID: card[0], cardID: card[1] })
        taken.push(card)
      } else if (op.kind === 'bury and come back') {
        const [first] = (await expectOk<{ cards: Array<{ flashcardID: string, cardID: string }> }>(app, 'get-study-queue', { jwtToken: user.jwtToken })).cards
        if (first !== undefined) {
          await expectOk(app, 'bury-card', { jwtToken: user.jwtToken, flashcardID: first.flashcardID, cardID: first.cardID })
          taken.push([first.flashcardID, first.cardID])
        }
        for (const [flashcardID, cardID] of pairsOf(await me.today()).slice(0, op.count)) await me.review(flashcardID, cardID, op.rating)
        clock.now = new Date(clock.now.getTime() + DAY)
      } else if (op.kind === 'back' && taken.length > 0) {
        // the card taken out last (undoing it), or any
        const [flashcardID, cardID] = taken[op.card === -1 ? taken.length - 1 : op.card % taken.length] as [string, string]
        await expectOk(app, op.change, { jwtToken: user.jwtToken, flashcardID, cardID })
      } else if (op.kind === 'undo') {
        const response = await post(app, 'undo-review', { jwtToken: user.jwtToken })
        if (response.statusCode !== 200 && response.statusCode !== 404) throw new Error(`undo-review: ${response.statusCode} ${response.body}`)
      } else if (op.kind === 'wait') {
        clock.now = new Date(clock.now.getTime() + op.ms)
      } else if (op.kind === 'limits') {
        await me.settings({ newCardsPerDay: op.newCardsPerDay, reviewsPerDay: op.reviewsPerDay })
      } else if (op.kind === 'calendar') {
        await me.settings({ timezone: op.timezone, dayStartHour: op.dayStartHour })
      } else if (op.kind === 'check part' && decks.length > 0) {
        await checkPart(app, user.userID, user.jwtToken, decks, op.part, clock.now)
      }
      const answer = entriesOf(await me.today())
      const expected = entriesOf(await fullSort(app, user.userID, clock.now))
      if (JSON.stringify(answer) !== JSON.stringify(expected)) {
        throw new Error(`after ${JSON.stringify(op)} at ${clock.now.toISOString()}: today's cards ${JSON.stringify(answer)}, the full sort ${JSON.stringify(expected)}`)
      }
      const whole = await expectOk<StudyQueue>(app, 'get-study-queue', { jwtToken: user.jwtToken })
      const wanted = await expectedQueue(app, user.userID, clock.now)
      if (JSON.stringify({ cardIDs: whole.cards.map((card) => card.cardID), counts: whole.counts }) !== JSON.stringify(wanted)) {
        throw new Error(`after ${JSON.stringify(op)}: the study queue ${JSON.stringify(whole)}, the full sort ${JSON.stringify(wanted)}`)
      }
    }
  }), { numRuns: 25, endOnFailure: true })
  t.pass('every answer was the full sort\'s')
})

/**
 * One folder or flashcard (`part` picks it): get-study-queue and get-library's
 * counts for it, and both ways the repository reads a part (its flashcards
 * whole, or the queues filtered), against the full sort of its cards.
 */
async function checkPart (app: FastifyInstance, userID: string, jwtToken: string, decks: ReadonlyArray<Deck & { folder: number }>, part: number, now: Date): Promise<void> {
  const folders = [...new Set(decks.map((deck) => deck.folder))]
  const outline = await expectOk<{ due: string, new: string, folders: OutlineFolder[] }>(app, 'get-library', { jwtToken })
  let within: Set<string>
  let scope: Record<string, string>
  let counted: { due: string, new: string } | undefined
  if (part % 2 === 0) {
    const deck = decks[(part >> 1) % decks.length] as Deck & { folder: number }
    within = new Set([deck.flashcardID])
    scope = { flashcardID: deck.flashcardID }
    counted = outline.folders.flatMap((folder) => folder.flashcards).find((flashcard) => flashcard.flashcardID === deck.flashcardID)
  } else {
    const folder = folders[(part >> 1) % folders.length] as number
    within = new Set(decks.filter((deck) => deck.folder === folder).map((deck) => deck.flashcardID))
    const folderID = outline.folders.find((candidate) => candidate.flashcards.some((flashcard) => within.has(flashcard.flashcardID)))?.folderID as string
    scope = { folderID }
    counted = outline.folders.find((candidate) => candidate.folderID === folderID)
  }
  const wanted = await expectedQueue(app, userID, now, within)
  const answer = await expectOk<StudyQueue>(app, 'get-study-queue', { jwtToken, ...scope })
  const found = { cardIDs: answer.cards.map((card) => card.cardID), counts: answer.counts }
  if (JSON.stringify(found) !== JSON.stringify(wanted)) throw new Error(`the study queue of ${JSON.stringify(scope)}: ${JSON.stringify(found)}, the full sort ${JSON.stringify(wanted)}`)
  const due = String(Number(wanted.counts.learning) + Number(wanted.counts.review))
  if (counted?.due !== due || counted.new !== wanted.counts.new) {
    throw new Error(`get-library's counts of ${JSON.stringify(scope)}: ${JSON.stringify(counted)}, the full sort due ${due}, new ${wanted.counts.new}`)
  }
  const whole = await expectedQueue(app, userID, now)
  if (outline.due !== String(Number(whole.counts.learning) + Number(whole.counts.review)) || outline.new !== whole.counts.new) {
    throw new Error(`get-library's counts of the library: ${outline.due} due, ${outline.new} new; the full sort ${JSON.stringify(whole.counts)}`)
  }

  // both ways of reading a part, whichever the service picks for this size
  const account = await databaseOf(app).collection<UserDocument>('users').findOne({ _id: userID }) as UserDocument
  const today = userDay(now, account)
  const allowance = await allowanceToday(app.repositories, account, today)
  const byFlashcards = await app.repositories.cardStates.queuesOfFlashcards(userID, [...within], today.end, allowance)
  const byQueues = await app.repositories.cardStates.todayQueue(userID, todayQueueRanges(account.queueFrom, today.end, now), allowance, [...within])
  for (const [how, queues] of [['by its flashcards', byFlashcards], ['through the queues', byQueues]] as const) {
    const ids = [...queues.due, ...queues.new].map((card) => card._id)
    if (JSON.stringify(ids) !== JSON.stringify(wanted.cardIDs)) throw new Error(`${JSON.stringify(scope)} read ${how}: ${JSON.stringify(ids)}, the full sort ${JSON.stringify(wanted.cardIDs)}`)
  }
}
