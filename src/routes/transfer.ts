import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import {
  CardFormatError, DEFAULT_SEPARATORS, parseCsv, parseQuizlet, toCsv, toQuizlet,
  type CardFormat, type CardText, type Separators
} from '../domain/card-formats.js'
import { authenticatedErrors, ErrorResponse } from '../schemas/common.js'
import { ExportedFlashcard, ExportFlashcardBody, ImportCardsBody, ImportedCards } from '../schemas/transfer.js'
import { RequestError } from '../plugins/errors.js'
import { createFlashcard } from './library.js'

interface FormatOptions {
  format?: CardFormat
  termSeparator?: string
  cardSeparator?: string
}

/**
 * The separators of a Quizlet request. Separators sent with CSV are refused
 * rather than ignored: whoever sends them expects them to count, and CSV is
 * always comma-separated.
 */
function separatorsOf (options: FormatOptions): Separators {
  if ((options.format ?? 'quizlet') === 'csv') {
    if (options.termSeparator !== undefined || options.cardSeparator !== undefined) {
      throw new RequestError(400, 'termSeparator and cardSeparator apply to the quizlet format only: CSV is always comma-separated (RFC 4180)')
    }
  }
  return {
    termSeparator: options.termSeparator ?? DEFAULT_SEPARATORS.termSeparator,
    cardSeparator: options.cardSeparator ?? DEFAULT_SEPARATORS.cardSeparator
  }
}

/** Runs a conversion; a file or card it cannot handle is the client's to fix (400). */
function converted<T> (conversion: () => T): T {
  try {
    return conversion()
  } catch (error) {
    if (error instanceof CardFormatError) throw new RequestError(400, error.message)
    throw error
  }
}

function importedCards (body: ImportCardsBody): CardText[] {
  const separators = separatorsOf(body)
  if (body.format === 'csv') return converted(() => parseCsv(body.text, { header: body.header ?? 'auto' }))
  if (body.header !== undefined) throw new RequestError(400, 'header applies to the csv format only')
  return converted(() => parseQuizlet(body.text, separators))
}

const transfer: FastifyPluginAsyncTypebox = async (app) => {
  app.post('/import-cards', {
    schema: {
      summary: 'Create a flashcard from Quizlet-style text or CSV',
      description: 'All or nothing: a file with a mistake imports nothing, and the error names its line (1-based) and what is wrong. ' +
        'Quizlet text is read literally and split at the first term separator; blank entries and trailing line breaks are skipped. ' +
        'CSV follows RFC 4180 with exactly 2 columns, front and back. The folder must exist.',
      tags: ['library'],
      body: ImportCardsBody,
      response: { 201: ImportedCards, 404: ErrorResponse, 409: ErrorResponse, ...authenticatedErrors }
    },
    preHandler: app.authenticate
  }, async (request, reply) => {
    const { folder, flashcardName } = request.body
    // the whole file is read before anything is stored
    const cards = importedCards(request.body)
    const created = await createFlashcard(app, request.account._id, { folder, flashcardName, description: '', cards })
    return reply.code(201).send({ ...created, imported: String(cards.length) })
  })

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
      response: { 200: ExportedFlashcard, 404: ErrorResponse, ...authenticatedErrors }
    },
    preHandler: app.authenticate
  }, async (request) => {
    const { flashcardID, format = 'quizlet' } = request.body
    const separators = separatorsOf(request.body)
    const userID = request.account._id
    const flashcard = await app.repositories.library.findFlashcard(userID, flashcardID)
    if (flashcard === null) throw new RequestError(404, `no flashcard ${flashcardID}`)
    const cards = await app.repositories.cards.byFlashcard(userID, flashcardID)
    const text = converted(() => format === 'csv' ? toCsv(cards) : toQuizlet(cards, separators))
    return { flashcardID, flashcardName: flashcard.name, format, text }
  })
}

export default transfer
