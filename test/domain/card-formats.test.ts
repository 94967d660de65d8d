import { test } from 'tap'
import {
  CardFormatError, parseCsv, parseQuizlet, toCsv, toQuizlet, type CardText, type Separators
} from '../../src/domain/card-formats.js'
import { MAX_CARD_TEXT, MAX_CARDS_PER_REQUEST } from '../../src/domain/limits.js'

function card (front: string, back: string): CardText {
  return { front, back }
}

/** The error a conversion throws; fails the test when it throws none or another kind. */
function failure (conversion: () => unknown): CardFormatError {
  try {
    conversion()
  } catch (error) {
    if (error instanceof CardFormatError) return error
    throw error
  }
  throw new Error('expected a CardFormatError, but the conversion succeeded')
}

// Text a person would not think to avoid: separators, quotes, line breaks of every kind, Unicode beyond the BMP
const TRICKY: CardText[] = [
  card('front', 'back'),
  card('a, "quoted" word', 'a "" doubled pair'),
  card('line one\nline two', 'windows\r\nbreaks and a lone\rreturn'),
  card('tab\there', 'semi;colon - dash'),
  card('  spaces kept  ', ''),
  card('emoji 🦊👩‍👩‍👧 and é (e + \u0301)', 'עברית and 中文 and \u{1F600}'),
  card('"', ','),
  card('term', 'definition')
]

test('Quizlet text with the default separators: a tab between front and back, a line break between cards', async (t) => {
  t.same(parseQuizlet('hola\thello\nadiós\tgoodbye'), [card('hola', 'hello'), card('adiós', 'goodbye')])
})

test('Quizlet text with separators of the user\'s choice', async (t) => {
  t.same(parseQuizlet('cat,gato;dog,perro', { termSeparator: ',', cardSeparator: ';' }), [card('cat', 'gato'), card('dog', 'perro')])
  t.same(
    parseQuizlet('H - hydrogen\nHe - helium', { termSeparator: ' - ', cardSeparator: '\n' }),
    [card('H', 'hydrogen'), card('He', 'helium')])
  t.same(
    parseQuizlet('front one\tback\nover two lines\n\nfront two\tback two', { termSeparator: '\t', cardSeparator: '\n\n' }),
    [card('front one', 'back\nover two lines'), card('front two', 'back two')],
    'a blank line between cards lets a back span lines')
})

test('a card is split at the first term separator, so a back may hold it', async (t) => {
  t.same(
    parseQuizlet('well-known - famous - renowned', { termSeparator: ' - ', cardSeparator: '\n' }),
    [card('well-known', 'famous - renowned')])
})

test('Quizlet text is taken literally: nothing is trimmed', async (t) => {
  t.same(parseQuizlet(' a \t b \n'), [card(' a ', ' b ')])
  t.same(parseQuizlet('a\t'), [card('a', '')], 'an empty back is a card')
})

test('trailing separators, trailing line breaks and blank entries are skipped', async (t) => {
  t.same(parseQuizlet('a\tb\n\n\nc\td\n\n'), [card('a', 'b'), card('c', 'd')])
  t.same(parseQuizlet('a\tb\n   \nc\td\n\t\n'), [card('a', 'b'), card('c', 'd')], 'entries of whitespace only')
  t.same(parseQuizlet('a,b;c,d;;;', { termSeparator: ',', cardSeparator: ';' }), [card('a', 'b'), card('c', 'd')])
  t.same(parseQuizlet('a,b;c,d\n', { termSeparator: ',', cardSeparator: ';' }), [card('a', 'b'), card('c', 'd')], 'a file ending in a line break')
  t.same(parseQuizlet('a\tb\n\nc\td\n', { termSeparator: '\t', cardSeparator: '\n\n' }), [card('a', 'b'), card('c', 'd')])
})

test('a separator holding LF also matches in its CRLF form', async (t) => {
  t.same(parseQuizlet('a\tb\r\nc\td\r\n'), [card('a', 'b'), card('c', 'd')])
  t.same(
    parseQuizlet('a\tb\r\nstill b;c\td', { termSeparator: '\t', cardSeparator: ';' }),
    [card('a', 'b\r\nstill b'), card('c', 'd')],
    'kept as they are when no separator holds a line break')
  t.same(
    parseQuizlet('a\tline 1\r\nline 2\r\n\r\nc\td\r\n', { termSeparator: '\t', cardSeparator: '\n\n' }),
    [card('a', 'line 1\r\nline 2'), card('c', 'd')],
    'the separator in CRLF form splits; line breaks inside a card stay as written')
  t.same(
    parseQuizlet('a\tb\r\nc\td', { termSeparator: '\t', cardSeparator: '\r\n' }),
    [card('a', 'b'), card('c', 'd')],
    'a CRLF card separator')
})

test('a byte-order mark at the start is dropped', async (t) => {
  t.same(parseQuizlet('\uFEFFa\tb'), [card('a', 'b')])
  t.same(parseCsv('\uFEFFfront,back\na,b'), [card('a', 'b')])
})

test('a Quizlet entry without its term separator is named by its line', async (t) => {
  const error = failure(() => parseQuizlet('a\tb\nc\td\nno separator here\ne\tf'))
  t.equal(error.line, 3)
  t.equal(error.message, 'line 3: missing the term separator "\\t" between front and back')

  const spaced = failure(() => parseQuizlet('a - b\n\n\nc: d', { termSeparator: ' - ', cardSeparator: '\n' }))
  t.equal(spaced.line, 4, 'blank lines count')

  const multiLine = failure(() => parseQuizlet('a\tb\nmore\n\nc\td\n\n\n\nlost', { termSeparator: '\t', cardSeparator: '\n\n' }))
  t.equal(multiLine.line, 8, 'the line where the entry\'s text starts, after the blank lines')

  const crlf = failure(() => parseQuizlet('a\tb\r\nc\td\r\nbad\r\n'))
  t.equal(crlf.line, 3, 'CRLF ends one line, not two')

  const loneCr = failure(() => parseQuizlet('a\tb\rc\td;bad', { termSeparator: '\t', cardSeparator: ';' }))
  t.equal(loneCr.line, 2, 'a lone CR ends a line')
})

test('a Quizlet card with an empty front is named by its line', async (t) => {
  const error = failure(() => parseQuizlet('a\tb\n\tno front'))
  t.equal(error.message, 'line 2: empty front: every card needs a front')
  t.equal(error.card, 2)
})

test('text longer than a card may hold is named by its line', async (t) => {
  const long = 'x'.repeat(MAX_CARD_TEXT + 1)
  const front = failure(() => parseQuizlet(`a\tb\n${long}\tc`))
  t.equal(front.message, `line 2: the front is ${MAX_CARD_TEXT + 1} characters long; at most ${MAX_CARD_TEXT}`)
  const back = failure(() => parseQuizlet(`a\nb\n\nq\n${long}`, { termSeparator: '\n', cardSeparator: '\n\n' }))
  t.equal(back.line, 5, 'the line where the back starts')
  t.match(back.message, /the back is 10001 characters long/)
})

test('the length limit counts characters, not UTF-16 code units', async (t) => {
  const emoji = '🦊'.repeat(MAX_CARD_TEXT)
  t.equal(parseQuizlet(`${emoji}\t${emoji}`)[0]?.front, emoji, `${MAX_CARD_TEXT} emoji fit`)
  t.match(failure(() => parseQuizlet(`${emoji}🦊\tb`)).message, /the front is 10001 characters long/)
})

test('at most MAX_CARDS_PER_REQUEST cards, and the first one over is named by its line', async (t) => {
  const lines = Array.from({ length: MAX_CARDS_PER_REQUEST }, (_, index) => `front ${index}\tback ${index}`)
  t.equal(parseQuizlet(lines.join('\n')).length, MAX_CARDS_PER_REQUEST)
  const error = failure(() => parseQuizlet([...lines, 'one too many\tx'].join('\n')))
  t.equal(error.line, MAX_CARDS_PER_REQUEST + 1)
  t.match(error.message, /at most 1000 cards/)
  const csv = failure(() => parseCsv(['front,back', ...lines.map((line) => line.replace('\t', ',')), 'one,more'].join('\n')))
  t.equal(csv.line, MAX_CARDS_PER_REQUEST + 2, 'the header is a line too')
})

test('a text without cards is refused', async (t) => {
  for (const text of ['', '\n\n', '   ']) t.match(failure(() => parseQuizlet(text)).message, /no cards/, JSON.stringify(text))
  t.match(failure(() => parseCsv('front,back\r\n')).message, /no cards/)
})

test('separators that cannot work are refused', async (t) => {
  t.match(failure(() => parseQuizlet('a', { termSeparator: '', cardSeparator: '\n' })).message, /term separator is empty/)
  t.match(failure(() => parseQuizlet('a', { termSeparator: '\t', cardSeparator: '' })).message, /card separator is empty/)
  t.match(failure(() => parseQuizlet('a', { termSeparator: ';', cardSeparator: ';' })).message, /contains the card separator/)
  t.match(failure(() => parseQuizlet('a', { termSeparator: '\n\n', cardSeparator: '\n' })).message, /contains the card separator/)
  t.equal(failure(() => parseQuizlet('a', { termSeparator: '', cardSeparator: '\n' })).line, null, 'no line: the file is not at fault')
})

test('CSV: plain records', async (t) => {
  t.same(parseCsv('hola,hello\nadiós,goodbye\n'), [card('hola', 'hello'), card('adiós', 'goodbye')])
  t.same(parseCsv('a,\n'), [card('a', '')], 'an empty back')
  t.same(parseCsv(' a , b '), [card(' a ', ' b ')], 'spaces belong to the field')
})

test('CSV: quoted fields hold commas, doubled quotes and line breaks', async (t) => {
  t.same(
    parseCsv('"a, b","she said ""hi"""\n"line 1\nline 2","x"\nz,""'),
    [card('a, b', 'she said "hi"'), card('line 1\nline 2', 'x'), card('z', '')])
  t.same(parseCsv('"crlf\r\ninside",b\r\n'), [card('crlf\r\ninside', 'b')], 'line breaks inside quotes are kept verbatim')
})

test('CSV: records end with CRLF, LF or a lone CR', async (t) => {
  const expected = [card('a', 'b'), card('c', 'd'), card('e', 'f')]
  t.same(parseCsv('a,b\r\nc,d\r\ne,f\r\n'), expected)
  t.same(parseCsv('a,b\nc,d\ne,f'), expected)
  t.same(parseCsv('a,b\rc,d\re,f\r'), expected)
})

test('CSV: blank lines are skipped', async (t) => {
  t.same(parseCsv('\na,b\n\n  \nc,d\n\n\n'), [card('a', 'b'), card('c', 'd')])
})

test('CSV: a quote inside an unquoted field is a literal character', async (t) => {
  t.same(parseCsv('5" screen,size'), [card('5" screen', 'size')])
})

test('CSV header: auto takes front,back or term,definition for a header, in any case', async (t) => {
  t.same(parseCsv('front,back\na,b'), [card('a', 'b')])
  t.same(parseCsv('Term,Definition\r\na,b'), [card('a', 'b')])
  t.same(parseCsv('"FRONT"," Back "\na,b'), [card('a', 'b')], 'quoted, with spaces')
  t.same(parseCsv('word,meaning\na,b'), [card('word', 'meaning'), card('a', 'b')], 'any other first row is a card')
  t.same(parseCsv('\n\nfront,back\na,b'), [card('a', 'b')], 'the first row after blank lines')
  t.same(parseCsv('a,b\nfront,back'), [card('a', 'b'), card('front', 'back')], 'only the first row can be a header')
})

test('CSV header: true always skips the first row, false never does', async (t) => {
  t.same(parseCsv('word,meaning\na,b', { header: true }), [card('a', 'b')])
  t.same(parseCsv('front,back\na,b', { header: false }), [card('front', 'back'), card('a', 'b')])
})

test('CSV errors name the line and what is wrong', async (t) => {
  const unterminated = failure(() => parseCsv('a,b\nc,"never\nclosed\nat all'))
  t.equal(unterminated.line, 2, 'the line where the quote opens')
  t.equal(unterminated.message, 'line 2: the quoted field of column 2 that starts here is never closed: add the closing quote (")')

  const afterQuote = failure(() => parseCsv('a,b\n"x"y,z'))
  t.equal(afterQuote.line, 2)
  t.match(afterQuote.message, /text after the closing quote of column 1: a quote inside a quoted field is written twice/)

  const three = failure(() => parseCsv('a,b\n"multi\nline",b\nc,d,e'))
  t.equal(three.message, 'line 4: expected 2 columns (front,back), found 3: put a front or back that holds commas in double quotes',
    'physical lines: a quoted line break counts')

  const one = failure(() => parseCsv('a,b\r\nlonely\r\n'))
  t.equal(one.message, 'line 2: expected 2 columns (front,back), found 1: separate front and back with a comma')

  t.equal(failure(() => parseCsv('a,b,\n')).line, 1, 'a trailing comma makes a third column')
  t.equal(failure(() => parseCsv('term,definition,notes\na,b')).line, 1, 'a header has 2 columns too')

  const empty = failure(() => parseCsv('front,back\na,b\n"",c'))
  t.equal(empty.message, 'line 3: empty front: every card needs a front')

  const longBack = failure(() => parseCsv(`a,"x\n${'y'.repeat(MAX_CARD_TEXT)}"`))
  t.equal(longBack.line, 1, 'the line where the field starts')
  t.match(longBack.message, /the back is 10002 characters long/)
})

test('CSV export: a header, CRLF after each record, quotes only where needed', async (t) => {
  t.equal(
    toCsv([card('plain', 'text'), card('a, b', 'say "hi"'), card('two\nlines', ''), card(' space ', 'cr\r')]),
    'front,back\r\nplain,text\r\n"a, b","say ""hi"""\r\n"two\nlines",\r\n space ,"cr\r"\r\n')
  t.equal(toCsv([]), 'front,back\r\n')
})

test('CSV export neutralises cells a spreadsheet would run as formulas (OWASP), and reading it back gives the exact text', async (t) => {
  const formulas = [card('=1+1', '+CMD|calc'), card('-2', '@SUM(A1)'), card('\t=x', '\r=y'), card("'=already", "''quoted"), card("'tis", 'plain')]
  const csv = toCsv(formulas)
  t.equal(csv, "front,back\r\n'=1+1,'+CMD|calc\r\n'-2,'@SUM(A1)\r\n'\t=x,\"'\r=y\"\r\n''=already,'''quoted\r\n'tis,plain\r\n")
  for (const line of csv.split('\r\n').slice(1, -1)) {
    t.notMatch(line, /^[=+\-@\t\r]|,[=+\-@\t\r]|,"[=+\-@\t\r]/, `no cell of ${JSON.stringify(line)} starts a formula`)
  }
  t.same(parseCsv(csv), formulas, 'the exact text comes back')
  t.same(parseCsv("front,back\n'=1,'tis\n"), [card('=1', "'tis")], 'a foreign file: the guard goes, an ordinary apostrophe stays')
})

test('Quizlet export joins cards with the separators and nothing else', async (t) => {
  t.equal(toQuizlet([card('a', 'b'), card('c', '')]), 'a\tb\nc\t')
  t.equal(toQuizlet([card('a', 'b'), card('c', 'd')], { termSeparator: ' - ', cardSeparator: '\n\n' }), 'a - b\n\nc - d')
  t.equal(toQuizlet([]), '')
})

test('CSV round-trips any text exactly', async (t) => {
  t.same(parseCsv(toCsv(TRICKY)), TRICKY)
  t.same(parseCsv(toCsv(TRICKY), { header: true }), TRICKY)
})

test('Quizlet text round-trips any text the separators leave alone', async (t) => {
  const separatorsFor: Separators[] = [
    { termSeparator: ' :: ', cardSeparator: '\n===\n' },
    { termSeparator: '|', cardSeparator: '\u241E' }
  ]
  for (const separators of separatorsFor) {
    const cards = TRICKY.filter((each) => !each.front.includes(separators.termSeparator))
    t.same(parseQuizlet(toQuizlet(cards, separators), separators), cards, JSON.stringify(separators))
  }
  const plain = [card('hola', 'hello'), card('🦊 fox', 'zorro - 狐'), card('"quoted"', 'a, b; c'), card('x', 'back\twith tab')]
  t.same(parseQuizlet(toQuizlet(plain)), plain, 'default separators; a back may hold a tab')
})

test('Quizlet export refuses a card its separators would change, and names it', async (t) => {
  const newline = failure(() => toQuizlet([card('a', 'b'), card('multi', 'line\nback')]))
  t.equal(newline.card, 2)
  t.equal(newline.message,
    'card 2 ("multi") cannot be written as Quizlet text with term separator "\\t" and card separator "\\n": ' +
    'its back contains the card separator "\\n"; choose other separators, or CSV')
  t.match(failure(() => toQuizlet([card('tab\tfront', 'b')])).message, /card 1 .*its front contains the term separator "\\t"/)
  t.match(failure(() => toQuizlet([card('a;b', 'c')], { termSeparator: ',', cardSeparator: ';' })).message, /its front contains the card separator ";"/)
  t.match(
    failure(() => toQuizlet([card('ok', 'fine'), card('dash -', 'b')], { termSeparator: ' - ', cardSeparator: '\n' })).message,
    /card 2 \("dash -"\).*would be read as an earlier term separator/)
  t.match(failure(() => toQuizlet([card('a', 'b\r'), card('c', 'd')])).message, /card 1 .*line breaks would be read differently/)
  t.match(failure(() => toQuizlet([card('a', 'b'), card(' ', '')])).message, /card 2 .*blank/)
  t.match(failure(() => toQuizlet([card('a', 'b')], { termSeparator: ';', cardSeparator: ';' })).message, /contains the card separator/)
})

// A small seeded generator: the same cases on every run, many more than by hand
function random (seed: number): () => number {
  let state = seed
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648
    return state / 2147483648
  }
}

const ALPHABET = ['a', 'b', ' ', ',', '"', '\n', '\r', '\t', ';', '-', 'é', '🦊', '\u0301', '中', '=', '+', '@', "'"]

function randomCards (next: () => number): CardText[] {
  const text = (minimum: number) => Array.from({ length: minimum + Math.floor(next() * 8) }, () => ALPHABET[Math.floor(next() * ALPHABET.length)]).join('')
  return Array.from({ length: 1 + Math.floor(next() * 5) }, () => card(text(1), text(0)))
}

test('generated cards: CSV always round-trips; Quizlet round-trips or refuses', async (t) => {
  const next = random(20260301)
  const separatorsFor: Separators[] = [
    { termSeparator: '\t', cardSeparator: '\n' },
    { termSeparator: ' - ', cardSeparator: ';' },
    { termSeparator: '\n', cardSeparator: '\n\n' },
    { termSeparator: ',', cardSeparator: '\r\n' }
  ]
  let csvTrips = 0
  let quizletTrips = 0
  let refusals = 0
  for (let round = 0; round < 2000; round++) {
    const cards = randomCards(next)
    if (JSON.stringify(parseCsv(toCsv(cards))) === JSON.stringify(cards)) csvTrips++
    const separators = separatorsFor[round % separatorsFor.length] as Separators
    let text: string
    try {
      text = toQuizlet(cards, separators)
    } catch (error) {
      if (!(error instanceof CardFormatError) || error.card === null) throw error
      refusals++
      continue
    }
    if (JSON.stringify(parseQuizlet(text, separators)) === JSON.stringify(cards)) quizletTrips++
    else t.fail(`exported but read back differently: ${JSON.stringify({ cards, separators })}`)
  }
  t.equal(csvTrips, 2000)
  t.equal(quizletTrips + refusals, 2000)
  t.ok(quizletTrips > 100, `${quizletTrips} Quizlet round trips`)
})
