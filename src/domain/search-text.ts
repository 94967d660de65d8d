/**
 * The text a card is found by. A search matches what a card shows, not how it
 * is written: the text of a formatted side without its markup, a cloze note
 * with its answers filled in. Text and query are both folded the same way,
 * character by character: compatibility forms taken apart (full-width
 * letters, ligatures), accents and other diacritics dropped, letters that
 * carry their stroke or ligature inside them spelled as their base (ø, æ, ł,
 * ß...), lower case. A query of several words finds the cards that hold every
 * one of them, each anywhere and as part of a longer word.
 */
import { basicSides, clozeSides, RENDER_VERSION } from './card-html.js'
import type { TextFormat } from './card-content.js'

/** What a card's searchable text is made from: its content as stored. */
export interface SearchableCard {
  front: string
  back: string
  format?: TextFormat
  html?: { front: string, back: string, version: number }
  clozeNumber?: number
}

/** The blocks of combining diacritical marks (Latin, Greek, Cyrillic): dropped. Marks of other scripts (kana's voicing marks) are letters of their own there, and stay. */
const DIACRITIC_BLOCKS: ReadonlyArray<readonly [number, number]> = [[0x0300, 0x036f], [0x1ab0, 0x1aff], [0x1dc0, 0x1dff], [0x20d0, 0x20ff], [0xfe20, 0xfe2f]]

function withoutDiacritics (text: string): string {
  let kept = ''
  for (const character of text) {
    const code = character.codePointAt(0) ?? 0
    if (!DIACRITIC_BLOCKS.some(([first, last]) => code >= first && code <= last)) kept += character
  }
  return kept
}

/** Letters that no decomposition takes apart, spelled as a reader without them would type them. */
const BASE_LETTERS: Readonly<Record<string, string>> = {
  ø: 'o', æ: 'ae', œ: 'oe', ł: 'l', đ: 'd', ð: 'd', þ: 'th', ß: 'ss', ı: 'i', ς: 'σ', ħ: 'h', ŧ: 't', ŀ: 'l'
}

const folded = new Map<string, string>()
const FOLDED_KEPT = 50_000

/** One character (a code point) as searches compare it; a space for any space or control character, nothing for an invisible one. */
function foldCharacter (character: string): string {
  const code = character.charCodeAt(0)
  if (character.length === 1 && code < 0x80) {
    if (code < 0x20 || code === 0x7f) return ' '
    return code >= 0x41 && code <= 0x5a ? String.fromCharCode(code + 32) : character
  }
  let result = folded.get(character)
  if (result === undefined) {
    if (/^[\s\p{Cc}\p{Zs}\p{Zl}\p{Zp}]$/u.test(character)) {
      result = ' '
    } else if (/^\p{Cf}$/u.test(character)) {
      result = ''
    } else {
      // lower case after taking accents off, then once more: İ lowers to i with a dot above
      const lower = withoutDiacritics(withoutDiacritics(character.normalize('NFKD')).toLowerCase().normalize('NFKD'))
      result = [...lower].map((letter) => BASE_LETTERS[letter] ?? letter).join('').normalize('NFC')
    }
    if (folded.size >= FOLDED_KEPT) folded.clear()
    folded.set(character, result)
  }
  return result
}

/** Text as searches compare it (see the module's comment); it holds no control character. */
export function foldForSearch (text: string): string {
  // the common case, plain ASCII, in one pass
  if (/^[\x20-\x7e]*$/.test(text)) return text.toLowerCase()
  let result = ''
  for (const character of text) result += foldCharacter(character)
  return result
}

const ENTITIES: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: '\'', nbsp: '\u00a0' }

/**
 * The text of HTML the service wrote (a side as the sanitizer left it, or
 * escaped text): elements that break a line or hold a block become a space,
 * the others go, and character references are read.
 */
export function textOfHtml (html: string): string {
  return html
    .replace(/<\/?(?:br|p|div|li|ul|ol|tr|td|th|table|caption|thead|tbody|tfoot|pre|ruby|rt|rp)\b[^>]*>/gi, ' ')
    .replace(/<[^>]*>/g, '')
    .replace(/&(?:#(\d{1,7})|#x([0-9a-f]{1,6})|([a-z]+));/gi, (reference, decimal: string | undefined, hex: string | undefined, name: string | undefined) => {
      if (name !== undefined) return ENTITIES[name.toLowerCase()] ?? reference
      const code = decimal !== undefined ? Number(decimal) : Number.parseInt(hex ?? '', 16)
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : reference
    })
}

/**
 * What a card shows, as text: the front and back of a card of a front and a
 * back; of a card of a cloze note, its answer side, which is the whole note
 * with every answer filled in, then its back extra. Formatted sides by their
 * text, from the sides kept rendered (rendered again if of an older version).
 */
export function shownText (card: SearchableCard): string {
  const format = card.format ?? 'text'
  if (card.clozeNumber === undefined && format === 'text') return `${card.front}\n${card.back}`
  const sides = card.html !== undefined && card.html.version === RENDER_VERSION
    ? card.html
    : card.clozeNumber === undefined ? basicSides(card.front, card.back, format) : clozeSides(card.front, card.back, format, card.clozeNumber)
  return card.clozeNumber === undefined ? `${textOfHtml(sides.front)}\n${textOfHtml(sides.back)}` : textOfHtml(sides.back)
}

/** A card's text as the search compares it. */
export function searchTextOf (card: SearchableCard): string {
  return foldForSearch(shownText(card))
}

/** The words of a query, folded, each once; none for a query without a letter, digit or sign. */
export function queryWords (query: string): string[] {
  return [...new Set(foldForSearch(query).split(' ').filter((word) => word !== ''))]
}

/** Whether folded text holds every word. */
export function holdsEvery (text: string, words: readonly string[]): boolean {
  return words.every((word) => text.includes(word))
}

/** A word as a regular expression that matches it literally. */
export function literalPattern (word: string): string {
  return word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

/** Whether two words may share characters where both are found: one holds the other, or one ends as the other begins. */
function mayOverlap (a: string, b: string): boolean {
  if (a.includes(b) || b.includes(a)) return true
  for (let k = 1; k < Math.min(a.length, b.length); k++) {
    if (a.endsWith(b.slice(0, k)) || b.endsWith(a.slice(0, k))) return true
  }
  return false
}

function permutations<T> (items: readonly T[]): T[][] {
  if (items.length <= 1) return [[...items]]
  return items.flatMap((item, index) => permutations([...items.slice(0, index), ...items.slice(index + 1)]).map((rest) => [item, ...rest]))
}

/**
 * Regular expressions that text of many cards, joined by `separator`, matches
 * whenever one of its cards holds every word: each word anywhere; and, for two
 * or three words none of which may overlap another, the words in any order
 * within one card's text, so that a page is picked only where one card holds
 * them all. Words that may overlap are matched each on its own: a card holding
 * them may hold them in shared characters, which one pattern in a row would miss.
 */
export function pagePatterns (words: readonly string[], separator: string): string[] {
  const patterns = words.map(literalPattern)
  const together = words.slice(0, 3)
  if (together.length < 2 || together.some((a, i) => together.some((b, j) => i < j && mayOverlap(a, b)))) return patterns
  // the separator escaped (\xHH), as both MongoDB's and the embedded database's regular expressions read it
  const between = `[^\\x${separator.charCodeAt(0).toString(16).padStart(2, '0')}]*`
  return [...patterns, permutations(together).map((order) => order.map(literalPattern).join(between)).join('|')]
}

const SNIPPET_BEFORE = 40
const SNIPPET_LENGTH = 160

/**
 * A short piece of what a card shows around the first place a query's word
 * is found, spaces run together, cut ends marked with an ellipsis: at most
 * about 160 characters.
 */
export function snippetOf (text: string, words: readonly string[]): string {
  const characters = [...text.replace(/\s+/gu, ' ').trim()]
  // the folded text, and for each of its UTF-16 units the character it came from
  let foldedText = ''
  const from: number[] = []
  for (const [index, character] of characters.entries()) {
    const part = foldCharacter(character)
    foldedText += part
    for (let unit = 0; unit < part.length; unit++) from.push(index)
  }
  let at = -1
  for (const word of words) {
    const found = foldedText.indexOf(word)
    if (found !== -1 && (at === -1 || found < at)) at = found
  }
  const first = at === -1 ? 0 : from[at] ?? 0
  let start = Math.max(0, first - SNIPPET_BEFORE)
  // begin at a word where one is near
  if (start > 0) {
    const space = characters.indexOf(' ', start)
    if (space !== -1 && space < first) start = space + 1
  }
  const end = Math.min(characters.length, start + SNIPPET_LENGTH)
  return `${start > 0 ? '…' : ''}${characters.slice(start, end).join('').trim()}${end < characters.length ? '…' : ''}`
}
