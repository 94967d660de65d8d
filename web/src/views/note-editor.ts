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
