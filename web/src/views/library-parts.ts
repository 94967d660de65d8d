// Pieces the library's panels share: the actions they call back, folded sections,
// and the choice of text format for import and export.
import type { CardFormat } from '../api-types.js'
import { el } from '../dom.js'
import type { FolderIds } from '../folder-ids.js'
import type { FolderEntry } from '../library-tree.js'

export type Selection = { kind: 'folder', path: string[] } | { kind: 'flashcard', flashcardID: string } | null

/** What the panels need to change the library and show the result. */
export interface LibraryActions {
  folderIds: FolderIds
  folders: FolderEntry[]
  /** reloads the tree, then shows `selection` (the current one when absent) */
  reload: (selection?: Selection) => Promise<void>
}

/** A titled part of a panel, folded away until opened so a phone screen stays short. */
export function section (title: string, content: HTMLElement, open = false): HTMLElement {
  return el('details', { class: 'panel-section', open }, [el('summary', {}, [title]), content])
}

/** The separators a user can pick for Quizlet text, as they would say them. */
export const TERM_SEPARATORS: Array<[string, string]> = [['Tab', '\t'], ['Comma (,)', ','], ['Dash ( - )', ' - '], ['Semicolon (;)', ';']]
export const CARD_SEPARATORS: Array<[string, string]> = [['New line', '\n'], ['Blank line', '\n\n'], ['Semicolon (;)', ';']]

export function separatorSelect (choices: Array<[string, string]>): HTMLSelectElement {
  return el('select', {}, choices.map(([label], index) => el('option', { value: String(index) }, [label])))
}

export function formatSelect (): HTMLSelectElement {
  return el('select', {}, [el('option', { value: 'quizlet' }, ['Quizlet text']), el('option', { value: 'csv' }, ['CSV (front,back)'])])
}

/** Separators are sent only with Quizlet text: the service refuses them with CSV. */
export function formatOptions (format: HTMLSelectElement, term: HTMLSelectElement, card: HTMLSelectElement): { format: CardFormat, termSeparator?: string, cardSeparator?: string } {
  if (format.value === 'csv') return { format: 'csv' }
  return {
    format: 'quizlet',
    termSeparator: TERM_SEPARATORS[Number(term.value)]?.[1] ?? '\t',
    cardSeparator: CARD_SEPARATORS[Number(card.value)]?.[1] ?? '\n'
  }
}

/** Hides the separator choices while CSV is chosen, since they do not apply to it. */
export function linkFormatToSeparators (format: HTMLSelectElement, separatorFields: HTMLElement): void {
  const update = () => { separatorFields.hidden = format.value === 'csv' }
  format.addEventListener('change', update)
  update()
}

