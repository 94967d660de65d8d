// Cloze deletions as Anki renders them (rslib/src/cloze.rs): `{{c1::text}}`, `{{c2::text::hint}}`,
// several numbers at once (`{{c1,2::text}}`) and clozes nested up to ten deep. On the question
// side the active cloze becomes `[...]` (or `[hint]`); on the answer side it is revealed; the other
// clozes show their text. Image occlusion clozes are left out.

interface Cloze {
  ordinals: number[]
  nodes: Array<string | Cloze>
  hint?: string
}

type Token = { open: number[] } | { text: string } | 'close'

const OPEN = /^\{\{c([\d,]*)::/

function openAt (text: string, index: number): { ordinals: number[], length: number } | undefined {
  if (!text.startsWith('{{c', index)) return undefined
  const match = OPEN.exec(text.slice(index, index + 64))
  if (match === null) return undefined
  const ordinals = [...new Set((match[1] as string).split(',').filter((part) => part !== '').map(Number).filter((n) => Number.isInteger(n) && n <= 65535))]
    .sort((a, b) => a - b)
  return ordinals.length === 0 ? undefined : { ordinals, length: match[0].length }
}

function tokens (text: string): Token[] {
  const out: Token[] = []
  let start = 0
  let index = 0
  const flush = (): void => {
    if (index > start) out.push({ text: text.slice(start, index) })
  }
  while (index < text.length) {
    const open = openAt(text, index)
    if (open !== undefined) {
      flush()
      out.push({ open: open.ordinals })
      index += open.length
      start = index
    } else if (text.startsWith('}}', index)) {
      flush()
      out.push('close')
      index += 2
      start = index
    } else {
      index++
    }
  }
  flush()
  return out
}

function parse (text: string): Array<string | Cloze> {
  const open: Cloze[] = []
  const output: Array<string | Cloze> = []
  for (const token of tokens(text)) {
    if (token === 'close') {
      const cloze = open.pop()
      if (cloze === undefined) output.push('}}')
      else (open.at(-1)?.nodes ?? output).push(cloze)
    } else if ('open' in token) {
      // deeper than ten, an opening is dropped and its closing closes the one around it, as in Anki
      if (open.length < 10) open.push({ ordinals: token.open, nodes: [] })
    } else {
      const cloze = open.at(-1)
      if (cloze === undefined) {
        output.push(token.text)
      } else {
        let piece = token.text
        if (!piece.startsWith('image-occlusion:')) {
          const split = piece.indexOf('::')
          if (split >= 0) {
            cloze.hint = piece.slice(split + 2)
            piece = piece.slice(0, split)
          }
        }
        cloze.nodes.push(piece)
      }
    }
  }
  return output
}

function clozedText (cloze: Cloze): string {
  return cloze.nodes.map((node) => typeof node === 'string' ? node : clozedText(node)).join('')
}

/** Anki's attribute encoding (the htmlescape crate's): named entities for & < > ", hex for other punctuation. */
export function encodeAttribute (text: string): string {
  let out = ''
  for (const char of text) {
    const code = char.codePointAt(0) as number
    if (char === '&') out += '&amp;'
    else if (char === '<') out += '&lt;'
    else if (char === '>') out += '&gt;'
    else if (char === '"') out += '&quot;'
    else if (code < 256 && (code > 127 || !/[A-Za-z0-9]/.test(char))) out += `&#x${code.toString(16).toUpperCase()};`
    else out += char
  }
  return out
}

function reveal (cloze: Cloze, ordinal: number, question: boolean, found: { active: boolean }): string {
  const active = cloze.ordinals.includes(ordinal)
  found.active ||= active
  const ordinals = cloze.ordinals.join(',')
  const inner = (): string => cloze.nodes.map((node) => typeof node === 'string' ? node : reveal(node, ordinal, question, found)).join('')
  if (question && active) {
    return `<span class="cloze" data-cloze="${encodeAttribute(inner())}" data-ordinal="${ordinals}">[${cloze.hint ?? '...'}]</span>`
  }
  if (active) return `<span class="cloze" data-ordinal="${ordinals}">${inner()}</span>`
  return `<span class="cloze-inactive" data-ordinal="${ordinals}">${inner()}</span>`
}

/** The text with cloze `ordinal` hidden (question) or revealed (answer); empty if the text lacks it. */
export function revealCloze (text: string, ordinal: number, question: boolean): string {
  const found = { active: false }
  const out = parse(text).map((node) => typeof node === 'string' ? node : reveal(node, ordinal, question, found)).join('')
  return found.active ? out : ''
}

/** `{{cloze-only:Field}}`: the active clozes' hints (question) or texts (answer), comma-separated. */
export function revealClozeTextOnly (text: string, ordinal: number, question: boolean): string {
  const out: string[] = []
  const visit = (node: string | Cloze): void => {
    if (typeof node === 'string') return
    if (node.ordinals.includes(ordinal)) out.push(question ? node.hint ?? '...' : clozedText(node))
    node.nodes.forEach(visit)
  }
  parse(text).forEach(visit)
  return out.join(', ')
}

/** The cloze numbers a text holds (c0 is no cloze). */
export function clozeNumbers (text: string): Set<number> {
  const numbers = new Set<number>()
  const visit = (node: string | Cloze): void => {
    if (typeof node === 'string') return
    for (const ordinal of node.ordinals) if (ordinal !== 0) numbers.add(ordinal)
    node.nodes.forEach(visit)
  }
  parse(text).forEach(visit)
  return numbers
}

const MATHJAX = /(\\[([])([\s\S]*?)(\\[)\]])/gi
const HTML_TAG = /(<!--[\s\S]*?-->)|(<style[\s\S]*?>[\s\S]*?<\/style>)|(<script[\s\S]*?>[\s\S]*?<\/script>)|(<[\s\S]*?>)/gi

/** HTML tags and comments removed, entities kept. */
export function stripHtmlPreservingEntities (html: string): string {
  return html.replace(HTML_TAG, '')
}

/** `{{cloze:Field}}`: the cloze revealed or hidden, and no HTML left inside MathJax (`\(…\)`, `\[…\]`). */
export function clozeFilter (text: string, ordinal: number, question: boolean): string {
  return revealCloze(text, ordinal, question)
    .replace(MATHJAX, (_match, open: string, inner: string, close: string) => `${open}${stripHtmlPreservingEntities(inner)}${close}`)
}

/** One shape of an image occlusion note: the cloze numbers it is asked on, its kind and its properties as Anki wrote them. */
export interface OcclusionShape {
  ordinals: number[]
  shape: string
  properties: Record<string, string>
}

/**
 * The shapes of an image occlusion field (`{{c1::image-occlusion:rect:left=.2:top=.3:width=.1:height=.1:oi=1}}`),
 * as Anki parses them (rslib/src/image_occlusion/imageocclusion.rs): the shape, then `:name=value`
 * pairs, a value's `:` and `\` escaped with `\`.
 */
export function imageOcclusions (text: string): OcclusionShape[] {
  const shapes: OcclusionShape[] = []
  const visit = (node: string | Cloze): void => {
    if (typeof node === 'string') return
    for (const piece of node.nodes) {
      if (typeof piece !== 'string' || !piece.startsWith('image-occlusion:')) continue
      const parsed = occlusionShape(piece.slice('image-occlusion:'.length))
      if (parsed !== null) shapes.push({ ordinals: node.ordinals, ...parsed })
    }
    node.nodes.forEach(visit)
  }
  parse(text).forEach(visit)
  return shapes
}

function occlusionShape (text: string): { shape: string, properties: Record<string, string> } | null {
  const colon = text.indexOf(':')
  if (colon < 0) return null
  const properties: Record<string, string> = {}
  let index = colon
  while (index < text.length && text[index] === ':') {
    const equals = text.indexOf('=', index + 1)
    if (equals < 0) break
    const name = text.slice(index + 1, equals)
    let value = ''
    index = equals + 1
    while (index < text.length && text[index] !== ':') {
      if (text[index] === '\\' && index + 1 < text.length && (text[index + 1] === ':' || text[index + 1] === '\\')) index++
      value += text[index] as string
      index++
    }
    if (!Object.hasOwn(properties, name)) properties[name] = value
  }
  return { shape: text.slice(0, colon), properties }
}
