/**
 * The card browser (browse-cards): every card of the library, or of a folder
 * or flashcard, whatever its standing, filtered and sorted, a page at a time.
 *
 * Only orders an index gives are offered, since a library may hold the whole
 * card quota: creation order (user_order, user_flashcard_order) and due
 * (user_queue). An order is (part, key, cardID) with no ties: the due order
 * has two parts, the cards studied by their due instant, then the new cards
 * by theirs (the instant they joined the new-card queue), as the study queue
 * takes them; creation order has one part. Descending is the exact reverse.
 * A cursor is the place of a page's last card in that order, with what it
 * pages (scope, filter, query, order); the next page is the cards after that
 * place as they are when it is asked for, so a card changed or deleted
 * between two pages moves no other across the boundary.
 */
import { createHash } from 'node:crypto'
import { isId } from './ids.js'
import { Refusal } from './refusals.js'
import { SORT_FIELD_LENGTH, type BrowseOrder, type BrowseSort, type BrowseStanding } from './browse-options.js'
import { decodeCursor, encodeCursor } from './cursors.js'

/** A card's place in a browse order. */
export interface BrowsePlace { part: number, key: number, cardID: string }

/** The parts of an order, in the order they come: each a key and whether it holds the new cards (true), the others (false), or all (null). */
export function partsOf (sort: BrowseSort): ReadonlyArray<{ key: 'createdOrder' | 'due', newCards: boolean | null }> {
  return sort === 'created' ? [{ key: 'createdOrder', newCards: null }] : [{ key: 'due', newCards: false }, { key: 'due', newCards: true }]
}

/** What a browse pages through: the scope, the filter, the query and the order; the query by a digest, to keep the cursor short. */
export interface BrowseRequest {
  folderID?: string
  flashcardID?: string
  standing?: BrowseStanding
  query?: string
  sort: BrowseSort
  order: BrowseOrder
}

export function browsePagesOf (request: BrowseRequest): string {
  const query = request.query === undefined ? '' : createHash('sha256').update(request.query).digest('base64url').slice(0, 16)
  const scope = request.folderID !== undefined ? `folder:${request.folderID}` : request.flashcardID !== undefined ? `flashcard:${request.flashcardID}` : 'library'
  return ['browse', scope, request.standing ?? '', query, request.sort, request.order].join(':')
}

/** The cursor of the page after `last`: opaque to the client (base64url of a small JSON); it holds no user, and only narrows the caller's own read. */
export function browseCursorAfter (of: string, last: BrowsePlace): string {
  return encodeCursor({ of, after: [last.part, last.key, last.cardID] })
}

function notACursor (what: string): Refusal {
  return new Refusal('invalid_field',
    `body.cursor is not ${what}: send the nextCursor of the previous answer as it came, with the same scope, filters and sort, or no cursor for the first page`)
}

/** The place a cursor given for `of` says its page ended at; refused with invalid_field when it is not one browse-cards gave for this very read. */
export function readBrowseCursor (cursor: string, of: string): BrowsePlace {
  const read = decodeCursor(cursor)
  if (read === null) throw notACursor('a cursor this service gave')
  const { of: pagesOf, after, ...rest } = read
  if (typeof pagesOf === 'string' && pagesOf !== of) throw notACursor('a cursor of browse-cards for this scope, filter, query and sort')
  const [part, key, cardID, ...more] = Array.isArray(after) ? after as unknown[] : []
  if (typeof pagesOf !== 'string' || typeof part !== 'number' || !Number.isInteger(part) || part < 0 || part > 1 ||
    typeof key !== 'number' || !Number.isFinite(key) || !isId(cardID) || more.length > 0 || Object.keys(rest).length > 0) {
    throw notACursor('a cursor this service gave')
  }
  return { part, key, cardID }
}

/** The order of two places, ascending: negative when `a` comes first. */
export function compareBrowsePlaces (a: BrowsePlace, b: BrowsePlace): number {
  return a.part - b.part || a.key - b.key || (a.cardID < b.cardID ? -1 : a.cardID > b.cardID ? 1 : 0)
}

/** The first line with text of what a card shows, at most SORT_FIELD_LENGTH characters: what a browser row shows of it. */
export function sortFieldOf (shown: string): string {
  const line = shown.split('\n').map((part) => part.replace(/\s+/gu, ' ').trim()).find((part) => part !== '') ?? ''
  const characters = [...line]
  return characters.length <= SORT_FIELD_LENGTH ? line : `${characters.slice(0, SORT_FIELD_LENGTH - 1).join('').trimEnd()}…`
}
