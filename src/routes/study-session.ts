import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { MAX_CARDS_PER_PAGE, MAX_PAGE_BYTES } from '../domain/limits.js'
import { refusals } from '../schemas/common.js'
import { StudyQueue, StudyQueueBody } from '../schemas/study-session.js'

const studySession: FastifyPluginAsyncTypebox = async (app) => {
  const { studyQueue } = app.services

  app.post('/get-study-queue', {
    schema: {
      summary: "Today's cards to study, with their content, in order, a page at a time, and the new / learning / review counts left: of the whole library, one folder or one flashcard",
      description: 'Without folderID or flashcardID: the cards of get-today-cards. With one: that part\'s own learning and review cards due before the day ends, most overdue first, ' +
        'then its new cards by card type, then creation order (the first card of every note, then every second: siblings apart), each within what the daily limits leave today across the whole library. Suspended and buried cards are never in it. ' +
        `A page holds at most ${MAX_CARDS_PER_PAGE.toLocaleString('en')} cards and ${MAX_PAGE_BYTES / 1024 / 1024} MiB of them; nextCursor, while more follow, asks for the cards after it, ` +
        'as the queue is then: the cards already given and not answered are not given again, and none after them is left out.',
      tags: ['study'],
      body: StudyQueueBody,
      response: { 200: StudyQueue, ...refusals(404) }
    }
  }, async (request) => {
    const { folderID, flashcardID, cursor } = request.body
    return await studyQueue.studyQueue(request.account, { ...(folderID === undefined ? {} : { folderID }), ...(flashcardID === undefined ? {} : { flashcardID }) }, cursor)
  })
}

export default studySession
