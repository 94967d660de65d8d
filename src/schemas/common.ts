import { Type, type TSchema, type TUnsafe } from '@sinclair/typebox'
import { errorResponse } from './errors.js'


export const JwtToken = Type.String({ maxLength: 4096, description: 'token from register or login' })

export const Id = Type.String({ pattern: '^[0-9]{30,64}$', description: 'identifier: a long string of decimal digits' })

/** A count accepted as a JSON integer or a digit string (`20` or `"20"`); Ajv coerces strings. */
export function Count (options: { minimum?: number, maximum?: number, description?: string } = {}): TSchema {
  return Type.Integer({ minimum: 0, ...options })
}

/**
 * The error statuses any operation can answer: a malformed body (400), a
 * request that did not arrive in time (408), one past the body size limit
 * (413) or not sent as uncompressed UTF-8 JSON (415), a client past its own
 * limits (429), an internal failure (500), an outage or overload (503); and
 * 401, for a bad token, and 403, for a disabled account, on those that take one.
 * Added to every operation's responses in one place (app.ts); an operation
 * declares the others it answers with `refusals`.
 */
export function commonErrors (authenticated: boolean): Record<number, TSchema> {
  return refusals(400, 408, 413, 415, 429, 500, 503, ...(authenticated ? [401, 403] : []))
}

/** The statuses an operation refuses with beyond the common ones (404, 409...), each with the codes of that status. */
export function refusals (...statuses: number[]): Record<number, TSchema> {
  return Object.fromEntries(statuses.map((status) => [status, errorResponse(status)]))
}

/** One of a few strings; an enum (rather than a union of literals) gives a clear validation message. */
export function StringEnum<T extends string> (values: readonly T[], options: { description?: string } = {}): TUnsafe<T> {
  return Type.Unsafe<T>({ type: 'string', enum: [...values], ...options })
}
