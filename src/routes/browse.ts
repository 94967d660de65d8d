import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { BROWSE_PAGE_ROWS } from '../domain/browse-options.js'
import { BrowseCardsBody, BrowsedCards } from '../schemas/browse.js'
import { refusals } from '../schemas/common.js'

const browse: FastifyPluginAsyncTypebox = async (app) => {
  app.post('/browse-cards', {
    schema: {
      summary: 'Browse cards, as Anki\'s browser: every card of the library, a folder or a flashcard, suspended and buried ones too, filtered, sorted, a page at a time',
      description: 'Each card with its flashcard, the first line it shows, its state, due day, interval, difficulty, lapses, reps and standing. ' +
        `A page holds at most ${BROWSE_PAGE_ROWS} cards; nextCursor, while more follow, asks for the cards after the page's last, as they are then. ` +
        'Sorts are those an index gives: creation order and due.',
      tags: ['library'],
      body: BrowseCardsBody,
      response: { 200: BrowsedCards, ...refusals(404) }
    }
  }, async (request) => {
    const { folderID, flashcardID, standing, query, sort, order, cursor } = request.body
    return await app.services.browse.browse(request.account, {
      ...(folderID === undefined ? {} : { folderID }),
      ...(flashcardID === undefined ? {} : { flashcardID }),
      ...(standing === undefined ? {} : { standing }),
      ...(query === undefined ? {} : { query }),
      sort: sort ?? 'created',
      order: order ?? 'asc'
    }, cursor)
  })
}

export default browse
