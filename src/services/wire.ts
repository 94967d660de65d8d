// The one place where stored values become the strings of the wire format.
import { displayDayOf, displayDaysOf, type UserCalendar } from '../domain/calendar.js'
import { basicSides, clozeSides, escapeText, RENDER_VERSION, renderingOf, resolveMedia } from '../domain/card-html.js'
import type { CardLeaf } from '../domain/library-tree.js'
import { reviewStatus, type CardSchedule } from '../domain/scheduling.js'
import type { TextFormat } from '../domain/card-content.js'
import type { FitMetrics } from '../domain/fit-evaluation.js'
import { DEFAULT_PARAMETERS } from '../domain/memory-model.js'
import { MINIMUM_TRAINING_ITEMS, type FitReport } from '../domain/schedule-fit.js'
import type { CardContent, CardDocument, CardStandingFields, ClozeSibling } from '../repositories/cards.js'
import type { UserDocument } from '../repositories/users.js'
import type { ScheduleFit, ScheduleStatus } from '../schemas/schedule.js'
import { isBuriedAt } from '../domain/card-states.js'
import { sortFieldOf } from '../domain/browse.js'
import { shownText } from '../domain/search-text.js'

type StoredCard = Pick<CardSchedule, 'state' | 'learningSteps' | 'scheduledDays' | 'lastReview'> & { _id: string, flashcardID: string, createdAt: Date }

/** The address of one of the user's media, or null for one the user does not hold. */
export type UserMediaUrl = (mediaID: string) => string | null

/** A card's content on the wire: its text as written, its format, the HTML to show, its note and which card of it it is, and, for a card of a cloze note, its number. */
export type WireCardContent = {
  front: string
  back: string
  format: TextFormat
  frontHtml: string
  backHtml: string
  noteID: string
  ord: string
  clozeNumber?: string
  noteTypeID?: string
}

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

/**
 * The sides as HTML to show. Kept rendered sides are used as they are (a
 * plain text card has none: escaping it is quick); sides of an older
 * rendering are rendered again. Media become their addresses.
 */
export function shownSides (card: CardContent & Partial<ClozeSibling>, mediaUrl: UserMediaUrl): { frontHtml: string, backHtml: string } {
  const format = card.format ?? 'text'
  let front: string
  let back: string
  if (card.html !== undefined && card.html.version === RENDER_VERSION) {
    ({ front, back } = card.html)
  } else if (card.clozeNumber === undefined && format === 'text') {
    front = escapeText(card.front)
    back = escapeText(card.back)
  } else {
    const rendering = renderingOf(card)
    ;({ front, back } = card.clozeNumber === undefined ? basicSides(card.front, card.back, format, rendering) : clozeSides(card.front, card.back, format, card.clozeNumber, rendering))
  }
  return { frontHtml: resolveMedia(front, mediaUrl), backHtml: resolveMedia(back, mediaUrl) }
}

/** A card's content as every read shows it. */
export function cardContent (card: CardContent & Partial<ClozeSibling> & { _id: string, ankiOrd?: number }, mediaUrl: UserMediaUrl): WireCardContent {
  const content: WireCardContent = {
    front: card.front,
    back: card.back,
    format: card.format ?? 'text',
    ...shownSides(card, mediaUrl),
    // every card is one card of a note: a card of a front and a back made here is a note of its own, under its own id
    noteID: card.noteID ?? card._id,
    ord: String(card.clozeNumber !== undefined ? card.clozeNumber - 1 : card.ankiOrd ?? 0)
  }
  if (card.clozeNumber !== undefined) content.clozeNumber = String(card.clozeNumber)
  if (card.noteTypeID !== undefined) content.noteTypeID = card.noteTypeID
  return content
}

/** A card's standing on the wire: suspended, flagged, and buried until a day while that day has not begun. */
export type WireCardStanding = { suspended: 'true' | 'false', flag: string, buriedUntil?: string }

/** Whether a card is suspended, its flag, and the day it is buried until (left out once that day has begun). */
export function cardStanding (card: CardStandingFields, calendar: UserCalendar, now: Date): WireCardStanding {
  const standing: WireCardStanding = { suspended: card.suspended === true ? 'true' : 'false', flag: String(card.flag ?? 0) }
  if (card.buriedUntil !== undefined && isBuriedAt(card, now)) standing.buriedUntil = displayDayOf(card.buriedUntil, calendar)
  return standing
}

/** A decimal as a string with six significant digits, without trailing zeros. */
function decimal (value: number): string {
  return String(Number(value.toPrecision(6)))
}

/**
 * A card's memory state as Anki's card info shows it: stability (days), difficulty, and the
 * retrievability now, by FSRS-6's forgetting curve with the user's decay; none for a card never studied.
 */
export function memoryState (card: Partial<Pick<CardSchedule, 'stability' | 'difficulty'>> & Pick<CardSchedule, 'lastReview'>, parameters: readonly number[] | undefined, now: Date) {
  if (card.stability === undefined || card.difficulty === undefined || !(card.stability > 0) || card.lastReview === null) return {}
  const decay = (parameters ?? DEFAULT_PARAMETERS)[20] ?? 0.5
  const factor = Math.pow(0.9, -1 / decay) - 1
  const elapsedDays = Math.max(0, (now.getTime() - card.lastReview.getTime()) / 86_400_000)
  const retrievability = Math.pow(1 + factor * elapsedDays / card.stability, -decay)
  return { stability: decimal(card.stability), difficulty: decimal(card.difficulty), retrievability: decimal(retrievability) }
}

/** A card of a tree as get-all-cards with content shows it: where it stands, its content and standing; the user's calendar looked up once for every card. */
export function contentLeafOf (calendar: UserCalendar, mediaUrl: UserMediaUrl, now: Date): (card: StoredCard & CardContent & Partial<ClozeSibling> & CardStandingFields) => CardLeaf {
  const displayDay = displayDaysOf(calendar)
  return (card) => ({ ...leafOf(card, displayDay), content: { ...cardContent(card, mediaUrl), ...cardStanding(card, calendar, now) } })
}

/** A card with its content, schedule and standing, as get-flashcard, edit-card and the study queue show it. */
export function cardDetails (card: CardContent & Partial<ClozeSibling> & CardStandingFields & StoredCard & Pick<CardDocument, 'due'> & Partial<Pick<CardDocument, 'stability' | 'difficulty' | 'tags'>>,
  calendar: UserCalendar & { fsrsParameters?: readonly number[] }, mediaUrl: UserMediaUrl, now: Date) {
  const { last_review: lastReview, review_status: reviewStatus } = cardLeaf(card, calendar)
  return {
    cardID: card._id,
    ...cardContent(card, mediaUrl),
    review_status: reviewStatus,
    last_review: lastReview,
    due: card.due.toISOString(),
    ...cardStanding(card, calendar, now),
    ...memoryState(card, calendar.fsrsParameters, now),
    ...(card.tags === undefined || card.tags.length === 0 ? {} : { tags: card.tags })
  }
}

const STATE_NAMES = ['new', 'learning', 'review', 'relearning'] as const

/** A row of the card browser: the card's flashcard, the first line it shows, its schedule and standing; no due or difficulty for a new card. */
export function browseRow (card: Pick<CardDocument, '_id' | 'flashcardID' | 'state' | 'due' | 'scheduledDays' | 'difficulty' | 'lapses' | 'reps'> & CardContent & Partial<ClozeSibling> & CardStandingFields,
  flashcard: { name: string, folder: string[] }, calendar: UserCalendar, now: Date, noteType: string) {
  const studied = card.state !== 0
  return {
    cardID: card._id,
    flashcardID: card.flashcardID,
    flashcardName: flashcard.name,
    folder: flashcard.folder,
    sortField: sortFieldOf(shownText(card)),
    kind: card.clozeNumber === undefined ? 'basic' as const : 'cloze' as const,
    noteType,
    state: STATE_NAMES[card.state] ?? 'new',
    ...(studied ? { due: displayDayOf(card.due, calendar) } : {}),
    interval: String(card.scheduledDays ?? 0),
    ...(studied && typeof card.difficulty === 'number' && card.difficulty > 0 ? { difficulty: card.difficulty.toFixed(1) } : {}),
    lapses: String(card.lapses ?? 0),
    reps: String(card.reps ?? 0),
    ...cardStanding(card, calendar, now)
  }
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
    ...(report.newCardsPerDay === undefined ? {} : { newCardsPerDay: String(report.newCardsPerDay) }),
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
