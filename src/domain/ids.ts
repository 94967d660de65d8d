import { createHash, randomFillSync } from 'node:crypto'

const ID_DIGITS = 39

/** Random bytes for 256 ids, drawn from the system's generator at once: an import makes hundreds of thousands of ids, and a call for each took seconds. */
const pool = Buffer.alloc(16 * 256)
let used = pool.length

/**
 * A new unguessable identifier: 128 random bits written as 39 decimal digits.
 * Ids are strings of digits because the published interface shows them so
 * (flashcardID is "a long string of digits"). Each id's bits are used once.
 */
export function newId (): string {
  if (used === pool.length) {
    randomFillSync(pool)
    used = 0
  }
  const hex = pool.toString('hex', used, used + 16)
  used += 16
  return idOfBits(hex)
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
