/**
 * Cloze deletions in Anki's syntax: `{{c1::answer}}`, `{{c1::answer::hint}}`,
 * `{{c1,2::answer}}`. A cloze text is written once and makes one card per
 * number; the card of number N asks for the deletions whose numbers hold N,
 * with the others filled in.
 *
 * The syntax as read here, which is Anki's:
 *   - a deletion opens with `{{c`, one number or several separated by commas,
 *     each from 1 to 9999, then `::`; it is a deletion of each of its numbers
 *     (`{{c1,2::Paris}}` is asked on card 1 and on card 2);
 *   - it closes at the first `}}` after that, unless a deletion opened inside
 *     it closes there first: deletions may nest (`{{c1::a {{c2::b}} c}}`);
 *   - the first `::` inside a deletion (outside any deletion nested in it) ends
 *     its answer and starts its hint; later ones are text;
 *   - anything else is text: a `}}` outside any deletion, a `{{c0::`, a
 *     list with a member that is no such number (`{{c1,x::`, `{{c1,,2::`,
 *     `{{c1,0::`), a deletion never closed (it stays as written). Anki also
 *     reads a list with an empty member, a 0 or a number written with a leading
 *     zero, dropping what it cannot use; here such a list is text, as `{{c0::`
 *     and `{{c01::` are, so that every deletion writes back as it was written.
 * Reading is exact: `clozeSource(parseCloze(text)) === text` for every text,
 * so a note's text is kept as written whatever its mistakes.
 *
 * Strings in, strings out; the HTML a card shows is made in card-html.ts.
 */

export type ClozePart = string | ClozeDeletion

export interface ClozeDeletion {
  /** the numbers of the cards that ask for it, as written: in their order, a repeated one repeated */
  numbers: number[]
  answer: ClozePart[]
  /** what the question shows instead of [...]; null when none was written */
  hint: ClozePart[] | null
}

/** A deletion's opening: numbers from 1 to 9999, separated by commas (`{{c10000::` and `{{c1,,2::` are text). */
const OPENING = /\{\{c([1-9][0-9]{0,3}(?:,[1-9][0-9]{0,3})*)::/y

function listOf (numbers: readonly number[]): string {
  return numbers.join(',')
}

interface Open { deletion: ClozeDeletion, parent: ClozePart[] }

function append (parts: ClozePart[], text: string): void {
  if (text === '') return
  const last = parts.length - 1
  if (typeof parts[last] === 'string') parts[last] += text
  else parts.push(text)
}

function appendAll (parts: ClozePart[], added: readonly ClozePart[]): void {
  for (const part of added) {
    if (typeof part === 'string') append(parts, part)
    else parts.push(part)
  }
}

/** A cloze text as text and deletions, in the order written. */
export function parseCloze (text: string): ClozePart[] {
  const root: ClozePart[] = []
  const open: Open[] = []
  const partsNow = (): ClozePart[] => {
    const innermost = open[open.length - 1]
    if (innermost === undefined) return root
    return innermost.deletion.hint ?? innermost.deletion.answer
  }
  let index = 0
  let textFrom = 0
  const takeText = (): void => {
    append(partsNow(), text.slice(textFrom, index))
  }
  while (index < text.length) {
    const character = text[index]
    if (character === '{' && text.startsWith('{{c', index)) {
      OPENING.lastIndex = index
      const opening = OPENING.exec(text)
      if (opening !== null) {
        takeText()
        const deletion: ClozeDeletion = { numbers: (opening[1] as string).split(',').map(Number), answer: [], hint: null }
        open.push({ deletion, parent: partsNow() })
        index += opening[0].length
        textFrom = index
        continue
      }
    } else if (open.length > 0 && character === ':' && text[index + 1] === ':') {
      const innermost = open[open.length - 1] as Open
      if (innermost.deletion.hint === null) {
        takeText()
        innermost.deletion.hint = []
        index += 2
        textFrom = index
        continue
      }
    } else if (open.length > 0 && character === '}' && text[index + 1] === '}') {
      takeText()
      const closed = open.pop() as Open
      closed.parent.push(closed.deletion)
      index += 2
      textFrom = index
      continue
    }
    index++
  }
  takeText()
  // a deletion never closed is text as written, with whatever was read inside it
  while (open.length > 0) {
    const unclosed = open.pop() as Open
    const { deletion, parent } = unclosed
    append(parent, `{{c${listOf(deletion.numbers)}::`)
    appendAll(parent, deletion.answer)
    if (deletion.hint !== null) {
      append(parent, '::')
      appendAll(parent, deletion.hint)
    }
  }
  return root
}

/** The text that reads back as these parts. */
export function clozeSource (parts: readonly ClozePart[]): string {
  let text = ''
  for (const part of parts) {
    if (typeof part === 'string') {
      text += part
    } else {
      text += `{{c${listOf(part.numbers)}::${clozeSource(part.answer)}`
      if (part.hint !== null) text += `::${clozeSource(part.hint)}`
      text += '}}'
    }
  }
  return text
}

/** The numbers of a cloze text's deletions, each once, in increasing order: one card each. */
export function clozeNumbers (parts: readonly ClozePart[]): number[] {
  const numbers = new Set<number>()
  const collect = (list: readonly ClozePart[]): void => {
    for (const part of list) {
      if (typeof part === 'string') continue
      for (const number of part.numbers) numbers.add(number)
      collect(part.answer)
      if (part.hint !== null) collect(part.hint)
    }
  }
  collect(parts)
  return [...numbers].sort((a, b) => a - b)
}

/**
 * The text with `number` taken out of its deletions: a deletion of that number
 * alone goes (its answer stays as text, its hint goes), a deletion of several
 * numbers stays for the others (`{{c1,2::Paris}}` without 2 is `{{c1::Paris}}`).
 */
export function withoutDeletion (parts: readonly ClozePart[], number: number): ClozePart[] {
  const result: ClozePart[] = []
  for (const part of parts) {
    if (typeof part === 'string') {
      append(result, part)
      continue
    }
    const numbers = part.numbers.filter((other) => other !== number)
    if (numbers.length === 0) {
      appendAll(result, withoutDeletion(part.answer, number))
    } else {
      result.push({
        numbers,
        answer: withoutDeletion(part.answer, number),
        hint: part.hint === null ? null : withoutDeletion(part.hint, number)
      })
    }
  }
  return result
}

/** How a side is written out: text as it should appear, and the marks around the deletion asked for. */
export interface ClozeMarkup {
  text: (source: string) => string
  open: string
  close: string
}

/**
 * One side of the card of `number`, whose deletions are those whose numbers
 * hold `number`. The question shows each of its deletions as `[...]` (or
 * `[hint]`) between the marks, the other deletions filled in; the answer
 * shows its deletions' answers between the marks.
 */
export function clozeSide (parts: readonly ClozePart[], number: number, side: 'front' | 'back', markup: ClozeMarkup): string {
  let written = ''
  for (const part of parts) {
    if (typeof part === 'string') {
      written += markup.text(part)
    } else if (!part.numbers.includes(number)) {
      written += clozeSide(part.answer, number, side, markup)
    } else if (side === 'back') {
      written += markup.open + clozeSide(part.answer, number, side, markup) + markup.close
    } else {
      const hint = part.hint === null ? markup.text('...') : clozeSide(part.hint, number, side, markup)
      written += `${markup.open}${markup.text('[')}${hint}${markup.text(']')}${markup.close}`
    }
  }
  return written
}
