import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { refusals } from '../schemas/common.js'
import {
  ChangeEmailBody, ConfirmEmailChangeBody, EmailChanged, EmailChangeRequested, RequestPasswordResetBody, ResetPasswordBody, ResetRequested, Session
} from '../schemas/accounts.js'

const accountRecovery: FastifyPluginAsyncTypebox = async (app) => {
  const { accountRecovery } = app.services

  app.post('/request-password-reset', {
    schema: {
      summary: 'Mail a link that sets a new password, if an account has this email',
      description: 'Answers 202 and the same body whether or not an account has this email, before anything that depends on it is done; ' +
        'if one does, a link that works once, for an hour, is then mailed to it. Limited per client address and per email, across instances.',
      tags: ['account'],
      body: RequestPasswordResetBody,
      response: { 202: ResetRequested }
    },
    config: { public: true },
    onRequest: app.limitMailsByAddress,
    preHandler: app.limitMailsTo('email')
  }, async (request, reply) => {
    accountRecovery.requestPasswordReset(request.body.email)
    return await reply.code(202).send({ requested: 'true' as const })
  })

  app.post('/reset-password', {
    schema: {
      summary: 'Set a new password with the token of a mailed reset link, and receive a token',
      description: 'The link works once, for an hour. Every earlier token of the account stops working, and so does every other link mailed before.',
      tags: ['account'],
      body: ResetPasswordBody,
      response: { 200: Session, ...refusals(410) }
    },
    config: { public: true },
    onRequest: app.limitAttemptsByAddress
  }, async (request) => {
    const owner = await accountRecovery.resetPassword(request.body.resetToken, request.body.newPassword, request.ip)
    request.log.info({ userID: owner.userID }, 'password reset by a mailed link')
    return { userID: owner.userID, jwtToken: app.issueToken(owner.userID, owner.generation) }
  })

  app.post('/change-email', {
    schema: {
      summary: 'Mail a link to a new address that makes it the account\'s email, after asking for the password again',
      description: 'The account keeps its email until the link is opened (confirm-email-change). Limited per client address and per new address, across instances.',
      tags: ['account'],
      body: ChangeEmailBody,
      response: { 202: EmailChangeRequested, ...refusals(409) }
    },
    onRequest: app.limitMailsByAddress,
    preHandler: app.limitMailsTo('newEmail')
  }, async (request, reply) => {
    const requested = await accountRecovery.requestEmailChange(request.account, request.body.password, request.body.newEmail)
    return await reply.code(202).send(requested)
  })

  app.post('/confirm-email-change', {
    schema: {
      summary: 'Make the new address the account\'s email, with the token of the link mailed to it',
      description: 'The link works once, for an hour. Every other link of the account stops working.',
      tags: ['account'],
      body: ConfirmEmailChangeBody,
      response: { 200: EmailChanged, ...refusals(409, 410) }
    },
    config: { public: true },
    onRequest: app.limitAttemptsByAddress
  }, async (request) => {
    const changed = await accountRecovery.confirmEmailChange(request.body.token)
    request.log.info({ userID: changed.userID }, 'email changed by a mailed link')
    return changed
  })
}

export default accountRecovery
