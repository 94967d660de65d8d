import { Type, type Static } from '@sinclair/typebox'
import { JwtToken, StringEnum } from './common.js'

export const OptimizeScheduleBody = Type.Object({
  jwtToken: JwtToken,
  reschedule: Type.Optional(Type.Boolean({ description: 'if the fitted parameters are adopted, give every studied card the schedule they give it (default false)' }))
})

export const ResetScheduleBody = Type.Object({
  jwtToken: JwtToken,
  reschedule: Type.Optional(Type.Boolean({ description: 'give every studied card the schedule the default parameters give it (default false)' }))
})

export const ScheduleBody = Type.Object({ jwtToken: JwtToken })

const FitFigures = Type.Object({
  logLoss: Type.String({ description: 'log loss on reviews made after those the parameters were fitted to (lower is better)' }),
  rmseBins: Type.String({ description: 'RMSE(bins), predicted against actual recall in bins of similar reviews (lower is better)' })
})

const RetentionCost = Type.Object({
  desiredRetention: Type.String({ description: 'a desired retention, two decimals' }),
  reviewsPerDay: Type.String({ description: 'the answers a day it takes, on average over the next 365 days (estimate)' })
})

export const ScheduleFit = Type.Object({
  parameters: Type.Array(Type.String(), { minItems: 21, maxItems: 21, description: 'the 21 FSRS-6 weights fitted to the whole log' }),
  reviews: Type.String({ description: 'reviews of the log used: those of each card from its last learning block' }),
  items: Type.String({ description: 'of those, the reviews predicted: each of a card on a later day than its review before' }),
  default: FitFigures,
  fitted: FitFigures,
  adopted: StringEnum(['true', 'false'], { description: 'whether the fitted parameters predict better than the defaults, and are now used' }),
  workload: Type.Array(RetentionCost, { description: 'what each desired retention costs with the parameters in use after this fit' }),
  newCardsPerDay: Type.Optional(Type.String({ description: 'the new cards a day the workload adds: the user\'s setting at the fit (absent on fits made before it was kept)' })),
  rescheduled: Type.String({ description: 'cards given new schedules, when asked for' }),
  fittedAt: Type.String({ description: 'ISO-8601 UTC instant' })
})
export type ScheduleFit = Static<typeof ScheduleFit>

export const ScheduleStatus = Type.Object({
  parameters: Type.Array(Type.String(), { minItems: 21, maxItems: 21, description: 'the 21 FSRS-6 weights reviews are scheduled with' }),
  fitted: StringEnum(['true', 'false'], { description: 'true when they are parameters fitted to the user\'s reviews, false for the defaults' }),
  desiredRetention: Type.String(),
  minimumItems: Type.String({ description: 'the fewest reviews predicted a fit takes' }),
  lastFit: Type.Optional(ScheduleFit)
})
export type ScheduleStatus = Static<typeof ScheduleStatus>

export const ScheduleReset = Type.Composite([ScheduleStatus, Type.Object({ rescheduled: Type.String({ description: 'cards given new schedules, when asked for' }) })])
export type ScheduleReset = Static<typeof ScheduleReset>
