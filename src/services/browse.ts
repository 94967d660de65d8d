import { creationBounds } from '../domain/card-pages.js'
import { browseCursorAfter, browsePagesOf, compareBrowsePlaces, readBrowseCursor, type BrowsePlace, type BrowseRequest } from '../domain/browse.js'
import { BROWSE_PAGE_ROWS } from '../domain/browse-options.js'
import { flashcardIDsIn, flashcardsWithPaths, flashcardWithPath, locateFolder } from '../domain/library-tree.js'
import { Refusal } from '../domain/refusals.js'
import { CardState } from '../domain/scheduling.js'
import type { BrowsedCard, BrowseFilter, KeyBounds } from '../repositories/card-states.js'
import type { UserDocument } from '../repositories/users.js'
import type { ServiceContext } from './context.js'
import type { SearchService } from './search.js'
import { withBurialsOver } from './today.js'
import { browseRow } from './wire.js'
import { stockOfMadeHere } from '../domain/notes.js'

const DAY = 86_400_000
/** Past every due a schedule gives but a few: a window of due reaching it takes the rest. */
const DUE_HORIZON = 100 * 365 * DAY
/** The cards of a search read by id at a time. */
const SEARCHED_PER_READ = 5000

/**
 * The card browser (browse-cards): every card of the library, a folder or a
 * flashcard, whatever its standing, filtered, sorted by an order an index
 * gives and read a page at a time from after the cursor's place
 * (domain/browse.ts). Without a query, a page is read in windows of its key
 * (cardStates.browse) and the total counted by the database. With a query, the
 * search pages give every card that shows its words (as search-cards finds
 * them); those are read by id, filtered and sorted here: the cost follows the
 * cards found. So are the cards of a rare standing (suspended, buried,
 * flagged), read whole by an index of them alone. The whole library's total is
 * the account's count of its cards.
 */
export function browseService (context: ServiceContext, search: SearchService) {
  const { repositories } = context

  return {
    async browse (user: UserDocument, request: BrowseRequest, cursor?: string) {
      if (request.folderID !== undefined && request.flashcardID !== undefined) {
        throw new Refusal('invalid_field', 'body has both "folderID" and "flashcardID": send one of them to browse a part of the library, or neither to browse all of it')
      }
      const of = browsePagesOf(request)
      // read, and refused, before anything else is
      const after = cursor === undefined ? null : readBrowseCursor(cursor, of)
      const now = context.clock()
      const account = await withBurialsOver(context, user, now)
      const tree = await repositories.trees.read(account._id)
      let flashcardIDs: string[] | undefined
      if (request.flashcardID !== undefined) {
        flashcardWithPath(tree, request.flashcardID)
        flashcardIDs = [request.flashcardID]
      } else if (request.folderID !== undefined) {
        const folder = locateFolder(tree, request.folderID)
        if (folder === null) throw new Refusal('folder_not_found', `no folder ${request.folderID}`)
        flashcardIDs = flashcardIDsIn([folder.node])
      }
      const filter: BrowseFilter = { now, ...(flashcardIDs === undefined ? {} : { flashcardIDs }), ...(request.standing === undefined ? {} : { standing: request.standing }) }
      const descending = request.order === 'desc'
      const placeOf = (card: BrowsedCard): BrowsePlace => request.sort === 'created'
        ? { part: 0, key: card.createdOrder, cardID: card._id }
        : { part: card.state === CardState.New ? 1 : 0, key: card.due.getTime(), cardID: card._id }

      let found: Array<{ card: BrowsedCard, place: BrowsePlace }>
      let total: number
      // a rare standing is read whole by an index holding only its cards: windows of an order would read the library to find them
      let matched = request.query === undefined ? await repositories.cardStates.browsedOfStanding(account._id, filter) : null
      if (request.query !== undefined) {
        const inScope = flashcardIDs === undefined ? null : new Set(flashcardIDs)
        const hits = (await search.matching(account, request.query)).filter((hit) => inScope === null || inScope.has(hit.flashcardID))
        matched = []
        for (let start = 0; start < hits.length; start += SEARCHED_PER_READ) {
          matched.push(...await repositories.cardStates.browsedByIds(account._id, filter, hits.slice(start, start + SEARCHED_PER_READ).map((hit) => hit.cardID)))
        }
      }
      if (matched !== null) {
        const direction = descending ? -1 : 1
        const ordered = matched.map((card) => ({ card, place: placeOf(card) })).sort((a, b) => direction * compareBrowsePlaces(a.place, b.place))
        total = ordered.length
        found = (after === null ? ordered : ordered.filter(({ place }) => direction * compareBrowsePlaces(place, after) > 0)).slice(0, BROWSE_PAGE_ROWS + 1)
      } else {
        const bounds: Record<'createdOrder' | 'due', KeyBounds> = {
          createdOrder: { ...creationBounds(account.createdAt, now), firstSpan: (BROWSE_PAGE_ROWS + 1) * 2 },
          // a batch created together has consecutive createdOrders: a first window about two pages of it,
          due: { floor: account.createdAt.getTime(), horizon: now.getTime() + DUE_HORIZON, firstSpan: DAY }
        };
        const whole = flashcardIDs === undefined && request.standing === undefined
        ;[found, total] = await Promise.all([
          repositories.cardStates.browse(account._id, filter, request.sort, request.order, after, BROWSE_PAGE_ROWS + 1, bounds),
          // the whole library is the account's count of its cards, kept with every card added or removed
          whole ? account.usage?.cards ?? 0 : repositories.cardStates.countBrowsed(account._id, filter)
        ])
      }
      // the content of the page's cards only, read once their states have chosen them
      const chosen = found.slice(0, BROWSE_PAGE_ROWS)
      const page = await repositories.cardStates.withBrowsedContent(account._id, chosen.map(({ card }) => card))
      const flashcards = flashcardsWithPaths(tree, new Set(page.map((card) => card.flashcardID)))
      // the note types' names, read once when a card of the page names one
      const noteTypes = page.some((card) => card.noteTypeID !== undefined)
        ? new Map((await repositories.noteTypes.ofUser(account._id)).map((noteType) => [noteType._id, noteType.name]))
        : new Map<string, string>()
      const cards = page.flatMap((card) => {
        const flashcard = flashcards.get(card.flashcardID)
        // a card made here is a note of its own Basic, or of Cloze
        const noteType = (card.noteTypeID === undefined ? undefined : noteTypes.get(card.noteTypeID)) ?? stockOfMadeHere(card.clozeNumber === undefined ? 'basic' : 'cloze').name
        return flashcard === undefined ? [] : [browseRow(card, flashcard, account, now, noteType)]
      })
      const last = chosen.at(-1)
      return {
        cards,
        total: String(total),
        ...(found.length > BROWSE_PAGE_ROWS && last !== undefined ? { nextCursor: browseCursorAfter(of, last.place) } : {})
      }
    }
  }
}

export type BrowseService = ReturnType<typeof browseService>
