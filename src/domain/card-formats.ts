/**
 * Cards in and out of the two formats people paste or download: Quizlet-style
 * text and CSV (RFC 4180). Strings in, strings out; no I/O.
 *
 * Quizlet text: each card is `front <termSeparator> back`, cards are joined by
 * `cardSeparator`. Text is taken literally (nothing is trimmed or unescaped),
 * except that:
 *   - a byte-order mark at the start is dropped;
 *   - when a separator holds a line feed and neither holds a carriage return,
 *     the separator written with CRLF counts as the separator (a file saved on
 *     Windows); line breaks inside a card are kept as they are;
 *   - line breaks at the very end of the text are ignored;
 *   - blank entries (empty or only whitespace) between separators are skipped.
 * A card is split at the FIRST term separator, so a back may contain the term
 * separator but a front may not. There is no escaping: the export refuses a card
 * that these rules would read back differently (a front holding the term
 * separator, any text holding the card separator, ...) and says which card and
 * why, so a Quizlet export always imports back to the very same cards.
 *
 * Quizlet text holds plain text cards only: the export refuses a formatted
 * (HTML) card or a cloze note, and names it; CSV keeps them.
 *
 * CSV: RFC 4180. Fields are separated by commas and records by CRLF, LF or CR;
 * a field in double quotes may hold commas, quotes (written twice) and line
 * breaks, all kept verbatim. A quote inside an unquoted field is read as a
 * literal character. Every record has exactly 2 columns, front and back; blank
 * lines are skipped. The first record is a header when asked (`header: true`),
 * or in `'auto'` mode when it reads front,back or term,definition (any case).
 * A header front,back,format,type (or front,back,format) gives every record
 * those columns: `format` is text or html (empty: text), `type` basic or cloze
 * (empty: basic); a cloze record holds the note's cloze text in front and its
 * back extra in back, and makes one card per number.
 * The export always writes a header, so that a card that itself reads
 * "front","back" survives the trip: `front,back` when every card is a plain
 * text card of a front and a back (as before formats), `front,back,format,type`
 * otherwise, a cloze note once; it quotes exactly the fields that need it.
 *
 * The card rules of create-flashcard hold for both: a front (or cloze text) of
 * 1 to MAX_CARD_TEXT characters, a back of at most MAX_CARD_TEXT, a cloze text
 * with a deletion, at most MAX_CARDS_PER_REQUEST cards made.
 */
import { cardsMadeBy, isClozeInput, TEXT_FORMATS, type CardInput, type TextFormat } from './card-content.js'
import { characterCountPast, MAX_CARD_TEXT, MAX_CARDS_PER_REQUEST } from './limits.js'

/** A plain text card of a front and a back, as Quizlet text and two-column CSV hold it. */
export interface CardText {
  front: string
  back: string
}

export type CardFormat = 'quizlet' | 'csv'
export const CARD_FORMATS: readonly CardFormat[] = ['quizlet', 'csv']

export interface Separators {
  termSeparator: string
  cardSeparator: string
}

export const DEFAULT_SEPARATORS: Readonly<Separators> = { termSeparator: '\t', cardSeparator: '\n' }

export type CsvHeader = boolean | 'auto'

/** Header rows recognised in 'auto' mode, lower case. */
const CSV_HEADERS: ReadonlyArray<readonly string[]> = [['front', 'back'], ['term', 'definition']]
/** Header rows that give every record the columns they name, in this order. */
const FORMATTED_HEADERS: ReadonlyArray<readonly string[]> = [['front', 'back', 'format', 'type'], ['front', 'back', 'format']]
const CARD_TYPES = ['basic', 'cloze'] as const

/**
 * A file that cannot be read, or cards that cannot be written. `line` is the
 * 1-based physical line of the input; `card` the 1-based position of the card.
 */
export class CardFormatError extends Error {
  override name = 'CardFormatError'
  readonly line: number | null
  readonly card: number | null

  constructor (problem: string, where: { line?: number, card?: number } = {}) {
    super(where.line === undefined ? problem : `line ${where.line}: ${problem}`)
    this.line = where.line ?? null
    this.card = where.card ?? null
  }
}

/** A card as read, with where its parts start, before the card rules are applied. */
interface ReadCard extends CardText {
  line: number
  backLine: number
  format?: TextFormat
  /** a cloze note: front holds its cloze text */
  cloze?: boolean
}

// JSON quoting makes a tab or a line break visible in a message: "\t", "\n"
function show (text: string): string {
  return JSON.stringify(text)
}

function stripByteOrderMark (text: string): string {
  return text.startsWith('\uFEFF') ? text.slice(1) : text
}

/** The 1-based physical line of an offset; CRLF, LF and a lone CR each end a line. */
function lineCounter (text: string): (offset: number) => number {
  const starts = [0]
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index)
    if (code === 10) {
      starts.push(index + 1)
    } else if (code === 13) {
      if (text.charCodeAt(index + 1) === 10) index++
      starts.push(index + 1)
    }
  }
  return (offset) => {
    let low = 0
    let high = starts.length - 1
    while (low < high) {
      const middle = (low + high + 1) >> 1
      if ((starts[middle] ?? 0) <= offset) low = middle
      else high = middle - 1
    }
    return low + 1
  }
}

/** Length in Unicode code points, as the JSON schemas of create-flashcard count it, when past MAX_CARD_TEXT. */
function exceedsMaxText (text: string): number | null {
  return characterCountPast(text, MAX_CARD_TEXT)
}

export function checkSeparators ({ termSeparator, cardSeparator }: Separators): void {
  if (termSeparator === '') throw new CardFormatError('the term separator is empty: give the text between front and back, e.g. "\\t"')
  if (cardSeparator === '') throw new CardFormatError('the card separator is empty: give the text between cards, e.g. "\\n"')
  if (termSeparator.includes(cardSeparator)) {
    throw new CardFormatError(`the term separator ${show(termSeparator)} contains the card separator ${show(cardSeparator)}: choose separators that differ`)
  }
}

/** Where the text ends once its trailing line breaks are set aside (a loop: a regex here backtracks quadratically). */
function endWithoutLineBreaks (text: string): number {
  let end = text.length
  while (end > 0 && (text[end - 1] === '\n' || text[end - 1] === '\r')) end--
  return end
}

interface Found { at: number, length: number }

/**
 * Finds a separator from an offset on. In a file saved on Windows a separator
 * holding "\n" is written with "\r\n": its CRLF form counts too, unless the
 * separators themselves use "\r". Card text keeps its own line breaks as they are.
 */
function separatorFinder (text: string, separator: string, acceptCrlf: boolean): (from: number) => Found | null {
  const forms = [separator]
  const crlf = separator.replaceAll('\n', '\r\n')
  if (acceptCrlf && crlf !== separator) forms.push(crlf)
  // where each form next occurs (-1: nowhere further), searched again only once passed: linear over the whole text
  const next = forms.map(() => ({ at: 0, searched: false }))
  return (from) => {
    let found: Found | null = null
    for (const [index, form] of forms.entries()) {
      const occurrence = next[index] ?? { at: -1, searched: true }
      if (!occurrence.searched || (occurrence.at !== -1 && occurrence.at < from)) {
        occurrence.at = text.indexOf(form, from)
        occurrence.searched = true
      }
      if (occurrence.at !== -1 && (found === null || occurrence.at < found.at)) found = { at: occurrence.at, length: form.length }
    }
    return found
  }
}

function readQuizletCards (text: string, separators: Separators): ReadCard[] {
  checkSeparators(separators)
  const { termSeparator, cardSeparator } = separators
  let source = stripByteOrderMark(text)
  source = source.slice(0, endWithoutLineBreaks(source))
  const lineAt = lineCounter(source)
  const acceptCrlf = !(termSeparator + cardSeparator).includes('\r')
  const nextCardSeparator = separatorFinder(source, cardSeparator, acceptCrlf)

  const cards: ReadCard[] = []
  let start = 0
  while (start <= source.length) {
    const separator = nextCardSeparator(start) ?? { at: source.length, length: 1 }
    const entry = source.slice(start, separator.at)
    if (entry.trim() !== '') {
      const line = lineAt(start + entry.length - entry.trimStart().length)
      const term = separatorFinder(entry, termSeparator, acceptCrlf)(0)
      if (term === null) {
        throw new CardFormatError(`missing the term separator ${show(termSeparator)} between front and back`, { line })
      }
      cards.push({
        front: entry.slice(0, term.at),
        back: entry.slice(term.at + term.length),
        line,
        backLine: lineAt(start + term.at + term.length)
      })
    }
    start = separator.at + separator.length
  }
  return cards
}

interface CsvField { value: string, quoted: boolean, offset: number }

/** The records of a CSV text one by one, so that a mistake stops the reading where it is. */
function * csvRecords (source: string, lineAt: (offset: number) => number): Generator<{ fields: CsvField[], offset: number }> {
  const fieldEnd = /[,\r\n]/g
  let index = 0
  while (index < source.length) {
    // empty lines hold no record
    if (source[index] === '\n' || source[index] === '\r') {
      index++
      continue
    }
    const recordStart = index
    const fields: CsvField[] = []
    for (;;) {
      const fieldStart = index
      if (source[index] === '"') {
        let value = ''
        let from = index + 1
        for (;;) {
          const quote = source.indexOf('"', from)
          if (quote === -1) {
            throw new CardFormatError(
              `the quoted field of column ${fields.length + 1} that starts here is never closed: add the closing quote (")`,
              { line: lineAt(fieldStart) })
          }
          if (source[quote + 1] === '"') {
            value += source.slice(from, quote + 1)
            from = quote + 2
            continue
          }
          value += source.slice(from, quote)
          index = quote + 1
          break
        }
        const after = source[index]
        if (after !== undefined && after !== ',' && after !== '\n' && after !== '\r') {
          throw new CardFormatError(
            `text after the closing quote of column ${fields.length + 1}: a quote inside a quoted field is written twice ("")`,
            { line: lineAt(index) })
        }
        fields.push({ value, quoted: true, offset: fieldStart })
      } else {
        fieldEnd.lastIndex = index
        const end = fieldEnd.exec(source)?.index ?? source.length
        fields.push({ value: source.slice(index, end), quoted: false, offset: fieldStart })
        index = end
      }
      if (source[index] !== ',') break
      index++
    }
    if (source[index] === '\r') index += source[index + 1] === '\n' ? 2 : 1
    else if (source[index] === '\n') index++
    yield { fields, offset: recordStart }
  }
}

function headerNames (fields: readonly CsvField[]): string[] {
  return fields.map((field) => field.value.trim().toLowerCase())
}

function isHeaderOf (names: readonly string[], headers: ReadonlyArray<readonly string[]>): readonly string[] | undefined {
  return headers.find((header) => header.length === names.length && header.every((name, index) => names[index] === name))
}

/** The value of a format or type column, one of `values`, empty for the first. */
function columnValue<T extends string> (field: CsvField | undefined, column: string, values: readonly T[], line: number): T {
  const value = field === undefined ? '' : field.value
  if (value === '') return values[0] as T
  const known = values.find((candidate) => candidate === value)
  if (known === undefined) {
    throw new CardFormatError(`the ${column} column holds ${show(value)}: write ${values.join(' or ')} (empty: ${values[0] as string}), ` +
      'and put a front or back that holds commas in double quotes', { line })
  }
  return known
}

function readCsvCards (text: string, header: CsvHeader): ReadCard[] {
  const source = stripByteOrderMark(text)
  const lineAt = lineCounter(source)
  const cards: ReadCard[] = []
  let first = true
  // front,back; or the columns a formatted header names
  let columns: readonly string[] = ['front', 'back']
  for (const { fields, offset } of csvRecords(source, lineAt)) {
    const [front, back] = fields
    // a line of spaces only: nothing was meant there
    if (fields.length === 1 && front !== undefined && !front.quoted && front.value.trim() === '') continue
    const line = lineAt(offset)
    if (first && header !== false) {
      const formatted = isHeaderOf(headerNames(fields), FORMATTED_HEADERS)
      if (formatted !== undefined) {
        columns = formatted
        first = false
        continue
      }
    }
    if (front === undefined || back === undefined || fields.length !== columns.length) {
      const hint = fields.length < 2
        ? 'separate front and back with a comma'
        : 'put a front or back that holds commas in double quotes'
      throw new CardFormatError(`expected ${columns.length} columns (${columns.join(',')}), found ${fields.length}: ${hint}`, { line })
    }
    const skip = first && (header === true || (header === 'auto' && isHeaderOf(headerNames(fields), CSV_HEADERS) !== undefined))
    first = false
    if (skip) continue
    const card: ReadCard = { front: unguarded(front.value), back: unguarded(back.value), line: lineAt(front.offset), backLine: lineAt(back.offset) }
    if (columns.length > 2) {
      const format = columnValue(fields[2], 'format', TEXT_FORMATS, line)
      if (format !== 'text') card.format = format
      if (columnValue(fields[3], 'type', CARD_TYPES, line) === 'cloze') card.cloze = true
    }
    cards.push(card)
  }
  return cards
}

/** The card rules of create-flashcard, reported at the line they are broken. */
function checkCards (cards: readonly ReadCard[]): CardInput[] {
  if (cards.length === 0) throw new CardFormatError('the text holds no cards')
  let made = 0
  return cards.map((card, position) => {
    const where = { line: card.line, card: position + 1 }
    const front = card.cloze === true ? 'cloze text' : 'front'
    if (card.front === '') throw new CardFormatError(`empty ${front}: every card needs a ${front}`, where)
    const frontLength = exceedsMaxText(card.front)
    if (frontLength !== null) {
      throw new CardFormatError(`the ${front} is ${frontLength} characters long; at most ${MAX_CARD_TEXT}`, where)
    }
    const backLength = exceedsMaxText(card.back)
    if (backLength !== null) {
      throw new CardFormatError(`the back is ${backLength} characters long; at most ${MAX_CARD_TEXT}`, { line: card.backLine, card: position + 1 })
    }
    const format = card.format === undefined ? {} : { format: card.format }
    const input: CardInput = card.cloze === true ? { cloze: card.front, back: card.back, ...format } : { front: card.front, back: card.back, ...format }
    const count = cardsMadeBy(input)
    if (count === 0) throw new CardFormatError('the cloze text holds no cloze deletion: write each answer as {{c1::answer}}', where)
    made += count
    if (made > MAX_CARDS_PER_REQUEST) {
      throw new CardFormatError(
        `card ${position + 1} starts here, but an import holds at most ${MAX_CARDS_PER_REQUEST} cards (a cloze note counts one for each number): split the text`,
        where)
    }
    return input
  })
}

/** Quizlet text: plain text cards of a front and a back. */
export function parseQuizlet (text: string, separators: Separators = DEFAULT_SEPARATORS): CardText[] {
  return checkCards(readQuizletCards(text, separators)) as CardText[]
}

/**
 * Rewrites the source of an html side as it is read, before the card rules
 * apply (so that its length is checked as it will be stored); `line` is
 * where the side starts. A card archive turns its file references into
 * media ids with it.
 */
export type HtmlRewrite = (source: string, where: { line: number }) => string

export function parseCsv (text: string, options: { header?: CsvHeader, html?: HtmlRewrite } = {}): CardInput[] {
  const cards = readCsvCards(text, options.header ?? 'auto')
  const rewrite = options.html
  if (rewrite !== undefined) {
    for (const card of cards) {
      if (card.format !== 'html') continue
      card.front = rewrite(card.front, { line: card.line })
      card.back = rewrite(card.back, { line: card.backLine })
    }
  }
  return checkCards(cards)
}

/** Why a card cannot be written as Quizlet text with these separators, or null when nothing obvious is wrong. */
function quizletProblem (card: CardText, { termSeparator, cardSeparator }: Separators): string | null {
  if (card.front.includes(termSeparator)) return `its front contains the term separator ${show(termSeparator)}`
  if ((card.front + termSeparator).indexOf(termSeparator) !== card.front.length) {
    return `the end of its front and the term separator ${show(termSeparator)} would be read as an earlier term separator`
  }
  if (card.front.includes(cardSeparator)) return `its front contains the card separator ${show(cardSeparator)}`
  if (card.back.includes(cardSeparator)) return `its back contains the card separator ${show(cardSeparator)}`
  if ((card.front + termSeparator + card.back).trim() === '') return 'it is blank, and blank cards are skipped'
  if (/[\r\n]/.test(card.front + card.back)) return 'its line breaks would be read differently next to these separators'
  return null
}

function shorten (text: string): string {
  const characters = Array.from(text.slice(0, 100))
  return characters.length > 40 ? `${characters.slice(0, 40).join('')}…` : text
}

function sameCards (left: readonly CardText[], right: readonly CardText[]): number | null {
  for (let index = 0; index < Math.max(left.length, right.length); index++) {
    if (left[index]?.front !== right[index]?.front || left[index]?.back !== right[index]?.back) return index
  }
  return null
}

/** A plain text card of a front and a back, or the first card that is not one, as an error naming it. */
function plainCards (cards: readonly CardInput[]): CardText[] {
  return cards.map((card, position) => {
    if (isClozeInput(card) || card.format === 'html') {
      const [text, what] = isClozeInput(card) ? [card.cloze, 'a cloze note'] : [card.front, 'formatted (html)']
      throw new CardFormatError(`card ${position + 1} (${show(shorten(text))}) is ${what}, and Quizlet text holds plain text cards only: ` +
        'export as CSV, which keeps formats and cloze notes', { card: position + 1 })
    }
    return { front: card.front, back: card.back }
  })
}

/**
 * Cards as Quizlet text. Throws a CardFormatError naming the first card that
 * is not a plain text card, or would not read back as itself with these separators.
 */
export function toQuizlet (written: readonly CardInput[], separators: Separators = DEFAULT_SEPARATORS): string {
  const cards = plainCards(written)
  checkSeparators(separators)
  const { termSeparator, cardSeparator } = separators
  const text = cards.map((card) => card.front + termSeparator + card.back).join(cardSeparator)

  let readBack: CardText[] | null = null
  try {
    readBack = readQuizletCards(text, separators)
  } catch (error) {
    if (!(error instanceof CardFormatError)) throw error
  }
  const differing = readBack === null ? null : sameCards(cards, readBack)
  if (readBack !== null && differing === null) return text

  // name the card at fault: one with a plain reason first, else the first that reads back differently
  let position = cards.findIndex((card) => quizletProblem(card, separators) !== null)
  if (position === -1) position = differing ?? 0
  const card = cards[position]
  const reason = (card === undefined ? null : quizletProblem(card, separators)) ?? 'its text runs into the separators and would be read back differently'
  const preview = card === undefined ? '' : ` (${show(shorten(card.front))})`
  throw new CardFormatError(
    `card ${position + 1}${preview} cannot be written as Quizlet text with term separator ${show(termSeparator)} ` +
    `and card separator ${show(cardSeparator)}: ${reason}; choose other separators, or CSV`,
    { card: position + 1 })
}

/**
 * A spreadsheet runs a cell that begins with = + - @ (or a tab or carriage
 * return before one) as a formula: OWASP's CSV injection. Such a cell is
 * written with an apostrophe in front, which spreadsheets show as text; so
 * that reading the file back gives the exact text, a cell that itself begins
 * with an apostrophe before one of those characters (or another apostrophe)
 * gets one too, and reading takes exactly one such apostrophe away.
 */
const FORMULA_START = /^[=+\-@\t\r]/
const GUARDED = /^'[=+\-@\t\r']/

function guarded (text: string): string {
  return FORMULA_START.test(text) || GUARDED.test(text) ? `'${text}` : text
}

function unguarded (text: string): string {
  return GUARDED.test(text) ? text.slice(1) : text
}

function csvField (text: string): string {
  const cell = guarded(text)
  return /[",\r\n]/.test(cell) ? `"${cell.replaceAll('"', '""')}"` : cell
}

/**
 * Cards as CSV (RFC 4180), CRLF after every record, quotes only where needed:
 * a `front,back` header when every card is plain text of a front and a back,
 * else `front,back,format,type`, a cloze note's text in its front.
 */
export function toCsv (cards: readonly CardInput[]): string {
  const plain = cards.every((card) => !isClozeInput(card) && (card.format ?? 'text') === 'text')
  const record = (card: CardInput): string => {
    if (isClozeInput(card)) return `${csvField(card.cloze)},${csvField(card.back ?? '')},${card.format ?? 'text'},cloze`
    return plain ? `${csvField(card.front)},${csvField(card.back)}` : `${csvField(card.front)},${csvField(card.back)},${card.format ?? 'text'},basic`
  }
  return [plain ? 'front,back' : 'front,back,format,type', ...cards.map(record)].map((line) => line + '\r\n').join('')
}
