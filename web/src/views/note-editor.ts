// The editor of a note (a card an Anki import made, or a note of a note type added with
// add-note): its fields by their names, as Anki's editor shows them, and its tags. Every
// card of the note is made again from the fields by its template when it is saved, and
// keeps its schedule; a field filled that a template needs adds that card.
import { callApi } from '../api.js'
import { button, el, field, plural } from '../dom.js'
import { actionForm, submitButton } from '../forms.js'
import { showNotice } from '../messages.js'

/** What the editor says when the note is saved: how many cards it has, and how many are new. */
export interface NoteSaved { cards: number, added: number }

/**
 * The form of a note's fields (each HTML, as Anki keeps it) and tags (space-separated), read with
 * get-note; `saved` runs once edit-note has taken the change, `cancel` when it is left as it was.
 */
export async function noteEditor (noteID: string, options: { attributes: Record<string, string>, saved: (done: NoteSaved) => Promise<void> | void, cancel: () => void }): Promise<HTMLFormElement> {
  const note = await callApi('get-note', { noteID })
  const areas = Object.entries(note.fields).map(([name, value]) => {
    const area = el('textarea', { rows: 3, spellcheck: true, class: 'note-field', 'data-field': name })
    area.value = value
    return { name, area }
  })
  const tags = el('input', { type: 'text', class: 'note-tags', autocomplete: 'off', spellcheck: false })
  tags.value = note.tags.join(' ')
  return actionForm(options.attributes, [
    el('p', { class: 'hint' }, [`A note of ${plural(note.cardIDs.length, 'card')}: each card is made from these fields (HTML) by its template, and keeps its schedule.`]),
    ...areas.map(({ name, area }) => field(name, area)),
    field('Tags', tags, 'separated by spaces'),
    el('div', { class: 'button-row' }, [submitButton('Save note', true), button('Cancel', options.cancel)])
  ], async () => {
    const fields = Object.fromEntries(areas.filter(({ name, area }) => area.value !== note.fields[name]).map(({ name, area }) => [name, area.value]))
    const edited = await callApi('edit-note', { noteID, fields, tags: tags.value.split(/\s+/).filter((tag) => tag !== '') })
    showNotice(`Note saved: ${plural(edited.cardIDs.length, 'card')}${edited.added.length > 0 ? `, ${edited.added.length} new` : ''}; each keeps its schedule.`)
    await options.saved({ cards: edited.cardIDs.length, added: edited.added.length })
  })
}

/**
 * The form of a new note of any of the account's note types (Anki's stock ones, and those its
 * imports brought): the type chosen, its fields by their names (HTML), tags. add-note makes the
 * cards Anki would make of it. The types are read when the section is first opened.
 */
export function addNoteSection (flashcardID: string, added: () => Promise<void>): HTMLElement {
  // nothing is loading until the section is opened: the screen's own "loading" marks stay those of what it waits for
  const body = el('div', { class: 'add-note' })
  const section = el('details', { class: 'panel-section add-note-section' }, [el('summary', {}, ['Add a note of another type']), body])
  let drawn = false
  section.addEventListener('toggle', () => {
    if (!section.open || drawn) return
    drawn = true
    body.replaceChildren(el('p', { class: 'loading' }, ['Loading the note types…']))
    callApi('get-note-types', {}).then(({ noteTypes }) => {
      const choice = el('select', { class: 'note-type-choice' }, noteTypes.map((noteType) => el('option', { value: noteType.noteTypeID }, [noteType.name])))
      const fieldsArea = el('div', { class: 'note-fields' })
      const tags = el('input', { type: 'text', class: 'note-tags', autocomplete: 'off', spellcheck: false })
      let areas: Array<{ name: string, area: HTMLTextAreaElement }> = []
      const drawFields = () => {
        const noteType = noteTypes.find((candidate) => candidate.noteTypeID === choice.value)
        areas = (noteType?.fields ?? []).map((name) => ({ name, area: el('textarea', { rows: 2, spellcheck: true, class: 'note-field', 'data-field': name }) }))
        fieldsArea.replaceChildren(...areas.map(({ name, area }) => field(name, area)))
      }
      choice.addEventListener('change', drawFields)
      drawFields()
      const form = actionForm({ class: 'stacked-form add-note-form' }, [
        field('Note type', choice, 'Each card the note makes is one of its templates (or cloze numbers), made from these fields (HTML).'),
        fieldsArea,
        field('Tags', tags, 'separated by spaces'),
        el('div', { class: 'button-row' }, [submitButton('Add note')])
      ], async () => {
        const fields = Object.fromEntries(areas.filter(({ area }) => area.value !== '').map(({ name, area }) => [name, area.value]))
        const note = await callApi('add-note', { flashcardID, noteTypeID: choice.value, fields, tags: tags.value.split(/\s+/).filter((tag) => tag !== '') })
        showNotice(`Note added: ${plural(note.cardIDs.length, 'card')}.`)
        await added()
      })
      body.replaceChildren(form)
    }, (error: unknown) => {
      drawn = false
      body.replaceChildren(el('p', { class: 'field-problem', role: 'alert' }, [`The note types could not be read: ${error instanceof Error ? error.message : String(error)}`]))
    })
  })
  return section
}
