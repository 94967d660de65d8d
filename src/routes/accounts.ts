import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { refusals } from '../schemas/common.js'
import { ChangePasswordBody, DeleteAccountBody, DeletedAccount, LoggedOut, LoginBody, RegisterBody, Session, TokenBody, UpdateSettingsBody, UserProfile } from '../schemas/accounts.js'
import { profileOf, SETTINGS } from '../services/accounts.js'

const accounts: FastifyPluginAsyncTypebox = async (app) => {
  const { accounts } = app.services

  app.post('/register', {
    schema: {
      summary: 'Create an account and receive a token',
      tags: ['account'],
      body: RegisterBody,
      response: { 201: Session, ...refusals(409, 429) }
    },
    config: { public: true },
    onRequest: app.limitAttemptsByAddress,
    preHandler: app.limitAttemptsByAccount
  }, async (request, reply) => {
    const owner = await accounts.register(request.body, request.ip)
    return reply.code(201).send({ userID: owner.userID, jwtToken: app.issueToken(owner.userID, owner.generation) })
  })

  app.post('/login', {
    schema: {
      summary: 'Exchange email and password for a token',
      description: 'Attempts are limited per address, and per account whatever the address; an address the account logged in from lately is let through the account\'s limit, so that guesses from elsewhere never lock the owner out. ' +
        'An account its operator disabled answers 403 account_disabled, once the password is right.',
      tags: ['account'],
      body: LoginBody,
      response: { 200: Session, ...refusals(401, 403, 429) }
    },
    config: { public: true },
    onRequest: app.limitAttemptsByAddress
  }, async (request) => {
    const { email, password } = request.body
    const owner = await accounts.login(email, password, request.ip, await app.accountAttemptWait(request))
    return { userID: owner.userID, jwtToken: app.issueToken(owner.userID, owner.generation) }
  })

  app.post('/get-user', {
    schema: {
      summary: "The account's profile and settings",
      tags: ['account'],
      body: TokenBody,
      response: { 200: UserProfile }
    }
  }, async (request) => profileOf(request.account))

  app.post('/update-settings', {
    schema: {
      summary: "Change some of the account's settings",
      description: `Any of ${SETTINGS.join(', ')}; at least one. Answers the profile as get-user does. A new time zone or dayStartHour moves "today" at once; reviews already made keep the day they were counted on.`,
      tags: ['account'],
      body: UpdateSettingsBody,
      response: { 200: UserProfile }
    }
  }, async (request) => await accounts.updateSettings(request.account._id, request.body))

  app.post('/logout-everywhere', {
    schema: {
      summary: 'End every token of the account, this one included',
      description: 'Every token issued before this call stops working at once, on every device; log in again for a new one. ' +
        'If another request (a logout-everywhere or change-password with a token of the same generation) ended them meanwhile, this call changes nothing more and still answers loggedOut.',
      tags: ['account'],
      body: TokenBody,
      response: { 200: LoggedOut }
    }
  }, async (request) => {
    await accounts.logoutEverywhere(request.account)
    request.log.info({ userID: request.account._id }, 'logged out everywhere')
    return { loggedOut: 'true' as const }
  })

  app.post('/change-password', {
    schema: {
      summary: 'Change the password, after asking for the current one; every earlier token stops working',
      description: 'Answers a fresh token for this device; every token issued before, on any device, stops working at once. ' +
        'Of two changes made at once with one token, the first is kept and the second answers 409, changing nothing.',
      tags: ['account'],
      body: ChangePasswordBody,
      response: { 200: Session, ...refusals(409) }
    }
  }, async (request) => {
    const owner = await accounts.changePassword(request.account, request.body.password, request.body.newPassword)
    request.log.info({ userID: owner.userID }, 'password changed')
    return { userID: owner.userID, jwtToken: app.issueToken(owner.userID, owner.generation) }
  })

  app.post('/delete-account', {
    schema: {
      summary: 'Delete the account and every document of it, after asking for its password again',
      description: 'Folders, flashcards, cards, the review log and goals go with the account; its tokens stop working.',
      tags: ['account'],
      body: DeleteAccountBody,
      response: { 200: DeletedAccount }
    }
  }, async (request) => {
    await accounts.deleteAccount(request.account, request.body.password)
    request.log.info({ userID: request.account._id }, 'account deleted')
    return { deleted: 'true' as const }
  })
}

export default accounts
