import { Type, type Static } from '@sinclair/typebox'
import { MAX_FOLDER_DEPTH } from '../domain/limits.js'
import { Id, JwtToken } from './common.js'
import { Name } from './library.js'

/** The fields of import-anki's form, checked once they have arrived, before the file is read. */
export const ImportAnkiFields = Type.Object({
  folder: Type.Array(Name, { maxItems: MAX_FOLDER_DEPTH }),
  withScheduling: Type.Boolean(),
  updateNotes: Type.Union([Type.Literal('ifNewer'), Type.Literal('always')])
})
export type ImportAnkiFields = Static<typeof ImportAnkiFields>

/** The form import-anki takes, for the OpenAPI document: it is read as it arrives, not validated as a whole. */
export const ImportAnkiForm = Type.Object({
  jwtToken: JwtToken,
  folder: Type.Optional(Type.Array(Name, {
    maxItems: MAX_FOLDER_DEPTH,
    description: 'an existing folder to import into: one field folder for each name of its path, from the top, in order; none: the decks become top-level folders'
  })),
  withScheduling: Type.Optional(Type.String({ enum: ['true', 'false'], description: 'true (the default): schedules, memory states and the review history come over; false: every card arrives new, without history' })),
  updateNotes: Type.Optional(Type.String({
    enum: ['ifNewer', 'always'],
    description: 'ifNewer (the default, as in Anki): a note the account has already takes the package\'s text only when the package\'s note was changed after it was last changed here; always: whenever'
  })),
  file: Type.String({ format: 'binary', description: 'the .apkg or .colpkg file, at most 1 GiB' })
}, { description: 'multipart/form-data, in this order: the field jwtToken, the fields folder (one per name), withScheduling and updateNotes, then the file' })

export const ImportStarted = Type.Object({
  importID: Id
})

export const ImportStatusBody = Type.Object({
  jwtToken: JwtToken,
  importID: Id
})
export type ImportStatusBody = Static<typeof ImportStatusBody>

export const ImportStatus = Type.Object({
  importID: Id,
  state: Type.String({ enum: ['queued', 'running', 'done', 'failed'], description: 'queued: waiting for another import; running; done: all of it is in the library; failed: nothing of it is' }),
  percent: Type.String({ description: 'how far the import is, 0 to 100' }),
  cards: Type.String({ description: 'cards read so far (added, or updated for notes imported before)' }),
  notes: Type.String({ description: 'notes read so far' }),
  reviews: Type.String({ description: 'reviews of the Anki log added to the review log' }),
  media: Type.String({ description: 'media files the cards show' }),
  warnings: Type.Array(Type.String(), { description: 'what was left out or changed on the way, each a sentence' }),
  code: Type.Optional(Type.String({ description: 'failed: why, as a code (see get-import-status in docs/api.md)' })),
  error: Type.Optional(Type.String({ description: 'failed: why, as a sentence' })),
  recovered: Type.Optional(Type.String({ enum: ['finished', 'cleaned'], description: 'the service stopped during the import: it was finished, or cleaned away, when it started again' }))
})

export const ExportAnkiBody = Type.Object({
  jwtToken: JwtToken,
  folderID: Type.Optional(Id),
  flashcardID: Type.Optional(Id)
}, { description: 'folderID: that folder with everything below it; flashcardID: that flashcard; neither: the whole account. Not both.' })
export type ExportAnkiBody = Static<typeof ExportAnkiBody>

/** The package's bytes, as the answer streams them (for the OpenAPI document: a stream is not serialised). */
export const AnkiPackageAnswer = {
  description: 'the .apkg file, as an attachment (Content-Disposition) named after the folder or flashcard, or flashcards.apkg for the whole account',
  content: { 'application/octet-stream': { schema: Type.Unsafe<unknown>({ type: 'string', format: 'binary' }) } }
}
