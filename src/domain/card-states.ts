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
import { CardState } from './scheduling.js'

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

/** Anki's flags, by number: 0 is none. A flag is a label: it changes nothing of the schedule. */
export const FLAGS = ['none', 'red', 'orange', 'green', 'blue', 'pink', 'turquoise', 'purple'] as const
export const MAX_FLAG = FLAGS.length - 1

/** The changes of a card's standing, each reversible: what suspend-card, unsuspend-card, bury-card, unbury-card and flag-card do. */
export const STANDING_ACTIONS = ['suspend', 'unsuspend', 'bury', 'unbury', 'flag'] as const
export type StandingAction = typeof STANDING_ACTIONS[number]
