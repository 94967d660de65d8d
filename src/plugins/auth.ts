import fp from 'fastify-plugin'
import jwt from '@fastify/jwt'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { UserDocument } from '../repositories/users.js'
import { accountDisabled, invalidToken } from '../domain/refusals.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** signs a token for the user, in the account's current token generation */
    issueToken: (userID: string, generation?: number) => string
    /**
     * The account a body token names, or null for any invalid, expired, forged
     * or orphaned token; once the user's requests under way leave room for this
     * one (503 otherwise). 403 account_disabled for a token of a disabled account.
     */
    authenticateAndAdmit: (token: unknown, reply: FastifyReply) => Promise<UserDocument | null>
    /** preHandler: reads `jwtToken` from the body, sets `request.account`, or answers 401 */
    authenticate: (request: FastifyRequest, reply: FastifyReply) => Promise<void>
  }
  interface FastifyRequest {
    account: UserDocument
  }
  interface FastifyContextConfig {
    /** open without a token (register, login), or authenticating by itself (update-goal-status) */
    public?: boolean
  }
}

export interface AuthOptions {
  secret: string
  tokenLifetime?: string
}

export const TOKEN_ISSUER = 'flashcard-service'
export const TOKEN_AUDIENCE = 'flashcard-study-app'
export const TOKEN_ALGORITHM = 'HS256'

/** How many verified tokens are remembered; past that, the oldest is forgotten first. */
const REMEMBERED_TOKENS = 10_000

/** How far ahead of this server's clock a token's issue time may be (another instance's clock drifts a little). */
const CLOCK_SKEW_SECONDS = 60

interface VerifiedToken { userID: string, generation: number, expiresAt: number }

/**
 * Tokens that passed verification, with the claims the service uses, until
 * they expire. A client sends the same token with every request for days, and
 * verifying it again (decoding, claims, HMAC) each time costs more than
 * finding it here. The whole token is the key, so only that exact text, once
 * verified, is ever found; the number kept is bounded.
 */
function verifiedTokens () {
  const tokens = new Map<string, VerifiedToken>()
  return {
    claimsOf (token: string, now: number): VerifiedToken | undefined {
      const known = tokens.get(token)
      if (known === undefined) return undefined
      // the verifier's own rule: valid up to and including the second of `exp`
      if (now <= known.expiresAt) return known
      tokens.delete(token)
      return undefined
    },
    remember (token: string, claims: VerifiedToken): void {
      if (tokens.size >= REMEMBERED_TOKENS) tokens.delete(tokens.keys().next().value as string)
      tokens.set(token, claims)
    }
  }
}

export default fp<AuthOptions>(async function auth (app, options) {
  await app.register(jwt, {
    secret: options.secret,
    sign: {
      algorithm: TOKEN_ALGORITHM,
      iss: TOKEN_ISSUER,
      aud: TOKEN_AUDIENCE,
      expiresIn: options.tokenLifetime ?? '7d'
    },
    verify: {
      // pinned: a token may not choose its own algorithm (no `none`, no switching)
      algorithms: [TOKEN_ALGORITHM],
      allowedIss: TOKEN_ISSUER,
      allowedAud: TOKEN_AUDIENCE,
      requiredClaims: ['sub', 'exp', 'iat', 'iss', 'aud']
    }
  })

  app.decorate('issueToken', (userID: string, generation = 0) => app.jwt.sign({ sub: userID, gen: generation }))

  const verified = verifiedTokens()
  /** The claims of a valid token, checked in memory: no database call, so a request can be turned away before any. */
  function claimsOf (token: unknown): VerifiedToken | null {
    if (typeof token !== 'string' || token === '' || token.length > 4096) return null
    const now = Date.now()
    const known = verified.claimsOf(token, now)
    if (known !== undefined) return known
    let decoded: { sub?: unknown, exp?: unknown, iat?: unknown, gen?: unknown }
    try {
      decoded = app.jwt.verify<typeof decoded>(token)
    } catch {
      return null
    }
    // exp and iat are required claims: the verifier refused a token without numeric ones
    if (typeof decoded.sub !== 'string' || typeof decoded.exp !== 'number' || typeof decoded.iat !== 'number') return null
    // a token issued in the future was not issued by this service's clock
    if (decoded.iat * 1000 > now + CLOCK_SKEW_SECONDS * 1000) return null
    const generation = decoded.gen === undefined ? 0 : decoded.gen
    if (typeof generation !== 'number') return null
    const claims = { userID: decoded.sub, generation, expiresAt: decoded.exp * 1000 }
    verified.remember(token, claims)
    return claims
  }

  /**
   * The account the claims name: it must still exist, in the token's generation. A token outlives
   * nothing. Read on every request, so that a disabled account is refused at once on every instance;
   * its holder is told so, whatever the token's generation (disabling ended the generation too).
   */
  async function accountOf (claims: VerifiedToken): Promise<UserDocument | null> {
    const account = await app.repositories.users.findById(claims.userID)
    if (account?.disabledAt !== undefined) throw accountDisabled()
    if (account === null || (account.tokenGeneration ?? 0) !== claims.generation) return null
    return account
  }

  app.decorate('authenticateAndAdmit', async (token: unknown, reply: FastifyReply) => {
    const claims = claimsOf(token)
    if (claims === null) return null
    // before the account is read: a request turned away costs the database nothing
    app.admitUser(claims.userID, reply)
    return await accountOf(claims)
  })

  app.decorateRequest('account', null as unknown as UserDocument)
  app.decorate('authenticate', async (request: FastifyRequest, reply: FastifyReply) => {
    const body = request.body as { jwtToken?: unknown } | undefined
    const account = await app.authenticateAndAdmit(body?.jwtToken, reply)
    if (account === null) throw invalidToken()
    request.account = account
  })
}, { name: 'auth', dependencies: ['database', 'load-shedding'] })

/**
 * Every route of `scope` needs a valid token in its body (401 otherwise),
 * unless it is declared public; the account is then `request.account`.
 */
export function requireAuthentication (scope: FastifyInstance): void {
  scope.addHook('preHandler', async (request, reply) => {
    if (request.routeOptions.config.public !== true) await scope.authenticate(request, reply)
  })
}
