import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { createHash } from 'node:crypto'
import { TooManyAttemptsError } from '../plugins/security.js'
import { canonicalTimezone, isTimezone } from '../domain/calendar.js'
import { newId } from '../domain/ids.js'
import { hashPassword, verifyAgainstNothing, verifyPassword } from '../domain/passwords.js'
import { InvalidTokenError } from '../plugins/auth.js'
import { DEFAULT_SETTINGS, EmailTakenError, normaliseEmail, type UserSettings } from '../repositories/users.js'
import { authenticatedErrors, ErrorResponse, requestErrors } from '../schemas/common.js'
import { ChangePasswordBody, DeleteAccountBody, DeletedAccount, LoggedOut, LoginBody, RegisterBody, Session, TokenBody, UpdateSettingsBody, UserProfile } from '../schemas/accounts.js'
import type { UserDocument } from '../repositories/users.js'
import { RequestError } from '../plugins/errors.js'

const WRONG_CREDENTIALS = 'wrong email or password'

/** How many of the addresses an account logged in from are remembered. */
const KNOWN_ADDRESSES = 10

/** An address as the account keeps it: a digest salted with the account, not the address itself. */
function knownAddress (userID: string, address: string): string {
  return createHash('sha256').update(`${userID}\n${address}`).digest('base64url').slice(0, 22)
}
const WRONG_PASSWORD = 'wrong password'

const SETTINGS = ['displayName', 'timezone', 'dayStartHour', 'newCardsPerDay', 'reviewsPerDay', 'desiredRetention'] as const

/** The settings a request changes, checked beyond what the schema can say. */
export function settingsChanges (body: UpdateSettingsBody): Partial<UserSettings> {
  const changes: Partial<UserSettings> = {}
  for (const name of SETTINGS) {
    if (body[name] !== undefined) Object.assign(changes, { [name]: body[name] })
  }
  if (Object.keys(changes).length === 0) {
    throw new RequestError(400, `give at least one setting to change: ${SETTINGS.join(', ')}`)
  }
  if (changes.timezone !== undefined) {
    const timezone = canonicalTimezone(changes.timezone)
    if (timezone === null) throw new RequestError(400, `timezone "${changes.timezone}" is not an IANA time zone name such as "Europe/Paris"`)
    changes.timezone = timezone
  }
  if (changes.desiredRetention !== undefined) {
    // one scheduler is kept per retention value, so values come from a short list
    const hundredths = Math.round(changes.desiredRetention * 100)
    if (Math.abs(changes.desiredRetention * 100 - hundredths) > 1e-6) {
      throw new RequestError(400, `desiredRetention takes at most two decimals, e.g. ${(hundredths / 100).toFixed(2)}`)
    }
    changes.desiredRetention = hundredths / 100
  }
  return changes
}

const accounts: FastifyPluginAsyncTypebox = async (app) => {
  app.post('/register', {
    schema: {
      summary: 'Create an account and receive a token',
      tags: ['account'],
      body: RegisterBody,
      response: { 201: Session, 409: ErrorResponse, 429: ErrorResponse, ...requestErrors }
    },
    onRequest: app.limitAttemptsByAddress,
    preHandler: app.limitAttemptsByAccount
  }, async (request, reply) => {
    const { email, password, displayName, timezone = DEFAULT_SETTINGS.timezone } = request.body
    if (!isTimezone(timezone)) {
      return reply.code(400).send({ error: `timezone "${timezone}" is not an IANA time zone name such as "Europe/Paris"` })
    }
    const normalised = normaliseEmail(email)
    const userID = newId()
    try {
      await app.repositories.users.insert({
        ...DEFAULT_SETTINGS,
        _id: userID,
        email: normalised,
        passwordHash: await hashPassword(password),
        displayName: displayName ?? normalised.split('@')[0] ?? normalised,
        timezone,
        totalXp: 0,
        // the address that made the account is one it knows
        knownAddresses: [knownAddress(userID, request.ip)],
        createdAt: app.clock()
      })
    } catch (error) {
      if (error instanceof EmailTakenError) {
        return reply.code(409).send({ error: 'an account with this email already exists' })
      }
      throw error
    }
    return reply.code(201).send({ userID, jwtToken: app.issueToken(userID) })
  })

  app.post('/login', {
    schema: {
      summary: 'Exchange email and password for a token',
      description: 'Attempts are limited per address, and per account whatever the address; an address the account logged in from lately is let through the account\'s limit, so that guesses from elsewhere never lock the owner out.',
      tags: ['account'],
      body: LoginBody,
      response: { 200: Session, 401: ErrorResponse, 429: ErrorResponse, ...requestErrors }
    },
    onRequest: app.limitAttemptsByAddress
  }, async (request, reply) => {
    const { email, password } = request.body
    const [user, wait] = await Promise.all([app.repositories.users.findByEmail(email), app.accountAttemptWait(request)])
    if (wait !== null && (user === null || !user.knownAddresses?.includes(knownAddress(user._id, request.ip)))) {
      void reply.header('retry-after', wait)
      throw new TooManyAttemptsError(wait)
    }
    const valid = user === null
      ? await verifyAgainstNothing(password)
      : await verifyPassword(password, user.passwordHash)
    if (user === null || !valid) return reply.code(401).send({ error: WRONG_CREDENTIALS })
    await app.repositories.users.rememberAddress(user._id, knownAddress(user._id, request.ip), KNOWN_ADDRESSES)
    return { userID: user._id, jwtToken: app.issueToken(user._id, user.tokenGeneration ?? 0) }
  })

  app.post('/get-user', {
    schema: {
      summary: "The account's profile and settings",
      tags: ['account'],
      body: TokenBody,
      response: { 200: UserProfile, ...authenticatedErrors }
    },
    preHandler: app.authenticate
  }, async (request) => profileOf(request.account))

  app.post('/update-settings', {
    schema: {
      summary: "Change some of the account's settings",
      description: `Any of ${SETTINGS.join(', ')}; at least one. Answers the profile as get-user does. A new time zone or dayStartHour moves "today" at once; reviews already made keep the day they were counted on.`,
      tags: ['account'],
      body: UpdateSettingsBody,
      response: { 200: UserProfile, ...authenticatedErrors }
    },
    preHandler: app.authenticate
  }, async (request) => {
    const updated = await app.repositories.users.updateSettings(request.account._id, settingsChanges(request.body))
    // the account was deleted since the token was checked
    if (updated === null) throw new InvalidTokenError()
    return profileOf(updated)
  })

  app.post('/logout-everywhere', {
    schema: {
      summary: 'End every token of the account, this one included',
      description: 'Every token issued before this call stops working at once, on every device; log in again for a new one.',
      tags: ['account'],
      body: TokenBody,
      response: { 200: LoggedOut, ...authenticatedErrors }
    },
    preHandler: app.authenticate
  }, async (request) => {
    if (await app.repositories.users.newTokenGeneration(request.account._id) === null) throw new InvalidTokenError()
    request.log.info({ userID: request.account._id }, 'logged out everywhere')
    return { loggedOut: 'true' as const }
  })

  app.post('/change-password', {
    schema: {
      summary: 'Change the password, after asking for the current one; every earlier token stops working',
      description: 'Answers a fresh token for this device; every token issued before, on any device, stops working at once.',
      tags: ['account'],
      body: ChangePasswordBody,
      response: { 200: Session, ...authenticatedErrors }
    },
    preHandler: app.authenticate
  }, async (request) => {
    const account = request.account
    if (!await verifyPassword(request.body.password, account.passwordHash)) throw new RequestError(401, WRONG_PASSWORD)
    const generation = await app.repositories.users.newTokenGeneration(account._id, await hashPassword(request.body.newPassword))
    if (generation === null) throw new InvalidTokenError()
    request.log.info({ userID: account._id }, 'password changed')
    return { userID: account._id, jwtToken: app.issueToken(account._id, generation) }
  })

  app.post('/delete-account', {
    schema: {
      summary: 'Delete the account and every document of it, after asking for its password again',
      description: 'Folders, flashcards, cards, the review log and goals go with the account; its tokens stop working.',
      tags: ['account'],
      body: DeleteAccountBody,
      response: { 200: DeletedAccount, ...authenticatedErrors }
    },
    preHandler: app.authenticate
  }, async (request) => {
    const account = request.account
    if (!await verifyPassword(request.body.password, account.passwordHash)) throw new RequestError(401, WRONG_PASSWORD)
    await deleteAccount(app, account._id)
    request.log.info({ userID: account._id }, 'account deleted')
    return { deleted: 'true' as const }
  })
}

/**
 * Removes the account and every document of it in one transaction. Its
 * deletion of the account conflicts with any write of that user in flight
 * (they all start by writing the account), which then finds it gone: nothing
 * is left behind.
 */
export async function deleteAccount (app: FastifyInstance, userID: string): Promise<void> {
  const collections = await app.repositories.userData.collections()
  await app.transaction(async ({ userData }) => { await userData.removeAll(userID, collections) })
}

export function profileOf (user: UserDocument) {
  return {
    userID: user._id,
    email: user.email,
    displayName: user.displayName,
    timezone: user.timezone,
    dayStartHour: String(user.dayStartHour),
    newCardsPerDay: String(user.newCardsPerDay),
    reviewsPerDay: String(user.reviewsPerDay),
    desiredRetention: user.desiredRetention.toFixed(2),
    total_xp: String(user.totalXp),
    createdAt: user.createdAt.toISOString()
  }
}

export default accounts
