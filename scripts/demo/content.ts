// The demo's library, as the parts a learner adds over a year: each part is
// some cards of one deck (the deck is made with its first part), with the
// images or sounds they show. Parts of different decks take turns, so that
// the new cards of every day come from several decks, as they would for a
// learner who adds a hundred numbers here and a few capitals there.
import type { CardWriting } from '../../src/services/library.js'
import { CAPITALS, COLOURS, ELEMENTS, FLAGS, GERMAN_WORDS, HIRAGANA, NOTES, SPANISH_VERBS, SPANISH_WORDS } from './facts.js'
import { flag, swatch, tone } from './media-files.js'
import { frenchNumber, germanNumber, romanNumeral, spanishNumber } from './words.js'

/** A file a part's cards show, uploaded before they are written; `key` names it in `cards`. */
export interface PartFile { key: string, name: string, type: string, bytes: () => Buffer }

export interface DeckPart {
  folder: readonly string[]
  deck: string
  description: string
  files: readonly PartFile[]
  /** the cards, given each file's mediaID by its key */
  cards: (mediaIDs: ReadonlyMap<string, string>) => CardWriting[]
  /** added in the last weeks, whatever else is left to learn: pictures, sounds and cloze notes among today's cards */
  late?: boolean
}

function range (from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, index) => from + index)
}

function inGroups<T> (items: readonly T[], size: number): T[][] {
  const groups: T[][] = []
  for (let start = 0; start < items.length; start += size) groups.push(items.slice(start, start + size))
  return groups
}

function escape (text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
}

type Deck = Omit<DeckPart, 'files' | 'cards'>

function textParts (deck: Deck, cards: ReadonlyArray<readonly [string, string]>, size: number): DeckPart[] {
  return inGroups(cards, size).map((group) => ({ ...deck, files: [], cards: () => group.map(([front, back]) => ({ front, back })) }))
}

function numberDeck (folder: string[], deck: string, language: string, words: (n: number) => string): DeckPart[] {
  return textParts({ folder, deck, description: `The numbers from 1 to 1000 in ${language}, a hundred at a time.` },
    range(1, 1000).map((n) => [n.toLocaleString('en'), words(n)]), 100)
}

const PRONOUNS = ['yo', 'tú', 'él, ella, usted', 'nosotros', 'vosotros', 'ellos, ellas, ustedes']

function conjugated (verb: string, tense: 'present' | 'preterite'): string[] {
  const stem = verb.slice(0, -2)
  const ending = verb.slice(-2) as 'ar' | 'er' | 'ir'
  const endings = tense === 'present'
    ? { ar: ['o', 'as', 'a', 'amos', 'áis', 'an'], er: ['o', 'es', 'e', 'emos', 'éis', 'en'], ir: ['o', 'es', 'e', 'imos', 'ís', 'en'] }[ending]
    : { ar: ['é', 'aste', 'ó', 'amos', 'asteis', 'aron'], er: ['í', 'iste', 'ió', 'imos', 'isteis', 'ieron'], ir: ['í', 'iste', 'ió', 'imos', 'isteis', 'ieron'] }[ending]
  return endings.map((end) => `${stem}${end}`)
}

function verbParts (): DeckPart[] {
  const deck = { folder: ['Languages', 'Spanish'], deck: 'Verbs: present and preterite', description: 'Regular -ar, -er and -ir verbs, conjugated.' }
  return (['present', 'preterite'] as const).map((tense) => ({
    ...deck,
    files: [],
    cards: () => SPANISH_VERBS.map((verb) => ({
      format: 'html' as const,
      front: `<b>${verb}</b>, <i>${tense === 'present' ? 'presente' : 'pretérito indefinido'}</i>`,
      back: `<table><tbody>${conjugated(verb, tense).map((form, index) => `<tr><th>${PRONOUNS[index] ?? ''}</th><td>${form}</td></tr>`).join('')}</tbody></table>`
    }))
  }))
}

function wordParts (folder: string[], deck: string, description: string, words: ReadonlyArray<readonly [string, string]>): DeckPart[] {
  return inGroups(words, 48).map((group) => ({
    folder,
    deck,
    description,
    files: [],
    cards: () => group.map(([english, foreign]) => ({ format: 'html' as const, front: escape(english), back: `<b>${escape(foreign)}</b>` }))
  }))
}

function capitalParts (): DeckPart[] {
  return inGroups(CAPITALS, 33).map((group, index, groups) => ({
    late: index === groups.length - 1,
    folder: ['Geography'],
    deck: 'Capitals of the world',
    description: 'Each note asks for the capital, then for the country.',
    files: [],
    cards: () => group.map(([country, capital, continent]) => ({
      format: 'html' as const,
      cloze: `<b>{{c1::${escape(capital)}}}</b> is the capital of {{c2::${escape(country)}}}.`,
      back: `<i>${continent}</i>`
    }))
  }))
}

function elementParts (): DeckPart[] {
  const numbered = ELEMENTS.map(([symbol, name], index) => [symbol, name, index + 1] as const)
  return inGroups(numbered, 30).map((group) => ({
    folder: ['Science', 'Chemistry'],
    deck: 'The elements',
    description: 'Symbols and names of the elements, by atomic number.',
    files: [],
    cards: () => group.map(([symbol, name, number]) => ({
      cloze: `{{c1::${symbol}}} is the symbol of {{c2::${name}}}, element ${number}.`
    }))
  }))
}

function timesParts (): DeckPart[] {
  const facts = range(2, 20).flatMap((a) => range(2, 20).map((b) => [`${a} × ${b}`, String(a * b)] as const))
  return textParts({ folder: ['Maths'], deck: 'Times tables', description: 'Up to 20 × 20.' }, facts, 95)
}

function romanParts (): DeckPart[] {
  return textParts({ folder: ['Maths'], deck: 'Roman numerals', description: 'From I to M.' },
    range(1, 1000).map((n) => [romanNumeral(n), String(n)]), 100)
}

function binaryParts (): DeckPart[] {
  const byte = (n: number) => n.toString(2).padStart(8, '0').replace(/(\d{4})(\d{4})/, '$1 $2')
  return textParts({ folder: ['Maths'], deck: 'Binary and hexadecimal', description: 'A byte in binary, as a decimal number and in hexadecimal.' },
    range(0, 255).map((n) => [byte(n), `${n} (0x${n.toString(16).toUpperCase().padStart(2, '0')})`]), 128)
}

/** The parts of a deck of pictures or sounds: its first half learned early, its second half late. */
function inHalves<T> (items: readonly T[], part: (half: readonly T[]) => Omit<DeckPart, 'late'>): DeckPart[] {
  const middle = Math.ceil(items.length / 2)
  return [{ ...part(items.slice(0, middle)), late: false }, { ...part(items.slice(middle)), late: true }]
}

function flagParts (): DeckPart[] {
  return inHalves(FLAGS, (flags) => ({
    folder: ['Geography'],
    deck: 'Flags',
    description: 'Flags of three stripes.',
    files: flags.map(([country, stripes, direction]) => ({ key: country, name: `flag-${country}.png`, type: 'image/png', bytes: () => flag(stripes, direction) })),
    cards: (media) => flags.map(([country]) => ({
      format: 'html' as const,
      front: `Whose flag is this?<br><img src="media:${media.get(country) ?? ''}" alt="A flag of three stripes">`,
      back: `<b>${escape(country.replace(/^the /, 'The '))}</b>`
    }))
  }))
}

function colourParts (): DeckPart[] {
  return inHalves(COLOURS, (colours) => ({
    folder: ['Art'],
    deck: 'Colours',
    description: 'The named colours of the web.',
    files: colours.map(([name, r, g, b]) => ({ key: name, name: `${name}.png`, type: 'image/png', bytes: () => swatch([r, g, b]) })),
    cards: (media) => colours.map(([name, r, g, b]) => ({
      format: 'html' as const,
      front: `Which colour is this?<br><img src="media:${media.get(name) ?? ''}" alt="A swatch of one colour">`,
      back: `<b>${name}</b><br><code>rgb(${r}, ${g}, ${b})</code>`
    }))
  }))
}

function noteParts (): DeckPart[] {
  return inHalves(NOTES, (notes) => ({
    folder: ['Music'],
    deck: 'Notes by ear',
    description: 'Two octaves from middle C. R plays the note again.',
    files: notes.map(([name, frequency]) => ({ key: name, name: `${name}.wav`, type: 'audio/wav', bytes: () => tone(frequency) })),
    cards: (media) => notes.map(([name, frequency]) => ({
      format: 'html' as const,
      front: `Which note is this?<audio src="media:${media.get(name) ?? ''}"></audio>`,
      back: `<b>${name}</b>, ${frequency.toFixed(1)} Hz`
    }))
  }))
}

function hiraganaPart (): DeckPart {
  // as an Anki import makes a top-level deck holding cards: a deck of its name in a folder of its name
  return {
    folder: ['Hiragana'],
    deck: 'Hiragana',
    description: 'The 46 basic kana.',
    files: [],
    cards: () => HIRAGANA.map(([kana, romaji]) => ({ front: kana, back: romaji }))
  }
}

/**
 * Every part of the library, in the order the learner adds them: each round
 * takes the next part of every deck that has one left. The parts marked late
 * wait for the last weeks (plan.ts).
 */
export function libraryParts (): DeckPart[] {
  const decks: DeckPart[][] = [
    numberDeck(['Languages', 'Spanish'], 'Numbers 1–1000', 'Spanish', spanishNumber),
    capitalParts(),
    flagParts(),
    timesParts(),
    wordParts(['Languages', 'Spanish'], 'Everyday words', 'Common words, each with its article.', SPANISH_WORDS),
    colourParts(),
    elementParts(),
    verbParts(),
    noteParts(),
    numberDeck(['Languages', 'German'], 'Zahlen 1–1000', 'German', germanNumber),
    wordParts(['Languages', 'German'], 'English–German words', 'Common words, each with its article.', GERMAN_WORDS),
    [hiraganaPart()],
    romanParts(),
    binaryParts(),
    numberDeck(['Languages', 'French'], 'Nombres 1–1000', 'French', frenchNumber)
  ]
  const parts: DeckPart[] = []
  for (let round = 0; decks.some((deck) => deck.length > round); round += 1) {
    for (const deck of decks) {
      const part = deck[round]
      if (part !== undefined) parts.push(part)
    }
  }
  return parts
}
