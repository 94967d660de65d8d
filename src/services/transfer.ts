import {
  CardFormatError, DEFAULT_SEPARATORS, parseCsv, parseQuizlet, toCsv, toQuizlet,
  type CardFormat, type Separators
} from '../domain/card-formats.js'
import type { CardInput } from '../domain/card-content.js'
import { flashcardWithPath } from '../domain/library-tree.js'
import type { ServiceContext } from './context.js'
import type { CardDocument } from '../repositories/cards.js'
import type { LibraryService } from './library.js'
import { Refusal } from '../domain/refusals.js'

export interface FormatOptions {
  format?: CardFormat
  termSeparator?: string
  cardSeparator?: string
}

export interface ImportRequest extends FormatOptions {
  folder: string[]
  flashcardName: string
  text: string
  header?: 'auto' | boolean
}

/**
 * The separators of a Quizlet request. Separators sent with CSV are refused
 * rather than ignored: whoever sends them expects them to count, and CSV is
 * always comma-separated.
 */
function separatorsOf (options: FormatOptions): Separators {
  if ((options.format ?? 'quizlet') === 'csv') {
    if (options.termSeparator !== undefined || options.cardSeparator !== undefined) {
      throw new Refusal('invalid_value', 'termSeparator and cardSeparator apply to the quizlet format only: CSV is always comma-separated (RFC 4180)')
    }
  }
  return {
    termSeparator: options.termSeparator ?? DEFAULT_SEPARATORS.termSeparator,
    cardSeparator: options.cardSeparator ?? DEFAULT_SEPARATORS.cardSeparator
  }
}

/** Runs a conversion; a file or card it cannot handle is the client's to fix (400). */
function refusingUnreadable<T> (conversion: () => T): T {
  try {
    return conversion()
  } catch (error) {
    if (error instanceof CardFormatError) throw new Refusal('invalid_import', error.message)
    throw error
  }
}

function importedCards (request: ImportRequest): CardInput[] {
  const separators = separatorsOf(request)
  if (request.format === 'csv') return refusingUnreadable(() => parseCsv(request.text, { header: request.header ?? 'auto' }))
  if (request.header !== undefined) throw new Refusal('invalid_value', 'header applies to the csv format only: leave it out for quizlet text')
  return refusingUnreadable(() => parseQuizlet(request.text, separators))
}

/** Cards as they were written, in creation order: a cloze note once, where its first card is. */
function asWritten (cards: readonly CardDocument[]): CardInput[] {
  const notes = new Set<string>()
  const written: CardInput[] = []
  for (const card of cards) {
    const format = card.format ?? 'text'
    if (card.noteID === undefined) {
      written.push({ front: card.front, back: card.back, format })
    } else if (!notes.has(card.noteID)) {
      notes.add(card.noteID)
      written.push({ cloze: card.front, back: card.back, format })
    }
  }
  return written
}

/** Flashcards from and to Quizlet-style text and CSV. */
export function transferService ({ repositories }: ServiceContext, library: LibraryService) {
  return {
    /** Creates a flashcard from a whole file, read before anything is stored: all or nothing. */
    async importCards (userID: string, request: ImportRequest) {
      const cards = importedCards(request)
      const created = await library.createFlashcard(userID, { folder: request.folder, flashcardName: request.flashcardName, description: '', cards })
      return { ...created, imported: String(cards.length) }
    },

    async exportFlashcard (userID: string, flashcardID: string, options: FormatOptions) {
      const format = options.format ?? 'quizlet'
      const separators = separatorsOf(options)
      const [tree, stored] = await Promise.all([repositories.trees.read(userID), repositories.cards.byFlashcard(userID, flashcardID)])
      const { flashcard } = flashcardWithPath(tree, flashcardID)
      const cards = asWritten(stored)
      const text = refusingUnreadable(() => format === 'csv' ? toCsv(cards) : toQuizlet(cards, separators))
      return { flashcardID, flashcardName: flashcard.name, format, text }
    }
  }
}

export type TransferService = ReturnType<typeof transferService>
