// Browse: every card of the library, a folder or a deck, suspended and buried ones
// too (browse-cards), in a table to filter, sort, select and change the standing of
// (set-card-standing), move into another deck (move-cards) or delete (delete-cards), as Anki's browser. The cards come a page at a time: "Load more"
// follows the answer's cursor.
import { callApi } from '../api.js'
import type { BrowsedCard, BrowseRequest, StandingAction } from '../api-types.js'
import { button, confirmButton, el, field, plural, replaceChildren, whileBusy } from '../dom.js'
import { readLibrary, type FolderEntry } from '../library-tree.js'
import { reportFailure, showNotice } from '../messages.js'
import type { Screen } from './screen.js'

/** Anki's flags by number, as flag-card takes them. */
const FLAG_NAMES = ['No flag', 'Red', 'Orange', 'Green', 'Blue', 'Pink', 'Turquoise', 'Purple'] as const
/** The most cards one set-card-standing or delete-cards takes. */
const CARDS_PER_CHANGE = 500

type Sort = NonNullable<BrowseRequest['sort']>
type Order = NonNullable<BrowseRequest['order']>

const ACTIONS: ReadonlyArray<{ action: Exclude<StandingAction, 'flag'>, label: string, done: string }> = [
  { action: 'suspend', label: 'Suspend', done: 'suspended' },
  { action: 'unsuspend', label: 'Unsuspend', done: 'unsuspended' },
  { action: 'bury', label: 'Bury', done: 'buried until tomorrow' },
  { action: 'unbury', label: 'Unbury', done: 'unburied' }
]

export const showBrowse: Screen = (container) => {
  let onScreen = true
  let sort: Sort = 'created'
  let order: Order = 'asc'
  let shown: BrowsedCard[] = []
  let nextCursor: string | undefined
  const selected = new Map<string, { flashcardID: string, cardID: string }>()

  const scope = el('select', { id: 'browse-scope' }, [el('option', { value: '' }, ['Whole library'])])
  const standing = el('select', { id: 'browse-standing' }, [
    el('option', { value: '' }, ['Any standing']),
    ...(['new', 'learning', 'review', 'suspended', 'buried', 'flagged'] as const).map((value) => el('option', { value }, [value[0]?.toUpperCase() + value.slice(1)]))
  ])
  const query = el('input', { type: 'search', id: 'browse-query', maxlength: 200, autocomplete: 'off' })
  const filters = el('form', { class: 'browse-filters', role: 'search', 'aria-label': 'Which cards' }, [
    field('Cards of', scope), field('Standing', standing), field('Search', query),
    el('button', { type: 'submit', class: 'primary', id: 'browse-apply' }, ['Show'])
  ])
  const summary = el('p', { id: 'browse-summary', role: 'status' }, ['Loading cards…'])
  const selection = el('span', { id: 'browse-selected' }, ['No card selected'])
  const flag = el('select', { id: 'browse-flag' }, FLAG_NAMES.map((name, index) => el('option', { value: String(index) }, [name])))
  const actionButtons = ACTIONS.map(({ action, label, done }) => button(label, (event) => { change(event.currentTarget as HTMLButtonElement, action, done).catch(reportFailure) }, { 'data-action': action }))
  const flagButton = button('Flag', (event) => { change(event.currentTarget as HTMLButtonElement, 'flag', 'flagged', Number(flag.value)).catch(reportFailure) }, { 'data-action': 'flag' })
  const deleteControl = (): HTMLElement => confirmButton('Delete',
    () => `Delete ${plural(selected.size, 'selected card')}? Their reviews still count; a cloze card's deletion becomes plain text in its note.`,
    (yes) => { remove(yes).catch(reportFailure) }, { 'data-action': 'delete' })
  let deleteHolder = deleteControl()
  const destination = el('select', { id: 'browse-move-to' }, [])
  const moveButton = button('Move', (event) => { move(event.currentTarget as HTMLButtonElement).catch(reportFailure) }, { 'data-action': 'move' })
  const actions = el('div', { class: 'browse-actions', role: 'group', 'aria-label': 'Selected cards' }, [
    selection, ...actionButtons, field('Flag to set', flag), flagButton, field('Deck to move into', destination), moveButton, deleteHolder
  ])
  const selectAll = el('input', { type: 'checkbox', id: 'browse-select-all', 'aria-label': 'Select every card shown' })
  const body = el('tbody', {})
  const sortHeader = (label: string, key: Sort): HTMLTableCellElement => {
    const th = el('th', { scope: 'col', 'data-sort': key }, [button(label, () => {
      order = sort === key && order === 'asc' ? 'desc' : 'asc'
      sort = key
      reload().catch(reportFailure)
    }, { class: 'sort-button' })])
    return th
  }
  const headers = [sortHeader('Card (added)', 'created'), el('th', { scope: 'col' }, ['Deck']), el('th', { scope: 'col' }, ['Note type']), el('th', { scope: 'col' }, ['State']),
    sortHeader('Due', 'due'), el('th', { scope: 'col' }, ['Interval']), el('th', { scope: 'col' }, ['Difficulty']), el('th', { scope: 'col' }, ['Lapses']),
    el('th', { scope: 'col' }, ['Standing'])]
  const table = el('table', { class: 'browse-table', id: 'browse-table' }, [
    el('caption', { class: 'visually-hidden' }, ['Cards']),
    el('thead', {}, [el('tr', {}, [el('th', { scope: 'col' }, [selectAll]), ...headers])]),
    body
  ])
  // the table scrolls sideways inside its box on a narrow screen; the box takes the focus for the keyboard to scroll it
  const box = el('div', { class: 'browse-table-box', tabindex: 0, role: 'region', 'aria-label': 'Cards, scrolling sideways' }, [table])
  const more = button('Load more', (event) => { loadMore(event.currentTarget as HTMLButtonElement).catch(reportFailure) }, { id: 'browse-more', hidden: true })

  container.append(el('h1', { tabindex: -1 }, ['Browse']), filters, actions, summary, box, more)

  const request = (): BrowseRequest => {
    const [kind, id] = scope.value.split(':')
    return {
      ...(kind === 'folder' && id !== undefined ? { folderID: id } : {}),
      ...(kind === 'deck' && id !== undefined ? { flashcardID: id } : {}),
      ...(standing.value === '' ? {} : { standing: standing.value as NonNullable<BrowseRequest['standing']> }),
      ...(query.value.trim() === '' ? {} : { query: query.value.trim() }),
      sort,
      order
    }
  }

  const drawSelection = (): void => {
    selection.textContent = selected.size === 0 ? 'No card selected' : `${plural(selected.size, 'card')} selected`
    for (const control of [...actionButtons, flagButton, ...deleteHolder.querySelectorAll('button')]) control.disabled = selected.size === 0
    moveButton.disabled = selected.size === 0 || destination.value === ''
    selectAll.checked = shown.length > 0 && shown.every((card) => selected.has(card.cardID))
    selectAll.indeterminate = !selectAll.checked && shown.some((card) => selected.has(card.cardID))
  }

  const drawHeaders = (): void => {
    for (const th of headers) {
      const key = th.dataset.sort
      if (key === undefined) continue
      th.setAttribute('aria-sort', key === sort ? (order === 'asc' ? 'ascending' : 'descending') : 'none')
    }
  }

  const draw = (total: string): void => {
    replaceChildren(body, shown.map((card) => row(card, selected, drawSelection)))
    summary.textContent = shown.length === 0 ? 'No card matches.' : `Showing ${shown.length} of ${plural(Number(total), 'card')}.`
    more.hidden = nextCursor === undefined
    drawHeaders()
    drawSelection()
  }

  let total = '0'
  async function reload (): Promise<void> {
    const answer = await callApi('browse-cards', request())
    if (!onScreen) return
    shown = answer.cards
    nextCursor = answer.nextCursor
    total = answer.total
    for (const cardID of [...selected.keys()]) if (!shown.some((card) => card.cardID === cardID)) selected.delete(cardID)
    draw(total)
  }

  async function loadMore (control: HTMLButtonElement): Promise<void> {
    if (nextCursor === undefined) return
    const cursor = nextCursor
    const answer = await whileBusy(control, async () => await callApi('browse-cards', { ...request(), cursor }))
    if (!onScreen) return
    const first = shown.length
    shown = [...shown, ...answer.cards]
    nextCursor = answer.nextCursor
    total = answer.total
    draw(total)
    // the keyboard goes on where the new rows begin
    body.rows[first]?.querySelector<HTMLElement>('input')?.focus()
  }

  async function change (control: HTMLButtonElement, action: StandingAction, done: string, flagged?: number): Promise<void> {
    const cards = [...selected.values()]
    if (cards.length === 0) return
    await whileBusy(control, async () => {
      for (let start = 0; start < cards.length; start += CARDS_PER_CHANGE) {
        await callApi('set-card-standing', { cards: cards.slice(start, start + CARDS_PER_CHANGE), action, ...(flagged === undefined ? {} : { flag: flagged }) })
      }
    })
    showNotice(`${plural(cards.length, 'card')} ${action === 'flag' ? `flagged ${FLAG_NAMES[flagged ?? 0]?.toLowerCase() ?? ''}` : done}.`)
    await reload()
  }

  /** Moves the cards selected into the deck chosen, a request of at most CARDS_PER_CHANGE at a time, each all or nothing. */
  async function move (control: HTMLButtonElement): Promise<void> {
    const cards = [...selected.values()]
    if (cards.length === 0 || destination.value === '') return
    const name = destination.selectedOptions[0]?.textContent?.trim() ?? ''
    let moved = 0
    await whileBusy(control, async () => {
      for (let start = 0; start < cards.length; start += CARDS_PER_CHANGE) {
        moved += Number((await callApi('move-cards', { cards: cards.slice(start, start + CARDS_PER_CHANGE), toFlashcardID: destination.value })).moved)
      }
    })
    selected.clear()
    showNotice(`${plural(moved, 'card')} moved to ${name}.`)
    await reload()
  }

  /** Deletes the cards selected, a request of at most CARDS_PER_CHANGE at a time, each all or nothing. */
  async function remove (control: HTMLButtonElement): Promise<void> {
    const cards = [...selected.values()]
    if (cards.length === 0) return
    await whileBusy(control, async () => {
      for (let start = 0; start < cards.length; start += CARDS_PER_CHANGE) {
        await callApi('delete-cards', { cards: cards.slice(start, start + CARDS_PER_CHANGE) })
        for (const card of cards.slice(start, start + CARDS_PER_CHANGE)) selected.delete(card.cardID)
      }
    })
    const fresh = deleteControl()
    deleteHolder.replaceWith(fresh)
    deleteHolder = fresh
    showNotice(`${plural(cards.length, 'card')} deleted.`)
    await reload()
  }

  selectAll.addEventListener('change', () => {
    for (const card of shown) {
      if (selectAll.checked) selected.set(card.cardID, { flashcardID: card.flashcardID, cardID: card.cardID })
      else selected.delete(card.cardID)
    }
    for (const box of body.querySelectorAll<HTMLInputElement>('input[type="checkbox"]')) box.checked = selectAll.checked
    drawSelection()
  })
  filters.addEventListener('submit', (event) => {
    event.preventDefault()
    selected.clear()
    reload().catch(reportFailure)
  })
  for (const select of [scope, standing]) select.addEventListener('change', () => { selected.clear(); reload().catch(reportFailure) })

  callApi('get-library', {}).then((library) => {
    if (!onScreen) return
    const folders = readLibrary(library.folders)
    fillScope(scope, folders)
    fillDecks(destination, folders)
    drawSelection()
  }).catch(reportFailure)
  destination.addEventListener('change', drawSelection)
  reload().catch(reportFailure)
  return () => { onScreen = false }
}

/** A row: a checkbox to select the card, then its columns. */
function row (card: BrowsedCard, selected: Map<string, { flashcardID: string, cardID: string }>, changed: () => void): HTMLTableRowElement {
  const choose = el('input', { type: 'checkbox', 'aria-label': `Select ${card.sortField}` })
  choose.checked = selected.has(card.cardID)
  choose.addEventListener('change', () => {
    if (choose.checked) selected.set(card.cardID, { flashcardID: card.flashcardID, cardID: card.cardID })
    else selected.delete(card.cardID)
    changed()
  })
  const badges = [
    card.suspended === 'true' ? el('span', { class: 'badge badge-suspended' }, ['Suspended']) : null,
    card.buriedUntil === undefined ? null : el('span', { class: 'badge badge-buried' }, [`Buried until ${card.buriedUntil}`]),
    card.flag === '0' ? null : el('span', { class: `badge badge-flag flag-${card.flag}` }, [`${FLAG_NAMES[Number(card.flag)] ?? ''} flag`])
  ]
  return el('tr', { 'data-card-id': card.cardID }, [
    el('td', {}, [choose]),
    // the card in its deck, where it is edited (a cloze note with its other cards)
    el('td', { class: 'browse-sort-field' }, [el('a', { href: `#/library/card/${card.flashcardID}/${card.cardID}`, title: 'Open in its deck to edit' }, [card.sortField])]),
    el('td', {}, [[...card.folder, card.flashcardName].join(' › ')]),
    el('td', { class: 'browse-note-type' }, [card.noteType]),
    el('td', {}, [card.state]),
    el('td', { class: 'browse-due' }, [card.due ?? '–']),
    el('td', { class: 'number' }, [card.state === 'new' ? '–' : `${card.interval} d`]),
    el('td', { class: 'number' }, [card.difficulty ?? '–']),
    el('td', { class: 'number' }, [card.lapses]),
    el('td', { class: 'browse-standing' }, badges.some((badge) => badge !== null) ? badges : ['–'])
  ])
}

/** The scopes to browse: the whole library, then every folder and deck in the library's order. */
function fillScope (scope: HTMLSelectElement, folders: FolderEntry[]): void {
  const chosen = scope.value
  const options: HTMLOptionElement[] = [el('option', { value: '' }, ['Whole library'])]
  const add = (folder: FolderEntry, depth: number) => {
    const indent = '\u00a0\u00a0'.repeat(depth)
    options.push(el('option', { value: `folder:${folder.folderID}` }, [`${indent}${folder.name}`]))
    for (const inner of folder.folders) add(inner, depth + 1)
    for (const deck of folder.flashcards) options.push(el('option', { value: `deck:${deck.flashcardID}` }, [`${indent}\u00a0\u00a0${deck.flashcardName} (deck)`]))
  }
  for (const folder of folders) add(folder, 0)
  replaceChildren(scope, options)
  scope.value = chosen
}

/** The decks cards can be moved into, each named by its path. */
function fillDecks (select: HTMLSelectElement, folders: FolderEntry[]): void {
  const options: HTMLOptionElement[] = [el('option', { value: '' }, ['Choose a deck'])]
  const add = (folder: FolderEntry, path: string[]) => {
    for (const inner of folder.folders) add(inner, [...path, inner.name])
    for (const deck of folder.flashcards) options.push(el('option', { value: deck.flashcardID }, [[...path, deck.flashcardName].join(' › ')]))
  }
  for (const folder of folders) add(folder, [folder.name])
  replaceChildren(select, options)
}
