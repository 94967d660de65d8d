/**
 * The errors a request can end with, shared by the services that raise them
 * and the plugins that raise and answer them (plugins/errors.ts turns each
 * into its status and message).
 */

/** A request the service refuses: its status and a message the client can act on. */
export class RequestError extends Error {
  constructor (readonly statusCode: 400 | 401 | 404 | 409 | 503, message: string) { super(message) }
}

export const INVALID_TOKEN = 'invalid or expired token'

/** A token that is invalid, expired, forged, of an ended generation, or of an account that is gone. */
export class InvalidTokenError extends Error {
  readonly statusCode = 401
  constructor () { super(INVALID_TOKEN) }
}

/** Too many login or registration attempts; the client may try again after `retryAfterSeconds`. */
export class TooManyAttemptsError extends Error {
  readonly statusCode = 429
  constructor (readonly retryAfterSeconds: number) {
    super(`too many attempts; retry in ${retryAfterSeconds} seconds`)
  }
}
