import fp from 'fastify-plugin'
import { createHmac } from 'node:crypto'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { normaliseEmail } from '../domain/accounts.js'
import { tooManyAttempts } from '../domain/refusals.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** login and register attempts (and reset-password's, confirm-email-change's per address): limited per client address (onRequest) and per account (preHandler) */
    limitAttemptsByAddress: (request: FastifyRequest, reply: FastifyReply) => Promise<void>
    limitAttemptsByAccount: (request: FastifyRequest, reply: FastifyReply) => Promise<void>
    /**
     * Counts an attempt on the body's account, whatever the address; the
     * seconds until the account takes attempts again once over its limit, or
     * null. For login, which lets an address the account knows through.
     */
    accountAttemptWait: (request: FastifyRequest) => Promise<number | null>
    /** requests that mail a link (request-password-reset, change-email): limited per client address (onRequest) */
    limitMailsByAddress: (request: FastifyRequest, reply: FastifyReply) => Promise<void>
    /** and per address mailed, the body's `field` (preHandler), whether or not an account has it */
    limitMailsTo: (field: 'email' | 'newEmail') => (request: FastifyRequest, reply: FastifyReply) => Promise<void>
  }
}

/** How many login and register attempts a window allows, per client address and per account. */
export interface AttemptLimits {
  perAddress: number
  perAccount: number
  windowMs: number
}

export const DEFAULT_ATTEMPT_LIMITS: AttemptLimits = { perAddress: 30, perAccount: 10, windowMs: 60_000 }

/**
 * How many mails of links (password resets, changes of email) a window
 * allows, per client address and per address mailed: tighter than logins,
 * since each sends a mail to someone who may not have asked for it.
 */
export interface MailLimits {
  perAddress: number
  perEmail: number
  windowMs: number
}

export const DEFAULT_MAIL_LIMITS: MailLimits = { perAddress: 20, perEmail: 5, windowMs: 3_600_000 }

export interface AttemptLimitOptions {
  limits: AttemptLimits
  mailLimits: MailLimits
  /** keys the counters' digests, so that the stored keys reveal no address or email */
  secret: string
}

/**
 * Login and register attempts, limited per client address and per account;
 * and the requests that mail a link, per client address and per address mailed.
 * The counters live in the database (repositories/attempts.ts), so the limits
 * hold whatever the number of instances: guesses spread over two instances
 * stop at the same count as guesses sent to one.
 */
export default fp<AttemptLimitOptions>(async function attemptLimits (app, options) {
  const { perAddress, perAccount, windowMs } = options.limits
  const digest = (kind: string, subject: string): string =>
    `${kind}:${createHmac('sha256', options.secret).update(subject).digest('base64url')}`

  /** Counts an attempt on a key in windows of `windowMs`: null while within `max`, or the seconds until its window closes. */
  const counter = (max: number, windowMs: number, key: (request: FastifyRequest) => string) => async (request: FastifyRequest): Promise<number | null> => {
    const now = app.clock()
    const { count, resetsAt } = await app.repositories.attempts.count(key(request), windowMs, now)
    if (count <= max) return null
    return Math.max(1, Math.ceil((resetsAt.getTime() - now.getTime()) / 1000))
  }
  const limiter = (wait: (request: FastifyRequest) => Promise<number | null>) => async (request: FastifyRequest): Promise<void> => {
    const seconds = await wait(request)
    if (seconds !== null) throw tooManyAttempts(seconds)
  }
  /** The body's email in `field`, as accounts compare them. */
  const emailIn = (request: FastifyRequest, field: string): string => {
    const email = (request.body as Record<string, unknown> | undefined)?.[field]
    return typeof email === 'string' ? normaliseEmail(email) : ''
  }

  const accountAttemptWait = counter(perAccount, windowMs, (request) => digest('account', emailIn(request, 'email')))
  app.decorate('limitAttemptsByAddress', limiter(counter(perAddress, windowMs, (request) => digest('address', request.ip))))
  app.decorate('limitAttemptsByAccount', limiter(accountAttemptWait))
  app.decorate('accountAttemptWait', accountAttemptWait)

  const mails = options.mailLimits
  app.decorate('limitMailsByAddress', limiter(counter(mails.perAddress, mails.windowMs, (request) => digest('mail-from', request.ip))))
  app.decorate('limitMailsTo', (field: 'email' | 'newEmail') => limiter(counter(mails.perEmail, mails.windowMs, (request) => digest('mail-to', emailIn(request, field)))))
}, { name: 'attempt-limits', dependencies: ['database'] })
