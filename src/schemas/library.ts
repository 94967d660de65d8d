import { Type, type Static } from '@sinclair/typebox'
import { MAX_NAME_LENGTH, NAME_PATTERN } from '../domain/names.js'
import { MAX_CARD_TEXT, MAX_CARDS_PER_REQUEST, MAX_FOLDER_DEPTH } from '../domain/limits.js'
import { TEXT_FORMATS } from '../domain/card-content.js'
import { Id, JwtToken, StringEnum } from './common.js'


export const Name = Type.String({
  minLength: 1,
  maxLength: MAX_NAME_LENGTH,
  pattern: NAME_PATTERN,
  description: `1-${MAX_NAME_LENGTH} characters with a visible one; no control, bidirectional-control or invisible characters (a zero-width joiner ` +
    'between two visible characters and a variation selector right after one excepted), no U+2028 or U+2029; not cards, flashcardID or flashcardName; ' +
    'not alike to a sibling\'s name regardless of case, width and invisible characters'
})

export const FolderPath = Type.Array(Name, {
  minItems: 1,
  maxItems: MAX_FOLDER_DEPTH,
  description: 'folder names from the top, e.g. ["Languages", "Spanish"]'
})

export const TextFormat = StringEnum(TEXT_FORMATS, {
  description: 'how the text is written: text (the default) is shown as written; html is reduced to the allowlist of docs/api.md ' +
    '(bold, italic, underline, sub/sup, lists, line breaks, code, ruby, tables, http(s) links, and images and audio of the user\'s media as media:<mediaID>)'
})

export const CardFront = Type.String({ minLength: 1, maxLength: MAX_CARD_TEXT })
export const CardBack = Type.String({ maxLength: MAX_CARD_TEXT })
export const ClozeText = Type.String({
  minLength: 1,
  maxLength: MAX_CARD_TEXT,
  description: 'a cloze note in Anki\'s syntax, {{c1::answer}} or {{c1::answer::hint}}, a deletion of several cards as {{c1,2::answer}}: one card per number'
})

/**
 * A card as written: {front, back}, or a cloze note {cloze, back?} (back: shown
 * under every answer, Anki's Back Extra). One object with every field optional,
 * the service telling the two apart, so that a mistake is named field by field
 * (a union would name the other shape's fields).
 */
export const CardText = Type.Object({
  front: Type.Optional(CardFront),
  back: Type.Optional(CardBack),
  cloze: Type.Optional(ClozeText),
  format: Type.Optional(TextFormat)
}, {
  additionalProperties: false,
  description: 'either {front, back}: one card; or {cloze, back?}: a cloze note, one card per number of its deletions. format: text (default) or html'
})

export const CreateFolderBody = Type.Object({ jwtToken: JwtToken, path: FolderPath })
export type CreateFolderBody = Static<typeof CreateFolderBody>

export const CreatedFolder = Type.Object({ folderID: Id, path: Type.Array(Type.String()) })

export const CreateFlashcardBody = Type.Object({
  jwtToken: JwtToken,
  folder: FolderPath,
  flashcardName: Name,
  description: Type.Optional(Type.String({ maxLength: MAX_CARD_TEXT })),
  cards: Type.Array(CardText, { maxItems: MAX_CARDS_PER_REQUEST, description: `at most ${MAX_CARDS_PER_REQUEST} cards a request, a cloze note counting one for each number` })
})
export type CreateFlashcardBody = Static<typeof CreateFlashcardBody>

export const CreatedFlashcard = Type.Object({ flashcardID: Id, cardIDs: Type.Array(Id) })
