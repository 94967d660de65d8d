import { Type, type Static } from '@sinclair/typebox'
import { Id, JwtToken } from './common.js'
import { MAX_CARDS_PER_REQUEST } from '../domain/limits.js'
import { CardText, Name } from './library.js'

export const PARENT_ID_PATTERN = '^([0-9]{30,64})?$'

const Path = Type.Array(Type.String(), { description: 'folder names from the top' })

const Count = (what: string) => Type.String({ description: `how many ${what}` })

// ---- folders

export const RenameFolderBody = Type.Object({ jwtToken: JwtToken, folderID: Id, name: Name })
export type RenameFolderBody = Static<typeof RenameFolderBody>

export const MoveFolderBody = Type.Object({
  jwtToken: JwtToken,
  folderID: Id,
  parentID: Type.Optional(Type.String({
    pattern: PARENT_ID_PATTERN,
    description: 'the folder to move into; "" or absent for the top level'
  }))
})
export type MoveFolderBody = Static<typeof MoveFolderBody>

export const FolderBody = Type.Object({ jwtToken: JwtToken, folderID: Id })
export type FolderBody = Static<typeof FolderBody>

export const PlacedFolder = Type.Object({
  folderID: Id,
  path: Type.Array(Type.String(), { description: 'where the folder now is: names from the top, its own last' })
})

export const DeletedFolder = Type.Object({
  folderID: Id,
  folders: Count('folders were deleted, the folder itself included'),
  flashcards: Count('flashcards were deleted'),
  cards: Count('cards were deleted; their reviews stay in the log')
})

// ---- flashcards

export const FlashcardBody = Type.Object({ jwtToken: JwtToken, flashcardID: Id })
export type FlashcardBody = Static<typeof FlashcardBody>

export const CardDetails = Type.Object({
  cardID: Id,
  front: Type.String(),
  back: Type.String(),
  review_status: Type.String({ description: '"0.0" never reviewed, "0.N" learning step N, "D.0" in review every D days' }),
  last_review: Type.String({ description: 'DD/MM/YYYY in the user\'s calendar; the creation day for a card never reviewed' }),
  due: Type.String({ description: 'ISO-8601 UTC instant' })
})

export const Flashcard = Type.Object({
  flashcardID: Id,
  flashcardName: Type.String(),
  description: Type.String(),
  folder: Path,
  cards: Type.Array(CardDetails, { description: 'in creation order' })
})

export const RenameFlashcardBody = Type.Object({ jwtToken: JwtToken, flashcardID: Id, name: Name })
export type RenameFlashcardBody = Static<typeof RenameFlashcardBody>

export const RenamedFlashcard = Type.Object({ flashcardID: Id, flashcardName: Type.String() })

export const MoveFlashcardBody = Type.Object({ jwtToken: JwtToken, flashcardID: Id, folderID: Id })
export type MoveFlashcardBody = Static<typeof MoveFlashcardBody>

export const MovedFlashcard = Type.Object({ flashcardID: Id, folderID: Id, folder: Path })

export const DeletedFlashcard = Type.Object({
  flashcardID: Id,
  cards: Count('cards were deleted; their reviews stay in the log')
})

// ---- cards

export const AddCardsBody = Type.Object({
  jwtToken: JwtToken,
  flashcardID: Id,
  cards: Type.Array(CardText, { minItems: 1, maxItems: MAX_CARDS_PER_REQUEST, description: `1 to ${MAX_CARDS_PER_REQUEST} cards a request` })
})
export type AddCardsBody = Static<typeof AddCardsBody>

export const AddedCards = Type.Object({ cardIDs: Type.Array(Id, { description: 'in the order given' }) })

export const EditCardBody = Type.Object({
  jwtToken: JwtToken,
  flashcardID: Id,
  cardID: Id,
  front: Type.Optional(CardText.properties.front),
  back: Type.Optional(CardText.properties.back)
}, { description: 'front, back or both; the card keeps its schedule' })
export type EditCardBody = Static<typeof EditCardBody>

export const CardBody = Type.Object({ jwtToken: JwtToken, flashcardID: Id, cardID: Id })
export type CardBody = Static<typeof CardBody>

export const DeletedCard = Type.Object({ flashcardID: Id, cardID: Id })

export const AllCardsBody = Type.Object({ jwtToken: JwtToken })

// ---- the library with its ids

export const LibraryBody = Type.Object({ jwtToken: JwtToken })

export const FlashcardOutline = Type.Object({
  flashcardID: Id,
  flashcardName: Type.String(),
  description: Type.String(),
  cards: Count('cards the flashcard holds')
})

export const FolderOutline = Type.Recursive((Folder) => Type.Object({
  folderID: Id,
  name: Type.String(),
  folders: Type.Array(Folder),
  flashcards: Type.Array(FlashcardOutline)
}), { $id: 'FolderOutline' })
export type FolderOutline = Static<typeof FolderOutline>

export const LibraryOutline = Type.Object({
  folders: Type.Array(FolderOutline, { description: 'the top-level folders, in the order they were made; each with its folders and flashcards' })
})
