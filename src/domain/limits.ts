/**
 * How large a library may grow, in one place: the request schemas, the tree
 * edits and the imports all check against these.
 */

/** folders nested in folders, the top-level ones counting as the first level */
export const MAX_FOLDER_DEPTH = 20
/** folders and flashcards directly in one folder; also the number of top-level folders */
export const MAX_CHILDREN = 1000
export const MAX_CARDS_PER_REQUEST = 1000
/** characters of a card's front or back, and of a flashcard's description */
export const MAX_CARD_TEXT = 10_000
/**
 * Characters of an Anki note's fields and tags together, as an import reads it: each card side
 * made from them is held to MAX_CARD_TEXT, and a note past this is refused before it is read.
 */
export const MAX_NOTE_TEXT = 100_000
/**
 * An imported note type (domain/note-types.ts): its fields and card templates (Anki's stock
 * ones have two or three), the characters of a field's or template's name, of its CSS, of
 * each side of each template, and of all of its templates and CSS together (one document,
 * far inside MongoDB's 16 MiB); and the note types one account keeps.
 */
export const MAX_NOTE_TYPE_FIELDS = 100
export const MAX_NOTE_TYPE_TEMPLATES = 100
export const MAX_NOTE_TYPE_NAME = 200
export const MAX_NOTE_TYPE_CSS = 100_000
export const MAX_TEMPLATE_TEXT = 100_000
export const MAX_NOTE_TYPE_TEXT = 1_000_000
export const MAX_NOTE_TYPES = 1000
/** the most notes of one note type that edit-note-type reshapes (fields or templates added, dropped, renamed, moved) in its one transaction */
export const MAX_NOTES_RESHAPED = 10_000
/**
 * Rows of one card's review log an import keeps: a card's history is stored as one document, and
 * a card studied every day for thirty years has about 11,000.
 */
export const MAX_CARD_HISTORY = 20_000
/**
 * The stored size of one user's folder tree, a single document. Half of
 * MongoDB's 16 MiB document limit, so that an edit never meets that limit;
 * the folders-and-flashcards quota keeps ordinary libraries far below it.
 */
export const MAX_TREE_BYTES = 8 * 1024 * 1024

/**
 * The reads that give cards with their content (get-flashcard, get-all-cards
 * with content) answer a page at a time: at most this many cards, and at most
 * this many bytes of the cards' JSON (but always one card, so that a page
 * always moves on), with a cursor for the rest. A flashcard may hold the whole
 * card quota of 10,000-character sides, far too much for one answer.
 */
export const MAX_CARDS_PER_PAGE = 1000
export const MAX_PAGE_BYTES = 4 * 1024 * 1024

/**
 * The shortest password register and change-password accept (their schemas check it).
 * Here rather than in passwords.ts, which needs Node: the request schemas import it,
 * and the study page type-checks against those schemas without Node's types.
 */
export const MIN_PASSWORD_LENGTH = 8

/**
 * The characters of a mailed link's token (domain/account-links.ts: 32 random bytes in
 * base64url); here for the same reason, as the request schemas check it.
 */
export const LINK_TOKEN_LENGTH = 43

/** search-cards: the characters of a query, and the cards one search answers by default and at most */
export const MAX_SEARCH_QUERY = 200
export const DEFAULT_SEARCH_RESULTS = 50
export const MAX_SEARCH_RESULTS = 200

/**
 * Levels of nesting of any document the service writes (an object or array
 * in another counts one level, and so does each part of a dotted update
 * path). MongoDB refuses documents deeper than 100 levels, and the embedded
 * database stops the whole process on documents a few hundred levels deep:
 * the service's own limits keep every document far inside this (a folder
 * tree 20 levels deep is about 45), and repositories refuse anything past it
 * before it is sent (db/nesting-guard.ts).
 */
export const MAX_DOCUMENT_NESTING = 64

/**
 * How many characters a text has past `limit`, counted in Unicode code
 * points as the request schemas count them; null when it is within the
 * limit. A code point is one or two UTF-16 code units, so only a text
 * longer than `limit` code units is counted.
 */
export function characterCountPast (text: string, limit: number): number | null {
  if (text.length <= limit) return null
  let codePoints = 0
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index)
    if (code >= 0xd800 && code <= 0xdbff) {
      const next = text.charCodeAt(index + 1)
      if (next >= 0xdc00 && next <= 0xdfff) index++
    }
    codePoints++
  }
  return codePoints > limit ? codePoints : null
}

/**
 * Why a card side (or a flashcard's description) is longer than a card may
 * hold, as a sentence naming it (`the front`, `the back`...), or null.
 * Checked where every card's content is made, whichever door it came by
 * (a request, a file import, an Anki package).
 */
export function cardTextProblem (side: string, text: string): string | null {
  const length = characterCountPast(text, MAX_CARD_TEXT)
  if (length === null) return null
  return `${side} is ${length.toLocaleString('en')} characters long, and a card side holds at most ${MAX_CARD_TEXT.toLocaleString('en')}`
}
