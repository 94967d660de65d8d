import { MongoServerError, type Db } from 'mongodb'
import type { LocalDay } from '../domain/calendar.js'
import { oneAtATime } from './one-at-a-time.js'

export interface UserSettings {
  displayName: string
  timezone: string
  dayStartHour: number
  newCardsPerDay: number
  reviewsPerDay: number
  desiredRetention: number
}

/** Reviews made on the user's current day, kept with the account so today's cards need no count query. */
export interface StudyDay {
  day: LocalDay
  /** the day's bounds in the calendar the reviews were made in; a settings change may move today's */
  start: Date
  end: Date
  reviews: number
  newCards: number
}

export interface UserDocument extends UserSettings {
  _id: string
  /** normalised (trimmed, lower case): the unique index makes emails case-insensitive */
  email: string
  passwordHash: string
  totalXp: number
  studyDay?: StudyDay
  createdAt: Date
}

export const DEFAULT_SETTINGS: Omit<UserSettings, 'displayName'> = {
  timezone: 'UTC',
  dayStartHour: 4,
  newCardsPerDay: 20,
  reviewsPerDay: 200,
  desiredRetention: 0.9
}

export function normaliseEmail (email: string): string {
  return email.trim().toLowerCase()
}

export class EmailTakenError extends Error {
  override name = 'EmailTakenError'
}

export function isDuplicateKey (error: unknown): boolean {
  return error instanceof MongoServerError && error.code === 11000
}

export function usersRepository (db: Db) {
  const users = db.collection<UserDocument>('users')
  // FerretDB 1.24 writes an updated account back whole: two updates at once would lose one
  const perUser = oneAtATime()
  return {
    async insert (user: UserDocument): Promise<void> {
      try {
        await users.insertOne(user)
      } catch (error) {
        if (isDuplicateKey(error)) throw new EmailTakenError(user.email)
        throw error
      }
    },

    findByEmail (email: string): Promise<UserDocument | null> {
      return users.findOne({ email: normaliseEmail(email) })
    },

    /** Adds XP atomically and returns the new total. */
    async addXp (userID: string, xp: number): Promise<number> {
      const user = await perUser(userID, () => users.findOneAndUpdate(
        { _id: userID },
        { $inc: { totalXp: xp } },
        // no projection: FerretDB 1.24 does not implement one in findAndModify
        { returnDocument: 'after' }
      ))
      return user?.totalXp ?? 0
    },

    /**
     * Adds a finished review's XP and counts it on its day, in one update;
     * returns the new XP total. A review of a new day starts the day's count
     * afresh; one of a day already past (a cut-off review finished late) only adds XP.
     */
    async recordReview (userID: string, review: { day: LocalDay, start: Date, end: Date, wasNew: boolean, xp: number }): Promise<number> {
      const counter = review.wasNew ? 'studyDay.newCards' : 'studyDay.reviews'
      const user = await perUser(userID, async () =>
        await users.findOneAndUpdate(
          { _id: userID, 'studyDay.day': review.day },
          { $inc: { totalXp: review.xp, [counter]: 1 } },
          { returnDocument: 'after' }
        ) ??
        await users.findOneAndUpdate(
          { _id: userID, $or: [{ studyDay: { $exists: false } }, { 'studyDay.day': { $lt: review.day } }] },
          {
            $inc: { totalXp: review.xp },
            $set: { studyDay: { day: review.day, start: review.start, end: review.end, reviews: review.wasNew ? 0 : 1, newCards: review.wasNew ? 1 : 0 } }
          },
          { returnDocument: 'after' }
        ) ??
        await users.findOneAndUpdate({ _id: userID }, { $inc: { totalXp: review.xp } }, { returnDocument: 'after' })
      )
      return user?.totalXp ?? 0
    },

    /** Takes a review back out of the XP total and, if it was made today, out of today's count. */
    async unrecordReview (userID: string, review: { day: LocalDay, wasNew: boolean, xp: number }): Promise<number> {
      const counter = review.wasNew ? 'studyDay.newCards' : 'studyDay.reviews'
      const user = await perUser(userID, async () =>
        await users.findOneAndUpdate(
          { _id: userID, 'studyDay.day': review.day, [counter]: { $gt: 0 } },
          { $inc: { totalXp: -review.xp, [counter]: -1 } },
          { returnDocument: 'after' }
        ) ??
        await users.findOneAndUpdate({ _id: userID }, { $inc: { totalXp: -review.xp } }, { returnDocument: 'after' })
      )
      return user?.totalXp ?? 0
    },

    findById (userID: string): Promise<UserDocument | null> {
      return users.findOne({ _id: userID })
    },

    /** Changes some settings and returns the account as it now is; null when it is gone. */
    updateSettings (userID: string, changes: Partial<UserSettings>): Promise<UserDocument | null> {
      return perUser(userID, () => users.findOneAndUpdate(
        { _id: userID },
        { $set: changes },
        // no projection: FerretDB 1.24 does not implement one in findAndModify
        { returnDocument: 'after' }
      ))
    }
  }
}

export type UsersRepository = ReturnType<typeof usersRepository>
