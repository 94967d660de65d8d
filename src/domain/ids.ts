import { randomBytes } from 'node:crypto'

const ID_DIGITS = 39

/**
 * A new unguessable identifier: 128 random bits written as 39 decimal digits.
 * Ids are strings of digits because the published interface shows them so
 * (flashcardID is "a long string of digits").
 */
export function newId (): string {
  const value = BigInt('0x' + randomBytes(16).toString('hex'))
  return value.toString().padStart(ID_DIGITS, '0')
}

export function isId (text: unknown): text is string {
  return typeof text === 'string' && /^[0-9]{30,64}$/.test(text)
}
