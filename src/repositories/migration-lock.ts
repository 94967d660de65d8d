import type { Db } from 'mongodb'
import { isDuplicateKey } from './duplicate-key.js'

/**
 * The one run of the start-up migrations under way, whatever the instance
 * running it: a document of `migrations` beside the steps' records, held
 * until `until`, which the holder pushes on while it works. One that is past
 * was left by an instance that died midway, and is free to take.
 */
export interface MigrationLockDocument {
  _id: typeof LOCK_ID
  /** this run of migrate(): unique, so that a process running two never mistakes one for the other */
  holder: string
  /** where the holder runs (host and process), for the log of those waiting */
  host: string
  since: Date
  until: Date
  /** the step it runs now (its number and name); absent between steps */
  step?: string
}

/** No step is named so: step names say what they do. */
const LOCK_ID = 'lock'

export function migrationLockRepository (db: Db) {
  const locks = db.collection<MigrationLockDocument>('migrations')
  return {
    /**
     * Takes the lock for `holder` until `until`, if no one holds it now:
     * false when another does. One upsert, which the unique _id makes
     * succeed for one of two instances taking it at once.
     */
    async acquire (holder: string, host: string, now: Date, until: Date): Promise<boolean> {
      try {
        await locks.updateOne(
          { _id: LOCK_ID, until: { $not: { $gt: now } } },
          { $set: { holder, host, since: now, until }, $unset: { step: '' } },
          { upsert: true }
        )
        return true
      } catch (error) {
        if (!isDuplicateKey(error)) throw error
        return false
      }
    },

    /** Keeps the lock until `until`, saying the step it runs; false when another instance took it over. */
    async renew (holder: string, until: Date, step?: string): Promise<boolean> {
      const update = step === undefined ? { $set: { until } } : { $set: { until, step } }
      return (await locks.updateOne({ _id: LOCK_ID, holder }, update)).matchedCount === 1
    },

    async release (holder: string): Promise<void> {
      await locks.deleteOne({ _id: LOCK_ID, holder })
    },

    /** The lock while someone holds it at `now`, or null. */
    async held (now: Date): Promise<MigrationLockDocument | null> {
      return await locks.findOne({ _id: LOCK_ID, until: { $gt: now } })
    }
  }
}

export type MigrationLockRepository = ReturnType<typeof migrationLockRepository>
