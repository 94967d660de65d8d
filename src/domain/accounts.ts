import { createHash } from 'node:crypto'
import type { SiblingBurying } from './card-states.js'

/** The settings; those of sibling burying are absent on accounts made before them, which have the defaults. */
export interface UserSettings extends Partial<SiblingBurying> {
  displayName: string
  timezone: string
  dayStartHour: number
  newCardsPerDay: number
  reviewsPerDay: number
  desiredRetention: number
}

/**
 * Anki's default preset buries no siblings, which would show a new learner the cards of one note
 * back to back (a word, then its reverse; one cloze, then the next of the same sentence): new and
 * review siblings are buried here. Interday learning siblings are not, as in Anki: a card on a
 * learning step of a day or more is kept on its step.
 */
export const DEFAULT_SIBLING_BURYING: SiblingBurying = {
  buryNewSiblings: true,
  buryReviewSiblings: true,
  buryInterdayLearningSiblings: false
}

export const DEFAULT_SETTINGS: Omit<UserSettings, 'displayName'> & SiblingBurying = {
  timezone: 'UTC',
  dayStartHour: 4,
  newCardsPerDay: 20,
  reviewsPerDay: 200,
  desiredRetention: 0.9,
  ...DEFAULT_SIBLING_BURYING
}

/** The account's sibling burying, the defaults where it has none stored. */
export function siblingBuryingOf (settings: Partial<SiblingBurying>): SiblingBurying {
  return {
    buryNewSiblings: settings.buryNewSiblings ?? DEFAULT_SIBLING_BURYING.buryNewSiblings,
    buryReviewSiblings: settings.buryReviewSiblings ?? DEFAULT_SIBLING_BURYING.buryReviewSiblings,
    buryInterdayLearningSiblings: settings.buryInterdayLearningSiblings ?? DEFAULT_SIBLING_BURYING.buryInterdayLearningSiblings
  }
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
