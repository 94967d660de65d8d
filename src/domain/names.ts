import { DomainError } from './errors.js'

/**
 * A client tells a flashcard from a folder by these members (spec 2.2), so no
 * folder or flashcard may be called by them.
 */
export const RESERVED_NAMES: ReadonlySet<string> = new Set(['cards', 'flashcardID', 'flashcardName'])

export const MAX_NAME_LENGTH = 100

/**
 * JSON-schema pattern of a name: any Unicode text without control characters.
 * The control characters (\p{Cc}) are spelled out as ranges, since property
 * escapes are not understood by every client's regex engine (Python's re).
 */
export const NAME_PATTERN = '^[^\\u0000-\\u001f\\u007f-\\u009f]+$'

/**
 * Bidirectional controls make a name read otherwise than it is stored
 * ("evil\u202Egnp.exe" shows as "evilexe.png"): refused in names.
 */
const BIDI_CONTROLS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u

/** What shows nothing by itself: spaces, format characters (zero-width ones among them), combining marks, fillers. */
const VISIBLE = /[^\p{White_Space}\p{Cf}\p{Mn}\p{Me}\p{Cc}\u115f\u1160\u3164\uffa0]/u

/** A name as an error message quotes it: its invisible and direction characters escaped, so the message reads as it is. */
function shown (name: string): string {
  return JSON.stringify(name).replace(/[\u061c\u115f\u1160\u200b-\u200f\u202a-\u202e\u2060-\u2069\u3164\ufeff\uffa0]/g,
    (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`)
}

/**
 * Why a folder or flashcard name cannot be used, or null. Names reach here
 * NFC-normalised (plugins/json-body.ts), so two spellings of one name are
 * one name.
 */
export function nameProblem (name: string): string | null {
  if (RESERVED_NAMES.has(name)) {
    return `"${name}" is reserved: a client tells a flashcard from a folder by its members cards, flashcardID and flashcardName`
  }
  if (BIDI_CONTROLS.test(name)) {
    return `the name ${shown(name)} holds a bidirectional control character (U+202A-U+202E, U+2066-U+2069, U+200E, U+200F, U+061C), which would make it read otherwise than it is: remove it`
  }
  if (!VISIBLE.test(name)) {
    return `the name ${shown(name)} has no visible character: give it at least one letter, digit or symbol`
  }
  return null
}

/** Refuses the first name that cannot be used. */
export function checkNames (names: readonly string[]): void {
  for (const name of names) {
    const problem = nameProblem(name)
    if (problem !== null) throw new DomainError('invalid', problem)
  }
}
