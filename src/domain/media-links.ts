import { createHmac, timingSafeEqual } from 'node:crypto'
import { isId } from './ids.js'
import { Refusal } from './refusals.js'

/**
 * Media URLs a browser loads without a token: `/media/<mediaID>?u=<userID>
 * &e=<expiry>&s=<signature>`, the signature an HMAC-SHA256 of the three
 * under a key derived from the token secret, which every instance shares.
 *
 * The expiry is rounded up to the end of the next whole lifetime: every read
 * within one lifetime gives the same URL, which a browser then finds in its
 * cache, and each URL stays valid for one to two lifetimes.
 */
export interface MediaLinks {
  /** the signed URL of a user's media, valid from `now`; null for what is not a media id */
  urlOf: (userID: string, mediaID: string, now: Date) => string | null
  /** checks a URL's parts as a request brings them: 403 for a URL not signed so, or past its expiry */
  check: (link: { mediaID: string, userID: unknown, expiry: unknown, signature: unknown }, now: Date) => { userID: string, expiresAt: Date }
}

/** Kept apart from the token key: a media signature can never be taken for anything else the secret signs. */
const KEY_PURPOSE = 'flashcard-service media links v1'

export function mediaLinks (secret: string, lifetimeSeconds: number): MediaLinks {
  const key = createHmac('sha256', secret).update(KEY_PURPOSE).digest()
  const sign = (userID: string, mediaID: string, expiry: number): Buffer =>
    createHmac('sha256', key).update(`${userID}\n${mediaID}\n${expiry}`).digest()

  return {
    urlOf (userID, mediaID, now) {
      if (!isId(mediaID) || !isId(userID)) return null
      const expiry = (Math.floor(now.getTime() / 1000 / lifetimeSeconds) + 2) * lifetimeSeconds
      return `/media/${mediaID}?u=${userID}&e=${expiry}&s=${sign(userID, mediaID, expiry).toString('base64url')}`
    },

    check ({ mediaID, userID, expiry, signature }, now) {
      const invalid = new Refusal('media_url_invalid', 'this media URL is not one the service signed: use the URL as a card read gave it')
      if (!isId(mediaID) || !isId(userID) || typeof expiry !== 'string' || !/^[0-9]{1,12}$/.test(expiry) || typeof signature !== 'string') throw invalid
      // compared as written: base64url text has more than one spelling of some byte strings
      const given = Buffer.from(signature)
      const expected = Buffer.from(sign(userID, mediaID, Number(expiry)).toString('base64url'))
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid
      const expiresAt = new Date(Number(expiry) * 1000)
      if (now.getTime() >= expiresAt.getTime()) {
        throw new Refusal('media_url_expired', 'this media URL has expired: read the card again for a fresh one')
      }
      return { userID, expiresAt }
    }
  }
}
