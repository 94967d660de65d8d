// The one place where stored values become the strings of the wire format.
import { displayDayOf, displayDaysOf, type UserCalendar } from '../domain/calendar.js'
import type { CardLeaf } from '../domain/library-tree.js'
import { reviewStatus, type CardSchedule } from '../domain/scheduling.js'
import type { CardDocument } from '../repositories/cards.js'

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

/** A card with its text and where it stands, as get-flashcard and edit-card show it. */
export function cardDetails (card: CardDocument, calendar: UserCalendar) {
  const { last_review: lastReview, review_status: reviewStatus } = cardLeaf(card, calendar)
  return { cardID: card._id, front: card.front, back: card.back, review_status: reviewStatus, last_review: lastReview, due: card.due.toISOString() }
}
