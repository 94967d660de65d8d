import { canonicalTimezone, isTimezone } from '../domain/calendar.js'
import { DEFAULT_SETTINGS, KNOWN_ADDRESSES, knownAddress, normaliseEmail, siblingBuryingOf, type UserSettings } from '../domain/accounts.js'
import { newId } from '../domain/ids.js'
import { hashPassword, verifyAgainstNothing, verifyPassword } from '../domain/passwords.js'
import { emptyQueues } from '../domain/queues.js'
import { EmailTakenError, type UserDocument } from '../repositories/users.js'
import type { ServiceContext } from './context.js'
import { accountDisabled, invalidToken, Refusal, tooManyAttempts } from '../domain/refusals.js'
import type { AccountDeletionService } from './account-deletion.js'

const WRONG_CREDENTIALS = 'wrong email or password'
const WRONG_PASSWORD = 'wrong password: send the account\'s current password'

export const SETTINGS = [
  'displayName', 'timezone', 'dayStartHour', 'newCardsPerDay', 'reviewsPerDay', 'desiredRetention',
  'buryNewSiblings', 'buryReviewSiblings', 'buryInterdayLearningSiblings'
] as const

/** The settings a request changes, checked beyond what the schema can say. */
export function settingsChanges (body: Partial<UserSettings>): Partial<UserSettings> {
  const changes: Partial<UserSettings> = {}
  for (const name of SETTINGS) {
    if (body[name] !== undefined) Object.assign(changes, { [name]: body[name] })
  }
  if (Object.keys(changes).length === 0) {
    throw new Refusal('nothing_to_change', `give at least one setting to change: ${SETTINGS.join(', ')}`)
  }
  if (changes.timezone !== undefined) {
    const timezone = canonicalTimezone(changes.timezone)
    if (timezone === null) throw new Refusal('invalid_value', `timezone "${changes.timezone}" is not an IANA time zone name such as "Europe/Paris"`)
    changes.timezone = timezone
  }
  if (changes.desiredRetention !== undefined) {
    // one scheduler is kept per retention value, so values come from a short list
    const hundredths = Math.round(changes.desiredRetention * 100)
    if (Math.abs(changes.desiredRetention * 100 - hundredths) > 1e-6) {
      throw new Refusal('invalid_value', `desiredRetention takes at most two decimals, e.g. ${(hundredths / 100).toFixed(2)}`)
    }
    changes.desiredRetention = hundredths / 100
  }
  return changes
}

export function profileOf (user: UserDocument) {
  const burying = siblingBuryingOf(user)
  const text = (value: boolean) => value ? 'true' as const : 'false' as const
  return {
    userID: user._id,
    email: user.email,
    displayName: user.displayName,
    timezone: user.timezone,
    dayStartHour: String(user.dayStartHour),
    newCardsPerDay: String(user.newCardsPerDay),
    reviewsPerDay: String(user.reviewsPerDay),
    desiredRetention: user.desiredRetention.toFixed(2),
    buryNewSiblings: text(burying.buryNewSiblings),
    buryReviewSiblings: text(burying.buryReviewSiblings),
    buryInterdayLearningSiblings: text(burying.buryInterdayLearningSiblings),
    total_xp: String(user.totalXp),
    createdAt: user.createdAt.toISOString()
  }
}

/** Who a session's token is for: the account and its current token generation. */
export interface SessionOwner { userID: string, generation: number }

/** Accounts: registration, login, settings, revocation and deletion. */
export function accountsService ({ repositories, clock }: ServiceContext, deletion: AccountDeletionService) {
  return {
    /** Creates an account; the address it came from is one it knows. 409 for an email already used. */
    async register (request: { email: string, password: string, displayName?: string, timezone?: string }, address: string): Promise<SessionOwner> {
      const timezone = request.timezone ?? DEFAULT_SETTINGS.timezone
      if (!isTimezone(timezone)) throw new Refusal('invalid_value', `timezone "${timezone}" is not an IANA time zone name such as "Europe/Paris"`)
      const email = normaliseEmail(request.email)
      const userID = newId()
      try {
        await repositories.users.insert({
          ...DEFAULT_SETTINGS,
          _id: userID,
          email,
          passwordHash: await hashPassword(request.password),
          displayName: request.displayName ?? email.split('@')[0] ?? email,
          timezone,
          totalXp: 0,
          knownAddresses: [knownAddress(userID, address)],
          queueFrom: emptyQueues(),
          createdAt: clock()
        })
      } catch (error) {
        if (error instanceof EmailTakenError) throw new Refusal('email_taken', 'an account with this email already exists: log in, or register with another email')
        throw error
      }
      return { userID, generation: 0 }
    },

    /**
     * Checks email and password. `wait` is set when the account's attempts are
     * used up: only an address the account logged in from lately gets past it.
     * A disabled account is refused (403) once its password is right.
     */
    async login (email: string, password: string, address: string, wait: number | null): Promise<SessionOwner> {
      const user = await repositories.users.findByEmail(email)
      if (wait !== null && (user === null || !user.knownAddresses?.includes(knownAddress(user._id, address)))) {
        throw tooManyAttempts(wait)
      }
      // as slow for an unknown email as for a wrong password
      const valid = user === null ? await verifyAgainstNothing(password) : await verifyPassword(password, user.passwordHash)
      if (user === null || !valid) throw new Refusal('wrong_credentials', WRONG_CREDENTIALS)
      // only once the password is right: whether an account is disabled is its owner's to know
      if (user.disabledAt !== undefined) throw accountDisabled()
      await repositories.users.rememberAddress(user._id, knownAddress(user._id, address), KNOWN_ADDRESSES)
      return { userID: user._id, generation: user.tokenGeneration ?? 0 }
    },

    async updateSettings (userID: string, body: Partial<UserSettings>) {
      const updated = await repositories.users.updateSettings(userID, settingsChanges(body))
      // the account was deleted since the token was checked
      if (updated === null) throw invalidToken()
      return profileOf(updated)
    },

    /**
     * Starts a new token generation: every token of the account's generation
     * (the one `account`, as read for this request, is in) stops working. If
     * another request started a new generation meanwhile, the tokens this call
     * ends are ended already: it changes nothing more, and hands out nothing.
     */
    async logoutEverywhere (account: UserDocument): Promise<void> {
      if (await repositories.users.newTokenGeneration(account._id, account.tokenGeneration ?? 0) !== null) return
      if (await repositories.users.findById(account._id) === null) throw invalidToken()
    },

    /**
     * Sets a new password after checking the current one, and starts a new
     * token generation, only from the generation `account` was read in: of two
     * changes made at once with one token, the first is kept whole (its
     * password, its token) and the second is refused with 409, changing nothing.
     */
    async changePassword (account: UserDocument, password: string, newPassword: string): Promise<SessionOwner> {
      if (!await verifyPassword(password, account.passwordHash)) throw new Refusal('wrong_password', WRONG_PASSWORD)
      const generation = await repositories.users.newTokenGeneration(account._id, account.tokenGeneration ?? 0, await hashPassword(newPassword))
      if (generation !== null) return { userID: account._id, generation }
      const now = await repositories.users.findById(account._id)
      if (now === null) throw invalidToken()
      throw new Refusal('changed_meanwhile', now.passwordHash !== account.passwordHash
        ? 'the password was changed by another request meanwhile, and this change was not made: log in again with the new password'
        : 'every session was logged out by another request meanwhile, and the password was not changed: log in again and change it then')
    },

    /**
     * Deletes the account once its password is given again: gone for every request from the
     * answer on, its documents removed after it (services/account-deletion.ts).
     */
    async deleteAccount (account: UserDocument, password: string): Promise<void> {
      if (!await verifyPassword(password, account.passwordHash)) throw new Refusal('wrong_password', WRONG_PASSWORD)
      await deletion.deleteAccount(account._id)
    }
  }
}

export type AccountsService = ReturnType<typeof accountsService>
