import type { UserDocument } from '../repositories/users.js'
import { accountDeletionService, type DeletionRuntime, type Removed } from './account-deletion.js'
import type { ServiceContext } from './context.js'

/** An account as the operator sees it (npm run admin -- find). */
export interface AccountSummary {
  userID: string
  email: string
  createdAt: Date
  cards: number
  /** when it was disabled; null while it is enabled */
  disabledAt: Date | null
}

export class UnknownAccountError extends Error {
  override name = 'UnknownAccountError'
  constructor (readonly email: string) {
    super(`no account with the email ${email}`)
  }
}

/**
 * What the service's operator does to an account, by its email: find it, disable it (its login and
 * its tokens refused at once, on every instance), enable it again, or delete it with every document
 * of it. Called by scripts/admin.ts, on the database the service uses, whether or not it runs.
 */
export function accountAdminService (context: Pick<ServiceContext, 'repositories' | 'transaction' | 'clock'>, runtime: DeletionRuntime) {
  const { repositories } = context
  const deletion = accountDeletionService(context, runtime)

  async function accountOf (email: string): Promise<UserDocument> {
    const account = await repositories.users.findByEmail(email)
    if (account === null) throw new UnknownAccountError(email)
    return account
  }

  async function summaryOf (account: UserDocument): Promise<AccountSummary> {
    const byState = await repositories.cardStates.countByState(account._id)
    return {
      userID: account._id,
      email: account.email,
      createdAt: account.createdAt,
      cards: byState.reduce((sum, { count }) => sum + count, 0),
      disabledAt: account.disabledAt ?? null
    }
  }

  return {
    async find (email: string): Promise<AccountSummary> {
      return await summaryOf(await accountOf(email))
    },

    /** Disables the account; `changed` is false when it was disabled already (its date is kept). */
    async disable (email: string): Promise<{ account: AccountSummary, changed: boolean }> {
      const account = await accountOf(email)
      const disabled = await repositories.users.disable(account._id, context.clock())
      return { account: await summaryOf(disabled ?? await accountOf(email)), changed: disabled !== null }
    },

    /**
     * Enables the account: it may log in again. Its tokens from before it was disabled stay ended
     * (disabling started a new generation). `changed` is false when it was not disabled.
     */
    async enable (email: string): Promise<{ account: AccountSummary, changed: boolean }> {
      const account = await accountOf(email)
      const enabled = await repositories.users.enable(account._id)
      return { account: await summaryOf(enabled ?? await accountOf(email)), changed: enabled !== null }
    },

    /**
     * Deletes the account and every document of it, as delete-account does, and returns once they
     * are all gone: what it was, and how many documents of each collection went.
     */
    async remove (email: string): Promise<{ account: AccountSummary, removed: Removed }> {
      const account = await accountOf(email)
      const summary = await summaryOf(account)
      const removed = await deletion.deleteAndWait(account._id)
      // deleted by someone else meanwhile (its email is no account's any more)
      if (removed === null) throw new UnknownAccountError(email)
      return { account: summary, removed }
    }
  }
}

export type AccountAdminService = ReturnType<typeof accountAdminService>
