import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { refusals } from '../schemas/common.js'
import { ExportedFlashcard, ExportFlashcardBody, ImportCardsBody, ImportedCards } from '../schemas/transfer.js'

const transfer: FastifyPluginAsyncTypebox = async (app) => {
  const { transfer } = app.services

  app.post('/import-cards', {
    schema: {
      summary: 'Create a flashcard from Quizlet-style text or CSV',
      description: 'All or nothing: a file with a mistake imports nothing, and the error names its line (1-based) and what is wrong. ' +
        'Quizlet text is read literally and split at the first term separator; blank entries and trailing line breaks are skipped. ' +
        'CSV follows RFC 4180 with exactly 2 columns, front and back. The folder must exist.',
      tags: ['library'],
      body: ImportCardsBody,
      response: { 201: ImportedCards, ...refusals(404, 409) }
    }
  }, async (request, reply) => reply.code(201).send(await transfer.importCards(request.account._id, request.body)))

  app.post('/export-flashcard', {
    schema: {
      summary: 'A flashcard\'s cards as Quizlet-style text or CSV',
      description: 'import-cards with the same options reads the text back to the same cards. ' +
        'In CSV a cell a spreadsheet would run as a formula (one beginning with = + - @, a tab or a carriage return) is written with an apostrophe in front, ' +
        'as OWASP advises against CSV injection, and so is one beginning with an apostrophe before such a character; import-cards takes exactly that apostrophe away. ' +
        'Quizlet text has no escaping: a card that its separators would split differently (a front holding the term separator, ' +
        'any text holding the card separator) is refused with 400 naming the card; choose other separators or CSV, which holds any text.',
      tags: ['library'],
      body: ExportFlashcardBody,
      response: { 200: ExportedFlashcard, ...refusals(404) }
    }
  }, async (request) => await transfer.exportFlashcard(request.account._id, request.body.flashcardID, request.body))
}

export default transfer
