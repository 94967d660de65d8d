import { Type } from '@sinclair/typebox'
import { HEATMAP_DAYS } from '../domain/stats.js'
import { JwtToken } from './common.js'

export const UndoReviewBody = Type.Object({ jwtToken: JwtToken })

export const UndoneReview = Type.Object({
  cardID: Type.String(),
  flashcardID: Type.String({ description: 'the flashcard holding the card: with cardID, what get-flashcard and review-card take' }),
  review_status: Type.String({ description: 'the card\'s review_status again, as before the review' }),
  last_review: Type.String({ description: 'DD/MM/YYYY in the user\'s calendar: the review before, or the creation day' }),
  due: Type.String({ description: 'ISO-8601 UTC instant the card is due again' }),
  total_xp: Type.String({ description: 'the user\'s XP with the review\'s XP taken back' }),
  undone_reviewID: Type.String({ description: 'the reviewID of the review taken back (the client\'s, or one the server made)' })
})

export const StatsBody = Type.Object({ jwtToken: JwtToken })

const CountText = Type.String({ pattern: '^[0-9]+$' })

export const Stats = Type.Object({
  total_xp: Type.String(),
  weekly_xp: Type.String({ description: 'XP gained since Monday of this week, in the user\'s calendar' }),
  streak: Type.String({ description: 'consecutive days with a review, ending today, or yesterday while today has none yet' }),
  heatmap: Type.Record(Type.String({ pattern: '^[0-9]{2}/[0-9]{2}/[0-9]{4}$' }), CountText, {
    description: `DD/MM/YYYY -> reviews that day, over the last ${HEATMAP_DAYS} days including today; days without reviews are left out`
  }),
  cards: Type.Object({
    new: CountText,
    learning: CountText,
    review: CountText,
    relearning: CountText,
    total: CountText
  }, { description: 'the user\'s cards by state' })
})
