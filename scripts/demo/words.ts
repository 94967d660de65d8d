// Numbers written out in Spanish, German and French, and Roman numerals: the
// demo's longest decks, made by rule rather than by hand.

const SPANISH_UNITS = ['cero', 'uno', 'dos', 'tres', 'cuatro', 'cinco', 'seis', 'siete', 'ocho', 'nueve', 'diez',
  'once', 'doce', 'trece', 'catorce', 'quince', 'dieciséis', 'diecisiete', 'dieciocho', 'diecinueve', 'veinte',
  'veintiuno', 'veintidós', 'veintitrés', 'veinticuatro', 'veinticinco', 'veintiséis', 'veintisiete', 'veintiocho', 'veintinueve']
const SPANISH_TENS = ['', '', '', 'treinta', 'cuarenta', 'cincuenta', 'sesenta', 'setenta', 'ochenta', 'noventa']
const SPANISH_HUNDREDS = ['', 'ciento', 'doscientos', 'trescientos', 'cuatrocientos', 'quinientos', 'seiscientos', 'setecientos', 'ochocientos', 'novecientos']

/** 1 to 1000 in Spanish words ("uno" as counted, not "un"). */
export function spanishNumber (n: number): string {
  if (n === 1000) return 'mil'
  if (n === 100) return 'cien'
  const hundreds = Math.floor(n / 100)
  const rest = n % 100
  const below = rest === 0 ? '' : rest < 30 ? SPANISH_UNITS[rest] : `${SPANISH_TENS[Math.floor(rest / 10)]}${rest % 10 === 0 ? '' : ` y ${SPANISH_UNITS[rest % 10]}`}`
  return [SPANISH_HUNDREDS[hundreds], below].filter((part) => part !== '').join(' ')
}

const GERMAN_UNITS = ['null', 'eins', 'zwei', 'drei', 'vier', 'fünf', 'sechs', 'sieben', 'acht', 'neun', 'zehn',
  'elf', 'zwölf', 'dreizehn', 'vierzehn', 'fünfzehn', 'sechzehn', 'siebzehn', 'achtzehn', 'neunzehn']
const GERMAN_TENS = ['', '', 'zwanzig', 'dreißig', 'vierzig', 'fünfzig', 'sechzig', 'siebzig', 'achtzig', 'neunzig']

/** 1 to 1000 in German words, as one word ("dreihundertsiebenundvierzig"). */
export function germanNumber (n: number): string {
  if (n === 1000) return 'tausend'
  const hundreds = Math.floor(n / 100)
  const rest = n % 100
  let below = ''
  if (rest > 0 && rest < 20) below = GERMAN_UNITS[rest] ?? ''
  else if (rest >= 20) {
    const unit = rest % 10
    below = `${unit === 0 ? '' : `${unit === 1 ? 'ein' : GERMAN_UNITS[unit]}und`}${GERMAN_TENS[Math.floor(rest / 10)]}`
  }
  // "hunderteins": a one after the hundreds keeps its s
  return `${hundreds === 0 ? '' : `${hundreds === 1 ? 'ein' : GERMAN_UNITS[hundreds]}hundert`}${below}`
}

const FRENCH_UNITS = ['zéro', 'un', 'deux', 'trois', 'quatre', 'cinq', 'six', 'sept', 'huit', 'neuf', 'dix',
  'onze', 'douze', 'treize', 'quatorze', 'quinze', 'seize', 'dix-sept', 'dix-huit', 'dix-neuf']
const FRENCH_TENS = ['', '', 'vingt', 'trente', 'quarante', 'cinquante', 'soixante']

function frenchBelowHundred (n: number, final: boolean): string {
  if (n < 20) return FRENCH_UNITS[n] ?? ''
  if (n < 70) {
    const unit = n % 10
    const tens = FRENCH_TENS[Math.floor(n / 10)] ?? ''
    return unit === 0 ? tens : unit === 1 ? `${tens} et un` : `${tens}-${FRENCH_UNITS[unit]}`
  }
  if (n < 80) return n === 71 ? 'soixante et onze' : `soixante-${FRENCH_UNITS[n - 60]}`
  // quatre-vingts takes its s only at the end of the number
  if (n === 80) return final ? 'quatre-vingts' : 'quatre-vingt'
  return `quatre-vingt-${FRENCH_UNITS[n - 80]}`
}

/** 1 to 1000 in French words, in the traditional spelling (hyphens below a hundred). */
export function frenchNumber (n: number): string {
  if (n === 1000) return 'mille'
  const hundreds = Math.floor(n / 100)
  const rest = n % 100
  const below = rest === 0 ? '' : frenchBelowHundred(rest, true)
  if (hundreds === 0) return below
  // cents takes its s only when nothing follows it
  const hundred = hundreds === 1 ? 'cent' : `${FRENCH_UNITS[hundreds]} cent${rest === 0 ? 's' : ''}`
  return below === '' ? hundred : `${hundred} ${below}`
}

const ROMAN: ReadonlyArray<readonly [number, string]> = [[1000, 'M'], [900, 'CM'], [500, 'D'], [400, 'CD'], [100, 'C'], [90, 'XC'],
  [50, 'L'], [40, 'XL'], [10, 'X'], [9, 'IX'], [5, 'V'], [4, 'IV'], [1, 'I']]

export function romanNumeral (n: number): string {
  let rest = n
  let written = ''
  for (const [value, letters] of ROMAN) {
    while (rest >= value) {
      written += letters
      rest -= value
    }
  }
  return written
}
