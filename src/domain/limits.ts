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

/** search-cards: the characters of a query, and the cards one search answers by default and at most */
export const MAX_SEARCH_QUERY = 200
export const DEFAULT_SEARCH_RESULTS = 50
export const MAX_SEARCH_RESULTS = 200
