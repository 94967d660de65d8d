import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { userDay } from '../domain/calendar.js'
import { newId } from '../domain/ids.js'
import { treeJson } from '../domain/library-tree.js'
import { isNewCard, reviewStatus, scheduleReview, XP_PER_REVIEW, type CardSchedule, type Rating } from '../domain/scheduling.js'
import type { CardDocument } from '../repositories/cards.js'
import type { ReviewAnswer as StoredAnswer } from '../repositories/reviews.js'
import { isDuplicateKey, type UserDocument } from '../repositories/users.js'
import { InvalidTokenError } from '../plugins/auth.js'
import { authenticatedErrors, ErrorResponse } from '../schemas/common.js'
import { LibraryTree, ReviewAnswer, ReviewCardBody, TodayCardsBody } from '../schemas/study.js'
import { calendarOf, cardLeaves, displayDay, jsonText } from './wire.js'
import { RequestError } from '../plugins/errors.js'

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
 * text. After the account (read by authentication, with today's review
 * counts), one round trip: today's cards and the user's folders and
 * flashcards are read side by side, the whole tree rather than the part
 * above the cards, which would have to wait for them; the tree is then
 * pruned to the flashcards that hold today's cards.
 */
export async function todayCards (app: FastifyInstance, user: UserDocument): Promise<string> {
  const calendar = calendarOf(user)
  const today = userDay(app.clock(), calendar)
  const doneToday = await reviewsDoneToday(app, user, today)
  const [cards, nodes] = await Promise.all([
    app.repositories.cards.todayQueue(user._id, today.end, {
      reviews: Math.max(0, user.reviewsPerDay - doneToday.reviews),
      newCards: Math.max(0, user.newCardsPerDay - doneToday.newCards)
    }),
    app.repositories.library.allNodes(user._id)
  ])
  if (cards.length === 0) return '{}'
  return treeJson(nodes, cardLeaves(cards, calendar))
}

interface ReviewRequest { flashcardID: string, cardID: string, rating: Rating, reviewID?: string }

/**
 * Records one review in one transaction: the card's new schedule, the log
 * entry with the answer, the XP and the day's count are stored together or
 * not at all. The log's unique reviewID makes a retried request fail to
 * store a second review; it then gets the first one's answer. Concurrent
 * reviews of one card conflict, and the later one runs again on the card as
 * the first left it.
 */
export async function reviewCard (app: FastifyInstance, user: UserDocument, request: ReviewRequest): Promise<StoredAnswer> {
  const { flashcardID, cardID, rating } = request
  const reviewID = request.reviewID ?? `server-${newId()}`
  const calendar = calendarOf(user)
  try {
    return await app.transaction(async ({ cards, reviews, users, activity }) => {
      const card = await cards.findOne(user._id, flashcardID, cardID)
      if (card === null) throw new RequestError(404, `no card ${cardID} in flashcard ${flashcardID}`)
      const now = app.clock()
      const before = scheduleOf(card)
      const after = scheduleReview(before, rating, now, { desiredRetention: user.desiredRetention })
      const wasNew = isNewCard(before)
      const reviewDay = userDay(now, calendar)
      const account = await users.recordReview(user._id, { ...reviewDay, wasNew, xp: XP_PER_REVIEW })
      if (account === null) throw new InvalidTokenError()
      await activity.record(user._id, reviewDay.day, XP_PER_REVIEW)
      const answer: StoredAnswer = {
        cardID,
        review_status: reviewStatus(after),
        last_review: displayDay(now, calendar),
        due: after.due.toISOString(),
        xp_gained: String(XP_PER_REVIEW),
        total_xp: String(account.totalXp)
      }
      await reviews.insert({
        _id: newId(),
        userID: user._id,
        reviewID,
        cardID,
        flashcardID,
        rating,
        reviewedAt: now,
        day: reviewDay.day,
        wasNew,
        before,
        after,
        xp: XP_PER_REVIEW,
        seq: account.reviewCount ?? 0,
        answer
      })
      // read in this transaction: a concurrent review of the card is a write conflict, not a miss
      if (!await cards.applyReview(card, after, reviewID)) throw new Error(`card ${cardID} changed inside its review's transaction`)
      return answer
    })
  } catch (error) {
    // the reviewID is in the log already: a retry gets the first answer; the key sent
    // again for another card is a client's mistake, and must not pass for that card's review
    if (isDuplicateKey(error)) {
      const earlier = await app.repositories.reviews.findByReviewID(user._id, reviewID)
      if (earlier !== null && (earlier.cardID !== cardID || earlier.flashcardID !== flashcardID)) {
        throw new RequestError(409, `the reviewID ${reviewID} was used for another card (${earlier.cardID}); send a new reviewID for each review`)
      }
      if (earlier !== null) return earlier.answer
    }
    throw error
  }
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
