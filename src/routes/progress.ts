import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { addDays, formatDay, userDay, type LocalDay } from '../domain/calendar.js'
import type { DayActivity } from '../domain/goals.js'
import { reviewStatus } from '../domain/scheduling.js'
import { HEATMAP_DAYS, heatmapStart, statsOf, streakOf } from '../domain/stats.js'
import type { UserDocument } from '../repositories/users.js'
import { authenticatedErrors, ErrorResponse } from '../schemas/common.js'
import { Stats, StatsBody, UndoneReview, UndoReviewBody } from '../schemas/progress.js'
import { calendarOf, displayDay } from './wire.js'
import { RequestError } from '../plugins/errors.js'

/**
 * Takes back the user's last review, in one transaction: the card gets the
 * schedule it had before, the review leaves the log and its XP leaves the
 * total. Only while the card still holds what that review left: a card
 * changed since (reviewed again, or the review undone by a concurrent call)
 * answers 409 and nothing changes. A card deleted since keeps nothing to
 * restore; its review still goes, so undo can walk back past it.
 */
export async function undoLastReview (app: FastifyInstance, user: UserDocument) {
  const { review, card, totalXp } = await app.transaction(async ({ reviews, cards, users, activity }) => {
    const review = await reviews.lastDone(user._id, user.studyDay?.start)
    if (review === null) throw new RequestError(404, 'there is no review to undo')
    const card = await cards.findById(user._id, review.cardID)
    if (card !== null) {
      // the review before this one on the card becomes its last again, so that one can be undone next
      const previousID = (await reviews.producing(user._id, review.cardID, review.before))?.reviewID ?? null
      if (card.lastReviewID !== review.reviewID || !await cards.restoreSchedule(card, review.before, previousID)) {
        throw new RequestError(409, `the card ${review.cardID} changed since its last review; nothing was undone`)
      }
    }
    if (!await reviews.remove(review._id)) throw new Error(`review ${review._id} vanished inside its undo's transaction`)
    await activity.unrecord(user._id, review.day, review.xp)
    return { review, card, totalXp: await users.unrecordReview(user._id, review) }
  })
  const calendar = calendarOf(user)
  return {
    cardID: review.cardID,
    review_status: reviewStatus(review.before),
    // a card never reviewed shows its creation day; of a deleted one only the review's day is known
    last_review: displayDay(review.before.lastReview ?? card?.createdAt ?? review.reviewedAt, calendar),
    due: review.before.due.toISOString(),
    total_xp: String(totalXp),
    undone_reviewID: review.reviewID
  }
}

/**
 * XP, streak, heatmap and card counts. The log is read a year at a time:
 * one year gives the heatmap and this week; a streak that reaches the start
 * of what was read sends the reading a year further back.
 */
export async function progressStats (app: FastifyInstance, user: UserDocument) {
  const calendar = calendarOf(user)
  const today = userDay(app.clock(), calendar).day
  let from = heatmapStart(today)
  const [recent, cardStates] = await Promise.all([
    app.repositories.activity.byDay(user._id, from, today),
    app.repositories.cards.countByState(user._id)
  ])
  const activity = new Map<LocalDay, DayActivity>(recent)
  while (streakOf(activity, today).first === from) {
    const earlier = addDays(from, -HEATMAP_DAYS)
    for (const [day, done] of await app.repositories.activity.byDay(user._id, earlier, addDays(from, -1))) {
      activity.set(day, done)
    }
    from = earlier
  }

  const stats = statsOf({ totalXp: user.totalXp, activity, today, cardStates })
  const count = (value: number): string => String(value)
  return {
    total_xp: count(stats.totalXp),
    weekly_xp: count(stats.weeklyXp),
    streak: count(stats.streak),
    heatmap: Object.fromEntries(stats.heatmap.map(({ day, reviews }) => [formatDay(day), count(reviews)])),
    cards: {
      new: count(stats.cards.new),
      learning: count(stats.cards.learning),
      review: count(stats.cards.review),
      relearning: count(stats.cards.relearning),
      total: count(stats.cards.total)
    }
  }
}

const progress: FastifyPluginAsyncTypebox = async (app) => {
  app.post('/undo-review', {
    schema: {
      summary: "Take back the user's last review: the card, the log and the XP as before it",
      description: 'Each call takes back one more review, latest first. 404 when there is nothing to undo; 409 when the card changed since that review (a newer review of it), and then nothing changes. A card deleted since cannot be restored: its review still leaves the log and takes its XP back. A reviewID that was undone is forgotten: sending it again reviews afresh.',
      tags: ['study'],
      body: UndoReviewBody,
      response: { 200: UndoneReview, 404: ErrorResponse, 409: ErrorResponse, ...authenticatedErrors }
    },
    preHandler: app.authenticate
  }, async (request) => await undoLastReview(app, request.account))

  app.post('/get-stats', {
    schema: {
      summary: 'XP, weekly XP, streak, a heatmap of the last year and card counts by state',
      description: 'Days are the user\'s days (time zone and dayStartHour); a review keeps the day it was made on even if the settings change later. Weeks start on Monday.',
      tags: ['study'],
      body: StatsBody,
      response: { 200: Stats, ...authenticatedErrors }
    },
    preHandler: app.authenticate
  }, async (request) => await progressStats(app, request.account))
}

export default progress
