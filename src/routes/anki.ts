import multipart from '@fastify/multipart'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Value } from '@sinclair/typebox/value'
import type { ExportScope } from '../domain/anki/export.js'
import { Refusal } from '../domain/refusals.js'
import { formReader } from './forms.js'
import { AnkiPackageAnswer, ExportAnkiBody, ImportAnkiFields, ImportAnkiForm, ImportStarted, ImportStatus, ImportStatusBody } from '../schemas/anki.js'
import { refusals } from '../schemas/common.js'
import { importStatus } from '../services/anki-import.js'

/** Room in a form for what is not the file: the fields, and the parts' headers and boundaries. */
const FORM_ALLOWANCE = 512 * 1024

const form = formReader({
  after: 'the fields folder (one per name, or none), withScheduling and updateNotes (optional), then the .apkg or .colpkg file',
  tooMuch: 'fields or files than an import takes'
})
const { invalidForm, formRefusal } = form

function importFields (fields: { folder: string[], withScheduling?: string, updateNotes?: string }): ImportAnkiFields {
  if (fields.withScheduling !== undefined && fields.withScheduling !== 'true' && fields.withScheduling !== 'false') {
    throw new Refusal('invalid_field', `withScheduling: send true or false, not ${JSON.stringify(fields.withScheduling.slice(0, 20))}`)
  }
  const updateNotes = fields.updateNotes ?? 'ifNewer'
  if (updateNotes !== 'ifNewer' && updateNotes !== 'always') {
    throw new Refusal('invalid_field', `updateNotes: send ifNewer or always, not ${JSON.stringify(updateNotes.slice(0, 20))}`)
  }
  const checked: ImportAnkiFields = { folder: fields.folder, withScheduling: fields.withScheduling !== 'false', updateNotes }
  const first = Value.Errors(ImportAnkiFields, checked).First()
  if (first !== undefined) {
    const field = first.path.slice(1).replaceAll('/', '.') || 'the form'
    throw new Refusal('invalid_field', `${field}: ${first.message}; send one field folder for each name of an existing folder's path, or none`)
  }
  return checked
}

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
  const { ankiImport, ankiExport } = app.services

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

  app.post('/get-import-status', {
    schema: {
      summary: 'Where an import of an Anki package stands',
      description: 'state queued, running, done or failed, with how far it is and what it counted; a failed import says why (code and error) and kept nothing.',
      tags: ['anki'],
      body: ImportStatusBody,
      response: { 200: ImportStatus, ...refusals(404) }
    }
  }, async (request) => importStatus(await ankiImport.status(request.account._id, request.body.importID)))

  await app.register(async (uploads) => {
    const maxBytes = app.importSettings.maxPackageBytes
    await uploads.register(multipart, {
      throwFileSizeLimit: false,
      limits: { fileSize: maxBytes + 1, files: 1, fields: 30, parts: 31, fieldSize: 8 * 1024, headerPairs: 20 }
    })

    uploads.addHook('preParsing', async (request) => {
      const type = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase()
      if (type !== 'multipart/form-data') {
        throw new Refusal('unsupported_content_type', 'import-anki takes multipart/form-data: the field jwtToken, the fields folder and withScheduling, then the .apkg or .colpkg file')
      }
      if (Number(request.headers['content-length'] ?? 0) > maxBytes + FORM_ALLOWANCE) {
        throw new Refusal('archive_too_large', `the upload is larger than ${maxBytes / 1024 / 1024} MiB, the most one package may hold: export the decks in several packages`)
      }
    })

    uploads.post('/import-anki', {
      // it reads its own token, from the form; the file may take UPLOAD_TIMEOUT_MS to arrive
      config: { public: true, upload: true },
      validatorCompiler: () => () => true,
      schema: {
        summary: 'Import an Anki package (.apkg or .colpkg) in the background',
        description: 'multipart/form-data: jwtToken, then folder (optional, repeated), withScheduling (optional, default true) and updateNotes (optional, default ifNewer), then the file (at most 1 GiB). ' +
          'Answers 202 with an importID as soon as the file is saved; get-import-status follows the import. All of an import becomes visible at once, or nothing of it. ' +
          'Decks A::B::C become nested folders, each deck\'s own cards a flashcard; note types and templates are rendered as Anki renders them; media, tags, ' +
          'schedules, memory states and the review history come over; a note the account has already (same guid, an earlier import\'s or exported from here) is updated ' +
          'rather than added again, when the package\'s was changed after it was last changed here (or always, with updateNotes=always).',
        tags: ['anki'],
        consumes: ['multipart/form-data'],
        body: ImportAnkiForm,
        response: { 202: ImportStarted, ...refusals(401, 404) }
      }
    }, async (request, reply) => {
      try {
        const { account, nextPart } = await form.open(app, request, reply)
        // the account's place is taken (or refused) before the rest of the form is read
        const started = await ankiImport.start(account, async () => {
          const fields: { folder: string[], withScheduling?: string, updateNotes?: string } = { folder: [] }
          let part = await nextPart()
          for (; part.done !== true && part.value.type === 'field'; part = await nextPart()) {
            const value = String(part.value.value).normalize('NFC')
            if (part.value.fieldname === 'folder') fields.folder.push(value)
            else if (part.value.fieldname === 'withScheduling') fields.withScheduling = value.trim().toLowerCase()
            else if (part.value.fieldname === 'updateNotes') fields.updateNotes = value.trim()
          }
          if (part.done === true || part.value.type !== 'file') throw invalidForm('the form has no file after its fields')
          return {
            request: { ...importFields(fields), fileName: part.value.filename },
            file: part.value.file,
            formEnd: async () => {
              if ((await nextPart()).done !== true) throw invalidForm('the form holds more after the file')
            }
          }
        })
        return await reply.code(202).send(started)
      } catch (error) {
        if (!request.raw.complete) void reply.header('connection', 'close')
        throw formRefusal(error)
      }
    })
  })
}

export default anki
