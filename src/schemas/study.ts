import { Type, type Static } from '@sinclair/typebox'
import { RATINGS } from '../domain/scheduling.js'
import { Id, JwtToken, StringEnum } from './common.js'

export const REVIEW_ID_PATTERN = '^[\\x21-\\x7e]+$'

export const TodayCardsBody = Type.Object({ jwtToken: JwtToken })

/**
 * The published tree (docs/interface.md): a tree keyed by the user's folder and flashcard names. The keys are
 * data, so the schema can only say "an object"; the tree module guarantees the shape.
 */
/** A tree is sent as the JSON text the service wrote (domain/library-tree.ts), with this type. */
export const JSON_TEXT = 'application/json; charset=utf-8'

export const LibraryTree = Type.Object({}, {
  additionalProperties: true,
  description: 'folder name -> folder; a flashcard is an object with exactly cards, flashcardID, flashcardName; card -> {last_review: DD/MM/YYYY, review_status: "0.0"}'
})

// The tree as its description gives it, for clients (the study page): the schema can say only "an object".
/** A card in the tree, keyed by its cardID. */
export interface TreeCard { last_review: string, review_status: string }
/** A flashcard in the tree: exactly these three members, which is how it differs from a folder. */
export interface TreeFlashcard { cards: Record<string, TreeCard>, flashcardID: string, flashcardName: string }
/** A folder in the tree (the top level included): its members keyed by name, folders and flashcards alike. */
export interface TreeFolder { [name: string]: TreeFolder | TreeFlashcard }

export const ReviewCardBody = Type.Object({
  jwtToken: JwtToken,
  flashcardID: Id,
  cardID: Id,
  rating: StringEnum(RATINGS, { description: RATINGS.join(' | ') }),
  reviewID: Type.Optional(Type.String({
    minLength: 1,
    maxLength: 100,
    pattern: REVIEW_ID_PATTERN,
    description: 'optional retry key: a repeated reviewID returns the first answer and changes nothing'
  }))
})

export const ReviewAnswer = Type.Object({
  cardID: Type.String(),
  review_status: Type.String(),
  last_review: Type.String({ description: 'DD/MM/YYYY in the user\'s calendar' }),
  due: Type.String({ description: 'ISO-8601 UTC instant' }),
  xp_gained: Type.String(),
  total_xp: Type.String(),
  buriedSiblings: Type.Optional(Type.Array(Type.String(), { description: 'the cards of the same note this answer buried until the user\'s next day (the sibling settings); absent when none' }))
})
export type ReviewAnswer = Static<typeof ReviewAnswer>

export const PreviewReviewBody = Type.Object({ jwtToken: JwtToken, flashcardID: Id, cardID: Id })

const Outcome = Type.Object({
  due: Type.String({ description: 'ISO-8601 UTC instant the card would next be due' }),
  interval: Type.String({ description: 'how long until then, as an answer button shows it: "10 min", "5 h", "4 days", "2.5 months", "1.1 years"' })
})

export const ReviewPreview = Type.Object({
  cardID: Type.String(),
  again: Outcome,
  hard: Outcome,
  good: Outcome,
  easy: Outcome
})
