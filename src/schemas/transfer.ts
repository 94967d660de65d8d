import { Type, type Static } from '@sinclair/typebox'
import { CARD_FORMATS, type CsvHeader } from '../domain/card-formats.js'
import { Id, JwtToken, StringEnum } from './common.js'
import { MAX_CARD_TEXT, MAX_CARDS_PER_REQUEST, MAX_FOLDER_DEPTH } from '../domain/limits.js'
import { ARCHIVE_LIMITS } from '../domain/card-archive.js'
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
  text: Type.String({ description: 'the cards in creation order; import-cards with the same options reads back the same cards' }),
  media: Type.Optional(Type.String({
    description: 'only when the cards show media: how many files. The text names them by this account\'s media ids, which show nothing in another account: ' +
      'export-flashcard-zip gives the cards with their media files'
  }))
})

export const ExportFlashcardZipBody = Type.Object({
  jwtToken: JwtToken,
  flashcardID: Id
})
export type ExportFlashcardZipBody = Static<typeof ExportFlashcardZipBody>

/** The fields of import-flashcard-zip's form, checked once they have arrived, before the file is read. */
export const ImportFlashcardZipFields = Type.Object({
  folder: FolderPath,
  flashcardName: Name
})
export type ImportFlashcardZipFields = Static<typeof ImportFlashcardZipFields>

/** The form import-flashcard-zip takes, for the OpenAPI document: it is read as it arrives, not validated as a whole. */
export const ImportFlashcardZipForm = Type.Object({
  jwtToken: JwtToken,
  folder: Type.Array(Name, {
    minItems: 1,
    maxItems: MAX_FOLDER_DEPTH,
    description: 'the existing folder to put the flashcard in: one field folder for each name of its path, from the top, in order'
  }),
  flashcardName: Name,
  file: Type.String({
    format: 'binary',
    description: `the zip archive, as export-flashcard-zip gives it (at most ${ARCHIVE_LIMITS.maxArchiveBytes / 1024 / 1024} MiB): ` +
      'cards.csv (the CSV of export-flashcard) and media/<file> for each media file its html cards show as <img src="media/<file>"> or <audio src="media/<file>">'
  })
}, { description: 'multipart/form-data, in this order: the field jwtToken, the fields folder (one per name) and flashcardName, then the file' })

export const ImportedArchive = Type.Object({
  flashcardID: Id,
  cardIDs: Type.Array(Id, { description: 'in the order of cards.csv, a cloze note\'s in the order of its numbers' }),
  imported: Type.String({ description: 'how many cards were imported, as written (a cloze note once)' }),
  mediaAdded: Type.String({ description: 'how many media files the account did not hold, now stored' }),
  mediaReused: Type.String({ description: 'how many media files the account held already (the same bytes): the cards show those, counted once' }),
  mediaBytesAdded: Type.String({ description: 'the bytes added to the account\'s media quota' })
})
