import { createHash, randomBytes } from 'node:crypto'
import { Refusal } from './refusals.js'

/**
 * The links the service mails to prove who holds an address: one that sets a
 * new password (a reset), one that confirms a new email. The link carries a
 * random token; the service keeps only its digest, so that a copy of the
 * database opens no account.
 */
export type LinkPurpose = 'reset-password' | 'confirm-email-change'

/** How long a mailed link works. */
export const LINK_LIFETIME_MS = 60 * 60 * 1000

/** Random bytes in a link's token: far too many to guess, whatever the number of tries (LINK_TOKEN_LENGTH characters). */
const TOKEN_BYTES = 32

export function newLinkToken (): string {
  return randomBytes(TOKEN_BYTES).toString('base64url')
}

/**
 * What the service stores of a token. A fast digest is enough: the token is
 * random and long, so no dictionary or slow search finds it from the digest.
 */
export function linkDigest (token: string): string {
  return createHash('sha256').update(token).digest('base64url')
}

/**
 * The link a mail carries: the study page's screen for it, the token in the
 * fragment, which a browser never sends to a server (and so to no log).
 */
export function linkAddress (publicUrl: string, purpose: LinkPurpose, token: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/#/${purpose}?token=${token}`
}

/** A link as stored, in the terms its checks need. */
export interface StoredLink {
  purpose: LinkPurpose
  /** the account's token generation when the link was sent: a reset, a new password or a logout everywhere since ends it */
  generation: number
  expiresAt: Date
  usedAt?: Date
  /** set on the account's other links when a change of email is confirmed: they were sent to, or for, an address it no longer has */
  endedByEmailChange?: Date
}

/**
 * Why a link no longer works, as a refusal; null while it does. `generation`
 * is the account's now (null when the account is gone).
 */
export function linkProblem (link: StoredLink | null, purpose: LinkPurpose, generation: number | null, now: Date): Refusal | null {
  if (link === null || link.purpose !== purpose || generation === null) return invalidLink()
  if (link.usedAt !== undefined) return linkUsed()
  if (link.endedByEmailChange !== undefined) {
    return new Refusal('link_used', 'this link no longer works: the account\'s email was changed since it was sent; ask for a new one')
  }
  if (link.expiresAt.getTime() <= now.getTime()) {
    return new Refusal('link_expired', `this link expired: a link works for ${LINK_LIFETIME_MS / 60_000} minutes after it is sent; ask for a new one`)
  }
  if (generation !== link.generation) return linkEnded()
  return null
}

/** A link of an earlier token generation: its account's sessions ended since it was sent. */
export function linkEnded (): Refusal {
  return new Refusal('link_used', 'this link no longer works: the account\'s password was reset or changed, or every session was logged out, since it was sent; ask for a new one')
}

export function invalidLink (): Refusal {
  return new Refusal('invalid_link', 'this link is not one the service sent, or its account is gone: check that the whole link was copied, or ask for a new one')
}

export function linkUsed (): Refusal {
  return new Refusal('link_used', 'this link was used already, and each link works once: ask for a new one if needed')
}

/** A mail of the service: to one address, plain text. */
export interface MailMessage { to: string, subject: string, text: string }

export function passwordResetMail (to: string, link: string): MailMessage {
  return {
    to,
    subject: 'Reset your flashcards password',
    text: [
      'Someone asked to reset the password of the flashcards account of this email address.',
      '',
      `If it was you, open this link within ${LINK_LIFETIME_MS / 60_000} minutes to choose a new password:`,
      '',
      link,
      '',
      'The link works once. Setting a new password logs the account out on every device.',
      'If you did not ask, ignore this mail: your password stays as it is.'
    ].join('\n')
  }
}

export function emailChangeMail (to: string, link: string): MailMessage {
  return {
    to,
    subject: 'Confirm your new flashcards email address',
    text: [
      'Someone asked to make this address the email of a flashcards account.',
      '',
      `If it was you, open this link within ${LINK_LIFETIME_MS / 60_000} minutes to confirm it:`,
      '',
      link,
      '',
      'Until then the account keeps its old address. If you did not ask, ignore this mail.'
    ].join('\n')
  }
}
