import { test } from 'tap'
import { comparisonKey, nameProblem } from '../../src/domain/names.js'

/** A name as an ASCII-only label, so that the TAP output shows what the name holds. */
function shown (name: string): string {
  return JSON.stringify(name).replace(/[^\x20-\x7e]/gu, (character) => `\\u{${(character.codePointAt(0) ?? 0).toString(16)}}`)
}

test('look-alike names have one comparison key: width, case and invisible characters aside', async (t) => {
  const alike: Array<[string, string]> = [
    ['Spanish', 'spanish'],
    ['Spanish', 'SPANISH'],
    ['a', 'a\u200b'], // zero-width space
    ['ab', 'a\u2060b'], // word joiner
    ['ab', '\ufeffab'], // byte order mark
    ['ab', 'a\u00adb'], // soft hyphen
    ['ab', 'a\u200db'], // zero-width joiner
    ['❤', '❤\ufe0f'], // emoji presentation selector
    ['🏴', '🏴\u{e0067}\u{e0062}\u{e0065}\u{e006e}\u{e0067}\u{e007f}'], // tag characters
    ['Straße', 'STRASSE'], // ß folds to ss
    ['ΟΔΟΣ', 'οδοσ'], // final and medial sigma
    ['οδος', 'ΟΔΟΣ'],
    ['Ａｂｃ', 'abc'], // full width
    ['ﬁle', 'FILE'], // a ligature
    ['café', 'CAFE\u0301'], // composed and decomposed accent
    ['x\u3164', 'x'], // Hangul filler
    ['a\u00a0b', 'a b'] // no-break space
  ]
  for (const [a, b] of alike) {
    t.equal(comparisonKey(a), comparisonKey(b), `${shown(a)} and ${shown(b)} collide`)
  }
  const different: Array<[string, string]> = [
    ['Spanish', 'Spanish '],
    ['cafe', 'café'],
    ['a', 'b'],
    ['1', 'l'],
    ['résumé', 'resume']
  ]
  for (const [a, b] of different) {
    t.not(comparisonKey(a), comparisonKey(b), `${shown(a)} and ${shown(b)} are different names (the control case)`)
  }
})

test('invisible characters are refused where they could only hide a difference', async (t) => {
  for (const name of [
    'a\u200b', 'x\u200by', '\u200bx', 'a\u2060b', 'ab\ufeff', 'a\u00adb', 'a\u034fb', 'x\u180ey', 'a\u17b4', 'a\u{1d173}b', 'a\u{1bca0}b',
    '🏴\u{e0067}\u{e0062}\u{e0065}\u{e006e}\u{e0067}\u{e007f}', // tag characters, even in a flag
    'a\u200d', '\u200da', 'a\u200c', 'a\u200d\u200db', 'a \u200db', // a joiner not between two visible characters
    '\ufe0fa', 'a\ufe0f\ufe0f', 'a \ufe0f', 'a\u0301\ufe0f' // a variation selector not right after a visible character
  ]) {
    t.match(nameProblem(name), /holds the invisible character U\+[0-9A-F]{4,5}, which would make it look like another name/, shown(name))
  }
  t.match(nameProblem('x\u200by'), /U\+200B/, 'the message names the character')
  t.match(nameProblem('x\u200by'), /"x\\u200by"/, 'and shows the name with it escaped')
})

test('joiners between visible characters and variation selectors right after one are part of writing', async (t) => {
  for (const name of [
    '👨\u200d👩\u200d👧', // an emoji ZWJ sequence
    '👩🏽\u200d💻', // with a skin tone
    '🏳\ufe0f\u200d🌈', // a joiner after a variation selector
    '❤\ufe0f', '1\ufe0f\u20e3', '☺\ufe0e', // emoji and text presentation, a keycap
    'می\u200cخواهم', // Persian, a non-joiner between letters
    'क्\u200dष', // Devanagari: a joiner after a virama
    'র\u200d্য', // Bengali: a joiner before a virama
    'ශ්\u200dරී', // Sinhala
    '葛\u{e0100}城', // an ideographic variation selector
    'ᠠ\u180b' // a Mongolian variation selector
  ]) {
    t.equal(nameProblem(name), null, shown(name))
  }
})

test('names that show nothing, and names broken over lines, are refused', async (t) => {
  const blanks = ['\u2800', '\u2800\u2800', '\u3164', '\u115f', '\u1160', '\uffa0', '\u180e', '\u{1d159}', '\u{1d173}\u{1d17a}', '\u2000\u200a', '\u3000', '\u00a0', '\u2800\u0301']
  for (const name of blanks) t.match(nameProblem(name), /has no visible character/, shown(name))
  for (const name of ['a\u2028b', 'a\u2029b', '\u2028', 'line\u2028']) {
    t.match(nameProblem(name), /holds a line or paragraph separator \(U\+2028, U\+2029\)/, shown(name))
  }
  t.equal(nameProblem('⠁'), null, 'a braille letter is visible (the control case)')
  t.equal(nameProblem('a\u2003b'), null, 'a wide space between letters is allowed')
})
