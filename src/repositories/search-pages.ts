import type { ClientSession, Db } from 'mongodb'
import { newId } from '../domain/ids.js'
import { holdsEvery, pagePatterns } from '../domain/search-text.js'

/**
 * The searchable text of a user's cards, many cards to a document: a page
 * holds the texts of up to PAGE_CARDS cards of one flashcard. A search reads
 * every page of the user in the database, which tests each page's text
 * against the query's words: on the embedded database a query's time follows
 * the number of documents it reads far more than their size, so that a few
 * hundred pages are read many times faster than the cards they stand for.
 * The cards repository keeps the pages in step with every write of a card's
 * text, in the same transaction (see cards.ts).
 */
export interface SearchPageDocument {
  _id: string
  userID: string
  flashcardID: string
  /** the page's cards, in the order of their texts */
  cardIDs: string[]
  /** each card's text as searches compare it (domain/search-text.ts), in the order of cardIDs, joined by SEPARATOR */
  text: string
  /** whether the page takes more cards: the index holds it, so that adding cards reads no full page */
  open: boolean
}

/** A card and its searchable text. */
export interface SearchEntry { cardID: string, text: string }

/** A card found by a search, with the flashcard that holds it. */
export interface SearchHit { cardID: string, flashcardID: string }

/** Between two cards' texts; folded text holds no control character. */
const SEPARATOR = '\u0001'
export const PAGE_CARDS = 500
/** a page takes another card while its text is shorter than this */
const PAGE_CHARACTERS = 256 * 1024
/** a page that edits made longer than this is split in two, far below MongoDB's 16 MiB a document */
const SPLIT_CHARACTERS = 1024 * 1024

interface Page { _id: string, cardIDs: string[], texts: string[], length: number, stored: boolean, changed: boolean }

function pageOf (document: Pick<SearchPageDocument, '_id' | 'cardIDs' | 'text'>): Page {
  const texts = document.cardIDs.length === 0 ? [] : document.text.split(SEPARATOR)
  return { _id: document._id, cardIDs: document.cardIDs, texts, length: document.text.length, stored: true, changed: false }
}

function newPage (): Page {
  return { _id: newId(), cardIDs: [], texts: [], length: 0, stored: false, changed: true }
}

function takesMore (page: Page): boolean {
  return page.cardIDs.length < PAGE_CARDS && page.length < PAGE_CHARACTERS
}

export function searchPagesRepository (db: Db, session?: ClientSession) {
  const pages = db.collection<SearchPageDocument>('searchPages')

  /** Writes the pages changed: new ones inserted, emptied ones removed, the others set whole; one too long is split first. */
  async function save (userID: string, flashcardID: string, changed: readonly Page[]): Promise<void> {
    const written: Page[] = []
    for (const page of changed) {
      if (!page.changed) continue
      if (page.length <= SPLIT_CHARACTERS || page.cardIDs.length < 2) {
        written.push(page)
        continue
      }
      const half = Math.ceil(page.cardIDs.length / 2)
      const rest = { ...newPage(), cardIDs: page.cardIDs.slice(half), texts: page.texts.slice(half) }
      written.push({ ...page, cardIDs: page.cardIDs.slice(0, half), texts: page.texts.slice(0, half) }, rest)
    }
    for (const page of written) {
      const document = { userID, flashcardID, cardIDs: page.cardIDs, text: page.texts.join(SEPARATOR), open: false }
      document.open = takesMore({ ...page, length: document.text.length })
      if (page.cardIDs.length === 0) {
        if (page.stored) await pages.deleteOne({ _id: page._id, userID }, { session })
      } else if (page.stored) {
        await pages.updateOne({ _id: page._id, userID }, { $set: document }, { session })
      } else {
        await pages.insertOne({ _id: page._id, ...document }, { session })
      }
    }
  }

  /** The pages of one flashcard that hold any of these cards. */
  async function holding (userID: string, flashcardID: string, cardIDs: readonly string[]): Promise<Page[]> {
    const found = await pages.find({ userID, flashcardID, cardIDs: { $in: [...cardIDs] } }, { session }).toArray()
    return found.map(pageOf)
  }

  return {
    /** Adds cards new to a flashcard: to the page that takes more cards, then to new pages. */
    async add (userID: string, flashcardID: string, entries: readonly SearchEntry[]): Promise<void> {
      if (entries.length === 0) return
      const open = await pages.findOne({ userID, flashcardID, open: true }, { session })
      let page = open === null ? newPage() : pageOf(open)
      const changed = [page]
      for (const { cardID, text } of entries) {
        if (!takesMore(page)) {
          page = newPage()
          changed.push(page)
        }
        page.cardIDs.push(cardID)
        page.texts.push(text)
        page.length += text.length + 1
        page.changed = true
      }
      await save(userID, flashcardID, changed)
    },

    /** Gives cards of one flashcard their new texts; a card no page holds is left out (see the search service: an account being indexed). */
    async setTexts (userID: string, flashcardID: string, entries: readonly SearchEntry[]): Promise<void> {
      if (entries.length === 0) return
      const texts = new Map(entries.map((entry) => [entry.cardID, entry.text]))
      const found = await holding(userID, flashcardID, [...texts.keys()])
      for (const page of found) {
        page.cardIDs.forEach((cardID, index) => {
          const text = texts.get(cardID)
          if (text === undefined) return
          page.length += text.length - (page.texts[index] ?? '').length
          page.texts[index] = text
          page.changed = true
        })
      }
      await save(userID, flashcardID, found)
    },

    /** Takes cards of one flashcard out of its pages. */
    async remove (userID: string, flashcardID: string, cardIDs: readonly string[]): Promise<void> {
      if (cardIDs.length === 0) return
      const gone = new Set(cardIDs)
      const found = await holding(userID, flashcardID, cardIDs)
      for (const page of found) {
        const kept = page.cardIDs.flatMap((cardID, index) => gone.has(cardID) ? [] : [index])
        page.texts = kept.map((index) => page.texts[index] ?? '')
        page.cardIDs = kept.map((index) => page.cardIDs[index] ?? '')
        page.length = page.texts.reduce((sum, text) => sum + text.length + 1, 0)
        page.changed = true
      }
      await save(userID, flashcardID, found)
    },

    /** Removes every page of these flashcards. */
    async removeFlashcards (userID: string, flashcardIDs: readonly string[]): Promise<void> {
      if (flashcardIDs.length > 0) await pages.deleteMany({ userID, flashcardID: { $in: [...flashcardIDs] } }, { session })
    },

    /** The cards one flashcard's pages hold. */
    async cardIDsOf (userID: string, flashcardID: string): Promise<Set<string>> {
      const found = await pages.find({ userID, flashcardID }, { projection: { cardIDs: 1 }, session }).toArray()
      return new Set(found.flatMap((page) => page.cardIDs))
    },

    /**
     * The user's cards whose text holds every word (folded), at most `wanted`,
     * in the order of the pages. The database picks the pages that hold every
     * word somewhere, and for a few words one card holding them all
     * (pagePatterns); the cards are then told apart here. Pages are read a
     * few at a time, and reading stops once enough cards are found.
     */
    async find (userID: string, words: readonly string[], wanted: number): Promise<SearchHit[]> {
      const hits: SearchHit[] = []
      // a card on two pages (two first searches of an account from before search at once, on two instances) is found once
      const seen = new Set<string>()
      if (words.length === 0 || wanted <= 0) return hits
      const cursor = pages.find(
        { userID, $and: pagePatterns(words, SEPARATOR).map((pattern) => ({ text: { $regex: pattern } })) },
        { projection: { flashcardID: 1, cardIDs: 1, text: 1 }, batchSize: 2, session }
      )
      try {
        for await (const page of cursor) {
          const texts = page.text.split(SEPARATOR)
          for (const [index, text] of texts.entries()) {
            const cardID = page.cardIDs[index]
            if (cardID !== undefined && !seen.has(cardID) && holdsEvery(text, words)) {
              seen.add(cardID)
              hits.push({ cardID, flashcardID: page.flashcardID })
            }
            if (hits.length >= wanted) return hits
          }
        }
      } finally {
        await cursor.close()
      }
      return hits
    }
  }
}

export type SearchPagesRepository = ReturnType<typeof searchPagesRepository>
