import { Type, type Static } from '@sinclair/typebox'
import { MAX_FLAG, STANDING_ACTIONS } from '../domain/card-states.js'
import { Id, JwtToken, StringEnum } from './common.js'

export const CardStandingBody = Type.Object({ jwtToken: JwtToken, flashcardID: Id, cardID: Id })
export type CardStandingBody = Static<typeof CardStandingBody>

export const FlagCardBody = Type.Object({
  jwtToken: JwtToken,
  flashcardID: Id,
  cardID: Id,
  flag: Type.Integer({ minimum: 0, maximum: MAX_FLAG, description: 'Anki\'s flags: 0 none, 1 red, 2 orange, 3 green, 4 blue, 5 pink, 6 turquoise, 7 purple; an integer or a digit string' })
})
export type FlagCardBody = Static<typeof FlagCardBody>

/** The most cards one set-card-standing or delete-cards takes: a page of the card browser. */
export const MAX_SELECTED_CARDS = 500

/** The cards of a selection in the card browser, each with the flashcard holding it; `done`: what happens to each, "changed" say. */
export function SelectedCards (done: string) {
  return Type.Array(Type.Object({ flashcardID: Id, cardID: Id }), {
    minItems: 1,
    maxItems: MAX_SELECTED_CARDS,
    description: `the cards, at most ${MAX_SELECTED_CARDS}, each with the flashcard holding it; a card named twice is ${done} once`
  })
}

export const SetCardStandingBody = Type.Object({
  jwtToken: JwtToken,
  cards: SelectedCards('changed'),
  action: StringEnum(STANDING_ACTIONS, { description: 'what suspend-card, unsuspend-card, bury-card, unbury-card or flag-card does to one card, done to each' }),
  flag: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_FLAG, description: 'with action "flag" only, and then required: 0 none, 1-7 Anki\'s colours; an integer or a digit string' }))
})
export type SetCardStandingBody = Static<typeof SetCardStandingBody>

export const ChangedStanding = Type.Object({
  changed: Type.String({ description: 'how many cards were changed: every card named, each once' })
})
