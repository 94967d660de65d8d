import fp from 'fastify-plugin'
import jwt from '@fastify/jwt'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { UserDocument } from '../repositories/users.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** signs a token for the user */
    issueToken: (userID: string) => string
    /** the user a body token names, or null for any invalid, expired, forged or orphaned token */
    identify: (token: unknown) => Promise<UserDocument | null>
    /** preHandler: reads `jwtToken` from the body, sets `request.account`, or answers 401 */
    authenticate: (request: FastifyRequest, reply: FastifyReply) => Promise<void>
  }
  interface FastifyRequest {
    account: UserDocument
  }
}

export interface AuthOptions {
  secret: string
  tokenLifetime?: string
}

export const TOKEN_ISSUER = 'flashcard-service'
export const TOKEN_AUDIENCE = 'flashcard-study-app'
export const TOKEN_ALGORITHM = 'HS256'
export const INVALID_TOKEN = 'invalid or expired token'

/** How many verified tokens are remembered; past that, the oldest is forgotten first. */
const REMEMBERED_TOKENS = 10_000

/**
 * Tokens that passed verification, with the account each names, until they
 * expire. A client sends the same token with every request for days, and
 * verifying it (decoding, claims, HMAC) took ~0.2 ms of a request that came
 * after an idle spell (7 µs in a tight loop); finding it here takes ~0.01 ms.
 * The whole token is the key, so only that exact text, once verified, is ever
 * found. fast-jwt's own cache keys by a SHA hash of the token, which still
 * took 0.15 ms. At most ~3.5 MB for the 10,000 tokens.
 */
function verifiedTokens () {
  const tokens = new Map<string, { userID: string, expiresAt: number }>()
  return {
    userOf (token: string, now: number): string | undefined {
      const known = tokens.get(token)
      if (known === undefined) return undefined
      // the verifier's own rule: valid up to and including the second of `exp`
      if (now <= known.expiresAt) return known.userID
      tokens.delete(token)
      return undefined
    },
    remember (token: string, userID: string, expiresAt: number): void {
      if (tokens.size >= REMEMBERED_TOKENS) tokens.delete(tokens.keys().next().value as string)
      tokens.set(token, { userID, expiresAt })
    }
  }
}

export class InvalidTokenError extends Error {
  statusCode = 401
  constructor () { super(INVALID_TOKEN) }
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
      requiredClaims: ['sub', 'exp', 'iss', 'aud']
    }
  })

  app.decorate('issueToken', (userID: string) => app.jwt.sign({ sub: userID }))

  const verified = verifiedTokens()
  app.decorate('identify', async (token: unknown) => {
    if (typeof token !== 'string' || token === '' || token.length > 4096) return null
    let userID = verified.userOf(token, Date.now())
    if (userID === undefined) {
      let claims: { sub?: unknown, exp?: unknown }
      try {
        claims = app.jwt.verify<{ sub?: unknown, exp?: unknown }>(token)
      } catch {
        return null
      }
      // exp is a required claim: the verifier refused a token without a numeric one
      if (typeof claims.sub !== 'string' || typeof claims.exp !== 'number') return null
      userID = claims.sub
      verified.remember(token, userID, claims.exp * 1000)
    }
    // a token outlives nothing: the account it names must still exist
    return await app.repositories.users.findById(userID)
  })

  app.decorateRequest('account', null as unknown as UserDocument)
  app.decorate('authenticate', async (request: FastifyRequest) => {
    const body = request.body as { jwtToken?: unknown } | undefined
    const account = await app.identify(body?.jwtToken)
    if (account === null) throw new InvalidTokenError()
    request.account = account
  })
}, { name: 'auth', dependencies: ['database'] })
