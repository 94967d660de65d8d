/**
 * A card's standing outside its schedule: suspended (never in today's cards
 * until unsuspended), buried (out of today's cards until the user's next day
 * begins) and its flag (a label, Anki's 0-7, that changes nothing else). The
 * schedule of a suspended or buried card is kept as it was.
 *
 * Which queue of today's cards a card is in is kept in one key, `isNew` on
 * the card, which leads the queue index after the user (see queues.ts): true
 * for the new-card queue, false for the learning and review one, and a name
 * for a card out of both. A read of a queue is an equality on that key and a
 * range of `due`, so a card out of the queues lies in no range a queue read
 * looks at, and the windows of a queue read hold its cards only.
 */
import { userDay, type UserCalendar } from './calendar.js'
import { CardState, type CardSchedule } from './scheduling.js'

/** out of the queues until unsuspended */
export const SUSPENDED = 'suspended'
/** out of the queues until the day it is buried until begins */
export const BURIED = 'buried'

export type OutOfQueues = typeof SUSPENDED | typeof BURIED

/** Where a card is: true, the new-card queue; false, the learning and review queue; or out of both. */
export type QueueKey = boolean | OutOfQueues

/** What decides a card's queue key. */
export interface CardStanding {
  state: CardState
  /** absent: not suspended */
  suspended?: boolean
  /** the instant its burial ends, the start of a day of the user's; absent when not buried */
  buriedUntil?: Date
}

/** The queue key of a card at `now`: suspension first, then burial, then its schedule. */
export function queueKeyOf (card: CardStanding, now: Date): QueueKey {
  if (card.suspended === true) return SUSPENDED
  if (isBuriedAt(card, now)) return BURIED
  return card.state === CardState.New
}

/** Whether the card is buried at `now`: its burial has not ended. */
export function isBuriedAt (card: Pick<CardStanding, 'buriedUntil'>, now: Date): boolean {
  return card.buriedUntil instanceof Date && card.buriedUntil.getTime() > now.getTime()
}

export function isOutOfQueues (key: QueueKey): key is OutOfQueues {
  return typeof key === 'string'
}

/**
 * A write that changes a card's schedule (a review, an undo) leaves a card
 * out of the queues where it is; otherwise the schedule says which queue.
 */
export function queueKeyAfterSchedule (current: QueueKey, state: CardState): QueueKey {
  return isOutOfQueues(current) ? current : state === CardState.New
}

/** Until when a card buried at `now` stays buried: the start of the user's next day, in their calendar. */
export function buriedUntilAt (now: Date, calendar: UserCalendar): Date {
  return userDay(now, calendar).end
}

/**
 * Which siblings of a card (the other cards of its note) answering it buries until the user's next
 * day, as Anki's deck options "bury new siblings", "bury review siblings" and "bury interday
 * learning siblings" do (siblingsToBury below).
 */
export interface SiblingBurying {
  buryNewSiblings: boolean
  buryReviewSiblings: boolean
  buryInterdayLearningSiblings: boolean
}

/** What choosing the siblings to bury reads of a card. */
export type SiblingCard = Pick<CardSchedule, 'state' | 'due' | 'lastReview'> & { isNew: QueueKey }

/**
 * Which kind of card a sibling is for burying, as Anki's queues say it: new, review, interday
 * learning (a learning or relearning step that ends on a later day of the user's than the answer
 * it came from: Anki's "day learning" queue), or intraday learning, which is never buried.
 */
function buryKindOf (card: Pick<CardSchedule, 'state' | 'due' | 'lastReview'>, calendar: UserCalendar): 'new' | 'review' | 'interday' | 'intraday' {
  if (card.state === CardState.New) return 'new'
  if (card.state === CardState.Review) return 'review'
  // a learning card with no answer known: its step unknown, it is kept on it
  if (card.lastReview === null) return 'intraday'
  return card.due.getTime() >= userDay(card.lastReview, calendar).end.getTime() ? 'interday' : 'intraday'
}

/**
 * The siblings (the other cards of its note) that answering a card buries, by their indexes in
 * `siblings`, as Anki's v3 scheduler chooses them (rslib scheduler/bury_and_suspend.rs): new ones
 * with buryNewSiblings, review ones with buryReviewSiblings, interday learning ones with
 * buryInterdayLearningSiblings; never one suspended or buried already, nor one on an intraday
 * learning step. As in Anki, a sibling of a queue studied before the answered card's is left
 * alone: answering a new card buries no review or learning sibling (those come first in the
 * day's cards, and one due would be held back a day by a card introduced after it), and answering
 * a review card no interday learning sibling. `answered` is the card as it was before the answer.
 */
export function siblingsToBury (answered: Pick<CardSchedule, 'state' | 'due' | 'lastReview'>, siblings: readonly SiblingCard[],
  burying: SiblingBurying, calendar: UserCalendar): number[] {
  const answeredKind = buryKindOf(answered, calendar)
  const buries = {
    new: burying.buryNewSiblings,
    review: burying.buryReviewSiblings && answeredKind !== 'new',
    interday: burying.buryInterdayLearningSiblings && (answeredKind === 'interday' || answeredKind === 'intraday'),
    intraday: false
  }
  const chosen: number[] = []
  for (const [index, sibling] of siblings.entries()) {
    if (isOutOfQueues(sibling.isNew)) continue
    if (buries[buryKindOf(sibling, calendar)]) chosen.push(index)
  }
  return chosen
}

/** Anki's flags, by number: 0 is none. A flag is a label: it changes nothing of the schedule. */
export const FLAGS = ['none', 'red', 'orange', 'green', 'blue', 'pink', 'turquoise', 'purple'] as const
export const MAX_FLAG = FLAGS.length - 1

/** The changes of a card's standing, each reversible: what suspend-card, unsuspend-card, bury-card, unbury-card and flag-card do. */
export const STANDING_ACTIONS = ['suspend', 'unsuspend', 'bury', 'unbury', 'flag'] as const
export type StandingAction = typeof STANDING_ACTIONS[number]
