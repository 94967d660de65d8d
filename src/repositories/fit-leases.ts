import type { Db } from 'mongodb'
import { isDuplicateKey } from './duplicate-key.js'

/**
 * The one fit of a user's parameters under way (optimize-schedule), whatever
 * the instance running it: held until `until`, which the holder pushes on
 * while it works; one that is past was left by an instance that died, and is
 * free to take. One document per user, its _id the userID.
 */
export interface FitLeaseDocument {
  _id: string
  userID: string
  /** the fit under way: the account's scheduleFit carries the same id once it is stored */
  fitID: string
  /** the instance running it */
  holder: string
  until: Date
}

export function fitLeasesRepository (db: Db) {
  const leases = db.collection<FitLeaseDocument>('fitLeases')
  return {
    /**
     * Takes the user's lease for the fit `fitID` until `until`: null, or the
     * fit that holds it (its fitID; '' when it was given back just now). One
     * upsert, which the unique _id makes succeed for one of two instances
     * taking it at once.
     */
    async acquire (userID: string, fitID: string, holder: string, now: Date, until: Date): Promise<string | null> {
      try {
        await leases.updateOne(
          { _id: userID, until: { $not: { $gt: now } } },
          { $set: { userID, fitID, holder, until } },
          { upsert: true }
        )
        return null
      } catch (error) {
        if (!isDuplicateKey(error)) throw error
        return (await leases.findOne({ _id: userID }))?.fitID ?? ''
      }
    },

    /** Keeps the lease of `fitID` until `until`; false when it is no longer that fit's. */
    async renew (userID: string, fitID: string, until: Date): Promise<boolean> {
      return (await leases.updateOne({ _id: userID, fitID }, { $set: { until } })).matchedCount === 1
    },

    async release (userID: string, fitID: string): Promise<void> {
      await leases.deleteOne({ _id: userID, fitID })
    },

    /** The user's lease, past or not, or null. */
    read (userID: string): Promise<FitLeaseDocument | null> {
      return leases.findOne({ _id: userID })
    }
  }
}

export type FitLeasesRepository = ReturnType<typeof fitLeasesRepository>
