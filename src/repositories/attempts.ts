import type { Db } from 'mongodb'
import { isDuplicateKey } from './duplicate-key.js'

/**
 * One counter of attempts (logins, registrations) in a window of time. The
 * window opens with the first attempt and lasts its length; the next attempt
 * after it opens a new one. Kept in the database, so that every instance of
 * the service counts on the same counter.
 */
export interface AttemptDocument {
  /** what is counted, as the caller keys it (a digest: no address or email is stored as it is) */
  _id: string
  count: number
  /** when the window closes; the TTL index removes the counter some time after */
  resetsAt: Date
}

/** A counter after one more attempt: how many its window holds, and when it closes. */
export interface AttemptCount { count: number, resetsAt: Date }

/** How many times a counter is tried again when another instance opens its window at the same moment. */
const OPENING_RACES = 3

export function attemptsRepository (db: Db) {
  const attempts = db.collection<AttemptDocument>('attempts')
  return {
    /**
     * Counts one attempt on `key`, atomically whatever the number of
     * instances: one update while the window is open, and the opening of a
     * new window is an upsert that the unique _id makes happen once.
     */
    async count (key: string, windowMs: number, now: Date): Promise<AttemptCount> {
      for (let race = 0; ; race++) {
        const open = await attempts.findOneAndUpdate(
          { _id: key, resetsAt: { $gt: now } },
          { $inc: { count: 1 } },
          { returnDocument: 'after' }
        )
        if (open !== null) return { count: open.count, resetsAt: open.resetsAt }
        try {
          // no counter, or one whose window has closed: a new window with this attempt in it
          const opened = await attempts.findOneAndUpdate(
            { _id: key, resetsAt: { $not: { $gt: now } } },
            { $set: { count: 1, resetsAt: new Date(now.getTime() + windowMs) } },
            { upsert: true, returnDocument: 'after' }
          )
          if (opened !== null) return { count: opened.count, resetsAt: opened.resetsAt }
        } catch (error) {
          // another instance opened the window first: count in it
          if (!isDuplicateKey(error)) throw error
        }
        if (race >= OPENING_RACES) throw new Error(`the attempt counter ${key} could not be opened`)
      }
    }
  }
}

export type AttemptsRepository = ReturnType<typeof attemptsRepository>
