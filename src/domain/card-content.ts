/**
 * What a card is written as: a front and a back, or a cloze text (with an
 * optional back extra) that makes one card per number; each in plain text
 * (the default) or in HTML. Nothing here needs Node: the request schemas
 * import it, and the study page type-checks against them.
 */
import { clozeNumbers, parseCloze } from './cloze.js'

/** How a card's text is written: `text` is shown as written; `html` is reduced to the allowlist of card-html.ts. */
export const TEXT_FORMATS = ['text', 'html'] as const
export type TextFormat = typeof TEXT_FORMATS[number]

/** A card of a front and a back. */
export interface BasicCardInput {
  front: string
  back: string
  format?: TextFormat
}

/** A cloze note: one card per number of its deletions; `back` (Anki's Back Extra) is shown under every answer. */
export interface ClozeCardInput {
  cloze: string
  back?: string
  format?: TextFormat
}

export type CardInput = BasicCardInput | ClozeCardInput

export function isClozeInput (card: CardInput): card is ClozeCardInput {
  return 'cloze' in card && typeof card.cloze === 'string'
}

/** How many cards a card as written makes: one, or one per cloze number (none for a cloze text without a deletion). */
export function cardsMadeBy (card: CardInput): number {
  return isClozeInput(card) ? clozeNumbers(parseCloze(card.cloze)).length : 1
}
