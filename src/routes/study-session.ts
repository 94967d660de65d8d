import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { refusals } from '../schemas/common.js'
import { StudyQueue, StudyQueueBody } from '../schemas/study-session.js'

const studySession: FastifyPluginAsyncTypebox = async (app) => {
  const { studyQueue } = app.services

  app.post('/get-study-queue', {
    schema: {
      summary: "Today's cards to study, with their content, in order, and the new / learning / review counts left: of the whole library, one folder or one flashcard",
      description: 'Without folderID or flashcardID: the cards of get-today-cards. With one: that part\'s own learning and review cards due before the day ends, most overdue first, ' +
        'then its new cards in creation order, each within what the daily limits leave today across the whole library. Suspended and buried cards are never in it.',
      tags: ['study'],
      body: StudyQueueBody,
      response: { 200: StudyQueue, ...refusals(404) }
    }
  }, async (request) => {
    const { folderID, flashcardID } = request.body
    return await studyQueue.studyQueue(request.account, { ...(folderID === undefined ? {} : { folderID }), ...(flashcardID === undefined ? {} : { flashcardID }) })
  })
}

export default studySession
