import { createHash, randomBytes } from 'node:crypto'

const ID_DIGITS = 39

/**
 * A new unguessable identifier: 128 random bits written as 39 decimal digits.
 * Ids are strings of digits because the published interface shows them so
 * (flashcardID is "a long string of digits").
 */
export function newId (): string {
  return idOfBits(randomBytes(16).toString('hex'))
}

/**
 * The identifier that `text` always gives (128 bits of its SHA-256), written as newId writes
 * one: for what must have the same id each time it is made, such as an imported note type.
 */
export function idOf (text: string): string {
  return idOfBits(createHash('sha256').update(text).digest('hex').slice(0, 32))
}

/** 128 bits, as 32 hex digits, written as 39 decimal digits. */
function idOfBits (hex: string): string {
  return BigInt(`0x${hex}`).toString().padStart(ID_DIGITS, '0')
}

export function isId (text: unknown): text is string {
  return typeof text === 'string' && /^[0-9]{30,64}$/.test(text)
}
