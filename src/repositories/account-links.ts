import type { ClientSession, Db } from 'mongodb'
import type { StoredLink } from '../domain/account-links.js'

/** A link the service mailed (domain/account-links.ts), under the digest of its token. */
export interface AccountLinkDocument extends StoredLink {
  /** the digest of the link's token: the token itself is never stored */
  _id: string
  userID: string
  /** the address a change of email moves the account to, once confirmed */
  newEmail?: string
  createdAt: Date
}

export function accountLinksRepository (db: Db, session?: ClientSession) {
  const links = db.collection<AccountLinkDocument>('accountLinks')
  const inSession = { session }
  return {
    async insert (link: AccountLinkDocument): Promise<void> {
      await links.insertOne(link, inSession)
    },

    find (digest: string): Promise<AccountLinkDocument | null> {
      return links.findOne({ _id: digest }, inSession)
    },

    /**
     * Marks the link used, only if it was not: of two uses at once, one
     * finds it unused. False when it was used (or ended) already.
     */
    async use (digest: string, now: Date): Promise<boolean> {
      const used = await links.updateOne(
        { _id: digest, usedAt: { $exists: false }, endedByEmailChange: { $exists: false } },
        { $set: { usedAt: now } },
        inSession
      )
      return used.modifiedCount === 1
    },

    /** Ends every link of the account not yet used (the user_links index): its email changed. */
    async endAll (userID: string, now: Date): Promise<void> {
      await links.updateMany(
        { userID, usedAt: { $exists: false }, endedByEmailChange: { $exists: false } },
        { $set: { endedByEmailChange: now } },
        inSession
      )
    }
  }
}

export type AccountLinksRepository = ReturnType<typeof accountLinksRepository>
