import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { DEFAULT_SEARCH_RESULTS } from '../domain/limits.js'
import { FoundCards, SearchCardsBody } from '../schemas/search.js'

const search: FastifyPluginAsyncTypebox = async (app) => {
  app.post('/search-cards', {
    schema: {
      summary: 'Find cards by what they show, across the whole library, regardless of case and accents',
      description: 'A card is found when every word of the query is in its front or back (a cloze note with its answers; formatted text without its markup), each anywhere, ' +
        'as part of a longer word too. Each result names its flashcard (id, name, folder path), to open it, with a snippet of the card around a word found.',
      tags: ['library'],
      body: SearchCardsBody,
      response: { 200: FoundCards }
    }
  }, async (request) => await app.services.search.search(request.account, request.body.query, request.body.limit ?? DEFAULT_SEARCH_RESULTS))
}

export default search
