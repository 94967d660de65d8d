// The one place where stored values become the strings of the wire format.
import { displayDayOf, displayDaysOf, type UserCalendar } from '../domain/calendar.js'
import type { CardLeaf } from '../domain/library-tree.js'
import { reviewStatus, type CardSchedule } from '../domain/scheduling.js'
import type { FitMetrics } from '../domain/fit-evaluation.js'
import { DEFAULT_PARAMETERS } from '../domain/memory-model.js'
import { MINIMUM_TRAINING_ITEMS, type FitReport } from '../domain/schedule-fit.js'
import type { CardDocument } from '../repositories/cards.js'
import type { UserDocument } from '../repositories/users.js'
import type { ScheduleFit, ScheduleStatus } from '../schemas/schedule.js'

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

/** FSRS weights as Anki shows them, four decimals. */
function weights (parameters: readonly number[]): string[] {
  return parameters.map((w) => w.toFixed(4))
}

function figures (metrics: FitMetrics) {
  return { logLoss: metrics.logLoss.toFixed(4), rmseBins: metrics.rmseBins.toFixed(4) }
}

export type FitAnswer = ScheduleFit

/** A fit of the user's parameters as optimize-schedule answers it. */
export function fitAnswer (report: FitReport): FitAnswer {
  return {
    parameters: weights(report.parameters),
    reviews: String(report.reviews),
    items: String(report.items),
    default: figures(report.default),
    fitted: figures(report.fitted),
    adopted: report.adopted ? 'true' : 'false',
    workload: report.workload.map(({ retention, answersPerDay }) => ({ desiredRetention: retention.toFixed(2), reviewsPerDay: String(Math.round(answersPerDay)) })),
    rescheduled: String(report.rescheduled),
    fittedAt: report.fittedAt.toISOString()
  }
}

/** The parameters a user is scheduled with, and their last fit. */
export function scheduleAnswer (user: UserDocument): ScheduleStatus {
  return {
    parameters: weights(user.fsrsParameters ?? DEFAULT_PARAMETERS),
    fitted: user.fsrsParameters === undefined ? 'false' : 'true',
    desiredRetention: user.desiredRetention.toFixed(2),
    minimumItems: String(MINIMUM_TRAINING_ITEMS),
    ...(user.scheduleFit === undefined ? {} : { lastFit: fitAnswer(user.scheduleFit) })
  }
}
