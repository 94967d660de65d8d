import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { refusals } from '../schemas/common.js'
import { CardDetails } from '../schemas/library-manage.js'
import { CardStandingBody, ChangedStanding, FlagCardBody, SetCardStandingBody } from '../schemas/card-states.js'

/** A card's standing beside its schedule: suspended, buried until the user's next day, flagged; each reversible. */
const cardStates: FastifyPluginAsyncTypebox = async (app) => {
  const { cardStates } = app.services

  app.post('/suspend-card', {
    schema: {
      summary: 'Suspend a card: never in today\'s cards until unsuspended; its schedule is kept',
      tags: ['study'],
      body: CardStandingBody,
      response: { 200: CardDetails, ...refusals(404) }
    }
  }, async (request) => await cardStates.suspend(request.account, request.body.flashcardID, request.body.cardID))

  app.post('/unsuspend-card', {
    schema: {
      summary: 'Unsuspend a card: back in today\'s cards where its schedule puts it (unless it is buried)',
      tags: ['study'],
      body: CardStandingBody,
      response: { 200: CardDetails, ...refusals(404) }
    }
  }, async (request) => await cardStates.unsuspend(request.account, request.body.flashcardID, request.body.cardID))

  app.post('/bury-card', {
    schema: {
      summary: 'Bury a card until tomorrow: out of today\'s cards until the user\'s next day begins, in their calendar',
      tags: ['study'],
      body: CardStandingBody,
      response: { 200: CardDetails, ...refusals(404) }
    }
  }, async (request) => await cardStates.bury(request.account, request.body.flashcardID, request.body.cardID))

  app.post('/unbury-card', {
    schema: {
      summary: 'Unbury a card: back in today\'s cards at once (unless it is suspended)',
      tags: ['study'],
      body: CardStandingBody,
      response: { 200: CardDetails, ...refusals(404) }
    }
  }, async (request) => await cardStates.unbury(request.account, request.body.flashcardID, request.body.cardID))

  app.post('/flag-card', {
    schema: {
      summary: 'Flag a card (0 none, 1-7 Anki\'s colours); a label that changes nothing of its schedule',
      tags: ['study'],
      body: FlagCardBody,
      response: { 200: CardDetails, ...refusals(404) }
    }
  }, async (request) => await cardStates.flag(request.account, request.body.flashcardID, request.body.cardID, request.body.flag))

  app.post('/set-card-standing', {
    schema: {
      summary: 'Suspend, unsuspend, bury, unbury or flag many cards at once (the card browser\'s selection), all or nothing',
      description: 'Each card changes as the operation of one card would change it. A card that is not the user\'s in the flashcard named refuses the whole request ' +
        'with 404, and no card is changed.',
      tags: ['study'],
      body: SetCardStandingBody,
      response: { 200: ChangedStanding, ...refusals(404) }
    }
  }, async (request) => await cardStates.changeMany(request.account, request.body.cards, request.body.action, request.body.flag))
}

export default cardStates
