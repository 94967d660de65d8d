import { Type, type Static } from '@sinclair/typebox'
import { GOAL_TYPES } from '../domain/goals.js'
import { Id, JwtToken, StringEnum } from './common.js'

export const GoalObject = Type.Object({
  data: Type.Union([
    Type.Object({ cards_revised_so_far: Type.String(), cards_to_revise: Type.String() }),
    Type.Object({ goal_xp: Type.String(), start_date: Type.String(), starting_xp: Type.String() })
  ]),
  end_date: Type.String({ description: 'DD/MM/YYYY' }),
  fail_date: Type.String({ description: '" " (a double quote, a space, a double quote) until failed, then DD/MM/YYYY' }),
  status: Type.Union([Type.Literal('completed'), Type.Literal('in progress'), Type.Literal('failed')]),
  title: Type.String(),
  type: Type.Union([Type.Literal('Card'), Type.Literal('XP')])
})
/** A goal as the published interface shows it: every value a string, dates DD/MM/YYYY. */
export type GoalView = Static<typeof GoalObject>

export const GoalMap = Type.Record(Type.String({ pattern: '^[0-9]+$' }), GoalObject, {
  description: 'goal id -> goal; {} when the token is invalid'
})

export const CreateGoalBody = Type.Object({
  jwtToken: JwtToken,
  type: StringEnum(GOAL_TYPES),
  target: Type.Integer({ minimum: 1, maximum: 1_000_000, description: 'cards to revise or XP to gain; an integer or a digit string' }),
  end_date: Type.String({ description: 'DD/MM/YYYY, today or later in the user\'s calendar' })
})

export const CreatedGoal = Type.Object({ goalID: Id, goal: GoalObject })

/** Any token, even a missing or mistyped one, is checked by the handler: an invalid one gives {} (docs/interface.md). */
export const UpdateGoalStatusBody = Type.Object({
  jwtToken: Type.Optional(Type.Unknown({ description: 'token from register or login' }))
})

export const EditGoalBody = Type.Object({
  jwtToken: JwtToken,
  goalID: Id,
  target: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, description: 'the new target; an integer or a digit string' })),
  end_date: Type.Optional(Type.String({ description: 'the new end day, DD/MM/YYYY, today or later in the user\'s calendar' }))
})

export const DeleteGoalBody = Type.Object({ jwtToken: JwtToken, goalID: Id })

export const DeletedGoal = Type.Object({ goalID: Id, deleted: Type.Literal('true') })
