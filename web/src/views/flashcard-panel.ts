// One flashcard (a set of cards): its cards to add, edit and delete; rename, move,
// delete and export it.
import { callApi } from '../api.js'
import type { CardDetails, Flashcard } from '../api-types.js'
import { button, confirmButton, el, field, plural, replaceAfter, replaceChildren } from '../dom.js'
import { act, actionForm, submitButton } from '../forms.js'
import { allFolders, pathText, type FlashcardEntry } from '../library-tree.js'
import { showNotice } from '../messages.js'
import {
  CARD_SEPARATORS, TERM_SEPARATORS, folderSelect, formatOptions, formatSelect, linkFormatToSeparators, renameForm, section, separatorSelect,
  type LibraryActions
} from './library-parts.js'

/**
 * Shows the flashcard with its cards; resolves once they are on screen. `isCurrent` tells
 * whether this is still the panel's latest drawing: when something else has been chosen
 * (or this flashcard again) meanwhile, this reply draws nothing.
 */
export async function flashcardPanel (panel: HTMLElement, entry: FlashcardEntry, actions: LibraryActions, isCurrent: () => boolean): Promise<void> {
  // the heading stays while the cards load and after, so the focus put on it stays too
  const heading = el('h2', { tabindex: -1 }, [entry.flashcardName])
  replaceChildren(panel, [heading, el('p', { class: 'loading' }, ['Loading its cards…'])])
  const flashcard = await callApi('get-flashcard', { flashcardID: entry.flashcardID })
  if (!isCurrent()) return
  drawFlashcard(heading, flashcard, entry.folderID, actions)
}

function drawFlashcard (heading: HTMLElement, flashcard: Flashcard, folderID: string, actions: LibraryActions): void {
  const cardList = el('ol', { class: 'card-list', id: 'card-list' }, flashcard.cards.map((card) => cardItem(flashcard, card, actions)))
  heading.textContent = flashcard.flashcardName
  replaceAfter(heading, [
    el('p', { class: 'panel-path' }, [`Flashcard in ${pathText(flashcard.folder)} · ${plural(flashcard.cards.length, 'card')}`]),
    flashcard.description === '' ? null : el('p', { class: 'description' }, [flashcard.description]),
    // open: adding cards one after another is what this panel is most used for
    section('Add a card', addCardForm(flashcard, actions), true),
    flashcard.cards.length === 0 ? el('p', { class: 'empty' }, ['No cards yet.']) : cardList,
    section('Export', exportForm(flashcard)),
    section('Rename flashcard', renameForm('flashcard', flashcard.flashcardName, (name) => callApi('rename-flashcard', { flashcardID: flashcard.flashcardID, name }), actions)),
    section('Move flashcard', moveForm(flashcard, folderID, actions)),
    el('div', { class: 'danger-zone' }, [confirmButton('Delete flashcard',
      `Delete "${flashcard.flashcardName}" and its ${plural(flashcard.cards.length, 'card')}? Reviews already made still count.`,
      (yes) => {
        act(yes, async () => {
          const deleted = await callApi('delete-flashcard', { flashcardID: flashcard.flashcardID })
          showNotice(`Deleted "${flashcard.flashcardName}" and ${plural(Number(deleted.cards), 'card')}.`)
          await actions.reload({ kind: 'folder', folderID })
        })
      })])
  ])
}

function cardTextFields (front: string, back: string): { front: HTMLTextAreaElement, back: HTMLTextAreaElement, fields: HTMLElement } {
  const frontInput = el('textarea', { rows: 2, required: true, maxlength: 10000 })
  const backInput = el('textarea', { rows: 2, maxlength: 10000 })
  frontInput.value = front
  backInput.value = back
  return { front: frontInput, back: backInput, fields: el('div', { class: 'field-row' }, [field('Front', frontInput), field('Back', backInput)]) }
}

function addCardForm (flashcard: Flashcard, actions: LibraryActions): HTMLFormElement {
  const texts = cardTextFields('', '')
  return actionForm({ class: 'stacked-form add-card-form' }, [texts.fields, submitButton('Add card')], async () => {
    await callApi('add-cards', { flashcardID: flashcard.flashcardID, cards: [{ front: texts.front.value, back: texts.back.value }] })
    showNotice('Card added.')
    await actions.reload({ kind: 'flashcard', flashcardID: flashcard.flashcardID })
    // ready for the next card
    document.querySelector<HTMLTextAreaElement>('.add-card-form textarea')?.focus()
  })
}

function cardItem (flashcard: Flashcard, card: CardDetails, actions: LibraryActions): HTMLElement {
  const item = el('li', { class: 'card-item' })
  /** Shows the card; after an edit (saved or not) the focus goes back to its Edit button. */
  const showCard = (focusEdit = false) => {
    const edit = button('Edit', editCard, { 'aria-label': `Edit card ${card.front}` })
    replaceChildren(item, [
      el('div', { class: 'card-texts' }, [
        el('p', { class: 'card-text' }, [el('span', { class: 'face-label' }, ['Front ']), card.front]),
        el('p', { class: 'card-text' }, [el('span', { class: 'face-label' }, ['Back ']), card.back])
      ]),
      el('div', { class: 'button-row' }, [
        edit,
        confirmButton('Delete', 'Delete this card? Its reviews still count.', (yes) => {
          act(yes, async () => {
            await callApi('delete-card', { flashcardID: flashcard.flashcardID, cardID: card.cardID })
            showNotice('Card deleted.')
            await actions.reload()
          })
        }, { 'aria-label': `Delete card ${card.front}` })
      ])
    ])
    if (focusEdit) edit.focus()
  }
  const editCard = () => {
    const texts = cardTextFields(card.front, card.back)
    const cancel = button('Cancel', () => { showCard(true) })
    replaceChildren(item, [actionForm({ class: 'stacked-form' }, [texts.fields, el('div', { class: 'button-row' }, [submitButton('Save card', true), cancel])], async () => {
      const changed = await callApi('edit-card', { flashcardID: flashcard.flashcardID, cardID: card.cardID, front: texts.front.value, back: texts.back.value })
      // an edit of front and back answers the card (a cloze note's edit answers the note)
      if ('front' in changed) {
        card.front = changed.front
        card.back = changed.back
      }
      showNotice('Card saved; it keeps its schedule.')
      showCard(true)
    })])
    texts.front.focus()
  }
  showCard()
  return item
}

/** Moves the flashcard out of `folderID`, the folder holding it, into any other folder. */
function moveForm (flashcard: Flashcard, folderID: string, actions: LibraryActions): HTMLElement {
  const destinations = allFolders(actions.folders).filter((folder) => folder.folderID !== folderID)
  if (destinations.length === 0) {
    return el('p', { class: 'hint' }, ['There is no other folder to move it into. Create one first.'])
  }
  const destination = folderSelect(destinations)
  return actionForm({ class: 'inline-form move-flashcard-form' }, [field('Move into', destination), submitButton('Move')], async () => {
    const moved = await callApi('move-flashcard-set', { flashcardID: flashcard.flashcardID, folderID: destination.value })
    showNotice(`Moved to "${pathText(moved.folder)}".`)
    await actions.reload()
  })
}

let downloadUrl: string | undefined

function exportForm (flashcard: Flashcard): HTMLElement {
  const format = formatSelect()
  const term = separatorSelect(TERM_SEPARATORS)
  const card = separatorSelect(CARD_SEPARATORS)
  const separators = el('div', { class: 'field-row' }, [field('Between front and back', term), field('Between cards', card)])
  linkFormatToSeparators(format, separators)
  const result = el('div', { class: 'export-result' })
  const exportElement = actionForm({ class: 'stacked-form' }, [field('Format', format), separators, submitButton('Export')], async () => {
    const exported = await callApi('export-flashcard', { flashcardID: flashcard.flashcardID, ...formatOptions(format, term, card) })
    // one download link at a time: the previous file's memory is given back
    if (downloadUrl !== undefined) URL.revokeObjectURL(downloadUrl)
    const csv = exported.format === 'csv'
    downloadUrl = URL.createObjectURL(new Blob([exported.text], { type: csv ? 'text/csv' : 'text/plain' }))
    const text = el('textarea', { rows: 6, readonly: true, spellcheck: false, class: 'export-text' })
    text.value = exported.text
    replaceChildren(result, [
      field('Exported text', text),
      el('a', { href: downloadUrl, download: `${exported.flashcardName}.${csv ? 'csv' : 'txt'}`, class: 'button-link' }, ['Download the file'])
    ])
  })
  return el('div', {}, [exportElement, result])
}
