import { addDays, formatDay, userDay, type LocalDay } from '../domain/calendar.js'
import type { DayActivity } from '../domain/goals.js'
import { HEATMAP_DAYS, heatmapStart, statsOf, streakOf } from '../domain/stats.js'
import type { UserDocument } from '../repositories/users.js'
import type { ServiceContext } from './context.js'

/** XP, streak, heatmap and card counts. */
export function statsService ({ repositories, clock }: ServiceContext) {
  return {
    /**
     * The daily activity is read a year at a time: one year gives the heatmap
     * and this week; a streak that reaches the start of what was read sends
     * the reading a year further back.
     */
    async progressStats (user: UserDocument) {
      const today = userDay(clock(), user).day
      let from = heatmapStart(today)
      const [recent, cardStates] = await Promise.all([
        repositories.activity.byDay(user._id, from, today),
        repositories.cardStates.countByState(user._id)
      ])
      const activity = new Map<LocalDay, DayActivity>(recent)
      while (streakOf(activity, today).first === from) {
        const earlier = addDays(from, -HEATMAP_DAYS)
        for (const [day, done] of await repositories.activity.byDay(user._id, earlier, addDays(from, -1))) {
          activity.set(day, done)
        }
        from = earlier
      }

      const stats = statsOf({ totalXp: user.totalXp, activity, today, cardStates })
      const count = (value: number): string => String(value)
      return {
        total_xp: count(stats.totalXp),
        weekly_xp: count(stats.weeklyXp),
        streak: count(stats.streak),
        heatmap: Object.fromEntries(stats.heatmap.map(({ day, reviews }) => [formatDay(day), count(reviews)])),
        cards: {
          new: count(stats.cards.new),
          learning: count(stats.cards.learning),
          review: count(stats.cards.review),
          relearning: count(stats.cards.relearning),
          total: count(stats.cards.total)
        }
      }
    }
  }
}

export type StatsService = ReturnType<typeof statsService>
