import fp from 'fastify-plugin'
import { createHmac } from 'node:crypto'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { normaliseEmail } from '../domain/accounts.js'
import { tooManyAttempts } from '../domain/refusals.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** login and register attempts: limited per client address (onRequest) and per account (preHandler) */
    limitAttemptsByAddress: (request: FastifyRequest, reply: FastifyReply) => Promise<void>
    limitAttemptsByAccount: (request: FastifyRequest, reply: FastifyReply) => Promise<void>
    /**
     * Counts an attempt on the body's account, whatever the address; the
     * seconds until the account takes attempts again once over its limit, or
     * null. For login, which lets an address the account knows through.
     */
    accountAttemptWait: (request: FastifyRequest) => Promise<number | null>
  }
}

/** How many login and register attempts a window allows, per client address and per account. */
export interface AttemptLimits {
  perAddress: number
  perAccount: number
  windowMs: number
}

export const DEFAULT_ATTEMPT_LIMITS: AttemptLimits = { perAddress: 30, perAccount: 10, windowMs: 60_000 }

export interface AttemptLimitOptions {
  limits: AttemptLimits
  /** keys the counters' digests, so that the stored keys reveal no address or email */
  secret: string
}

/**
 * Login and register attempts, limited per client address and per account.
 * The counters live in the database (repositories/attempts.ts), so the limits
 * hold whatever the number of instances: guesses spread over two instances
 * stop at the same count as guesses sent to one.
 */
export default fp<AttemptLimitOptions>(async function attemptLimits (app, options) {
  const { perAddress, perAccount, windowMs } = options.limits
  const digest = (kind: string, subject: string): string =>
    `${kind}:${createHmac('sha256', options.secret).update(subject).digest('base64url')}`

  /** Counts an attempt on a key: null while within `max`, or the seconds until its window closes. */
  const counter = (max: number, key: (request: FastifyRequest) => string) => async (request: FastifyRequest): Promise<number | null> => {
    const now = app.clock()
    const { count, resetsAt } = await app.repositories.attempts.count(key(request), windowMs, now)
    if (count <= max) return null
    return Math.max(1, Math.ceil((resetsAt.getTime() - now.getTime()) / 1000))
  }
  const limiter = (wait: (request: FastifyRequest) => Promise<number | null>) => async (request: FastifyRequest): Promise<void> => {
    const seconds = await wait(request)
    if (seconds !== null) throw tooManyAttempts(seconds)
  }

  const accountAttemptWait = counter(perAccount, (request) => {
    const email = (request.body as { email?: unknown } | undefined)?.email
    return digest('account', typeof email === 'string' ? normaliseEmail(email) : '')
  })
  app.decorate('limitAttemptsByAddress', limiter(counter(perAddress, (request) => digest('address', request.ip))))
  app.decorate('limitAttemptsByAccount', limiter(accountAttemptWait))
  app.decorate('accountAttemptWait', accountAttemptWait)
}, { name: 'attempt-limits', dependencies: ['database'] })
