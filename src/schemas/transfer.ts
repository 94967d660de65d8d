import { Type, type Static } from '@sinclair/typebox'
import { CARD_FORMATS, type CsvHeader } from '../domain/card-formats.js'
import { Id, JwtToken, StringEnum } from './common.js'
import { MAX_CARD_TEXT, MAX_CARDS_PER_REQUEST } from '../domain/limits.js'
import { FolderPath, Name } from './library.js'

const Format = StringEnum(CARD_FORMATS, { description: 'quizlet (default): front, term separator, back, card separator; csv: RFC 4180, 2 columns' })

const Separator = (role: string, example: string) => Type.String({
  minLength: 1,
  maxLength: 20,
  description: `quizlet only: the text ${role}, e.g. ${example}`
})

const TermSeparator = Separator('between front and back; default "\\t"', '"\\t", ",", " - "')
const CardSeparator = Separator('between cards; default "\\n"', '"\\n", ";", "\\n\\n"')

// an enum rather than a union, so a wrong value is named in one clear message
const Header = Type.Unsafe<CsvHeader>({
  enum: [true, false, 'auto'],
  description: 'csv only: whether the first row is a header; "auto" (default) takes a first row front,back or term,definition for one'
})

/** How cards are written as text, on the way in and out alike. */
const formatOptions = {
  format: Type.Optional(Format),
  termSeparator: Type.Optional(TermSeparator),
  cardSeparator: Type.Optional(CardSeparator)
}

export const ImportCardsBody = Type.Object({
  jwtToken: JwtToken,
  folder: FolderPath,
  flashcardName: Name,
  text: Type.String({
    description: `the file's text: at most ${MAX_CARDS_PER_REQUEST} cards, a front of 1-${MAX_CARD_TEXT} characters and a back of at most ${MAX_CARD_TEXT}`
  }),
  ...formatOptions,
  header: Type.Optional(Header)
})
export type ImportCardsBody = Static<typeof ImportCardsBody>

export const ImportedCards = Type.Object({
  flashcardID: Id,
  cardIDs: Type.Array(Id, { description: 'in the order of the file' }),
  imported: Type.String({ description: 'how many cards were imported' })
})

export const ExportFlashcardBody = Type.Object({
  jwtToken: JwtToken,
  flashcardID: Id,
  ...formatOptions
})
export type ExportFlashcardBody = Static<typeof ExportFlashcardBody>

export const ExportedFlashcard = Type.Object({
  flashcardID: Id,
  flashcardName: Type.String(),
  format: Format,
  text: Type.String({ description: 'the cards in creation order; import-cards with the same options reads back the same cards' })
})
