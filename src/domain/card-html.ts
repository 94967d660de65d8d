/**
 * The HTML a card shows. Plain text is escaped, its line breaks made `<br>`;
 * HTML is reduced by sanitize-html to one allowlist (docs/api.md, "Card
 * content"), whatever came in:
 *
 *   b strong i em u sub sup code pre br p div span ul ol li ruby rt rp
 *   table caption thead tbody tfoot tr th td, with colspan and rowspan (1-99)
 *   a: href only when it is an absolute http(s) URL; the service adds
 *      rel="noopener noreferrer nofollow" and target="_blank"
 *   img: src only `media:<mediaID>`, and alt
 *   audio: src only `media:<mediaID>`; the service adds controls, and drops
 *      whatever the element held
 *   span: class="cloze" only where the service marks a cloze deletion
 *
 * No other element or attribute passes: no script, no event attribute, no
 * style, no id, no class from the input, no SVG or MathML, no frame, object,
 * embed or form. An img or audio without a media source is dropped, and a
 * link without an http(s) address keeps only its text. The content of script,
 * style, svg, math and the like goes with them.
 *
 * Sides are rendered when a card is written and kept with it (rendering takes
 * far longer than reading); media stay `media:<mediaID>` there, and become
 * addresses when read (resolveMedia), since signed addresses expire.
 */
import { randomUUID } from 'node:crypto'
import sanitizeHtml from 'sanitize-html'
import { clozeSide, parseCloze, type ClozeMarkup } from './cloze.js'
import type { TextFormat } from './card-content.js'

/** Bumped whenever the allowlist or the rendering changes: sides kept from an older version are rendered again when read. */
export const RENDER_VERSION = 2

/** The sides of a card as HTML to show, media as `media:<mediaID>`, and the media they refer to. */
export interface RenderedSides {
  front: string
  back: string
  media: string[]
}

const MEDIA_ID = '[A-Za-z0-9_-]{1,128}'
const MEDIA_SOURCE = new RegExp(`^media:(${MEDIA_ID})$`)
/** An element of the media, as the sanitizer writes it: the source first, an audio element empty. */
const MEDIA_ELEMENT = new RegExp(`<img src="media:(${MEDIA_ID})"[^>]*>|<audio src="media:(${MEDIA_ID})"[^>]*></audio>`, 'g')

/**
 * The class the service gives the spans it writes around a cloze deletion
 * before sanitizing, turned into `cloze` by the sanitizer: a class="cloze"
 * written in the input is dropped like any other, since nobody can guess this one.
 */
const CLOZE_MARK = `cloze-${randomUUID()}`

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', '\'': '&#39;' }

/** Plain text as HTML that shows it as written: every markup character escaped, each line break a `<br>`. */
export function escapeText (text: string): string {
  if (!/[&<>"'\r\n]/.test(text)) return text
  return text.replace(/[&<>"']/g, (character) => ENTITIES[character] ?? character).replace(/\r\n|\r|\n/g, '<br>')
}

function escapeAttribute (value: string): string {
  return value.replace(/[&<>"']/g, (character) => ENTITIES[character] ?? character)
}

/** An absolute http(s) address as the browser would read it, or null. */
function linkAddress (href: string | undefined): string | null {
  const written = href?.trim() ?? ''
  if (!/^https?:\/\//i.test(written)) return null
  try {
    const url = new URL(written)
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null
  } catch {
    return null
  }
}

function mediaID (src: string | undefined): string | null {
  return MEDIA_SOURCE.exec(src?.trim() ?? '')?.[1] ?? null
}

function cellSpans (tagName: string, attribs: sanitizeHtml.Attributes): sanitizeHtml.Tag {
  const kept: sanitizeHtml.Attributes = {}
  for (const name of ['colspan', 'rowspan']) {
    const value = attribs[name]?.trim()
    if (value !== undefined && /^[1-9][0-9]?$/.test(value)) kept[name] = value
  }
  return { tagName, attribs: kept }
}

const ALLOWED_TAGS = [
  'b', 'strong', 'i', 'em', 'u', 'sub', 'sup', 'code', 'pre', 'br', 'p', 'div', 'span',
  'ul', 'ol', 'li', 'ruby', 'rt', 'rp',
  'table', 'caption', 'thead', 'tbody', 'tfoot', 'tr', 'th', 'td',
  'a', 'img', 'audio'
]

/** Elements dropped with everything they hold, rather than keeping their text. */
const DROPPED_WHOLE = [
  'script', 'style', 'textarea', 'option', 'select', 'xmp', 'noscript', 'noembed', 'noframes', 'template',
  'title', 'svg', 'math', 'object', 'applet', 'frameset', 'plaintext'
]

/** HTML reduced to the allowlist, media left as `media:<mediaID>`. */
export function sanitizeCardHtml (source: string): string {
  // the elements inside an audio element are its fallback for old browsers: none is kept
  let audioDepth = 0
  return sanitizeHtml(source, {
    allowedTags: ALLOWED_TAGS,
    allowedAttributes: {
      a: ['href', 'rel', 'target'],
      img: ['src', 'alt'],
      audio: ['src', 'controls'],
      span: ['class'],
      td: ['colspan', 'rowspan'],
      th: ['colspan', 'rowspan']
    },
    allowedClasses: { span: ['cloze'] },
    allowedSchemes: ['http', 'https'],
    allowedSchemesByTag: { img: ['media'], audio: ['media'] },
    allowProtocolRelative: false,
    disallowedTagsMode: 'discard',
    nonTextTags: DROPPED_WHOLE,
    transformTags: {
      a: (tagName, attribs) => {
        const href = linkAddress(attribs.href)
        const kept: sanitizeHtml.Attributes = href === null ? {} : { href, rel: 'noopener noreferrer nofollow', target: '_blank' }
        return { tagName, attribs: kept }
      },
      img: (tagName, attribs) => {
        const id = mediaID(attribs.src)
        const alt = attribs.alt ?? ''
        const kept: sanitizeHtml.Attributes = id === null ? {} : { src: `media:${id}`, ...(alt === '' ? {} : { alt }) }
        return { tagName, attribs: kept }
      },
      audio: (tagName, attribs) => {
        const id = mediaID(attribs.src)
        const kept: sanitizeHtml.Attributes = id === null ? {} : { src: `media:${id}`, controls: '' }
        return { tagName, attribs: kept }
      },
      span: (tagName, attribs) => {
        const kept: sanitizeHtml.Attributes = attribs.class === CLOZE_MARK ? { class: 'cloze' } : {}
        return { tagName, attribs: kept }
      },
      td: cellSpans,
      th: cellSpans
    },
    onOpenTag: (name) => { if (name === 'audio') audioDepth++ },
    onCloseTag: (name) => { if (name === 'audio') audioDepth-- },
    exclusiveFilter: (frame) => {
      if (audioDepth > 0) return true
      if ((frame.tag === 'img' || frame.tag === 'audio') && frame.attribs.src === undefined) return true
      if (frame.tag === 'a' && frame.attribs.href === undefined) return 'excludeTag'
      return false
    },
    textFilter: (text) => audioDepth > 0 ? '' : text
  })
}

/** One side as HTML: plain text escaped, HTML sanitized. */
export function sideHtml (text: string, format: TextFormat): string {
  return format === 'html' ? sanitizeCardHtml(text) : escapeText(text)
}

/** The media that rendered HTML refers to, each once, in the order met. */
export function mediaIn (...html: string[]): string[] {
  const found = new Set<string>()
  for (const side of html) {
    if (!side.includes('media:')) continue
    for (const match of side.matchAll(MEDIA_ELEMENT)) found.add((match[1] ?? match[2]) as string)
  }
  return [...found]
}

/** The sides of a front-and-back card. */
export function basicSides (front: string, back: string, format: TextFormat): RenderedSides {
  const frontHtml = sideHtml(front, format)
  const backHtml = sideHtml(back, format)
  return { front: frontHtml, back: backHtml, media: mediaIn(frontHtml, backHtml) }
}

/**
 * The sides of the card of `number` of a cloze note: the question with its
 * deletions as [...] or [hint], the others filled in; the answer with its
 * deletions' answers in <span class="cloze">, then the back extra after a
 * line break.
 */
export function clozeSides (cloze: string, extra: string, format: TextFormat, number: number): RenderedSides {
  const parts = parseCloze(cloze)
  let front: string
  let back: string
  if (format === 'html') {
    const markup: ClozeMarkup = { text: (source) => source, open: `<span class="${CLOZE_MARK}">`, close: '</span>' }
    front = sanitizeCardHtml(clozeSide(parts, number, 'front', markup))
    back = sanitizeCardHtml(clozeSide(parts, number, 'back', markup))
  } else {
    const markup: ClozeMarkup = { text: escapeText, open: '<span class="cloze">', close: '</span>' }
    front = clozeSide(parts, number, 'front', markup)
    back = clozeSide(parts, number, 'back', markup)
  }
  if (extra !== '') back += `<br>${sideHtml(extra, format)}`
  return { front, back, media: mediaIn(front, back) }
}

/**
 * Rendered HTML with each media reference made the address `url` gives it
 * (HTML-escaped); an element whose media `url` does not know (null) is dropped.
 */
export function resolveMedia (html: string, url: (mediaID: string) => string | null): string {
  if (!html.includes('media:')) return html
  return html.replace(MEDIA_ELEMENT, (element, imageID: string | undefined, audioID: string | undefined) => {
    const id = (imageID ?? audioID) as string
    const address = url(id)
    return address === null ? '' : element.replace(`src="media:${id}"`, `src="${escapeAttribute(address)}"`)
  })
}
