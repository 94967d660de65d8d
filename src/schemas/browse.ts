import { Type, type Static } from '@sinclair/typebox'
import { BROWSE_ORDERS, BROWSE_PAGE_ROWS, BROWSE_SORTS, BROWSE_STANDINGS, SORT_FIELD_LENGTH } from '../domain/browse-options.js'
import { MAX_SEARCH_QUERY } from '../domain/limits.js'
import { Id, JwtToken, StringEnum } from './common.js'
import { Cursor, NextCursor } from './library-manage.js'

export const BrowseCardsBody = Type.Object({
  jwtToken: JwtToken,
  folderID: Type.Optional(Id),
  flashcardID: Type.Optional(Id),
  standing: Type.Optional(StringEnum(BROWSE_STANDINGS, {
    description: 'only the cards of one standing: new, learning (learning and relearning) or review by their schedule, whatever else they are; ' +
      'suspended; buried (until a day that has not begun, suspended too or not); flagged (any flag 1-7). Absent: every card'
  })),
  query: Type.Optional(Type.String({
    minLength: 1,
    maxLength: MAX_SEARCH_QUERY,
    description: 'only the cards that show every word, as search-cards finds them: regardless of case and accents, each anywhere in the front and back (a cloze note with its answers; formatted text without its markup)'
  })),
  sort: Type.Optional(StringEnum(BROWSE_SORTS, {
    description: 'created: creation order (the default); due: the cards studied by their due instant, then the new cards in the order the new-card queue takes them'
  })),
  order: Type.Optional(StringEnum(BROWSE_ORDERS, { description: 'asc (the default) or desc, the exact reverse' })),
  cursor: Type.Optional(Cursor('the nextCursor of the previous answer, as it came (opaque), with the same scope, standing, query, sort and order: the cards after the previous page\'s last, as they are now; absent: the first page'))
}, { description: 'folderID: the cards of that folder and everything below it; flashcardID: that flashcard\'s; neither: the whole library. Not both' })
export type BrowseCardsBody = Static<typeof BrowseCardsBody>

export const BrowsedCard = Type.Object({
  cardID: Id,
  flashcardID: Id,
  flashcardName: Type.String(),
  folder: Type.Array(Type.String(), { description: 'the path of the folder holding the flashcard' }),
  sortField: Type.String({ description: `plain text (not HTML): the first line of what the card shows (its front; a cloze note with its answers), at most ${SORT_FIELD_LENGTH} characters, … marking a cut` }),
  kind: StringEnum(['basic', 'cloze'] as const, { description: 'a card with a front and a back, or a card of a cloze note' }),
  noteType: Type.String({ description: 'the name of its note type: an Anki import\'s or add-note\'s; Basic for a card of a front and a back made here, Cloze for a card of a cloze note made here' }),
  state: StringEnum(['new', 'learning', 'review', 'relearning'] as const),
  due: Type.Optional(Type.String({ description: 'DD/MM/YYYY in the user\'s calendar: the day it is due; absent for a new card' })),
  interval: Type.String({ description: 'the days its schedule gave until it is due (0 for a new card or one in learning steps)' }),
  difficulty: Type.Optional(Type.String({ description: 'FSRS difficulty, 1 to 10, one decimal; absent for a new card' })),
  lapses: Type.String({ description: 'how many times it was forgotten (answered again in review)' }),
  reps: Type.String({ description: 'how many times it was answered' }),
  suspended: StringEnum(['true', 'false'] as const),
  buriedUntil: Type.Optional(Type.String({ description: 'DD/MM/YYYY: buried until that day of the user begins; absent when not buried' })),
  flag: Type.String({ description: '0 none, 1-7 Anki\'s colours' })
})

export const BrowsedCards = Type.Object({
  cards: Type.Array(BrowsedCard, { description: `a page of at most ${BROWSE_PAGE_ROWS} cards, in the order asked for` }),
  total: Type.String({ description: 'how many cards match the scope, standing and query, on every page' }),
  nextCursor: Type.Optional(NextCursor)
})
