// The review log read as fitting reads it, straight from the BSON the database
// sends: a fit reads every review of a user, and decoding each into objects
// (dates, nested schedules) would hold the event loop many times longer than
// picking out the five values fitting needs.
import type { Rating } from '../domain/scheduling.js'

/** What fitting reads of a review. */
export interface LoggedAnswerVisitor {
  (cardID: string, reviewedAt: number, day: string, rating: Rating | null, stateBefore: number): void
}

const RATING_BY_LENGTH_AND_FIRST: Readonly<Record<string, Rating>> = { '5a': 'again', '4h': 'hard', '4g': 'good', '4e': 'easy' }

function cstringEnd (bytes: Uint8Array, at: number): number {
  let end = at
  while (bytes[end] !== 0) end += 1
  return end
}

/** Where the value of an element of `type` starting at `at` ends. */
function valueEnd (bytes: Uint8Array, view: DataView, type: number, at: number): number {
  switch (type) {
    case 0x01: case 0x09: case 0x11: case 0x12: return at + 8
    case 0x02: case 0x0d: case 0x0e: return at + 4 + view.getInt32(at, true)
    case 0x03: case 0x04: return at + view.getInt32(at, true)
    case 0x05: return at + 5 + view.getInt32(at, true)
    case 0x07: return at + 12
    case 0x08: return at + 1
    case 0x0a: case 0x06: case 0x7f: case 0xff: return at
    case 0x10: return at + 4
    case 0x13: return at + 16
    default: throw new Error(`unexpected BSON type ${type} in a review`)
  }
}

function numberAt (view: DataView, type: number, at: number): number {
  if (type === 0x10) return view.getInt32(at, true)
  if (type === 0x01) return view.getFloat64(at, true)
  if (type === 0x12) return Number(view.getBigInt64(at, true))
  return NaN
}

/** A field name as bytes, to compare without making a string of every name read. */
function nameBytes (name: string): Uint8Array {
  return Uint8Array.from(name, (char) => char.charCodeAt(0))
}

const CARD_ID = nameBytes('cardID')
const REVIEWED_AT = nameBytes('reviewedAt')
const DAY = nameBytes('day')
const RATING = nameBytes('rating')
const BEFORE = nameBytes('before')
const STATE = nameBytes('state')

/** Whether the name from `at` to `end` (its terminating zero) is `name`. */
function isName (bytes: Uint8Array, at: number, end: number, name: Uint8Array): boolean {
  if (end - at !== name.length) return false
  for (let index = 0; index < name.length; index++) if (bytes[at + index] !== name[index]) return false
  return true
}

function stringAt (document: Buffer, view: DataView, at: number, encoding: 'utf8' | 'latin1'): string {
  return document.toString(encoding, at + 4, at + 3 + view.getInt32(at, true))
}

/**
 * Reads one review document, as projected for fitting (cardID, reviewedAt,
 * day, rating, before.state), and hands its values to `visit`.
 */
export function visitLoggedAnswer (bytes: Uint8Array, visit: LoggedAnswerVisitor): void {
  const document = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const view = new DataView(document.buffer, document.byteOffset, document.byteLength)
  const end = view.getInt32(0, true) - 1
  let cardID = ''
  let reviewedAt = NaN
  let day = ''
  let rating: Rating | null = null
  let stateBefore = NaN
  let at = 4
  while (at < end) {
    const type = document[at] as number
    const nameEnd = cstringEnd(document, at + 1)
    const value = nameEnd + 1
    if (type === 0x02 && isName(document, at + 1, nameEnd, CARD_ID)) cardID = stringAt(document, view, value, 'utf8')
    else if (type === 0x09 && isName(document, at + 1, nameEnd, REVIEWED_AT)) reviewedAt = Number(view.getBigInt64(value, true))
    else if (type === 0x02 && isName(document, at + 1, nameEnd, DAY)) day = stringAt(document, view, value, 'latin1')
    else if (type === 0x02 && isName(document, at + 1, nameEnd, RATING)) {
      const length = view.getInt32(value, true) - 1
      rating = RATING_BY_LENGTH_AND_FIRST[`${length}${String.fromCharCode(document[value + 4] as number)}`] ?? null
    } else if (type === 0x03 && isName(document, at + 1, nameEnd, BEFORE)) {
      const innerEnd = value + view.getInt32(value, true) - 1
      let field = value + 4
      while (field < innerEnd) {
        const fieldType = document[field] as number
        const fieldNameEnd = cstringEnd(document, field + 1)
        if (isName(document, field + 1, fieldNameEnd, STATE)) stateBefore = numberAt(view, fieldType, fieldNameEnd + 1)
        field = valueEnd(document, view, fieldType, fieldNameEnd + 1)
      }
    }
    at = valueEnd(document, view, type, value)
  }
  visit(cardID, reviewedAt, day, rating, stateBefore)
}
