// A card's HTML, put on the page only through the service's allowlist (docs/api.md,
// "Card content"), checked again here. The service sends frontHtml and backHtml already
// sanitized, media already as signed addresses; the page still never hands a string to
// the live document's parser. It parses the HTML in a document of its own (DOMParser:
// nothing there runs or loads), then builds, in the page, only the elements and
// attributes the allowlist names. So a card shows nothing else even if the service were
// wrong, and the page's policy (no inline script or style) is a second wall, not the first.

/** An attribute the allowlist keeps, and the test its value must pass. */
type AttributeRule = (value: string) => boolean

const NUMBER_1_TO_99: AttributeRule = (value) => /^[1-9][0-9]?$/.test(value)

/** The elements kept, with the attributes each may keep as written (src is the media's rule, below). */
const ALLOWED: Readonly<Record<string, Readonly<Record<string, AttributeRule>>>> = {
  ...Object.fromEntries(['b', 'strong', 'i', 'em', 'u', 'sub', 'sup', 'code', 'pre', 'br', 'p', 'div', 'span', 'ul', 'ol', 'li',
    'ruby', 'rt', 'rp', 'table', 'caption', 'thead', 'tbody', 'tfoot', 'tr', 'a', 'audio'].map((tag) => [tag, {}])),
  td: { colspan: NUMBER_1_TO_99, rowspan: NUMBER_1_TO_99 },
  th: { colspan: NUMBER_1_TO_99, rowspan: NUMBER_1_TO_99 },
  img: { alt: () => true }
}

/** Elements dropped with everything they hold; any other element not allowed is dropped and its content kept. */
const DROPPED_WHOLE = new Set([
  'script', 'style', 'textarea', 'option', 'select', 'xmp', 'noscript', 'noembed', 'noframes', 'template',
  'title', 'svg', 'math', 'object', 'applet', 'frameset', 'plaintext', 'iframe', 'frame', 'embed'
])

const XHTML = 'http://www.w3.org/1999/xhtml'

/** A media id as the service writes it in `media:<mediaID>`. */
const MEDIA_REFERENCE = /^media:([A-Za-z0-9_-]{1,128})$/

/**
 * What an img or audio source becomes on the page: the address to load, and the media id
 * to keep with it (in the editor, so the source is written back as media:<mediaID>);
 * null drops the element, as the service drops media it cannot show.
 */
export type MediaRule = (src: string) => { src: string | null, mediaID?: string } | null

/** A media address the service gave: /media/<mediaID>?... of this origin, nothing else. */
export function servedMedia (src: string): { src: string } | null {
  try {
    const url = new URL(src, location.href)
    return url.origin === location.origin && url.pathname.startsWith('/media/') ? { src: url.href } : null
  } catch {
    return null
  }
}

/** The media id of a reference written in a card's source (`media:<mediaID>`), or null. */
export function mediaReference (src: string): string | null {
  return MEDIA_REFERENCE.exec(src.trim())?.[1] ?? null
}

/** The media id of an address the service gave (/media/<mediaID>?...), or null. */
export function mediaIDOfAddress (src: string): string | null {
  const served = servedMedia(src)
  if (served === null) return null
  return /^\/media\/([A-Za-z0-9_-]{1,128})$/.exec(new URL(served.src).pathname)?.[1] ?? null
}

/** References written media:<mediaID>, shown from the addresses the page knows for them (uploads, card reads). */
export function referencedMedia (addresses: ReadonlyMap<string, string>, keepUnknown: boolean): MediaRule {
  return (src) => {
    const mediaID = mediaReference(src)
    if (mediaID === null) return null
    const address = addresses.get(mediaID)
    if (address === undefined) return keepUnknown ? { src: null, mediaID } : null
    return { src: address, mediaID }
  }
}

export interface CleanOptions {
  /** what an img's or audio's src becomes */
  media: MediaRule
  /** span class="cloze" kept: true where the service (or the preview) marked a deletion; a class written in a card's source is dropped */
  clozeClass: boolean
  /** the class names of a card an Anki import made, for its note type's CSS: kept as the service keeps them (plain names, at most 16, never "cloze") */
  classes?: boolean
}

/** A class name kept: a plain CSS identifier, not too long (the service's rule, domain/card-html.ts). */
const CLASS_NAME = /^-?[A-Za-z_][A-Za-z0-9_-]{0,63}$/
const MAX_CLASSES = 16

function keptClasses (value: string | null): string | null {
  if (value === null) return null
  const names = value.split(/\s+/).filter((name) => CLASS_NAME.test(name) && name !== 'cloze').slice(0, MAX_CLASSES)
  return names.length === 0 ? null : names.join(' ')
}

/** An absolute http(s) address, as a browser would read it, or null: no javascript:, data:, relative or // address. */
function linkAddress (href: string): string | null {
  const written = href.trim()
  if (!/^https?:\/\//i.test(written)) return null
  try {
    const url = new URL(written)
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null
  } catch {
    return null
  }
}

/** The element, built in this page, with the attributes the allowlist keeps of `from`; null when it is not shown at all. */
function allowedCopy (from: Element, options: CleanOptions): Element | null {
  const tag = from.localName
  const copy = document.createElement(tag)
  // a media's source first, as the service writes it
  if (tag === 'img' || tag === 'audio') {
    const media = options.media(from.getAttribute('src') ?? '')
    if (media === null) return null
    if (media.src !== null) copy.setAttribute('src', media.src)
    if (media.mediaID !== undefined) copy.setAttribute('data-media-id', media.mediaID)
  }
  const rules = ALLOWED[tag] ?? {}
  for (const attribute of Array.from(from.attributes)) {
    const rule = Object.hasOwn(rules, attribute.name) ? rules[attribute.name] : undefined
    if (rule?.(attribute.value) === true) copy.setAttribute(attribute.name, attribute.value)
  }
  if (tag === 'audio') {
    // a sound shows its play control; whatever an audio element held is its fallback, never shown
    copy.setAttribute('controls', '')
  } else if (tag === 'a') {
    const href = linkAddress(from.getAttribute('href') ?? '')
    if (href === null) return document.createElement('span')
    copy.setAttribute('href', href)
    copy.setAttribute('rel', 'noopener noreferrer nofollow')
    copy.setAttribute('target', '_blank')
  } else if (tag === 'span' && options.clozeClass && from.getAttribute('class') === 'cloze') {
    copy.setAttribute('class', 'cloze')
    return copy
  }
  const names = options.classes === true ? keptClasses(from.getAttribute('class')) : null
  if (names !== null) copy.setAttribute('class', names)
  if (tag === 'div' && names !== null && names.split(' ').includes('io-mask')) placeMask(from, copy as HTMLElement)
  return copy
}

/** A fraction or a number, as Anki writes an image occlusion shape's coordinates. */
const COORDINATE = /^-?(?:\d+\.?\d*|\.\d+)$/

/**
 * An image occlusion mask placed over its image (the service's image-occlusion.ts): its data
 * attributes kept as the service keeps them, and its box set through the CSSOM (the page's policy
 * refuses style attributes, not this): left, top, width and height as fractions of the image, an
 * ellipse rounded, a polygon clipped to its points. A shape in pixels (Anki before 23.10) is not drawn.
 */
function placeMask (from: Element, mask: HTMLElement): void {
  const shape = from.getAttribute('data-shape') ?? ''
  if (!['rect', 'ellipse', 'polygon'].includes(shape)) return
  mask.setAttribute('data-shape', shape)
  const number = (name: string): number | null => {
    const value = from.getAttribute(`data-${name}`) ?? ''
    return COORDINATE.test(value) ? Number(value) : null
  }
  let box: { left: number, top: number, width: number, height: number } | null = null
  let clip: string | null = null
  if (shape === 'polygon') {
    const points = (from.getAttribute('data-points') ?? '').split(' ').slice(0, 200).map((pair) => pair.split(',').map(Number))
    if (points.length < 3 || points.some((point) => point.length !== 2 || point.some((value) => !Number.isFinite(value)))) return
    const xs = points.map((point) => point[0] as number)
    const ys = points.map((point) => point[1] as number)
    box = { left: Math.min(...xs), top: Math.min(...ys), width: Math.max(...xs) - Math.min(...xs), height: Math.max(...ys) - Math.min(...ys) }
    const { left, top, width, height } = box
    if (width > 0 && height > 0) clip = `polygon(${points.map(([x, y]) => `${((x as number) - left) / width * 100}% ${((y as number) - top) / height * 100}%`).join(', ')})`
  } else {
    const [left, top, width, height] = ['left', 'top', 'width', 'height'].map(number)
    if (left !== null && left !== undefined && top !== null && top !== undefined && width !== null && width !== undefined && height !== null && height !== undefined) box = { left, top, width, height }
  }
  if (box === null || [box.left, box.top, box.width, box.height].some((value) => value < -0.01 || value > 1.01)) return
  mask.style.left = `${box.left * 100}%`
  mask.style.top = `${box.top * 100}%`
  mask.style.width = `${box.width * 100}%`
  mask.style.height = `${box.height * 100}%`
  if (shape === 'ellipse') mask.style.borderRadius = '50%'
  if (clip !== null) mask.style.clipPath = clip
  mask.setAttribute('data-placed', 'true')
}

/** Copies what the allowlist keeps of `from`'s children into `into`. */
function copyAllowed (from: Node, into: Node, options: CleanOptions): void {
  for (const node of Array.from(from.childNodes)) {
    if (node.nodeType === Node.TEXT_NODE) {
      into.appendChild(document.createTextNode(node.nodeValue ?? ''))
      continue
    }
    if (!(node instanceof Element)) continue // comments, processing instructions
    const tag = node.localName
    // SVG and MathML, and whatever is in them, never pass
    if (node.namespaceURI !== XHTML || DROPPED_WHOLE.has(tag)) continue
    if (!Object.hasOwn(ALLOWED, tag)) {
      copyAllowed(node, into, options)
      continue
    }
    const copy = allowedCopy(node, options)
    if (copy === null) continue
    // an audio element's content is a fallback for old browsers: the service drops it too
    if (tag !== 'audio') copyAllowed(node, copy, options)
    into.appendChild(copy)
  }
}

/** HTML as a fragment of this page, reduced to the allowlist. */
export function cleanFragment (html: string, options: CleanOptions): DocumentFragment {
  // a document of its own, where nothing runs, loads or fires an event
  const parsed = new DOMParser().parseFromString(`<!doctype html><html><body>${html}`, 'text/html')
  const fragment = document.createDocumentFragment()
  copyAllowed(parsed.body, fragment, options)
  return fragment
}

/** A side of a card as the service gave it (frontHtml, backHtml), ready to show; `classes` for a card of an imported note type, styled by its CSS. */
export function cardSide (html: string, { classes = false } = {}): DocumentFragment {
  return cleanFragment(html, { media: servedMedia, clozeClass: true, classes })
}

/** The words of a side, for a screen reader's announcement or a button's name: line breaks as spaces, images by their description. */
export function sideText (html: string): string {
  const fragment = cardSide(html)
  for (const element of Array.from(fragment.querySelectorAll('br, img, audio'))) {
    const words = element.localName === 'img' ? ` ${element.getAttribute('alt') ?? 'image'} ` : element.localName === 'audio' ? ' (sound) ' : ' '
    element.replaceWith(document.createTextNode(words))
  }
  return (fragment.textContent ?? '').replace(/\s+/g, ' ').trim()
}

/** The media addresses a side as the service gave it holds, by media id: what the editor shows media:<mediaID> with. */
export function mediaAddresses (...sides: string[]): Map<string, string> {
  const addresses = new Map<string, string>()
  for (const side of sides) {
    for (const element of Array.from(cardSide(side).querySelectorAll('img[src], audio[src]'))) {
      const src = element.getAttribute('src') ?? ''
      const mediaID = mediaIDOfAddress(src)
      if (mediaID !== null) addresses.set(mediaID, src)
    }
  }
  return addresses
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', '\'': '&#39;' }

/** Plain text as HTML that shows it as written, as the service writes a text side: markup escaped, each line break a <br>. */
export function escapeText (text: string): string {
  return text.replace(/[&<>"']/g, (character) => ENTITIES[character] ?? character).replace(/\r\n|\r|\n/g, '<br>')
}

/**
 * Brings what the browser's editing wrote in a contenteditable field back to the allowlist,
 * in place, so that the caret stays: typing, Ctrl+B and a drag inside the field can make a
 * <span style>, a <font> or an id the service would drop anyway. The page's own marks
 * (data-media-id on media, controls on a sound) stay.
 */
export function tidyEditable (root: HTMLElement): void {
  for (const element of Array.from(root.querySelectorAll('*'))) {
    const tag = element.localName
    if (element.namespaceURI !== XHTML || DROPPED_WHOLE.has(tag)) {
      element.remove()
      continue
    }
    if (!Object.hasOwn(ALLOWED, tag)) {
      element.replaceWith(...Array.from(element.childNodes))
      continue
    }
    const rules = ALLOWED[tag] ?? {}
    for (const { name, value } of Array.from(element.attributes)) {
      const media = (tag === 'img' || tag === 'audio') && (name === 'data-media-id' || name === 'src' || (tag === 'audio' && name === 'controls'))
      const link = tag === 'a' && (name === 'rel' || name === 'target' || (name === 'href' && linkAddress(value) !== null))
      const rule = Object.hasOwn(rules, name) ? rules[name] : undefined
      if (!media && !link && rule?.(value) !== true) element.removeAttribute(name)
    }
    if ((tag === 'img' || tag === 'audio') && !element.hasAttribute('data-media-id')) element.remove()
  }
}

/** The source of a contenteditable field: its HTML, each media as media:<mediaID> again, as the card is written. */
export function editableSource (root: HTMLElement): string {
  // copied into a document of its own: an image of this page given the src media:<mediaID> would be fetched, even detached
  const copy = document.implementation.createHTMLDocument('').importNode(root, true)
  for (const media of Array.from(copy.querySelectorAll('[data-media-id]'))) {
    media.setAttribute('src', `media:${media.getAttribute('data-media-id') ?? ''}`)
    media.removeAttribute('data-media-id')
    media.removeAttribute('controls')
  }
  // the line break a browser leaves in a field emptied is no content
  if ((copy.textContent ?? '').trim() === '' && copy.querySelector('img, audio') === null) return ''
  return copy.innerHTML
}
