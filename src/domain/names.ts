import { characterCountPast } from './limits.js'

/**
 * A client tells a flashcard from a folder by these members (docs/interface.md), so no
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

// eslint-disable-next-line no-control-regex -- the control characters are what it finds
export const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/u

/**
 * Bidirectional controls make a name read otherwise than it is stored
 * ("evil\u202Egnp.exe" shows as "evilexe.png"): refused in names.
 */
const BIDI_CONTROLS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u

/** Line and paragraph separators break the line wherever a name is shown, in the middle of a path or a list. */
const LINE_BREAKS = /[\u2028\u2029]/u

/**
 * What shows nothing by itself: spaces, format characters (zero-width ones
 * among them), combining marks, every default-ignorable code point (the
 * Hangul fillers U+115F, U+1160, U+3164 and U+FFA0, U+180E, the musical
 * format characters U+1D173-U+1D17A...), and the symbols that fonts draw as
 * blank: the braille blank U+2800 and the musical null notehead U+1D159.
 */
const VISIBLE = /[^\p{White_Space}\p{Cf}\p{Mn}\p{Me}\p{Cc}\p{Default_Ignorable_Code_Point}\u2800\u{1d159}]/u

const DEFAULT_IGNORABLE = /\p{Default_Ignorable_Code_Point}/u
const DEFAULT_IGNORABLES = /\p{Default_Ignorable_Code_Point}/gu
/** Zero-width non-joiner and joiner: Persian and Indic words and emoji sequences (👨‍👩‍👧) need them. */
const JOINERS = /^[\u200c\u200d]$/u
/** Variation selectors: emoji or text presentation (U+FE0E, U+FE0F), ideographic and Mongolian variants. */
const VARIATION_SELECTORS = /^[\u180b-\u180d\u180f\ufe00-\ufe0f\u{e0100}-\u{e01ef}]$/u
/** A combining mark that is not itself ignorable: it belongs to the character before it. */
const ATTACHED_MARK = /^(?!\p{Default_Ignorable_Code_Point})\p{M}$/u

const isVisible = (character: string | undefined): boolean => character !== undefined && VISIBLE.test(character)
const isAttachedMark = (character: string | undefined): boolean => character !== undefined && ATTACHED_MARK.test(character)
const isVariationSelector = (character: string | undefined): boolean => character !== undefined && VARIATION_SELECTORS.test(character)

/**
 * The first default-ignorable code point of a name (as a one-character
 * string) that stands where it can only hide a difference, or null. Allowed:
 * - a zero-width non-joiner or joiner (U+200C, U+200D) between two visible
 *   characters: the nearest code point before it, passing over combining
 *   marks and variation selectors, is visible, and so is the nearest one
 *   after it, passing over combining marks (क्‍ष, र‍्य, می‌خواهم, 👨‍👩‍👧, 🏳️‍🌈);
 * - a variation selector (U+FE00-U+FE0F, U+E0100-U+E01EF, the Mongolian
 *   U+180B-U+180D and U+180F) directly after a visible character (❤️, 1️⃣).
 * Every other one is refused: U+200B, U+2060, U+FEFF, U+00AD, U+034F,
 * U+180E, U+115F, U+1160, U+3164, U+FFA0, the tag characters U+E0000-U+E007F
 * (so the flags of England, Scotland and Wales, written with them), and the
 * rest of Unicode's Default_Ignorable_Code_Point.
 */
function hiddenCharacter (name: string): string | null {
  if (!DEFAULT_IGNORABLE.test(name)) return null
  const characters = Array.from(name)
  for (const [at, character] of characters.entries()) {
    if (!DEFAULT_IGNORABLE.test(character)) continue
    if (JOINERS.test(character)) {
      let before = at - 1
      while (isAttachedMark(characters[before]) || isVariationSelector(characters[before])) before -= 1
      let after = at + 1
      while (isAttachedMark(characters[after])) after += 1
      if (isVisible(characters[before]) && isVisible(characters[after])) continue
    } else if (isVariationSelector(character) && isVisible(characters[at - 1])) {
      continue
    }
    return character
  }
  return null
}

/** A code point as Unicode writes it: U+200B. */
function codePointOf (character: string): string {
  return `U+${(character.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`
}

/** What an error message escapes in a name: whatever shows nothing or acts on the text around it. */
const UNSHOWN = /[\p{Default_Ignorable_Code_Point}\u2028\u2029\u2800\u{1d159}]|(?! )\p{White_Space}/gu

/**
 * A name as an error message quotes it, in JSON string syntax: its invisible
 * and direction characters escaped, so the message reads as it is.
 */
export function quotedName (name: string): string {
  return JSON.stringify(name).replace(UNSHOWN, (character) => Array.from({ length: character.length }, (_, unit) =>
    `\\u${character.charCodeAt(unit).toString(16).padStart(4, '0')}`).join(''))
}

/**
 * Why a folder or flashcard name cannot be used, or null. Names reach here
 * NFC-normalised (plugins/json-body.ts), so two spellings of one name are
 * one name.
 */
export function nameProblem (name: string): string | null {
  // the request schemas check these too; a name that came by another door (an imported deck) is checked here
  const length = characterCountPast(name, MAX_NAME_LENGTH)
  if (length !== null) {
    return `the name ${quotedName(`${name.slice(0, 40)}…`)} is ${length.toLocaleString('en')} characters long; a name has at most ${MAX_NAME_LENGTH}: shorten it`
  }
  if (CONTROL_CHARACTERS.test(name)) {
    return `the name ${quotedName(name)} holds a control character (U+0000-U+001F, U+007F-U+009F): remove it`
  }
  if (RESERVED_NAMES.has(name)) {
    return `"${name}" is reserved: a client tells a flashcard from a folder by its members cards, flashcardID and flashcardName`
  }
  if (BIDI_CONTROLS.test(name)) {
    return `the name ${quotedName(name)} holds a bidirectional control character (U+202A-U+202E, U+2066-U+2069, U+200E, U+200F, U+061C), which would make it read otherwise than it is: remove it`
  }
  if (LINE_BREAKS.test(name)) {
    return `the name ${quotedName(name)} holds a line or paragraph separator (U+2028, U+2029), which would break it over lines: write it on one line`
  }
  if (!VISIBLE.test(name)) {
    return `the name ${quotedName(name)} has no visible character: give it at least one letter, digit or symbol`
  }
  const hidden = hiddenCharacter(name)
  if (hidden !== null) {
    return `the name ${quotedName(name)} holds the invisible character ${codePointOf(hidden)}, which would make it look like another name: ` +
      'remove it (a zero-width joiner or non-joiner may stand only between two visible characters, a variation selector only right after one)'
  }
  return null
}

/**
 * The form in which sibling names are compared, so that names that look
 * alike collide as deck names do in Anki: NFKC (full-width "Ａ" is "A", "ﬁ"
 * is "fi"), without default-ignorable code points (zero-width characters,
 * variation selectors), then case-folded. JavaScript has no full case
 * folding; upper case then lower case, then NFKC again to recompose, comes
 * close: "ß" is "ss", "Σ", "σ" and "ς" are one letter. It folds a little
 * more than Unicode's folding ("ı" is "i"). Names are stored as written;
 * only comparison uses this form.
 */
export function comparisonKey (name: string): string {
  return name.normalize('NFKC').replace(DEFAULT_IGNORABLES, '').toUpperCase().toLowerCase().normalize('NFKC')
}
