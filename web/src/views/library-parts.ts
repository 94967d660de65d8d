// Pieces the library's panels share: the actions they call back, folded sections,
// and the choice of text format for import and export.
import type { CardFormat } from '../api-types.js'
import { el, field } from '../dom.js'
import { actionForm, submitButton } from '../forms.js'
import { pathText, type FolderEntry } from '../library-tree.js'
import { showNotice } from '../messages.js'

/** What the library shows in its panel; by id, so it follows a rename or a move. */
export type Selection = { kind: 'folder', folderID: string } | { kind: 'flashcard', flashcardID: string } | null

/** What the panels need to change the library and show the result. */
export interface LibraryActions {
  /** the library as last read, top-level folders first */
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

/** A choice of folders to move something into, each named by its path; the folder's id is the value. */
export function folderSelect (folders: FolderEntry[], first?: HTMLOptionElement): HTMLSelectElement {
  return el('select', { required: true }, [
    first,
    ...folders.map((folder) => el('option', { value: folder.folderID }, [pathText(folder.path)]))
  ])
}

/** Renames a folder or a flashcard: `rename` sends the new name, then the library is read again. */
export function renameForm (kind: 'folder' | 'flashcard', current: string, rename: (name: string) => Promise<unknown>, actions: LibraryActions): HTMLFormElement {
  const name = el('input', { type: 'text', required: true, maxlength: 100, autocomplete: 'off', value: current })
  return actionForm({ class: `inline-form rename-${kind}-form` }, [field('New name', name), submitButton('Rename')], async () => {
    await rename(name.value)
    showNotice(`${kind === 'folder' ? 'Folder' : 'Deck'} renamed to "${name.value}".`)
    await actions.reload()
  })
}

/** "2 due · 5 new": what studying a folder or a deck today would give, as Anki's deck list shows it. */
export function todayCounts (today: { due: number, new: number }): HTMLElement {
  return el('span', { class: `today-counts${today.due + today.new === 0 ? ' today-none' : ''}`, 'data-due': today.due, 'data-new': today.new }, [
    el('span', { class: 'today-due' }, [`${today.due} due`]), ' · ', el('span', { class: 'today-new' }, [`${today.new} new`])
  ])
}

/** A link that studies a folder or a deck alone, with what it holds for today. */
export function studyLink (kind: 'folder' | 'deck', id: string, today: { due: number, new: number }): HTMLElement {
  const nothing = today.due + today.new === 0
  return el('p', { class: 'study-link-row' }, [
    el('a', { href: `#/study/${kind}/${id}`, class: `button-link study-link${nothing ? '' : ' primary-link'}`, id: 'study-this' }, [`Study this ${kind}`]),
    ' ', todayCounts(today)
  ])
}
