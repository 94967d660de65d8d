import { Type, type Static } from '@sinclair/typebox'
import { DEFAULT_SEARCH_RESULTS, MAX_SEARCH_QUERY, MAX_SEARCH_RESULTS } from '../domain/limits.js'
import { Id, JwtToken, StringEnum } from './common.js'

export const SearchCardsBody = Type.Object({
  jwtToken: JwtToken,
  query: Type.String({
    minLength: 1,
    maxLength: MAX_SEARCH_QUERY,
    description: 'words to find, regardless of case and accents, each anywhere in what a card shows (front and back, a cloze note with its answers, formatted text without its markup); a card is found when it holds every word'
  }),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_SEARCH_RESULTS, description: `how many cards to answer at most; default ${DEFAULT_SEARCH_RESULTS}; an integer or a digit string` }))
})
export type SearchCardsBody = Static<typeof SearchCardsBody>

export const FoundCard = Type.Object({
  cardID: Id,
  flashcardID: Id,
  flashcardName: Type.String(),
  folder: Type.Array(Type.String(), { description: 'the path of the folder holding the flashcard' }),
  snippet: Type.String({ description: 'plain text (not HTML) of what the card shows, around the first word found, at most about 160 characters; … marks a cut' })
})

export const FoundCards = Type.Object({
  results: Type.Array(FoundCard, { description: 'grouped by folder path and flashcard' }),
  more: StringEnum(['true', 'false'] as const, { description: '"true" when more cards hold the words than limit: send more words, or a larger limit' })
})
