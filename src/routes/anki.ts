import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { ExportScope } from '../domain/anki/export.js'
import { Refusal } from '../domain/refusals.js'
import { AnkiPackageAnswer, ExportAnkiBody } from '../schemas/anki.js'
import { refusals } from '../schemas/common.js'

/**
 * Content-Disposition for a download: the name as it is in `filename*` (RFC 6266, UTF-8), and in
 * `filename` for clients that read only that, with what is not printable ASCII, a quote, a slash
 * or a backslash made `_`.
 */
function attachment (fileName: string): string {
  const plain = fileName.replace(/[^\x20-\x7e]|["/\\]/g, '_')
  const encoded = encodeURIComponent(fileName).replace(/['()*]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`)
  return `attachment; filename="${plain}"; filename*=UTF-8''${encoded}`
}

const anki: FastifyPluginAsyncTypebox = async (app) => {
  const { ankiExport } = app.services

  app.post('/export-anki', {
    schema: {
      summary: 'A folder, a flashcard or the whole account as an Anki package (.apkg)',
      description: 'The one operation that answers a file rather than JSON: application/octet-stream, as an attachment. ' +
        'The package holds a deck per folder and flashcard (A::B::C), a note per card (Basic) or cloze note (Cloze), each card\'s schedule ' +
        'and FSRS memory state, the review history and the media the cards show. Anki imports it with File > Import; ' +
        'tick "Import any learning progress" to keep the schedules and history. ' +
        'An export of more than 200,000 cards, 64 Mi (67,108,864) characters of card text or 1,000,000 reviews is refused (409 export_too_large).',
      tags: ['library'],
      body: ExportAnkiBody,
      response: { 200: AnkiPackageAnswer, ...refusals(404, 409) }
    }
  }, async (request, reply) => {
    const { folderID, flashcardID } = request.body
    if (folderID !== undefined && flashcardID !== undefined) {
      throw new Refusal('invalid_value', 'give folderID or flashcardID, not both: leave both out to export the whole account')
    }
    const scope: ExportScope = folderID !== undefined
      ? { kind: 'folder', folderID }
      : flashcardID !== undefined ? { kind: 'flashcard', flashcardID } : { kind: 'account' }
    const { fileName, stream } = await ankiExport.exportAnki(request.account._id, scope)
    return await reply
      .header('content-type', 'application/octet-stream')
      .header('content-disposition', attachment(fileName))
      .send(stream)
  })
}

export default anki
