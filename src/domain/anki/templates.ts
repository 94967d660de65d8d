// Card templates rendered as Anki renders them (rslib/src/template.rs, template_filters.rs,
// notetype/render.rs): `{{Field}}`, `{{FrontSide}}`, `{{#Field}}…{{/Field}}`, `{{^Field}}…{{/Field}}`,
// filters chained right to left (`{{text:hint:Field}}`: hint first), and the special fields Tags,
// Type, Deck, Subdeck, Card, CardFlag and CardID. What needs a browser stays as Anki leaves it for
// one: `{{type:Field}}` becomes `[[type:Field]]`, `[sound:…]` stays, TTS becomes `[anki:tts …]`.
import { blake3 } from '@noble/hashes/blake3.js'
import { clozeFilter, clozeNumbers, revealClozeTextOnly } from './cloze.js'

type Node =
  | { kind: 'text', text: string }
  | { kind: 'replacement', key: string, filters: string[] }
  | { kind: 'conditional', key: string, negated: boolean, children: Node[] }

export class TemplateError extends Error {
  override name = 'TemplateError'
}

/** A side that renders past the length its caller keeps: rendering stops there, rather than build a side of any size. */
export class RenderedTooLong extends TemplateError {
  override name = 'RenderedTooLong'
  constructor (readonly limit: number) {
    super(`a side of the card renders to more than ${limit.toLocaleString('en')} characters`)
  }
}

function classify (inner: string): { kind: 'open' | 'negated' | 'close' | 'replacement', key: string } {
  const start = inner.replace(/^\{+/, '').trim()
  if (start.length < 2) return { kind: 'replacement', key: start }
  if (start.startsWith('#')) return { kind: 'open', key: start.slice(1).trimStart() }
  if (start.startsWith('/')) return { kind: 'close', key: start.slice(1).trimStart() }
  if (start.startsWith('^')) return { kind: 'negated', key: start.slice(1).trimStart() }
  return { kind: 'replacement', key: start }
}

function parseTemplate (source: string): Node[] {
  let template = source
  let [startTag, endTag] = ['{{', '}}']
  if (template.trimStart().startsWith('{{=<% %>=}}')) {
    template = template.trimStart().slice('{{=<% %>=}}'.length)
    ;[startTag, endTag] = ['<%', '%>']
  }
  const root: Node[] = []
  const stack: Array<{ key: string, children: Node[] }> = []
  const current = (): Node[] => stack.at(-1)?.children ?? root
  const pushText = (text: string): void => {
    const nodes = current()
    const last = nodes.at(-1)
    if (last?.kind === 'text') last.text += text
    else nodes.push({ kind: 'text', text })
  }
  let index = 0
  let textStart = 0
  while (index < template.length) {
    if (template.startsWith(startTag, index)) {
      const end = template.indexOf(endTag, index + startTag.length)
      if (end >= 0) {
        if (index > textStart) pushText(template.slice(textStart, index))
        const token = classify(template.slice(index + startTag.length, end))
        if (token.kind === 'replacement') {
          const parts = token.key.split(':')
          current().push({ kind: 'replacement', key: parts.at(-1) as string, filters: parts.slice(0, -1).reverse() })
        } else if (token.kind === 'close') {
          const open = stack.pop()
          if (open?.key !== token.key) throw new TemplateError(`{{/${token.key}}} closes what is not open`)
        } else {
          const node: Node = { kind: 'conditional', key: token.key, negated: token.kind === 'negated', children: [] }
          current().push(node)
          stack.push({ key: token.key, children: node.children })
        }
        index = end + endTag.length
        textStart = index
        continue
      }
    }
    if (template.startsWith('<!--', index)) {
      const end = template.indexOf('-->', index + 4)
      if (end >= 0) {
        // a comment is kept as it is, handlebars inside it unrendered
        if (index > textStart) pushText(template.slice(textStart, index))
        pushText(template.slice(index, end + 3))
        index = end + 3
        textStart = index
        continue
      }
    }
    index++
  }
  if (index > textStart) pushText(template.slice(textStart, index))
  if (stack.length > 0) throw new TemplateError(`{{#${stack.at(-1)?.key ?? ''}}} is not closed`)
  return root
}

/** A field Anki counts as empty: only whitespace, `<br>` and `<div>` tags. */
export function fieldIsEmpty (text: string): boolean {
  return /^(?:\s|<\/?(?:br|div) ?\/?>)*$/i.test(text)
}

const HTML = /(<!--[\s\S]*?-->)|(<style[\s\S]*?>[\s\S]*?<\/style>)|(<script[\s\S]*?>[\s\S]*?<\/script>)|(<[\s\S]*?>)/gi

const ENTITIES: Record<string, string> = {
  amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0', ensp: '\u2002', emsp: '\u2003', thinsp: '\u2009',
  ndash: '–', mdash: '—', lsquo: '‘', rsquo: '’', ldquo: '“', rdquo: '”', hellip: '…', middot: '·', bull: '•',
  laquo: '«', raquo: '»', copy: '©', reg: '®', trade: '™', deg: '°', times: '×', divide: '÷', plusmn: '±',
  euro: '€', pound: '£', yen: '¥', cent: '¢', sect: '§', para: '¶', iexcl: '¡', iquest: '¿', shy: '\u00ad'
}

/** HTML entities decoded, non-breaking spaces as plain ones (Anki's decode_entities). */
export function decodeEntities (html: string): string {
  if (!html.includes('&')) return html
  return html.replace(/&(#[0-9]+|#[xX][0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);/g, (match, body: string) => {
    if (body.startsWith('#')) {
      const code = body[1] === 'x' || body[1] === 'X' ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10)
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : match
    }
    return ENTITIES[body] ?? match
  }).replace(/\u00a0/g, ' ')
}

/** `{{text:Field}}`: the field without HTML, entities decoded. */
export function stripHtml (html: string): string {
  return decodeEntities(html.replace(HTML, ''))
}

const FURIGANA = / ?([^ >]+?)\[(.+?)\]/g

function furigana (text: string, render: (base: string, reading: string) => string): string {
  return text.replace(/&nbsp;/g, ' ').replace(FURIGANA, (match, base: string, reading: string) =>
    reading.startsWith('sound:') ? match : render(base, reading))
}

function hint (text: string, fieldName: string): string {
  if (text.trim() === '') return text
  const digest = blake3(new TextEncoder().encode(text + fieldName))
  const id = Array.from(digest.slice(0, 8), (byte) => byte.toString(16).padStart(2, '0')).join('')
  return `
<a class=hint href="#"
onclick="this.style.display='none';
document.getElementById('hint${id}').style.display='block';
return false;" draggable=false>
${fieldName}</a>
<div id="hint${id}" class=hint style="display: none">${text}</div>
`
}

interface Context {
  fields: Map<string, string>
  nonEmpty: Set<string>
  cardOrd: number
  /** the rendered question, once rendering the answer */
  frontSide?: string
  /** the most characters a side may render to (RenderedTooLong past it) */
  maxLength: number
}

function applyFilter (filter: string, text: string, fieldName: string, context: Context): string | undefined {
  const question = context.frontSide === undefined
  switch (filter) {
    case 'text': return stripHtml(text)
    case 'furigana': return furigana(text, (base, reading) => `<ruby><rb>${base}</rb><rt>${reading}</rt></ruby>`)
    case 'kanji': return furigana(text, (base) => base)
    case 'kana': return furigana(text, (_base, reading) => reading)
    case 'type': return `[[type:${fieldName}]]`
    case 'type-cloze': return `[[type:cloze:${fieldName}]]`
    case 'type-nc': return `[[type:nc:${fieldName}]]`
    case 'hint': return hint(text, fieldName)
    case 'cloze': return clozeFilter(text, context.cardOrd + 1, question)
    case 'cloze-only': return revealClozeTextOnly(text, context.cardOrd + 1, question)
    case '': return text
    default:
      if (filter.startsWith('tts ')) return `[anki:tts lang=${filter.slice(4)}]${text}[/anki:tts]`
      return undefined // a filter of an add-on: the text passes through it unchanged
  }
}

function applyFilters (text: string, filters: string[], fieldName: string, context: Context): string {
  let chosen = filters
  if (filters.length === 2 && filters[0] === 'cloze' && filters[1] === 'type') chosen = ['type-cloze']
  else if (filters.length === 2 && filters[0] === 'nc' && filters[1] === 'type') chosen = ['type-nc']
  else if (filters.at(-1) === 'type') chosen = ['type']
  let out = text
  for (const filter of chosen) out = applyFilter(filter, out, fieldName, context) ?? out
  return out
}

function isClozeConditional (key: string): boolean {
  return /^c[0-9]+$/.test(key)
}

function renderNodes (nodes: Node[], context: Context): string {
  let out = ''
  for (const node of nodes) {
    if (node.kind === 'text') {
      out += node.text
    } else if (node.kind === 'replacement') {
      if (node.key === 'FrontSide') {
        out += context.frontSide ?? ''
      } else if (node.key === '' && node.filters.length > 0) {
        // a field-less filter such as {{tts-voices:}}: nothing in a full render
      } else {
        const value = context.fields.get(node.key)
        if (value === undefined) throw new TemplateError(`the template names a field the note type lacks: {{${node.key}}}`)
        out += applyFilters(value, node.filters, node.key, context)
      }
    } else {
      if (!context.nonEmpty.has(node.key) && !context.fields.has(node.key) && !isClozeConditional(node.key)) {
        throw new TemplateError(`the template names a field the note type lacks: {{${node.negated ? '^' : '#'}${node.key}}}`)
      }
      const shown = context.nonEmpty.has(node.key) !== node.negated
      const inner = renderNodes(node.children, context)
      if (shown) out += inner
    }
    if (out.length > context.maxLength) throw new RenderedTooLong(context.maxLength)
  }
  return out
}

function rendersWithFields (nodes: Node[], nonEmpty: Set<string>): boolean {
  for (const node of nodes) {
    if (node.kind === 'replacement') {
      if (nonEmpty.has(node.key)) return true
    } else if (node.kind === 'conditional') {
      if (!node.negated && !nonEmpty.has(node.key)) continue
      if (node.negated && nonEmpty.has(node.key)) continue
      if (rendersWithFields(node.children, nonEmpty)) return true
    }
  }
  return false
}

export interface CardToRender {
  /** the note type's field names, in order, and the note's values for them */
  fieldNames: string[]
  fieldValues: string[]
  questionFormat: string
  answerFormat: string
  cloze: boolean
  /** the template's ord, or the cloze number less one */
  cardOrd: number
  tags: string[]
  notetypeName: string
  /** the deck's full name, `A::B::C` */
  deckName: string
  templateName: string
  flags?: number
  cardId?: number
  /** the most characters a side may render to: past it, RenderedTooLong (none when not given) */
  maxLength?: number
}

export interface RenderedCard {
  question: string
  answer: string
  /** Anki would show a "front of card is blank" or "cloze number missing" notice instead */
  empty: boolean
}

/**
 * Renders a card's question and answer as Anki does before its browser-side steps (what its backend's
 * render_existing_card returns). Throws TemplateError for a template Anki cannot render either.
 */
export function renderCard (card: CardToRender): RenderedCard {
  const fields = new Map<string, string>()
  card.fieldNames.forEach((name, index) => fields.set(name, card.fieldValues[index] ?? ''))
  const special: Array<[string, string]> = [
    ['Tags', card.tags.join(' ')],
    ['Type', card.notetypeName],
    ['Subdeck', card.deckName.split('::').at(-1) ?? ''],
    ['Deck', card.deckName],
    ['CardFlag', `flag${card.flags ?? 0}`],
    ['Card', card.templateName],
    ['CardID', String(card.cardId ?? 0)],
    [`c${card.cardOrd + 1}`, '1']
  ]
  for (const [name, value] of special) if (!fields.has(name)) fields.set(name, value)
  const nonEmpty = new Set([...fields].filter(([, value]) => !fieldIsEmpty(value)).map(([name]) => name))
  const context: Context = { fields, nonEmpty, cardOrd: card.cardOrd, maxLength: card.maxLength ?? Infinity }

  const questionNodes = parseTemplate(card.questionFormat)
  const question = renderNodes(questionNodes, context)
  const empty = card.cloze
    ? ![...fields.values()].some((value) => clozeNumbers(value).has(card.cardOrd + 1))
    : !rendersWithFields(questionNodes, nonEmpty)
  context.frontSide = question
  const answer = renderNodes(parseTemplate(card.answerFormat), context)
  return { question, answer, empty }
}
