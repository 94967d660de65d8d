/**
 * Anki's stock Image Occlusion notes, studied as Anki shows them: the note's image with its
 * shapes drawn over it. On the question, the shapes the card asks for are masks (`io-active`),
 * and the card's other shapes are masks too when the note hides them all (`oi=1`, Anki's
 * "Hide all, guess one": `io-inactive`), or not drawn ("Hide one, guess one"); on the answer the
 * asked shapes are outlined (`io-highlight`) and the others stay as they were. Anki draws them
 * with a script on a canvas; here each is an element placed over the image (its position and
 * size as fractions of the image, as Anki 23.10 and later write them), which the sanitizer keeps
 * (card-html.ts) and the study page positions and styles (app.css).
 */
import { imageOcclusions, type OcclusionShape } from './anki/cloze.js'

const SHAPES = new Set(['rect', 'ellipse', 'polygon'])
/** A fraction or a number, as Anki writes a shape's coordinates. */
const NUMBER = /^-?(?:\d+\.?\d*|\.\d+)$/
const POINTS = /^-?(?:\d+\.?\d*|\.\d+),-?(?:\d+\.?\d*|\.\d+)(?: -?(?:\d+\.?\d*|\.\d+),-?(?:\d+\.?\d*|\.\d+)){2,199}$/

/** The data attributes of a mask as the sanitizer keeps them: each name and the test its value passes. */
export const MASK_ATTRIBUTES: Readonly<Record<string, (value: string) => boolean>> = {
  'data-shape': (value) => SHAPES.has(value),
  'data-left': (value) => NUMBER.test(value),
  'data-top': (value) => NUMBER.test(value),
  'data-width': (value) => NUMBER.test(value),
  'data-height': (value) => NUMBER.test(value),
  'data-points': (value) => value.length <= 4000 && POINTS.test(value)
}

/** Whether a field holds image occlusion shapes: its note is one of Anki's Image Occlusion notes. */
export function holdsOcclusions (field: string): boolean {
  return field.includes('image-occlusion:')
}

function maskOf (shape: OcclusionShape, kind: 'io-active' | 'io-inactive' | 'io-highlight'): string {
  if (!SHAPES.has(shape.shape)) return ''
  const attributes = [`data-shape="${shape.shape}"`]
  for (const name of ['left', 'top', 'width', 'height', 'points']) {
    const value = shape.properties[name]
    const test = MASK_ATTRIBUTES[`data-${name}`]
    if (value !== undefined && test?.(value) === true) attributes.push(`data-${name}="${value}"`)
  }
  return `<div class="io-mask ${kind}" ${attributes.join(' ')}></div>`
}

/**
 * The question and answer of card `ordinal` of an image occlusion note: its header, the image (a
 * field's HTML, `media:<mediaID>` already) with the masks over it, and on the answer its back extra.
 */
export function occlusionSides (occlusion: string, ordinal: number, parts: { image: string, header: string, backExtra: string }): { front: string, back: string } {
  const shapes = imageOcclusions(occlusion)
  const side = (question: boolean): string => {
    const masks = shapes.map((shape) => {
      if (shape.ordinals.includes(ordinal)) return maskOf(shape, question ? 'io-active' : 'io-highlight')
      return shape.properties.oi === '1' ? maskOf(shape, 'io-inactive') : ''
    }).join('')
    const header = parts.header.trim() === '' ? '' : `<div class="io-header">${parts.header}</div>`
    return `${header}<div class="io-container">${parts.image}${masks}</div>`
  }
  const extra = parts.backExtra.trim() === '' ? '' : `<div class="io-extra">${parts.backExtra}</div>`
  return { front: side(true), back: `${side(false)}${extra}` }
}
