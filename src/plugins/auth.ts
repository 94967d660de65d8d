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

  app.decorate('identify', async (token: unknown) => {
    if (typeof token !== 'string' || token === '' || token.length > 4096) return null
    let userID: unknown
    try {
      userID = app.jwt.verify<{ sub?: unknown }>(token).sub
    } catch {
      return null
    }
    if (typeof userID !== 'string') return null
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
