// One flashcard (a set of cards): its cards to add, edit and delete; rename, move,
// delete and export it (to Anki, or as Quizlet text or CSV).
import { ApiError, callApi } from '../api.js'
import type { CardDetails, CardText, Flashcard, TextFormat } from '../api-types.js'
import { cardSide, mediaAddresses, sideText } from '../card-html.js'
import { button, confirmButton, el, field, plural, replaceAfter, replaceChildren } from '../dom.js'
import { act, actionForm, submitButton } from '../forms.js'
import { allFolders, pathText, type FlashcardEntry } from '../library-tree.js'
import { showNotice } from '../messages.js'
import {
  CARD_SEPARATORS, TERM_SEPARATORS, folderSelect, formatOptions, formatSelect, linkFormatToSeparators, renameForm, section, separatorSelect,
  studyLink, type LibraryActions
} from './library-parts.js'
import { ANKI_EXPORT_HINT, ankiExportButton } from './anki-export.js'
import { cardForm, firstEditingField, type CardSource } from './card-editor.js'
import { addNoteSection, noteEditor } from './note-editor.js'

/**
 * Shows the flashcard with its cards; resolves once they are all on screen. The service
 * gives a large flashcard's cards a page at a time: the first page is drawn at once, and
 * each next page is added below it as it comes. `isCurrent` tells whether this is still
 * the panel's latest drawing: when something else has been chosen (or this flashcard
 * again) meanwhile, this reply draws nothing, and no further page is asked for.
 */
export async function flashcardPanel (panel: HTMLElement, entry: FlashcardEntry, actions: LibraryActions, isCurrent: () => boolean): Promise<void> {
  // the heading stays while the cards load and after, so the focus put on it stays too
  const heading = el('h2', { tabindex: -1 }, [entry.flashcardName])
  replaceChildren(panel, [heading, el('p', { class: 'loading' }, ['Loading its cards…'])])
  const flashcard = await callApi('get-flashcard', { flashcardID: entry.flashcardID })
  if (!isCurrent()) return
  const list = drawFlashcard(heading, flashcard, entry.folderID, entry, actions)
  let cursor = flashcard.nextCursor
  try {
    while (cursor !== undefined) {
      const page = await callApi('get-flashcard', { flashcardID: entry.flashcardID, cursor })
      if (!isCurrent()) return
      list.add(page.cards)
      cursor = page.nextCursor
    }
  } finally {
    list.loaded()
  }
}

/** The card list of a flashcard drawn: the cards of further pages are added to it, and it is told when the last has come. */
interface DrawnCards { add: (cards: readonly CardDetails[]) => void, loaded: () => void }

function drawFlashcard (heading: HTMLElement, flashcard: Flashcard, folderID: string, entry: Pick<FlashcardEntry, 'due' | 'new' | 'cardCount'>,
  actions: LibraryActions): DrawnCards {
  let shown = flashcard.cards.length
  const count = () => `Deck in ${pathText(flashcard.folder)} · ${plural(shown, 'card')}`
  const cardList = el('ol', { class: 'card-list', id: 'card-list' }, flashcard.cards.map((card) => cardItem(flashcard, card, actions)))
  const path = el('p', { class: 'panel-path' }, [count()])
  const loadingMore = flashcard.nextCursor === undefined ? null : el('p', { class: 'loading', id: 'cards-loading' }, ['Loading more cards…'])
  heading.textContent = flashcard.flashcardName
  replaceAfter(heading, [
    path,
    studyLink('deck', flashcard.flashcardID, entry),
    flashcard.description === '' ? null : el('p', { class: 'description' }, [flashcard.description]),
    // open: adding cards one after another is what this panel is most used for
    section('Add a card', addCardForm(flashcard, actions), true),
    addNoteSection(flashcard.flashcardID, async () => { await actions.reload({ kind: 'flashcard', flashcardID: flashcard.flashcardID }) }),
    // a flashcard with cards gives at least one on its first page
    flashcard.cards.length === 0 ? el('p', { class: 'empty' }, ['No cards yet.']) : cardList,
    loadingMore,
    section('Export', el('div', {}, [
      el('p', { class: 'hint' }, [ANKI_EXPORT_HINT]),
      ankiExportButton({ flashcardID: flashcard.flashcardID }, 'anki-export-deck'),
      el('p', { class: 'export-as-text' }, ['Or as text, for Quizlet or a spreadsheet:']),
      exportForm(flashcard)
    ])),
    section('Rename deck', renameForm('flashcard', flashcard.flashcardName, (name) => callApi('rename-flashcard', { flashcardID: flashcard.flashcardID, name }), actions)),
    section('Move deck', moveForm(flashcard, folderID, actions)),
    el('div', { class: 'danger-zone' }, [confirmButton('Delete deck',
      // the library's count: the whole deck, also while its later pages are still coming
      `Delete "${flashcard.flashcardName}" and its ${plural(Math.max(entry.cardCount, shown), 'card')}? Reviews already made still count.`,
      (yes) => {
        act(yes, async () => {
          const deleted = await callApi('delete-flashcard', { flashcardID: flashcard.flashcardID })
          showNotice(deleted.underWay === 'true'
            ? `Deleting "${flashcard.flashcardName}" and ${plural(Number(deleted.cards), 'card')}: the deck goes once all its cards are deleted, in a few minutes.`
            : `Deleted "${flashcard.flashcardName}" and ${plural(Number(deleted.cards), 'card')}.`)
          await actions.reload({ kind: 'folder', folderID })
        })
      })])
  ])
  return {
    add: (cards) => {
      cardList.append(...cards.map((card) => cardItem(flashcard, card, actions)))
      shown += cards.length
      path.textContent = count()
    },
    loaded: () => { loadingMore?.remove() }
  }
}

/** The format a new card is written in: the one chosen for the card added last, kept while the page is open. */
let newCardFormat: TextFormat = 'text'

function addCardForm (flashcard: Flashcard, actions: LibraryActions): HTMLFormElement {
  return cardForm({
    initial: { kind: 'basic', format: newCardFormat, front: '', back: '' },
    media: new Map(),
    kindChangeable: true,
    attributes: { class: 'stacked-form add-card-form' },
    submit: submitButton('Add card'),
    save: async (card) => {
      newCardFormat = card.format
      const added = await callApi('add-cards', { flashcardID: flashcard.flashcardID, cards: [cardText(card)] })
      showNotice(card.kind === 'cloze' ? `Cloze note added: ${plural(added.cardIDs.length, 'card')}.` : 'Card added.')
      await actions.reload({ kind: 'flashcard', flashcardID: flashcard.flashcardID })
      // ready for the next card
      const form = document.querySelector<HTMLElement>('.add-card-form')
      if (form !== null) firstEditingField(form)?.focus()
    }
  })
}

/** A card as add-cards and create-flashcard take it: {front, back, format}, or a cloze note {cloze, back, format}. */
function cardText (card: CardSource): CardText {
  return card.kind === 'cloze'
    ? { cloze: card.front, ...(card.back === '' ? {} : { back: card.back }), format: card.format }
    : { front: card.front, back: card.back, format: card.format }
}

/** A card's source as its editor starts from: a cloze note's card shows the note's text and extra. */
function sourceOf (card: CardDetails): CardSource {
  return { kind: card.clozeNumber === undefined ? 'basic' : 'cloze', format: card.format, front: card.front, back: card.back }
}

/** The words a card is named by, for its buttons: its front as written for plain text, as shown otherwise. */
function cardName (card: CardDetails): string {
  return card.format === 'text' && card.clozeNumber === undefined ? card.front : sideText(card.frontHtml)
}

/** A side as the service rendered it, shown safely (card-html.ts). */
function renderedSide (label: string, html: string, format: TextFormat): HTMLElement {
  return el('div', { class: 'card-text' }, [
    el('span', { class: 'face-label' }, [`${label} `]),
    el('div', { class: `card-html format-${format}` }, [cardSide(html)])
  ])
}

function cardItem (flashcard: Flashcard, card: CardDetails, actions: LibraryActions): HTMLElement {
  // found by its id when a search result opens its deck
  const item = el('li', { class: 'card-item', 'data-card-id': card.cardID, tabindex: -1 })
  /** Shows the card; after an edit (saved or not) the focus goes back to its Edit button. */
  const showCard = (focusEdit = false) => {
    const name = cardName(card)
    const cloze = card.clozeNumber !== undefined
    const edit = button('Edit', editCard, { 'aria-label': `Edit card ${name}` })
    replaceChildren(item, [
      el('div', { class: 'card-texts' }, [
        cloze && el('p', { class: 'card-kind' }, [`Cloze ${card.clozeNumber ?? ''}`]),
        renderedSide(cloze ? 'Question' : 'Front', card.frontHtml, card.format),
        renderedSide(cloze ? 'Answer' : 'Back', card.backHtml, card.format)
      ]),
      el('div', { class: 'button-row' }, [
        edit,
        confirmButton('Delete', cloze
          ? 'Delete this cloze card? Its deletion becomes plain text in the note, the note\'s other cards stay, and its reviews still count.'
          : 'Delete this card? Its reviews still count.', (yes) => {
          act(yes, async () => {
            await callApi('delete-card', { flashcardID: flashcard.flashcardID, cardID: card.cardID })
            showNotice('Card deleted.')
            await actions.reload()
          })
        }, { 'aria-label': `Delete card ${name}` })
      ])
    ])
    if (focusEdit) edit.focus()
  }
  const editCard = () => {
    // a card of a note (an Anki import's): the note's fields are edited, every card of it changing;
    // a card imported before notes were kept has none, and is edited as a card
    if (card.noteID !== undefined && card.noteTypeID !== undefined) {
      act(null, async () => {
        try {
          const form = await noteEditor(card.noteID as string, {
            attributes: { class: 'stacked-form edit-note-form' },
            saved: async () => { await actions.reload() },
            cancel: () => { showCard(true) }
          })
          replaceChildren(item, [form])
          form.querySelector<HTMLElement>('textarea')?.focus()
        } catch (error) {
          if (!(error instanceof ApiError && error.code === 'note_not_found')) throw error
          editAsCard()
        }
      })
      return
    }
    editAsCard()
  }
  const editAsCard = () => {
    const cancel = button('Cancel', () => { showCard(true) })
    const form = cardForm({
      initial: sourceOf(card),
      media: mediaAddresses(card.frontHtml, card.backHtml),
      kindChangeable: false,
      attributes: { class: 'stacked-form edit-card-form' },
      submit: submitButton('Save card', true),
      otherButtons: [cancel],
      save: async (edited) => {
        const ids = { flashcardID: flashcard.flashcardID, cardID: card.cardID }
        const changed = await callApi('edit-card', edited.kind === 'cloze'
          ? { ...ids, cloze: edited.front, back: edited.back, format: edited.format }
          : { ...ids, front: edited.front, back: edited.back, format: edited.format })
        // an edit of front and back answers the card; a cloze note's edit answers the note, whose cards may have come and gone
        if ('cardID' in changed) {
          Object.assign(card, changed)
          showNotice('Card saved; it keeps its schedule.')
          showCard(true)
          return
        }
        showNotice(`Cloze note saved: ${plural(changed.cards.length, 'card')}${changed.added.length > 0 ? `, ${changed.added.length} new` : ''}` +
          `${changed.removed.length > 0 ? `, ${changed.removed.length} deleted` : ''}; the others keep their schedules.`)
        await actions.reload()
      }
    })
    replaceChildren(item, [form])
    firstEditingField(form)?.focus()
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
