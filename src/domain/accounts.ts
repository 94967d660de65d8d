import { createHash } from 'node:crypto'

export interface UserSettings {
  displayName: string
  timezone: string
  dayStartHour: number
  newCardsPerDay: number
  reviewsPerDay: number
  desiredRetention: number
}

export const DEFAULT_SETTINGS: Omit<UserSettings, 'displayName'> = {
  timezone: 'UTC',
  dayStartHour: 4,
  newCardsPerDay: 20,
  reviewsPerDay: 200,
  desiredRetention: 0.9
}

/** Emails compare trimmed and in lower case: one account per address, however it is typed. */
export function normaliseEmail (email: string): string {
  return email.trim().toLowerCase()
}

/** How many of the addresses an account logged in from are remembered. */
export const KNOWN_ADDRESSES = 10

/** An address as the account keeps it: a digest salted with the account, not the address itself. */
export function knownAddress (userID: string, address: string): string {
  return createHash('sha256').update(`${userID}\n${address}`).digest('base64url').slice(0, 22)
}
