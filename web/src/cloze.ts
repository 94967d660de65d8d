// Cloze deletions in Anki's syntax ({{c1::answer}}, {{c1::answer::hint}}, {{c1,2::answer}}),
// as the card editor needs them: the next number to give, and each card's sides for the
// preview. The service renders the sides that are studied when the note is saved
// (src/domain/cloze.ts); the preview reads the text by the same rules (a deletion names
// one number or several, each 1 to 9999, separated by commas; deletions nest, the first
// :: starts the hint, anything else is text), so it shows what the service will, short of
// its sanitizer, which the page's allowlist stands in for. The page bundles nothing of
// src/, so the rules are written twice: test/domain/cloze-page.test.ts checks that both
// read texts alike.

export type ClozePart = string | ClozeDeletion

export interface ClozeDeletion {
  /** as written: in their order, a repeated one repeated */
  numbers: number[]
  answer: ClozePart[]
  hint: ClozePart[] | null
}

const OPENING = /\{\{c([1-9][0-9]{0,3}(?:,[1-9][0-9]{0,3})*)::/y

function appendText (parts: ClozePart[], text: string): void {
  if (text === '') return
  const last = parts.length - 1
  if (typeof parts[last] === 'string') parts[last] += text
  else parts.push(text)
}

function appendAll (parts: ClozePart[], added: readonly ClozePart[]): void {
  for (const part of added) {
    if (typeof part === 'string') appendText(parts, part)
    else parts.push(part)
  }
}

/** A cloze text as text and deletions, in the order written. */
export function parseCloze (text: string): ClozePart[] {
  const root: ClozePart[] = []
  const open: Array<{ deletion: ClozeDeletion, parent: ClozePart[] }> = []
  const partsNow = (): ClozePart[] => {
    const innermost = open.at(-1)
    return innermost === undefined ? root : innermost.deletion.hint ?? innermost.deletion.answer
  }
  let index = 0
  let textFrom = 0
  const takeText = (): void => { appendText(partsNow(), text.slice(textFrom, index)) }
  while (index < text.length) {
    OPENING.lastIndex = index
    const opening = text.startsWith('{{c', index) ? OPENING.exec(text) : null
    const innermost = open.at(-1)
    if (opening !== null) {
      takeText()
      const deletion: ClozeDeletion = { numbers: (opening[1] as string).split(',').map(Number), answer: [], hint: null }
      open.push({ deletion, parent: partsNow() })
      index += opening[0].length
    } else if (innermost !== undefined && innermost.deletion.hint === null && text.startsWith('::', index)) {
      takeText()
      innermost.deletion.hint = []
      index += 2
    } else if (innermost !== undefined && text.startsWith('}}', index)) {
      takeText()
      open.pop()
      innermost.parent.push(innermost.deletion)
      index += 2
    } else {
      index += 1
      continue
    }
    textFrom = index
  }
  takeText()
  // a deletion never closed is text as written
  for (let unclosed = open.pop(); unclosed !== undefined; unclosed = open.pop()) {
    const { deletion, parent } = unclosed
    appendText(parent, `{{c${deletion.numbers.join(',')}::`)
    appendAll(parent, deletion.answer)
    if (deletion.hint !== null) {
      appendText(parent, '::')
      appendAll(parent, deletion.hint)
    }
  }
  return root
}

/** The numbers of the text's deletions, each once, in increasing order: one card each. */
export function clozeNumbers (text: string): number[] {
  const numbers = new Set<number>()
  const collect = (parts: readonly ClozePart[]): void => {
    for (const part of parts) {
      if (typeof part === 'string') continue
      for (const number of part.numbers) numbers.add(number)
      collect(part.answer)
      if (part.hint !== null) collect(part.hint)
    }
  }
  collect(parseCloze(text))
  return [...numbers].sort((a, b) => a - b)
}

/** The number a new deletion gets, as Anki's Ctrl+Shift+C gives it: one more than the highest in the text. */
export function nextClozeNumber (text: string): number {
  return Math.min(9999, (clozeNumbers(text).at(-1) ?? 0) + 1)
}

/**
 * One side of the card of `number`, as HTML, whose deletions are those whose numbers hold
 * `number`: the question shows its deletions as [...] or [hint] in <span class="cloze">,
 * the others filled in; the answer shows its deletions' answers in <span class="cloze">.
 * `text` writes the note's own text (escaped for a plain text note, as it is for an html one).
 */
export function clozeSideHtml (parts: readonly ClozePart[], number: number, side: 'front' | 'back', text: (source: string) => string): string {
  let written = ''
  for (const part of parts) {
    if (typeof part === 'string') {
      written += text(part)
    } else if (!part.numbers.includes(number)) {
      written += clozeSideHtml(part.answer, number, side, text)
    } else if (side === 'back') {
      written += `<span class="cloze">${clozeSideHtml(part.answer, number, side, text)}</span>`
    } else {
      const hint = part.hint === null ? '...' : clozeSideHtml(part.hint, number, side, text)
      written += `<span class="cloze">[${hint}]</span>`
    }
  }
  return written
}
