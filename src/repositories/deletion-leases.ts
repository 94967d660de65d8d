import type { ClientSession, Db } from 'mongodb'
import { isDuplicateKey } from './duplicate-key.js'

/**
 * A deletion of a folder or flashcard past one transaction of cards (services/library.ts) under
 * way, whatever the instance running it: held until `until`, which the holder pushes on between
 * its batches; one that is past was left by an instance that died, and is free to take over. The
 * deletion's last transaction ends it with its answer, which a request that waited for it on
 * another instance answers too. One document per deletion, its _id the user's id and the id of
 * the folder or flashcard deleted, `${userID}/${id}`.
 */
export interface DeletionLeaseDocument {
  _id: string
  userID: string
  /** the instance running it */
  holder: string
  until: Date
  /** the deletion's answer, once it is over */
  answer?: Record<string, string>
}

export function deletionLeasesRepository (db: Db, session?: ClientSession) {
  const leases = db.collection<DeletionLeaseDocument>('deletionLeases')
  const inSession = session === undefined ? {} : { session }
  return {
    /**
     * Takes the lease of the deletion `key` for `holder` until `until`: null, or the lease as it
     * is when another holds it or the deletion is over (one past its `until` when it was given
     * back just now). One upsert, which the unique _id makes succeed for one of two instances
     * taking it at once; an ended deletion is never taken again.
     */
    async acquire (key: string, userID: string, holder: string, now: Date, until: Date): Promise<DeletionLeaseDocument | null> {
      try {
        await leases.updateOne(
          { _id: key, until: { $not: { $gt: now } }, answer: { $exists: false } },
          { $set: { userID, holder, until } },
          { upsert: true, ...inSession }
        )
        return null
      } catch (error) {
        if (!isDuplicateKey(error)) throw error
        return await leases.findOne({ _id: key }, inSession) ?? { _id: key, userID, holder: '', until: now }
      }
    },

    /** Keeps the lease of `holder` until `until`; false when another instance took it over, or the deletion is over. */
    async renew (key: string, holder: string, until: Date): Promise<boolean> {
      return (await leases.updateOne({ _id: key, holder, answer: { $exists: false } }, { $set: { until } }, inSession)).matchedCount === 1
    },

    /** Ends the deletion `holder` holds with its answer; false when another instance took it over. */
    async end (key: string, holder: string, answer: Record<string, string>, now: Date): Promise<boolean> {
      return (await leases.updateOne({ _id: key, holder, answer: { $exists: false } }, { $set: { answer, until: now } }, inSession)).matchedCount === 1
    },

    /** Gives back a deletion stopped or failed before its end, for another request to take up. */
    async release (key: string, holder: string): Promise<void> {
      await leases.deleteOne({ _id: key, holder, answer: { $exists: false } }, inSession)
    },

    /** The deletion's lease, past, ended or not, or null. */
    read (key: string): Promise<DeletionLeaseDocument | null> {
      return leases.findOne({ _id: key }, inSession)
    }
  }
}

export type DeletionLeasesRepository = ReturnType<typeof deletionLeasesRepository>
