// The one place where stored values become the strings of the wire format.
import type { FastifyReply } from 'fastify'
import { displayDayOf, displayDaysOf, type UserCalendar } from '../domain/calendar.js'
import type { CardLeaf } from '../domain/library-tree.js'
import { reviewStatus, type CardSchedule } from '../domain/scheduling.js'
import type { UserDocument } from '../repositories/users.js'

export function calendarOf (user: UserDocument): UserCalendar {
  return { timezone: user.timezone, dayStartHour: user.dayStartHour }
}

/** DD/MM/YYYY of the user-day an instant falls in. */
export function displayDay (instant: Date, calendar: UserCalendar): string {
  return displayDayOf(instant, calendar)
}

type StoredCard = Pick<CardSchedule, 'state' | 'learningSteps' | 'scheduledDays' | 'lastReview'> & { _id: string, flashcardID: string, createdAt: Date }

function leafOf (card: StoredCard, displayDay: (instant: Date) => string): CardLeaf {
  return {
    id: card._id,
    flashcardID: card.flashcardID,
    last_review: displayDay(card.lastReview ?? card.createdAt),
    review_status: reviewStatus(card)
  }
}

/** A card as the tree shows it; a card never reviewed shows its creation day. */
export function cardLeaf (card: StoredCard, calendar: UserCalendar): CardLeaf {
  return leafOf(card, (instant) => displayDayOf(instant, calendar))
}

/** cardLeaf for every card of a tree, the user's calendar looked up once rather than per card. */
export function cardLeaves (cards: readonly StoredCard[], calendar: UserCalendar): CardLeaf[] {
  const displayDay = displayDaysOf(calendar)
  return cards.map((card) => leafOf(card, displayDay))
}

/** JSON the route wrote itself (a tree from treeJson): sent as it is, not serialised again. */
export function jsonText (reply: FastifyReply, json: string): string {
  void reply.type('application/json; charset=utf-8')
  return json
}
