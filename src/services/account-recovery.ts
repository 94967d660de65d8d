import { KNOWN_ADDRESSES, knownAddress, normaliseEmail } from '../domain/accounts.js'
import {
  emailChangeMail, invalidLink, LINK_LIFETIME_MS, linkAddress, linkDigest, linkEnded, linkProblem, linkUsed, newLinkToken, passwordResetMail,
  type LinkPurpose
} from '../domain/account-links.js'
import { hashPassword, verifyPassword } from '../domain/passwords.js'
import { invalidToken, Refusal } from '../domain/refusals.js'
import type { AccountLinkDocument } from '../repositories/account-links.js'
import { EmailTakenError, type UserDocument } from '../repositories/users.js'
import type { SessionOwner } from './accounts.js'
import type { MailContext, ServiceContext } from './context.js'

const WRONG_PASSWORD = 'wrong password: send the account\'s current password'
const EMAIL_TAKEN = 'another account has this email: choose another address'

/**
 * Proving who holds an account by its mailbox: a reset of a forgotten
 * password, and a change of email confirmed from the new address. Each
 * mails a link (domain/account-links.ts) that works once, for an hour.
 */
export function accountRecoveryService ({ repositories, transaction, clock }: ServiceContext, { outbox, publicUrl }: MailContext) {
  /**
   * Stores a new link of the account; the address the mail carries, whose token is kept nowhere
   * else. Null when the account is gone or being deleted: the link is written after the account,
   * so that none is left of an account whose documents are being removed.
   */
  async function newLink (account: UserDocument, purpose: LinkPurpose, newEmail?: string): Promise<string | null> {
    const token = newLinkToken()
    const now = clock()
    const stored = await transaction(async ({ accountLinks, users }) => {
      if (!await users.lockForWrite(account._id)) return false
      await accountLinks.insert({
        _id: linkDigest(token),
        userID: account._id,
        purpose,
        generation: account.tokenGeneration ?? 0,
        ...(newEmail === undefined ? {} : { newEmail }),
        createdAt: now,
        expiresAt: new Date(now.getTime() + LINK_LIFETIME_MS)
      })
      return true
    })
    return stored ? linkAddress(publicUrl, purpose, token) : null
  }

  /** The stored link of `token` while it works; otherwise the refusal that says why. */
  async function workingLink (token: string, purpose: LinkPurpose): Promise<AccountLinkDocument> {
    const link = await repositories.accountLinks.find(linkDigest(token))
    const account = link === null ? null : await repositories.users.findById(link.userID)
    const problem = linkProblem(link, purpose, account === null ? null : account.tokenGeneration ?? 0, clock())
    if (problem !== null || link === null) throw problem ?? invalidLink()
    return link
  }

  return {
    /**
     * Mails a reset link if an account has this email, and nothing otherwise.
     * Everything that depends on the account runs after the request is
     * answered (the outbox), so the answer is the same, in what it says and
     * in the work done before it, whether or not the account exists.
     */
    requestPasswordReset (email: string): void {
      outbox.post(async () => {
        const account = await repositories.users.findByEmail(email)
        const link = account === null ? null : await newLink(account, 'reset-password')
        return account === null || link === null ? null : passwordResetMail(account.email, link)
      })
    },

    /**
     * Sets a new password by a reset link, and starts a new token generation:
     * every token of the account ends, and so does every other link sent
     * before (they name the generation they were sent in). The address the
     * reset came from is one the account knows from now on.
     */
    async resetPassword (token: string, newPassword: string, address: string): Promise<SessionOwner> {
      const link = await workingLink(token, 'reset-password')
      const passwordHash = await hashPassword(newPassword)
      return await transaction(async ({ accountLinks, users }) => {
        // of two uses at once, one finds the link used
        if (!await accountLinks.use(link._id, clock())) throw linkUsed()
        const generation = await users.newTokenGeneration(link.userID, link.generation, passwordHash)
        if (generation === null) throw await users.findById(link.userID) === null ? invalidLink() : linkEnded()
        await users.rememberAddress(link.userID, knownAddress(link.userID, address), KNOWN_ADDRESSES)
        return { userID: link.userID, generation }
      })
    },

    /**
     * Mails a link to `newEmail` that makes it the account's email once
     * opened; the account keeps its email until then. 409 when another
     * account has that email already.
     */
    async requestEmailChange (account: UserDocument, password: string, newEmail: string): Promise<{ newEmail: string }> {
      if (!await verifyPassword(password, account.passwordHash)) throw new Refusal('wrong_password', WRONG_PASSWORD)
      const email = normaliseEmail(newEmail)
      if (email === account.email) throw new Refusal('nothing_to_change', `${email} is the account's email already`)
      if (await repositories.users.findByEmail(email) !== null) throw new Refusal('email_taken', EMAIL_TAKEN)
      const link = await newLink(account, 'confirm-email-change', email)
      if (link === null) throw invalidToken()
      outbox.post(async () => emailChangeMail(email, link))
      return { newEmail: email }
    },

    /**
     * Makes the link's address the account's email. Every other link of the
     * account ends: a reset link went to the old address, and another change
     * of email was asked for before this one. 409 when another account took
     * the address meanwhile; the link then still works, should it be freed.
     */
    async confirmEmailChange (token: string): Promise<{ userID: string, email: string }> {
      const link = await workingLink(token, 'confirm-email-change')
      const email = link.newEmail
      if (email === undefined) throw invalidLink()
      return await transaction(async ({ accountLinks, users }) => {
        if (!await accountLinks.use(link._id, clock())) throw linkUsed()
        const account = await users.findById(link.userID)
        if (account === null) throw invalidLink()
        if ((account.tokenGeneration ?? 0) !== link.generation) throw linkEnded()
        try {
          await users.changeEmail(link.userID, email)
        } catch (error) {
          if (error instanceof EmailTakenError) throw new Refusal('email_taken', EMAIL_TAKEN)
          throw error
        }
        await accountLinks.endAll(link.userID, clock())
        return { userID: link.userID, email }
      })
    }
  }
}

export type AccountRecoveryService = ReturnType<typeof accountRecoveryService>
