import { Type, type Static } from '@sinclair/typebox'
import { MAX_NAME_LENGTH, NAME_PATTERN } from '../domain/names.js'
import { MAX_CARD_TEXT, MAX_CARDS_PER_REQUEST, MAX_FOLDER_DEPTH } from '../domain/limits.js'
import { Id, JwtToken } from './common.js'


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

export const CardText = Type.Object({
  front: Type.String({ minLength: 1, maxLength: MAX_CARD_TEXT }),
  back: Type.String({ maxLength: MAX_CARD_TEXT })
}, { additionalProperties: false })

export const CreateFolderBody = Type.Object({ jwtToken: JwtToken, path: FolderPath })
export type CreateFolderBody = Static<typeof CreateFolderBody>

export const CreatedFolder = Type.Object({ folderID: Id, path: Type.Array(Type.String()) })

export const CreateFlashcardBody = Type.Object({
  jwtToken: JwtToken,
  folder: FolderPath,
  flashcardName: Name,
  description: Type.Optional(Type.String({ maxLength: MAX_CARD_TEXT })),
  cards: Type.Array(CardText, { maxItems: MAX_CARDS_PER_REQUEST, description: `at most ${MAX_CARDS_PER_REQUEST} cards a request` })
})
export type CreateFlashcardBody = Static<typeof CreateFlashcardBody>

export const CreatedFlashcard = Type.Object({ flashcardID: Id, cardIDs: Type.Array(Id) })
