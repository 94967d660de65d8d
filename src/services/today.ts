// What every read of today's cards shares: the reviews and new cards left
// today, buried cards back once their day has begun, and the read of the two
// queues from their starts (src/domain/queues.ts).
import { userDay } from '../domain/calendar.js'
import { isBuriedAt } from '../domain/card-states.js'
import { startsAfterRead, todayQueueRanges } from '../domain/queues.js'
import { invalidToken } from '../domain/refusals.js'
import { CardState } from '../domain/scheduling.js'
import type { LibraryTree } from '../domain/library-tree.js'
import type { Repositories } from '../repositories/index.js'
import type { QueuedCard } from '../repositories/card-states.js'
import type { UserDocument } from '../repositories/users.js'
import type { ServiceContext } from './context.js'

/** How many reviews and new cards today's cards may still hold. */
export interface Allowance { reviews: number, newCards: number }

/**
 * The reviews and new cards the user did today. The account keeps the count
 * of the day of its latest review; only when a settings change made that day
 * overlap today without being today is the log counted instead.
 */
export async function doneToday (repositories: Repositories, user: UserDocument, today: { start: Date }): Promise<{ reviews: number, newCards: number }> {
  const counted = user.studyDay
  if (counted === undefined) return { reviews: 0, newCards: 0 }
  if (counted.start instanceof Date && counted.end instanceof Date) {
    if (counted.end.getTime() <= today.start.getTime()) return { reviews: 0, newCards: 0 }
    if (counted.start.getTime() === today.start.getTime()) return counted
  }
  return await repositories.reviews.countSince(user._id, today.start)
}

/** The daily limits less what was done today, across the whole library. */
export async function allowanceToday (repositories: Repositories, user: UserDocument, today: { start: Date }): Promise<Allowance> {
  const done = await doneToday(repositories, user, today)
  return {
    reviews: Math.max(0, user.reviewsPerDay - done.reviews),
    newCards: Math.max(0, user.newCardsPerDay - done.newCards)
  }
}

/**
 * The account, with the cards whose burial is over by `now` back in their
 * queues. A buried card is out of both queues, so no read of a queue sees it;
 * the account keeps the earliest instant one comes back, which the read of
 * the account by authentication brings for free. Once that instant has come,
 * the first read of today's cards puts the cards whose day has begun back, in
 * the user's transaction, lowering each queue's start to them as every write
 * that places a card does, and keeps the instant of the next one.
 */
export async function withBurialsOver (context: ServiceContext, user: UserDocument, now: Date): Promise<UserDocument> {
  if (!(user.buriedUntil instanceof Date) || user.buriedUntil.getTime() > now.getTime()) return user
  return await context.userTransaction(user._id, async ({ cardStates, users }) => {
    const buried = await cardStates.buried(user._id)
    const over = buried.filter((card) => !isBuriedAt(card, now))
    let next: Date | null = null
    for (const card of buried) {
      if (isBuriedAt(card, now) && card.buriedUntil !== undefined && (next === null || card.buriedUntil < next)) next = card.buriedUntil
    }
    await cardStates.returnFromBurial(user._id, over)
    const places = over.map((card) => ({ isNew: card.state === CardState.New, due: card.due, createdOrder: card.createdOrder }))
    const account = await users.returnedFromBurial(user._id, places, next)
    if (account === null) throw invalidToken()
    return account
  })
}

/** A read of today's cards, as get-today-cards makes it. */
export interface TodayRead {
  /** the account as read, burials over put back */
  account: UserDocument
  now: Date
  allowance: Allowance
  queues: { due: QueuedCard[], new: QueuedCard[] }
  tree: LibraryTree
  /** the move of the queues' starts this read found, under way; never fails */
  raising: Promise<void>
}

/**
 * Today's cards of the whole library. After the account (read by
 * authentication, with today's counts and where each queue starts), one
 * round trip on the common path: the cards due today (an aggregation on
 * `cards`), the new cards and the user's tree are read side by side. A read
 * that found a queue starting later than the account says moves its start
 * there, for the next read.
 */
export async function readToday (context: ServiceContext, user: UserDocument): Promise<TodayRead> {
  const { repositories } = context
  const now = context.clock()
  const account = await withBurialsOver(context, user, now)
  const today = userDay(now, account)
  const allowance = await allowanceToday(repositories, account, today)
  const ranges = todayQueueRanges(account.queueFrom, today.end, now)
  const [queues, tree] = await Promise.all([
    repositories.cardStates.todayQueue(account._id, ranges, allowance),
    repositories.trees.read(account._id)
  ])
  // the read moves a start up to where it found the queue begin (users.raiseQueueStarts says why
  // that never skips a card); one that fails leaves the start lower, still right: the answer goes anyway
  const writes = account.queueFrom?.writes
  const raised = typeof writes === 'number' ? startsAfterRead(ranges, queues, allowance) : {}
  const raising = typeof writes !== 'number' || Object.keys(raised).length === 0
    ? Promise.resolve()
    : repositories.users.raiseQueueStarts(account._id, writes, raised).catch(() => {})
  return { account, now, allowance, queues, tree, raising }
}
