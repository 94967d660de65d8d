import { Type, type Static } from '@sinclair/typebox'
import { Id, JwtToken } from './common.js'

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
