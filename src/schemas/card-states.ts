import { Type, type Static } from '@sinclair/typebox'
import { MAX_FLAG } from '../domain/card-states.js'
import { Id, JwtToken } from './common.js'

export const CardStandingBody = Type.Object({ jwtToken: JwtToken, flashcardID: Id, cardID: Id })
export type CardStandingBody = Static<typeof CardStandingBody>

export const FlagCardBody = Type.Object({
  jwtToken: JwtToken,
  flashcardID: Id,
  cardID: Id,
  flag: Type.Integer({ minimum: 0, maximum: MAX_FLAG, description: 'Anki\'s flags: 0 none, 1 red, 2 orange, 3 green, 4 blue, 5 pink, 6 turquoise, 7 purple; an integer or a digit string' })
})
export type FlagCardBody = Static<typeof FlagCardBody>
