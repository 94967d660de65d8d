// The library: the folder tree with card counts on one side, and what can be done
// with the chosen folder or flashcard on the other.
import { callApi } from '../api.js'
import { confirmButton, el, field, plural, replaceChildren } from '../dom.js'
import { act, actionForm, submitButton } from '../forms.js'
import { allFlashcards, allFolders, deckPlace, pathText, readLibrary, type FolderEntry } from '../library-tree.js'
import { reportFailure, showNotice } from '../messages.js'
import { ANKI_EXPORT_HINT, ankiExportButton } from './anki-export.js'
import { flashcardPanel } from './flashcard-panel.js'
import {
  CARD_SEPARATORS, TERM_SEPARATORS, folderSelect, formatOptions, formatSelect, linkFormatToSeparators, renameForm, section, separatorSelect,
  studyLink, todayCounts, type LibraryActions, type Selection
} from './library-parts.js'
import type { Screen } from './screen.js'

// Kept across visits, so the library opens where the user left it.
let selection: Selection = null

export const showLibrary: Screen = (container) => {
  const treeArea = el('nav', { class: 'library-tree', 'aria-label': 'Folders and decks' })
  const panel = el('div', { class: 'library-panel', id: 'library-panel' })
  let onScreen = true
  let reads = 0

  /**
   * Reads the library again and draws it, showing `next` (the current selection when
   * absent). After an action (`focus`), the focus goes to the panel's heading: the
   * control that was pressed is usually redrawn away with the rest.
   */
  const refresh = async (next: Selection | undefined, focus: boolean): Promise<void> => {
    if (next !== undefined) selection = next
    reads += 1
    const read = reads
    const folders = readLibrary((await callApi('get-library', {})).folders)
    // the screen was left, or a later read is under way: its answer is the one to show
    if (!onScreen || read !== reads) return
    if (!selectionExists(folders, selection)) selection = null
    const actions: LibraryActions = { folders, reload: async (chosen) => { await refresh(chosen, true) } }
    const choose = (chosen: Selection) => {
      selection = chosen
      drawTree(treeArea, folders, choose)
      const drawn = drawPanel(panel, actions)
      focusPanel(panel)
      drawn.catch(reportFailure)
    }
    drawTree(treeArea, folders, choose)
    const drawn = drawPanel(panel, actions)
    if (focus) focusPanel(panel)
    await drawn
  }

  /** A search result opens its card's deck, with the card found brought into view. */
  const openFound = async (flashcardID: string, cardID: string): Promise<void> => {
    await refresh({ kind: 'flashcard', flashcardID }, true)
    const found = panel.querySelector<HTMLElement>(`#card-list [data-card-id="${cardID}"]`)
    if (found === null) return
    for (const earlier of panel.querySelectorAll('.card-found')) earlier.classList.remove('card-found')
    found.classList.add('card-found')
    found.scrollIntoView({ block: 'center' })
    found.focus({ preventScroll: true })
  }

  container.append(
    el('h1', { tabindex: -1 }, ['Library']),
    el('div', { class: 'library-forms' }, [
      searchForm(openFound),
      newFolderForm([], 'New top-level folder', async (chosen) => { await refresh(chosen, true) })
    ]),
    el('div', { class: 'library-anki' }, [
      el('p', { class: 'library-imports' }, [
        el('a', { href: '#/anki-import', class: 'button-link', id: 'anki-import-link' }, ['Import from Anki']),
        ' ', el('span', { class: 'hint' }, ['.apkg and .colpkg packages, with their media, schedules and history'])
      ]),
      el('div', { class: 'library-exports' }, [
        ankiExportButton({}, 'anki-export-library', 'Export the library to Anki', 'every folder and deck as an .apkg, with their media, schedules and history')
      ])
    ]),
    el('div', { class: 'library-layout' }, [treeArea, panel])
  )
  replaceChildren(treeArea, [el('p', { class: 'loading' }, ['Loading your library…'])])
  // #/library/card/<flashcardID>/<cardID>, the card browser's link to a card: its deck, the card brought into view
  const asked = /^#\/library\/card\/([0-9]{30,64})\/([0-9]{30,64})$/.exec(location.hash)
  if (asked?.[1] !== undefined && asked[2] !== undefined) openFound(asked[1], asked[2]).catch(reportFailure)
  else refresh(undefined, false).catch(reportFailure)
  return () => { onScreen = false }
}

/** The panel's heading, kept while its content loads; the screen's heading when nothing is chosen. */
function focusPanel (panel: HTMLElement): void {
  (panel.querySelector<HTMLElement>('h2') ?? document.querySelector<HTMLElement>('#screen h1'))?.focus()
}

function selectionExists (folders: FolderEntry[], chosen: Selection): boolean {
  if (chosen === null) return true
  if (chosen.kind === 'folder') return allFolders(folders).some((folder) => folder.folderID === chosen.folderID)
  return allFlashcards(folders).some((flashcard) => flashcard.flashcardID === chosen.flashcardID)
}

function drawTree (area: HTMLElement, folders: FolderEntry[], choose: (chosen: Selection) => void): void {
  if (folders.length === 0) {
    replaceChildren(area, [el('p', { class: 'empty' }, ['Your library is empty. Create a folder above, then add or import decks into it, or import your decks from Anki.'])])
    return
  }
  replaceChildren(area, [folderList(folders, choose)])
}

function folderList (folders: FolderEntry[], choose: (chosen: Selection) => void): HTMLElement {
  return el('ul', { class: 'tree' }, folders.map((folder) => folderItem(folder, choose)))
}

function folderItem (folder: FolderEntry, choose: (chosen: Selection) => void): HTMLElement {
  const chosen = selection
  const inside = [
    ...folder.folders.map((subfolder) => folderItem(subfolder, choose)),
    ...folder.flashcards.map((flashcard) => el('li', { class: 'tree-flashcard' }, [
      treeButton(flashcard.flashcardName, plural(flashcard.cardCount, 'card'), flashcard, 'flashcard',
        chosen?.kind === 'flashcard' && chosen.flashcardID === flashcard.flashcardID,
        () => { choose({ kind: 'flashcard', flashcardID: flashcard.flashcardID }) })
    ]))
  ]
  return el('li', { class: 'tree-folder' }, [
    treeButton(folder.name, plural(folder.cardCount, 'card'), folder, 'folder',
      chosen?.kind === 'folder' && chosen.folderID === folder.folderID,
      () => { choose({ kind: 'folder', folderID: folder.folderID }) }),
    inside.length > 0 && el('ul', { class: 'tree' }, inside)
  ])
}

function treeButton (name: string, count: string, today: { due: number, new: number }, kind: 'folder' | 'flashcard', chosen: boolean, onChoose: () => void): HTMLButtonElement {
  return el('button', {
    type: 'button',
    class: `tree-item tree-item-${kind}`,
    'aria-pressed': String(chosen),
    'data-name': name
  }, [
    el('span', { class: 'tree-name' }, [name]),
    el('span', { class: 'tree-figures' }, [
      todayCounts(today),
      el('span', { class: 'tree-count' }, [count])
    ])
  ], { click: onChoose })
}

/** Counts the panel's drawings, so that a reply that comes after a later choice draws nothing. */
let panelDrawings = 0

async function drawPanel (panel: HTMLElement, actions: LibraryActions): Promise<void> {
  const chosen = selection
  panelDrawings += 1
  const drawing = panelDrawings
  const isCurrent = () => panel.isConnected && drawing === panelDrawings
  if (chosen === null) {
    replaceChildren(panel, [el('p', { class: 'hint' }, ['Choose a folder or a deck to see what you can do with it.'])])
    return
  }
  if (chosen.kind === 'flashcard') {
    const entry = allFlashcards(actions.folders).find((flashcard) => flashcard.flashcardID === chosen.flashcardID)
    if (entry !== undefined) await flashcardPanel(panel, entry, actions, isCurrent)
    return
  }
  const folder = allFolders(actions.folders).find((candidate) => candidate.folderID === chosen.folderID)
  if (folder !== undefined) folderPanel(panel, folder, actions)
}

function folderPanel (panel: HTMLElement, folder: FolderEntry, actions: LibraryActions): void {
  const { folderID } = folder
  // once it is deleted, the panel shows the folder that held it
  const parent = parentOf(folder, actions.folders)
  replaceChildren(panel, [
    el('h2', { tabindex: -1 }, [folder.name]),
    el('p', { class: 'panel-path' }, [`Folder ${pathText(folder.path)} · ${plural(folder.cardCount, 'card')}`]),
    studyLink('folder', folderID, folder),
    section('New deck', newFlashcardForm(folder, actions), true),
    section('Import cards', el('div', {}, [
      el('p', {}, [el('a', { href: `#/anki-import/folder/${folderID}`, id: 'anki-import-into-folder' }, ['Import an Anki package into this folder'])]),
      importForm(folder, actions)
    ])),
    section('Export', el('div', {}, [
      el('p', { class: 'hint' }, [`The folder with everything in it, its decks as Anki decks. ${ANKI_EXPORT_HINT}`]),
      ankiExportButton({ folderID }, 'anki-export-folder')
    ])),
    section('New subfolder', newFolderForm(folder.path, 'Subfolder name', actions.reload)),
    section('Rename folder', renameForm('folder', folder.name, (name) => callApi('rename-folder', { folderID, name }), actions)),
    section('Move folder', moveFolderForm(folder, actions)),
    el('div', { class: 'danger-zone' }, [confirmButton('Delete folder',
      `Delete "${folder.name}" with everything in it (${plural(folder.cardCount, 'card')})? Reviews already made still count.`,
      (yes) => {
        act(yes, async () => {
          const deleted = await callApi('delete-folder', { folderID })
          showNotice(deleted.underWay === 'true'
            ? `Deleting ${plural(Number(deleted.folders), 'folder')}, ${plural(Number(deleted.flashcards), 'deck')} and ${plural(Number(deleted.cards), 'card')}: the folder goes once all its cards are deleted, in a few minutes.`
            : `Deleted ${plural(Number(deleted.folders), 'folder')}, ${plural(Number(deleted.flashcards), 'deck')} and ${plural(Number(deleted.cards), 'card')}.`)
          await actions.reload(parent === undefined ? null : { kind: 'folder', folderID: parent.folderID })
        })
      })])
  ])
}

/**
 * Finds cards by what they show across the library (search-cards: every word, anywhere,
 * regardless of case and accents); each result opens its deck with the card in view.
 */
function searchForm (open: (flashcardID: string, cardID: string) => Promise<void>): HTMLElement {
  const query = el('input', { type: 'search', required: true, maxlength: 200, autocomplete: 'off', id: 'search-query', spellcheck: false })
  const results = el('div', { class: 'search-results', id: 'search-results', 'aria-live': 'polite' })
  query.setAttribute('aria-describedby', 'search-hint')
  const form = actionForm({ class: 'inline-form search-form', role: 'search' }, [
    field('Search cards', query),
    submitButton('Search')
  ], async () => {
    const found = await callApi('search-cards', { query: query.value })
    if (found.results.length === 0) {
      replaceChildren(results, [el('p', { class: 'empty' }, [`No card shows "${query.value}".`])])
      return
    }
    replaceChildren(results, [
      el('p', { class: 'hint', id: 'search-summary' }, [
        `${plural(found.results.length, 'card')} found${found.more === 'true' ? ', and more: add words to narrow it down' : ''}. Choose one to open its deck.`
      ]),
      el('ul', { class: 'search-list' }, found.results.map((result) => el('li', {}, [
        el('button', { type: 'button', class: 'search-result', 'data-card-id': result.cardID }, [
          el('span', { class: 'search-snippet' }, [result.snippet]),
          el('span', { class: 'search-place' }, [deckPlace(result.folder, result.flashcardName)])
        ], { click: () => { open(result.flashcardID, result.cardID).catch(reportFailure) } })
      ])))
    ])
  })
  // below the form, so the button stays level with the field
  const hint = el('p', { class: 'hint search-hint', id: 'search-hint' }, ['Every word, anywhere on a card, whatever its case and accents.'])
  return el('div', { class: 'search-area' }, [form, hint, results])
}

function newFolderForm (parent: string[], label: string, reload: LibraryActions['reload']): HTMLFormElement {
  const name = el('input', { type: 'text', required: true, maxlength: 100, autocomplete: 'off' })
  const formElement = actionForm({ class: 'inline-form new-folder-form' }, [field(label, name), submitButton('Create folder')], async () => {
    const placed = await callApi('create-folder', { path: [...parent, name.value] })
    showNotice(`Folder "${pathText(placed.path)}" created.`)
    name.value = ''
    await reload({ kind: 'folder', folderID: placed.folderID })
  })
  return formElement
}

function newFlashcardForm (folder: FolderEntry, actions: LibraryActions): HTMLFormElement {
  const name = el('input', { type: 'text', required: true, maxlength: 100, autocomplete: 'off' })
  const description = el('textarea', { rows: 2, maxlength: 10000 })
  return actionForm({ class: 'stacked-form' }, [field('Deck name', name), field('Description (optional)', description), submitButton('Create deck')], async () => {
    const created = await callApi('create-flashcard', {
      folder: folder.path,
      flashcardName: name.value,
      ...(description.value.trim() === '' ? {} : { description: description.value }),
      cards: []
    })
    showNotice(`Deck "${name.value}" created. Add its cards now.`)
    await actions.reload({ kind: 'flashcard', flashcardID: created.flashcardID })
  })
}

function importForm (folder: FolderEntry, actions: LibraryActions): HTMLFormElement {
  const name = el('input', { type: 'text', required: true, maxlength: 100, autocomplete: 'off' })
  const format = formatSelect()
  const term = separatorSelect(TERM_SEPARATORS)
  const card = separatorSelect(CARD_SEPARATORS)
  const text = el('textarea', { rows: 8, required: true, spellcheck: false, class: 'import-text' })
  const separators = el('div', { class: 'field-row' }, [field('Between front and back', term), field('Between cards', card)])
  linkFormatToSeparators(format, separators)
  return actionForm({ class: 'stacked-form import-form' }, [
    field('New deck name', name),
    field('Format', format),
    separators,
    field('Text to import', text, 'Paste from Quizlet (export with the separators chosen above) or a CSV file with two columns, front and back.'),
    submitButton('Import')
  ], async () => {
    const imported = await callApi('import-cards', { folder: folder.path, flashcardName: name.value, text: text.value, ...formatOptions(format, term, card) })
    showNotice(`Imported ${plural(Number(imported.imported), 'card')} into "${name.value}".`)
    await actions.reload({ kind: 'flashcard', flashcardID: imported.flashcardID })
  })
}

/** The choice that moves a folder to the top level; folder ids are digits, so none is this. */
const TOP_LEVEL = 'top-level'

function parentOf (folder: FolderEntry, folders: FolderEntry[]): FolderEntry | undefined {
  return allFolders(folders).find((candidate) => candidate.folders.includes(folder))
}

function moveFolderForm (folder: FolderEntry, actions: LibraryActions): HTMLElement {
  // anywhere but into itself, below itself, or where it already is
  const own = new Set(allFolders([folder]).map((entry) => entry.folderID))
  const parent = parentOf(folder, actions.folders)
  const destinations = allFolders(actions.folders).filter((candidate) => !own.has(candidate.folderID) && candidate !== parent)
  const atTop = parent === undefined
  if (destinations.length === 0 && atTop) return el('p', { class: 'hint' }, ['There is no other folder to move it into.'])
  const destination = folderSelect(destinations, atTop ? undefined : el('option', { value: TOP_LEVEL }, ['Top level']))
  return actionForm({ class: 'inline-form move-folder-form' }, [field('Move into', destination), submitButton('Move')], async () => {
    // an empty parentID moves the folder to the top level
    const parentID = destination.value === TOP_LEVEL ? '' : destination.value
    const placed = await callApi('move-folder', { folderID: folder.folderID, parentID })
    showNotice(`Folder moved to "${pathText(placed.path)}".`)
    await actions.reload()
  })
}
