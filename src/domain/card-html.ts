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
 *   and, on a card an Anki import made (RenderOptions.classes), class on
 *      any of them: plain names only, at most 16, never "cloze", for its
 *      note type's CSS (which the study page confines to the card); and on a
 *      div of class io-mask, an image occlusion's mask: data-shape (rect,
 *      ellipse, polygon), data-left, -top, -width, -height (numbers) and
 *      data-points (pairs of numbers)
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
import { MASK_ATTRIBUTES } from './image-occlusion.js'

/** Bumped whenever the allowlist or the rendering changes: sides kept from an older version are rendered again when read. */
export const RENDER_VERSION = 2

/** How sides are rendered: `classes` keeps the class names of the HTML, for a card an Anki import made from a note type whose CSS names them. */
export interface RenderOptions { classes?: boolean }

/** How a card's sides are rendered: with their class names when an Anki import made it from a note type (its noteTypeID), for that note type's CSS. */
export function renderingOf (card: { noteTypeID?: string }): RenderOptions {
  return card.noteTypeID === undefined ? {} : { classes: true }
}

/** A class name kept: a plain CSS identifier, not too long. */
const CLASS_NAME = /^-?[A-Za-z_][A-Za-z0-9_-]{0,63}$/
const MAX_CLASSES = 16

/** The class names of a class attribute that are kept (never "cloze", which only the service writes), or null for none. */
export function keptClasses (value: string | undefined): string | null {
  if (value === undefined) return null
  const names = value.split(/\s+/).filter((name) => CLASS_NAME.test(name) && name !== 'cloze').slice(0, MAX_CLASSES)
  return names.length === 0 ? null : names.join(' ')
}

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

/** The elements whose attributes sanitizeCardHtml rewrites one by one; the others keep their class names at most. */
const TRANSFORMED = new Set(['a', 'img', 'audio', 'span', 'td', 'th', 'div'])

/** The place and shape of an image occlusion mask (image-occlusion.ts), on a card an Anki import made: each attribute that passes its test. */
function maskData (attribs: sanitizeHtml.Attributes): sanitizeHtml.Attributes {
  if (!(attribs.class ?? '').split(/\s+/).includes('io-mask')) return {}
  const kept: sanitizeHtml.Attributes = {}
  for (const [name, test] of Object.entries(MASK_ATTRIBUTES)) {
    const value = attribs[name]
    if (value !== undefined && test(value)) kept[name] = value
  }
  return kept
}

/** Text without markup or character references: the sanitizer gives it back as it is (test/domain/card-html.test.ts checks it does). */
const NO_MARKUP = /^[^<>&\0]*$/

/** HTML reduced to the allowlist, media left as `media:<mediaID>`. */
export function sanitizeCardHtml (source: string, options: RenderOptions = {}): string {
  // most fields of an imported deck are such text: the parser is then not needed
  if (NO_MARKUP.test(source)) return source
  // the elements inside an audio element are its fallback for old browsers: none is kept
  let audioDepth = 0
  const classes = options.classes === true
  /** the attributes kept, with the element's class names when they are kept */
  const withClass = (attribs: sanitizeHtml.Attributes, kept: sanitizeHtml.Attributes): sanitizeHtml.Attributes => {
    const names = classes ? keptClasses(attribs.class) : null
    return names === null ? kept : { ...kept, class: names }
  }
  const classOnly = (tagName: string, attribs: sanitizeHtml.Attributes) => ({ tagName, attribs: withClass(attribs, {}) })
  const cell = (tagName: string, attribs: sanitizeHtml.Attributes) => ({ tagName, attribs: withClass(attribs, cellSpans(tagName, attribs).attribs) })
  return sanitizeHtml(source, {
    allowedTags: ALLOWED_TAGS,
    allowedAttributes: {
      a: ['href', 'rel', 'target'],
      img: ['src', 'alt'],
      audio: ['src', 'controls'],
      span: ['class'],
      td: ['colspan', 'rowspan'],
      th: ['colspan', 'rowspan'],
      ...(classes ? { '*': ['class'], div: ['class', ...Object.keys(MASK_ATTRIBUTES)] } : {})
    },
    // with classes, each element's are chosen by withClass; without, only the service's cloze mark passes
    allowedClasses: classes ? {} : { span: ['cloze'] },
    allowedSchemes: ['http', 'https'],
    allowedSchemesByTag: { img: ['media'], audio: ['media'] },
    allowProtocolRelative: false,
    disallowedTagsMode: 'discard',
    nonTextTags: DROPPED_WHOLE,
    transformTags: {
      // the source first: what mediaIn and resolveMedia look for
      a: (tagName, attribs) => {
        const href = linkAddress(attribs.href)
        const kept: sanitizeHtml.Attributes = href === null ? {} : { href, rel: 'noopener noreferrer nofollow', target: '_blank' }
        return { tagName, attribs: href === null ? kept : withClass(attribs, kept) }
      },
      img: (tagName, attribs) => {
        const id = mediaID(attribs.src)
        const alt = attribs.alt ?? ''
        const kept: sanitizeHtml.Attributes = id === null ? {} : { src: `media:${id}`, ...(alt === '' ? {} : { alt }) }
        return { tagName, attribs: id === null ? kept : withClass(attribs, kept) }
      },
      audio: (tagName, attribs) => {
        const id = mediaID(attribs.src)
        const kept: sanitizeHtml.Attributes = id === null ? {} : { src: `media:${id}`, controls: '' }
        return { tagName, attribs: id === null ? kept : withClass(attribs, kept) }
      },
      span: (tagName, attribs) => {
        if (attribs.class === CLOZE_MARK) return { tagName, attribs: { class: 'cloze' } }
        return classOnly(tagName, attribs)
      },
      td: cell,
      th: cell,
      div: (tagName, attribs) => ({ tagName, attribs: withClass(attribs, classes ? maskData(attribs) : {}) }),
      // every other element keeps its class names only (sanitize-html would run a '*' transform after those above too)
      ...Object.fromEntries(ALLOWED_TAGS.filter((tag) => !TRANSFORMED.has(tag)).map((tag) => [tag, classOnly]))
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
export function sideHtml (text: string, format: TextFormat, options: RenderOptions = {}): string {
  return format === 'html' ? sanitizeCardHtml(text, options) : escapeText(text)
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
export function basicSides (front: string, back: string, format: TextFormat, options: RenderOptions = {}): RenderedSides {
  const frontHtml = sideHtml(front, format, options)
  const backHtml = sideHtml(back, format, options)
  return { front: frontHtml, back: backHtml, media: mediaIn(frontHtml, backHtml) }
}

/**
 * The sides of the card of `number` of a cloze note: the question with its
 * deletions as [...] or [hint], the others filled in; the answer with its
 * deletions' answers in <span class="cloze">, then the back extra after a
 * line break.
 */
export function clozeSides (cloze: string, extra: string, format: TextFormat, number: number, options: RenderOptions = {}): RenderedSides {
  const parts = parseCloze(cloze)
  let front: string
  let back: string
  if (format === 'html') {
    const markup: ClozeMarkup = { text: (source) => source, open: `<span class="${CLOZE_MARK}">`, close: '</span>' }
    front = sanitizeCardHtml(clozeSide(parts, number, 'front', markup), options)
    back = sanitizeCardHtml(clozeSide(parts, number, 'back', markup), options)
  } else {
    const markup: ClozeMarkup = { text: escapeText, open: '<span class="cloze">', close: '</span>' }
    front = clozeSide(parts, number, 'front', markup)
    back = clozeSide(parts, number, 'back', markup)
  }
  if (extra !== '') back += `<br>${sideHtml(extra, format, options)}`
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
