import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises'
import { dayOf, userDay } from '../domain/calendar.js'
import { newId } from '../domain/ids.js'
import { treeJsonAround, writeCards } from '../domain/library-tree.js'
import { isNewCard, reviewStatus, scheduleReview, XP_PER_REVIEW, type CardSchedule, type Rating } from '../domain/scheduling.js'
import type { CardDocument } from '../repositories/cards.js'
import { ReviewIDTakenError, type ReviewAnswer as StoredAnswer } from '../repositories/reviews.js'
import type { UserDocument } from '../repositories/users.js'
import { authenticatedErrors, ErrorResponse } from '../schemas/common.js'
import { LibraryTree, ReviewAnswer, ReviewCardBody, TodayCardsBody } from '../schemas/study.js'
import { calendarOf, cardLeaves, displayDay, jsonText } from './wire.js'
import { RequestError } from '../plugins/errors.js'

/** Enough attempts for dozens of concurrent reviews of one card to all get through. */
const MAX_REVIEW_ATTEMPTS = 200

function scheduleOf (card: CardDocument): CardSchedule {
  const { state, due, stability, difficulty, elapsedDays, scheduledDays, learningSteps, reps, lapses, lastReview } = card
  return { state, due, stability, difficulty, elapsedDays, scheduledDays, learningSteps, reps, lapses, lastReview }
}

/**
 * The reviews and new cards the user did today. The account keeps the count
 * of the day of its latest review; only when a settings change made that day
 * overlap today without being today is the log counted instead.
 */
async function reviewsDoneToday (app: FastifyInstance, user: UserDocument, today: { start: Date }): Promise<{ reviews: number, newCards: number }> {
  const counted = user.studyDay
  if (counted === undefined) return { reviews: 0, newCards: 0 }
  if (counted.start instanceof Date && counted.end instanceof Date) {
    if (counted.end.getTime() <= today.start.getTime()) return { reviews: 0, newCards: 0 }
    if (counted.start.getTime() === today.start.getTime()) return counted
  }
  return await app.repositories.reviews.countSince(user._id, today.start)
}

/**
 * The tree of the cards the user should study before their day ends, as JSON
 * text, in three round trips: the account (read by authentication, with
 * today's review counts), the cards, and the folders and flashcards above them.
 * The cards' part of the answer needs only the cards, so it is written while
 * the database looks up the folders: on the event loop's next turn, once the
 * query has gone out (a microtask would run before the driver sends it).
 */
export async function todayCards (app: FastifyInstance, user: UserDocument): Promise<string> {
  const calendar = calendarOf(user)
  const today = userDay(app.clock(), calendar)
  const doneToday = await reviewsDoneToday(app, user, today)
  const cards = await app.repositories.cards.todayQueue(user._id, today.end, {
    reviews: Math.max(0, user.reviewsPerDay - doneToday.reviews),
    newCards: Math.max(0, user.newCardsPerDay - doneToday.newCards)
  })
  if (cards.length === 0) return '{}'
  const [nodes, written] = await Promise.all([
    app.repositories.library.foldersAndFlashcards(user._id, [...new Set(cards.map((card) => card.flashcardID))]),
    nextTurn().then(() => writeCards(cardLeaves(cards, calendar)))
  ])
  return treeJsonAround(nodes, written)
}

/** A review pending this long was cut off (a crash, a lost database connection) rather than slow. */
const STALE_REVIEW_MS = 10_000

/**
 * The first answer given for a reviewID, waiting briefly while that review is
 * still being written, and finishing it if it was cut off half-way.
 */
async function replay (app: FastifyInstance, user: UserDocument, reviewID: string): Promise<StoredAnswer | null> {
  for (let attempt = 0; attempt < 40; attempt++) {
    const review = await app.repositories.reviews.findByReviewID(user._id, reviewID)
    if (review === null) return null
    if (review.status === 'done' && review.answer !== undefined) return review.answer
    const now = new Date()
    if (await app.repositories.reviews.takeOver(review._id, new Date(now.getTime() - STALE_REVIEW_MS), now)) {
      const card = await app.repositories.cards.findOne(user._id, review.flashcardID, review.cardID)
      if (card?.lastReviewID === reviewID) return await finishReview(app, user, review._id, review.cardID, review.after, review.reviewedAt, review.wasNew)
      // the card never took this review: forget it and let the caller review afresh
      await app.repositories.reviews.discard(review._id)
      return null
    }
    await sleep(50)
  }
  throw new RequestError(409, `the review ${reviewID} is still being recorded; retry in a moment`)
}

/** The review is on the card: add its XP, count it on its day, and store the answer a retry will get. */
async function finishReview (app: FastifyInstance, user: UserDocument, logID: string, cardID: string, after: CardSchedule, reviewedAt: Date, wasNew: boolean): Promise<StoredAnswer> {
  const reviewDay = userDay(reviewedAt, calendarOf(user))
  const totalXp = await app.repositories.users.recordReview(user._id, { ...reviewDay, wasNew, xp: XP_PER_REVIEW })
  const answer: StoredAnswer = {
    cardID,
    review_status: reviewStatus(after),
    last_review: displayDay(reviewedAt, calendarOf(user)),
    due: after.due.toISOString(),
    xp_gained: String(XP_PER_REVIEW),
    total_xp: String(totalXp)
  }
  await app.repositories.reviews.complete(logID, answer)
  return answer
}

interface ReviewRequest { flashcardID: string, cardID: string, rating: Rating, reviewID?: string }

/**
 * Records one review. The log entry is written first: its unique reviewID
 * makes a retried request find the first one's answer instead of reviewing
 * twice. The card then changes by compare-and-set on its version, so
 * concurrent reviews of one card are applied one after another, none lost.
 */
export async function reviewCard (app: FastifyInstance, user: UserDocument, request: ReviewRequest): Promise<StoredAnswer> {
  const { flashcardID, cardID, rating } = request
  if (request.reviewID !== undefined) {
    const earlier = await replay(app, user, request.reviewID)
    if (earlier !== null) return earlier
  }
  const notFound = (): RequestError => new RequestError(404, `no card ${cardID} in flashcard ${flashcardID}`)
  let card = await app.repositories.cards.findOne(user._id, flashcardID, cardID)
  if (card === null) throw notFound()

  const calendar = calendarOf(user)
  const now = app.clock()
  const reviewID = request.reviewID ?? `server-${newId()}`
  const logID = newId()
  const retention = { desiredRetention: user.desiredRetention }
  let before = scheduleOf(card)
  let after = scheduleReview(before, rating, now, retention)
  try {
    await app.repositories.reviews.claim({
      _id: logID,
      userID: user._id,
      reviewID,
      cardID,
      flashcardID,
      rating,
      reviewedAt: now,
      day: dayOf(now, calendar),
      wasNew: isNewCard(before),
      before,
      after,
      xp: XP_PER_REVIEW,
      status: 'pending',
      claimedAt: new Date()
    })
  } catch (error) {
    if (error instanceof ReviewIDTakenError) {
      const earlier = await replay(app, user, reviewID)
      if (earlier !== null) return earlier
    }
    throw error
  }

  let applied = false
  try {
    for (let attempt = 0; attempt < MAX_REVIEW_ATTEMPTS && !applied; attempt++) {
      applied = await app.repositories.cards.applyReview(card, after, reviewID)
      if (applied) break
      // another review changed the card first: recompute from the card as it is now
      card = await app.repositories.cards.findOne(user._id, flashcardID, cardID)
      if (card === null) throw notFound()
      before = scheduleOf(card)
      after = scheduleReview(before, rating, now, retention)
      await app.repositories.reviews.recompute(logID, before, after, isNewCard(before))
      await sleep(Math.random() * 5)
    }
    if (!applied) throw new RequestError(503, 'the card is being reviewed by too many requests at once; retry')
  } catch (error) {
    // nothing reached the card: the claim goes, so a retry starts afresh
    await app.repositories.reviews.discard(logID).catch(() => {})
    throw error
  }
  // from here the review stands; should this be cut off, a retry with the reviewID finishes it
  return await finishReview(app, user, logID, cardID, after, now, isNewCard(before))
}

const study: FastifyPluginAsyncTypebox = async (app) => {
  app.post('/get-today-cards', {
    schema: {
      summary: "Today's cards, as a tree of the folders and flashcards that hold them",
      description: 'Spec 4.2. Learning and review cards due before the end of the user\'s day (most overdue first, at most reviewsPerDay less the reviews done today) and new cards in creation order (at most newCardsPerDay less those started today). {} when nothing is due.',
      tags: ['study'],
      body: TodayCardsBody,
      response: { 200: LibraryTree, ...authenticatedErrors }
    },
    preHandler: app.authenticate
  }, async (request, reply) => jsonText(reply, await todayCards(app, request.account)))

  app.post('/review-card', {
    schema: {
      summary: 'Record a review of one card and schedule it again (FSRS)',
      tags: ['study'],
      body: ReviewCardBody,
      response: { 200: ReviewAnswer, 404: ErrorResponse, 409: ErrorResponse, ...authenticatedErrors }
    },
    preHandler: app.authenticate
  }, async (request) => await reviewCard(app, request.account, request.body))
}

export default study
