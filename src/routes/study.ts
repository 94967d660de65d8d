import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { refusals } from '../schemas/common.js'
import { UndoneReview, UndoReviewBody } from '../schemas/progress.js'
import { JSON_TEXT, LibraryTree, PreviewReviewBody, ReviewAnswer, ReviewCardBody, ReviewPreview, TodayCardsBody } from '../schemas/study.js'

const study: FastifyPluginAsyncTypebox = async (app) => {
  const { study } = app.services

  app.post('/get-today-cards', {
    schema: {
      summary: "Today's cards, as a tree of the folders and flashcards that hold them",
      description: 'Part of the published interface (docs/interface.md). Learning and review cards due before the end of the user\'s day (most overdue first, at most reviewsPerDay less the reviews done today) and new cards in creation order (at most newCardsPerDay less those started today). {} when nothing is due.',
      tags: ['study'],
      body: TodayCardsBody,
      response: { 200: LibraryTree }
    }
  }, async (request, reply) => reply.type(JSON_TEXT).send(await study.todayCards(request.account)))

  app.post('/preview-review', {
    schema: {
      summary: 'What each answer (again, hard, good, easy) would do to a card if given now; nothing is stored',
      description: 'For answer buttons that show the interval each would give. The due instants are those review-card would store at this moment.',
      tags: ['study'],
      body: PreviewReviewBody,
      response: { 200: ReviewPreview, ...refusals(404) }
    }
  }, async (request) => await study.previewReview(request.account, request.body.flashcardID, request.body.cardID))

  app.post('/review-card', {
    schema: {
      summary: 'Record a review of one card and schedule it again (FSRS)',
      tags: ['study'],
      body: ReviewCardBody,
      response: { 200: ReviewAnswer, ...refusals(404, 409) }
    }
  }, async (request) => await study.reviewCard(request.account, request.body))

  app.post('/undo-review', {
    schema: {
      summary: "Take back the user's last review: the card, the log and the XP as before it",
      description: 'Each call takes back one more review, latest first. 404 when there is nothing to undo; 409 when the card changed since that review (a newer review of it), and then nothing changes. A card deleted since cannot be restored: its review still leaves the log and takes its XP back. A reviewID that was undone is forgotten: sending it again reviews afresh.',
      tags: ['study'],
      body: UndoReviewBody,
      response: { 200: UndoneReview, ...refusals(404, 409) }
    }
  }, async (request) => await study.undoLastReview(request.account))
}

export default study
