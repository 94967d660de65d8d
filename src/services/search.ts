import { flashcardIDsIn, flashcardsWithPaths } from '../domain/library-tree.js'
import { Refusal } from '../domain/refusals.js'
import { queryWords, searchTextOf, shownText, snippetOf } from '../domain/search-text.js'
import type { UserDocument } from '../repositories/users.js'
import type { ServiceContext } from './context.js'

/** The cards given their pages in one transaction when an account from before search gets them. */
export const PAGES_MADE_PER_TRANSACTION = 5000

/**
 * Finding cards by what they show (domain/search-text.ts), across the whole
 * library, from the search pages (repositories/search-pages.ts), which every
 * write of a card keeps in step.
 *
 * Accounts that held cards before search came have no pages for those cards:
 * the start-up migration marks them (`searchPending`), and the first search
 * of such an account gives its cards their pages before it searches. One
 * transaction for every card would be too large for an account of many
 * cards, so the cards without a page are found flashcard by flashcard and
 * given pages a few thousand at a time, each batch in the user's transaction
 * and read again there by id, so that an edit or a deletion made meanwhile
 * is what the page holds. Cards written since by this version have pages
 * already and are left as they are. On one instance, searches that find the
 * account marked wait for one making of its pages; two instances making them
 * at once may put a card on two pages, which the search finds once.
 */
export function searchService (context: ServiceContext) {
  const making = new Map<string, Promise<void>>()

  async function makePagesOf (user: UserDocument): Promise<void> {
    const { trees, cards, searchPages } = context.repositories
    for (const flashcardID of flashcardIDsIn((await trees.read(user._id)).folders)) {
      const [paged, cardIDs] = await Promise.all([searchPages.cardIDsOf(user._id, flashcardID), cards.idsOfFlashcard(user._id, flashcardID)])
      const missing = cardIDs.filter((cardID) => !paged.has(cardID))
      for (let start = 0; start < missing.length; start += PAGES_MADE_PER_TRANSACTION) {
        const batch = missing.slice(start, start + PAGES_MADE_PER_TRANSACTION)
        await context.userTransaction(user._id, async ({ cards, searchPages }) => {
          const found = await cards.withContentByIds(user._id, batch)
          await searchPages.add(user._id, flashcardID, found.filter((card) => card.flashcardID === flashcardID).map((card) => ({ cardID: card._id, text: searchTextOf(card) })))
        })
      }
    }
    await context.repositories.users.searchPagesMade(user._id)
  }

  async function pagesMade (user: UserDocument): Promise<void> {
    let made = making.get(user._id)
    if (made === undefined) {
      made = makePagesOf(user).finally(() => making.delete(user._id))
      making.set(user._id, made)
    }
    await made
  }

  /** The words of a query, refused when it holds none. */
  function wordsOf (query: string): string[] {
    const words = queryWords(query)
    if (words.length === 0) throw new Refusal('invalid_value', 'body.query holds no letter, digit or sign to search for: send a word to find')
    return words
  }

  return {
    /** Every card of the user that shows every word of the query, with its flashcard, in the order of the pages (the card browser's search). */
    async matching (user: UserDocument, query: string) {
      const words = wordsOf(query)
      if (user.searchPending === true) await pagesMade(user)
      return await context.repositories.searchPages.find(user._id, words, Number.MAX_SAFE_INTEGER)
    },

    /**
     * The user's cards that show every word of the query, at most `limit`,
     * each with its flashcard (its id, name and folder path) and a snippet of
     * what it shows around a word found; `more` says whether there were more.
     */
    async search (user: UserDocument, query: string, limit: number) {
      const words = wordsOf(query)
      if (user.searchPending === true) await pagesMade(user)
      const { searchPages, trees, cards } = context.repositories
      // one more than asked: whether there are more
      const [hits, tree] = await Promise.all([searchPages.find(user._id, words, limit + 1), trees.read(user._id)])
      const shown = hits.slice(0, limit)
      const flashcards = flashcardsWithPaths(tree, new Set(shown.map((hit) => hit.flashcardID)))
      const contents = new Map((await cards.withContentByIds(user._id, shown.map((hit) => hit.cardID))).map((card) => [card._id, card]))
      const results = []
      for (const hit of shown) {
        const card = contents.get(hit.cardID)
        const flashcard = flashcards.get(hit.flashcardID)
        // deleted since the pages were read
        if (card === undefined || flashcard === undefined) continue
        results.push({
          cardID: hit.cardID,
          flashcardID: hit.flashcardID,
          flashcardName: flashcard.name,
          folder: flashcard.folder,
          snippet: snippetOf(shownText(card), words)
        })
      }
      // grouped as the library is: by folder path, then flashcard (a stable sort keeps each flashcard's cards in their order)
      const place = (result: { folder: string[], flashcardName: string }): string => [...result.folder, result.flashcardName].join('\u0000')
      results.sort((a, b) => place(a) < place(b) ? -1 : place(a) > place(b) ? 1 : 0)
      return { results, more: hits.length > limit ? 'true' as const : 'false' as const }
    }
  }
}

export type SearchService = ReturnType<typeof searchService>
