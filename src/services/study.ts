import { displayDayOf, userDay } from '../domain/calendar.js'
import { newId } from '../domain/ids.js'
import { treeJson } from '../domain/library-tree.js'
import { CardState, intervalText, isNewCard, previewReviews, reviewStatus, RATINGS, scheduleReview, XP_PER_REVIEW, type CardSchedule, type Rating, type SchedulingOptions } from '../domain/scheduling.js'
import type { CardDocument } from '../repositories/cards.js'
import type { SiblingOfCard } from '../repositories/card-states.js'
import { siblingBuryingOf } from '../domain/accounts.js'
import { buriedUntilAt, siblingsToBury } from '../domain/card-states.js'
import { ReviewIDTakenError } from '../repositories/reviews.js'
import type { ReviewAnswer } from '../schemas/study.js'
import type { UserDocument } from '../repositories/users.js'
import type { ServiceContext } from './context.js'
import { cardLeaves } from './wire.js'
import { readToday } from './today.js'
import { invalidToken, noCard, Refusal } from '../domain/refusals.js'

function scheduleOf (card: CardDocument): CardSchedule {
  const { state, due, stability, difficulty, elapsedDays, scheduledDays, learningSteps, reps, lapses, lastReview } = card
  return { state, due, stability, difficulty, elapsedDays, scheduledDays, learningSteps, reps, lapses, lastReview }
}

/** How the user's reviews are scheduled: their desired retention, with the parameters fitted to their reviews once adopted (optimize-schedule). */
function schedulingOf (user: UserDocument): SchedulingOptions {
  return user.fsrsParameters === undefined ? { desiredRetention: user.desiredRetention } : { desiredRetention: user.desiredRetention, parameters: user.fsrsParameters }
}

export interface ReviewRequest { flashcardID: string, cardID: string, rating: Rating, reviewID?: string }

/** Today's cards, reviews and the taking back of a review. */
export function studyService (context: ServiceContext) {
  const { repositories } = context

  return {
    /**
     * The tree of the cards the user should study before their day ends, as
     * JSON text (see readToday): the tree is pruned to the flashcards that
     * hold today's cards.
     */
    async todayCards (user: UserDocument): Promise<string> {
      const { account, queues, tree, raising } = await readToday(context, user)
      const answer = queues.due.length + queues.new.length === 0 ? '{}' : treeJson(tree, cardLeaves([...queues.due, ...queues.new], account))
      await raising
      return answer
    },

    /**
     * What each answer would do to a card if given now: its next due instant
     * and the interval in words. Nothing is stored; the schedule is the one
     * review-card would store, as the scheduler has no randomness.
     */
    async previewReview (user: UserDocument, flashcardID: string, cardID: string) {
      const card = await repositories.cards.findOne(user._id, flashcardID, cardID)
      if (card === null) throw noCard(flashcardID, cardID)
      const now = context.clock()
      const outcomes = previewReviews(scheduleOf(card), now, schedulingOf(user))
      const answer = Object.fromEntries(RATINGS.map((rating) => {
        const { due } = outcomes[rating]
        return [rating, { due: due.toISOString(), interval: intervalText(now, due) }]
      })) as Record<Rating, { due: string, interval: string }>
      return { cardID, ...answer }
    },

    /**
     * Records one review in one transaction: the card's new schedule, the log
     * entry with the answer, the XP and the day's counts are stored together
     * or not at all. The log's unique reviewID makes a retried request fail to
     * store a second review; it then gets the first one's answer. Concurrent
     * reviews of one card conflict, and the later one runs again on the card
     * as the first left it.
     */
    async reviewCard (user: UserDocument, request: ReviewRequest): Promise<ReviewAnswer> {
      const { flashcardID, cardID, rating } = request
      const reviewID = request.reviewID ?? `server-${newId()}`
      try {
        return await context.transaction(async ({ cards, cardStates, reviews, users, activity }) => {
          const card = await cards.findOne(user._id, flashcardID, cardID)
          if (card === null) throw noCard(flashcardID, cardID)
          const now = context.clock()
          const before = scheduleOf(card)
          const after = scheduleReview(before, rating, now, schedulingOf(user))
          const wasNew = isNewCard(before)
          const reviewDay = userDay(now, user)
          const account = await users.recordReview(user._id, { ...reviewDay, wasNew, xp: XP_PER_REVIEW, placed: { isNew: false, due: after.due, createdOrder: card.createdOrder } })
          if (account === null) throw invalidToken()
          await activity.record(user._id, reviewDay.day, XP_PER_REVIEW)
          // the siblings this answer buries: chosen from the card as it was, written once its schedule is
          const burying = siblingBuryingOf(user)
          const siblings = burying.buryNewSiblings || burying.buryReviewSiblings || burying.buryInterdayLearningSiblings
            ? await cardStates.siblingsOf(card)
            : []
          const buried = siblingsToBury(before, siblings, burying, user).map((index) => (siblings[index] as SiblingOfCard)._id)
          const buriedUntil = buriedUntilAt(now, user)
          const answer: ReviewAnswer = {
            cardID,
            review_status: reviewStatus(after),
            last_review: displayDayOf(now, user),
            due: after.due.toISOString(),
            xp_gained: String(XP_PER_REVIEW),
            total_xp: String(account.totalXp),
            // a client holding today's cards drops these, as the service's queue has
            ...(buried.length === 0 ? {} : { buriedSiblings: buried })
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
            answer,
            ...(buried.length === 0 ? {} : { buriedSiblings: { cardIDs: buried, until: buriedUntil } })
          })
          // read in this transaction: a concurrent review of the card is a write conflict, not a miss
          if (!await cardStates.applyReview(card, after, reviewID)) throw new Error(`card ${cardID} changed inside its review's transaction`)
          if (buried.length > 0) {
            // taken out of the queues, so no queue start moves; the account learns when they come back
            if (await cardStates.burySiblings(user._id, buried, buriedUntil) !== buried.length) throw new Error(`a sibling of card ${cardID} changed inside its review's transaction`)
            await users.noteBurial(user._id, buriedUntil)
          }
          return answer
        })
      } catch (error) {
        // the reviewID is in the log already: a retry gets the first answer; the key sent
        // again for another card is a client's mistake, and must not pass for that card's review
        if (error instanceof ReviewIDTakenError) {
          const earlier = await repositories.reviews.findByReviewID(user._id, reviewID)
          if (earlier !== null && (earlier.cardID !== cardID || earlier.flashcardID !== flashcardID)) {
            throw new Refusal('review_id_reused', `the reviewID ${reviewID} was used for another card (${earlier.cardID}); send a new reviewID for each review`)
          }
          if (earlier !== null) return earlier.answer
        }
        throw error
      }
    },

    /**
     * Takes back the user's last review, in one transaction: the card gets the
     * schedule it had before, the review leaves the log and its XP leaves the
     * total. Only while the card still holds what that review left: a card
     * changed since (reviewed again, or the review undone by a concurrent call)
     * answers 409 and nothing changes. A card deleted since keeps nothing to
     * restore; its review still goes, so undo can walk back past it.
     */
    async undoLastReview (user: UserDocument) {
      const { review, card, totalXp } = await context.transaction(async ({ reviews, cards, cardStates, users, activity, goals }) => {
        const review = await reviews.latest(user._id, user.studyDay?.start)
        if (review === null) throw new Refusal('nothing_to_undo', 'there is no review to undo')
        const card = await cards.findById(user._id, review.cardID)
        if (card !== null) {
          // the review before this one on the card becomes its last again, so that one can be undone next
          const previousID = (await reviews.producerOf(user._id, review.cardID, review.before))?.reviewID ?? null
          if (card.lastReviewID !== review.reviewID || !await cardStates.restoreSchedule(card, review.before, previousID)) {
            throw new Refusal('changed_meanwhile', `the card ${review.cardID} changed since its last review; nothing was undone`)
          }
        }
        if (!await reviews.remove(review._id)) throw new Error(`review ${review._id} vanished inside its undo's transaction`)
        await activity.unrecord(user._id, review.day, review.xp)
        // reviews of a version that did not number them came before every goal that counts from its creation
        await goals.forgetReview(user._id, { seq: review.seq ?? 0, day: review.day, xp: review.xp })
        // the siblings this answer buried and that are buried so still come back (those unburied or suspended since are left as they are)
        if (review.buriedSiblings !== undefined) {
          const returned = await cardStates.unburySiblings(user._id, review.buriedSiblings.cardIDs, review.buriedSiblings.until)
          await users.placeCards(user._id, returned.map((sibling) => ({ isNew: sibling.state === CardState.New, due: sibling.due, createdOrder: sibling.createdOrder })))
        }
        const restored = card === null ? undefined : { isNew: isNewCard(review.before), due: review.before.due, createdOrder: card.createdOrder }
        return { review, card, totalXp: await users.unrecordReview(user._id, review, restored) }
      })
      return {
        cardID: review.cardID,
        flashcardID: review.flashcardID,
        review_status: reviewStatus(review.before),
        // a card never reviewed shows its creation day; of a deleted one only the review's day is known
        last_review: displayDayOf(review.before.lastReview ?? card?.createdAt ?? review.reviewedAt, user),
        due: review.before.due.toISOString(),
        total_xp: String(totalXp),
        undone_reviewID: review.reviewID
      }
    }
  }
}

export type StudyService = ReturnType<typeof studyService>
