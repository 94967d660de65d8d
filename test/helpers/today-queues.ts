// Today's cards against a full sort of the user's cards: what the tests of the
// queues' starts (src/domain/queues.ts) compare, and a learner that studies
// through the API at a test's clock.
import type { FastifyInstance } from 'fastify'
import { userDay } from '../../src/domain/calendar.js'
import { CardState } from '../../src/domain/scheduling.js'
import type { CardDocument } from '../../src/repositories/cards.js'
import type { ReviewDocument } from '../../src/repositories/reviews.js'
import type { UserDocument } from '../../src/repositories/users.js'
import { databaseOf, expectOk, makeDeck, type Deck, type TestUser } from './app.js'
import { storedCards } from './stored.js'

type Tree = Record<string, unknown>

/** The clock a test gives its app, moved by the test. */
export interface Clock { now: Date }

/** The part of a tap test the learner checks with. */
interface Checks { strictSame: (found: unknown, wanted: unknown, message: string) => boolean }

/** The cards of a today's-cards tree, each flashcard's in the order the tree lists them. */
export function cardsByFlashcard (tree: Tree, into = new Map<string, string[]>()): Map<string, string[]> {
  for (const child of Object.values(tree)) {
    if (typeof child !== 'object' || child === null) continue
    const node = child as Tree
    if (typeof node.flashcardID === 'string') into.set(node.flashcardID, Object.keys(node.cards as Tree))
    else cardsByFlashcard(node, into)
  }
  return into
}

/** Sorted entries, so that two answers compare by content: which cards, each flashcard's in which order. */
export function entriesOf (answer: Map<string, string[]>): Array<[string, string[]]> {
  return [...answer.entries()].sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0)
}

/** An answer as (flashcardID, cardID) pairs. */
export function pairsOf (answer: Map<string, string[]>): Array<[string, string]> {
  return [...answer.entries()].flatMap(([flashcardID, cardIDs]) => cardIDs.map((cardID): [string, string] => [flashcardID, cardID]))
}

const byQueueOrder = (a: CardDocument, b: CardDocument): number => a.due.getTime() - b.due.getTime() || a.createdOrder - b.createdOrder

/**
 * The reviews and new cards started today, as the service counts them: the
 * account's count of its latest review's day, or the log since today began
 * when that day is another that overlaps today (the clock went back).
 */
async function doneToday (app: FastifyInstance, account: UserDocument, today: { start: Date }): Promise<{ reviews: number, newCards: number }> {
  const counted = account.studyDay
  if (counted === undefined || counted.end <= today.start) return { reviews: 0, newCards: 0 }
  if (counted.start.getTime() === today.start.getTime()) return counted
  const since = await databaseOf(app).collection<ReviewDocument>('reviews').find({ userID: account._id, reviewedAt: { $gte: today.start } }).toArray()
  return { reviews: since.filter((review) => !review.wasNew).length, newCards: since.filter((review) => review.wasNew).length }
}

/** Whether a card may be among today's cards at `now`, by its own fields: not suspended, and not buried past now. */
function studiable (card: CardDocument, now: Date): boolean {
  return card.suspended !== true && !(card.buriedUntil instanceof Date && card.buriedUntil > now)
}

/**
 * Today's cards as the design defines them, from a full sort of every card of
 * the user: learning and review cards due before the end of today, most
 * overdue first, within reviewsPerDay less the reviews done today; then new
 * cards in creation order within newCardsPerDay less those started today.
 * Suspended cards, and cards buried until after now, are never among them.
 * Which queue a card is in comes from its state, not from the key the
 * service reads the queues by. With `within`, the cards of those flashcards
 * only, within the same allowances. Grouped by flashcard, as the tree lists
 * them; the due cards then the new ones, each in its order, in `ordered`.
 */
export async function fullSortOrdered (app: FastifyInstance, userID: string, now: Date, within?: ReadonlySet<string>): Promise<{ grouped: Map<string, string[]>, ordered: CardDocument[] }> {
  const db = databaseOf(app)
  const account = await db.collection<UserDocument>('users').findOne({ _id: userID })
  if (account === null) throw new Error(`no account ${userID}`)
  const today = userDay(now, account)
  const done = await doneToday(app, account, today)
  const cards = (await storedCards(db, { userID }))
    .filter((card) => studiable(card, now) && (within === undefined || within.has(card.flashcardID)))
  const due = cards.filter((card) => card.state !== CardState.New && card.due < today.end).sort(byQueueOrder).slice(0, Math.max(0, account.reviewsPerDay - done.reviews))
  const fresh = cards.filter((card) => card.state === CardState.New).sort(byQueueOrder).slice(0, Math.max(0, account.newCardsPerDay - done.newCards))
  const grouped = new Map<string, string[]>()
  for (const card of [...due, ...fresh]) grouped.set(card.flashcardID, [...grouped.get(card.flashcardID) ?? [], card._id])
  return { grouped, ordered: [...due, ...fresh] }
}

/** fullSortOrdered, grouped by flashcard as the tree of get-today-cards lists them. */
export async function fullSort (app: FastifyInstance, userID: string, now: Date, within?: ReadonlySet<string>): Promise<Map<string, string[]>> {
  return (await fullSortOrdered(app, userID, now, within)).grouped
}

/**
 * Moves the clock on a millisecond after a request that created cards: two
 * requests creating cards in one millisecond would give them the same
 * creation orders, which leave their order in today's cards undefined.
 */
function tick (clock: Clock): void {
  clock.now = new Date(clock.now.getTime() + 1)
}

/** One user studying through the API, at the test's clock. */
export function learner (app: FastifyInstance, user: TestUser, clock: Clock) {
  let decks = 0
  return {
    user,
    async today (): Promise<Map<string, string[]>> {
      return cardsByFlashcard(await expectOk<Tree>(app, 'get-today-cards', { jwtToken: user.jwtToken }))
    },
    /** get-today-cards, checked against the full sort; what it returned. */
    async expectToday (t: Checks, message: string): Promise<Map<string, string[]>> {
      const answer = await this.today()
      t.strictSame(entriesOf(answer), entriesOf(await fullSort(app, user.userID, clock.now)), message)
      return answer
    },
    /** A flashcard of `size` new cards, made by one create-flashcard request: its cards share an instant. */
    async flashcard (size: number): Promise<Deck> {
      decks += 1
      // the folder may be there already, made through another instance for the same user: makeDeck takes it as it is
      const created = await makeDeck(app, user, { folder: ['Decks'], name: `Deck ${decks} ${clock.now.toISOString()}`, cards: size })
      tick(clock)
      return created
    },
    async addCards (flashcardID: string, size: number): Promise<string[]> {
      const cards = Array.from({ length: size }, (_, n) => ({ front: `added ${n}`, back: `back ${n}` }))
      const added = await expectOk<{ cardIDs: string[] }>(app, 'add-cards', { jwtToken: user.jwtToken, flashcardID, cards }, 201)
      tick(clock)
      return added.cardIDs
    },
    async review (flashcardID: string, cardID: string, rating: string): Promise<void> {
      await expectOk(app, 'review-card', { jwtToken: user.jwtToken, flashcardID, cardID, rating })
    },
    async undo (): Promise<void> {
      await expectOk(app, 'undo-review', { jwtToken: user.jwtToken })
    },
    async settings (changes: Record<string, unknown>): Promise<void> {
      await expectOk(app, 'update-settings', { jwtToken: user.jwtToken, ...changes })
    }
  }
}
