import type { ClientSession, Db } from 'mongodb'
import type { LocalDay } from '../domain/calendar.js'
import type { ActivityByDay } from '../domain/goals.js'

/**
 * The reviews and XP of one user on one of their days: kept up to date in
 * the transaction of every review and undo, so that goals, streaks and the
 * heatmap read one document per day instead of every review of the window.
 */
export interface DayActivityDocument {
  /** `${userID}:${day}` */
  _id: string
  userID: string
  day: LocalDay
  reviews: number
  xp: number
}

export function activityId (userID: string, day: LocalDay): string {
  return `${userID}:${day}`
}

export function activityRepository (db: Db, session?: ClientSession) {
  const activity = db.collection<DayActivityDocument>('activity')
  const add = async (userID: string, day: LocalDay, change: { reviews: number, xp: number }): Promise<void> => {
    await activity.updateOne(
      { _id: activityId(userID, day) },
      { $inc: change, $setOnInsert: { userID, day } },
      { upsert: true, session }
    )
  }
  return {
    /** Counts one review on its day. */
    async record (userID: string, day: LocalDay, xp: number): Promise<void> {
      await add(userID, day, { reviews: 1, xp })
    },

    /** Counts reviews imported from Anki on their days; they earn no XP. */
    async recordImported (userID: string, days: ReadonlyArray<{ day: LocalDay, reviews: number }>): Promise<void> {
      if (days.length === 0) return
      await activity.bulkWrite(days.map(({ day, reviews }) => ({
        updateOne: { filter: { _id: activityId(userID, day) }, update: { $inc: { reviews, xp: 0 }, $setOnInsert: { userID, day } }, upsert: true }
      })), { ordered: false, session })
    },

    /** Takes one review back out of its day (undo). */
    async unrecord (userID: string, day: LocalDay, xp: number): Promise<void> {
      await add(userID, day, { reviews: -1, xp: -xp })
    },

    /** Reviews and XP per user-day from `from` through `to`, days without reviews left out. Index user_day. */
    async byDay (userID: string, from: LocalDay, to: LocalDay): Promise<ActivityByDay> {
      const days = await activity.find({ userID, day: { $gte: from, $lte: to } }, { projection: { day: 1, reviews: 1, xp: 1 }, session }).toArray()
      return new Map(days.filter((entry) => entry.reviews > 0).map(({ day, reviews, xp }) => [day, { reviews, xp }]))
    }
  }
}

export type ActivityRepository = ReturnType<typeof activityRepository>
