import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { isTimezone } from '../domain/calendar.js'
import { newId } from '../domain/ids.js'
import { hashPassword, verifyAgainstNothing, verifyPassword } from '../domain/passwords.js'
import { DEFAULT_SETTINGS, EmailTakenError, normaliseEmail } from '../repositories/users.js'
import { authenticatedErrors, ErrorResponse } from '../schemas/common.js'
import { LoginBody, RegisterBody, Session, TokenBody, UserProfile } from '../schemas/accounts.js'
import type { UserDocument } from '../repositories/users.js'

const WRONG_CREDENTIALS = 'wrong email or password'

const accounts: FastifyPluginAsyncTypebox = async (app) => {
  app.post('/register', {
    schema: {
      summary: 'Create an account and receive a token',
      tags: ['account'],
      body: RegisterBody,
      response: { 201: Session, 400: ErrorResponse, 409: ErrorResponse }
    }
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
      tags: ['account'],
      body: LoginBody,
      response: { 200: Session, 400: ErrorResponse, 401: ErrorResponse }
    }
  }, async (request, reply) => {
    const { email, password } = request.body
    const user = await app.repositories.users.findByEmail(email)
    const valid = user === null
      ? await verifyAgainstNothing(password)
      : await verifyPassword(password, user.passwordHash)
    if (user === null || !valid) return reply.code(401).send({ error: WRONG_CREDENTIALS })
    return { userID: user._id, jwtToken: app.issueToken(user._id) }
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
