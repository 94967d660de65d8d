import type { Readable } from 'node:stream'
import multipart from '@fastify/multipart'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { ARCHIVE_LIMITS } from '../domain/card-archive.js'
import { Refusal } from '../domain/refusals.js'
import { formReader } from './forms.js'
import { refusals } from '../schemas/common.js'
import {
  ExportedFlashcard, ExportFlashcardBody, ExportFlashcardZipBody, ImportCardsBody, ImportedArchive, ImportedCards,
  ImportFlashcardZipFields, ImportFlashcardZipForm
} from '../schemas/transfer.js'

const MIB = 1024 * 1024

/** Room in a form for what is not the file: the token, folder and name fields, and the parts' headers and boundaries. */
const FORM_ALLOWANCE = 512 * 1024

const form = formReader({
  after: 'the fields folder (one per name) and flashcardName, then the zip',
  tooMuch: 'fields or files than an import takes'
})
const { invalidForm, formRefusal } = form

/** The fields as the import reads them, or 400 naming the first that is wrong. */
function importFields (fields: { folder: string[], flashcardName?: string }): ImportFlashcardZipFields {
  const first = Value.Errors(ImportFlashcardZipFields, fields).First()
  if (first !== undefined) {
    const field = first.path.slice(1).replaceAll('/', '.') || 'the form'
    throw new Refusal('invalid_field', `${field}: ${first.message}; send one field folder for each name of the folder's path, and a flashcardName of 1 to 100 characters`)
  }
  return fields as ImportFlashcardZipFields
}

/** Content-Disposition of a download: the name as it is (RFC 8187), and an ASCII one for clients that read only that. */
function attachment (fileName: string): string {
  const name = fileName.replace(/[/\\]/g, '_')
  const ascii = name.replace(/[^\x20-\x7e]|["%]/gu, '_')
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`)
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`
}

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
        'any text holding the card separator) is refused with 400 naming the card; choose other separators or CSV, which holds any text. ' +
        'When the cards show media, the answer says how many files: export-flashcard-zip carries them.',
      tags: ['library'],
      body: ExportFlashcardBody,
      response: { 200: ExportedFlashcard, ...refusals(404) }
    }
  }, async (request) => await transfer.exportFlashcard(request.account._id, request.body.flashcardID, request.body))

  app.post('/export-flashcard-zip', {
    schema: {
      summary: 'A flashcard as a zip archive: cards.csv and the media its cards show',
      description: 'Answers application/zip, as a download: cards.csv (the CSV of export-flashcard, each <img src="media:<mediaID>"> of an html side ' +
        'written <img src="media/<file>">) and media/<sha256>.<ext>, each media file as it was uploaded. import-flashcard-zip reads it back. ' +
        'The archive is streamed, its Content-Length known ahead; a failure while it is sent ends the connection before the archive is whole.',
      tags: ['library'],
      body: ExportFlashcardZipBody,
      response: {
        200: {
          description: 'the zip archive',
          content: { 'application/zip': { schema: Type.Unsafe<Readable>({ type: 'string', format: 'binary' }) } }
        },
        ...refusals(404)
      }
    }
  }, async (request, reply) => {
    const archive = await transfer.exportArchive(request.account._id, request.body.flashcardID)
    void reply.type('application/zip').header('content-disposition', attachment(`${archive.flashcardName}.zip`))
    if (archive.bytes >= 0) void reply.header('content-length', archive.bytes)
    return await reply.send(archive.stream)
  })

  // the one operation of this plugin that takes multipart: its parser is registered in a scope of its own
  await app.register(async (archives) => {
    await archives.register(multipart, {
      // the archive's size is checked as its bytes come (services/card-archive.ts): one byte over it is enough to tell
      throwFileSizeLimit: false,
      limits: { fileSize: ARCHIVE_LIMITS.maxArchiveBytes + 1, files: 1, fields: 30, parts: 31, fieldSize: 8 * 1024, headerPairs: 20 }
    })

    archives.addHook('preParsing', async (request) => {
      const type = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase()
      if (type !== 'multipart/form-data') {
        throw new Refusal('unsupported_content_type', 'import-flashcard-zip takes multipart/form-data: the field jwtToken, the fields folder and flashcardName, then the zip')
      }
      // a body announced too large is refused before it is read
      if (Number(request.headers['content-length'] ?? 0) > ARCHIVE_LIMITS.maxArchiveBytes + FORM_ALLOWANCE) {
        throw new Refusal('archive_too_large', `the upload is larger than ${ARCHIVE_LIMITS.maxArchiveBytes / MIB} MiB, the most one archive may hold: split the flashcard`)
      }
    })

    archives.post('/import-flashcard-zip', {
      // it reads its own token, from the form; the file may take UPLOAD_TIMEOUT_MS to arrive
      config: { public: true, upload: true },
      // the form is read part by part as it arrives, not as one body: the schema documents it
      validatorCompiler: () => () => true,
      schema: {
        summary: 'Create a flashcard from a zip archive of cards.csv and media, as export-flashcard-zip gives it',
        description: 'multipart/form-data: the field jwtToken first, then the fields folder (one per name of the path of an existing folder) and flashcardName, ' +
          `then the zip (at most ${ARCHIVE_LIMITS.maxArchiveBytes / MIB} MiB). All or nothing: a refused archive stores no card and no media. ` +
          'Each media file its cards show is stored as upload-media stores it (typed by its bytes, at most 20 MiB, the account\'s own copy of the same bytes reused, the quota charged once), ' +
          'and each media/<file> of an html side becomes media:<mediaID>. Refused before anything is stored: a file that is not a zip (not_a_zip), ' +
          'one that would expand past its limits (zip_bomb), a name that is a path (unsafe_file_name), no cards.csv (missing_cards_file), ' +
          'a card showing a file the archive lacks (missing_media), media over the quota (quota_exceeded, saying how much room it needs).',
        tags: ['library'],
        consumes: ['multipart/form-data'],
        body: ImportFlashcardZipForm,
        response: { 201: ImportedArchive, ...refusals(401, 404, 409) }
      }
    }, async (request, reply) => {
      try {
        const { account, nextPart } = await form.open(app, request, reply)

        const fields: { folder: string[], flashcardName?: string } = { folder: [] }
        let part = await nextPart()
        for (; part.done !== true && part.value.type === 'field'; part = await nextPart()) {
          const { fieldname } = part.value
          // stored text is NFC, as the JSON operations make every string
          const value = String(part.value.value).normalize('NFC')
          if (fieldname === 'folder') {
            fields.folder.push(value)
          } else if (fieldname === 'flashcardName') {
            if (fields.flashcardName !== undefined) throw invalidForm('the form has two fields flashcardName')
            fields.flashcardName = value
          }
          // a field the operation does not know is ignored, as in a JSON body
        }
        if (part.done === true || part.value.type !== 'file') throw invalidForm('the form has no file after its fields')
        const imported = await transfer.importArchive(account, importFields(fields), part.value.file, async () => {
          if ((await nextPart()).done !== true) throw invalidForm('the form holds more after the file')
        })
        return await reply.code(201).send(imported)
      } catch (error) {
        // the rest of a refused body is not read: the connection closes after the answer rather than take it in
        if (!request.raw.complete) void reply.header('connection', 'close')
        throw formRefusal(error)
      }
    })
  })
}

export default transfer
