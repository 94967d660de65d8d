// The account's note types (Settings): each one's name, fields, card templates in Anki's
// template syntax and CSS, changed with edit-note-type, a new one made with create-note-type
// (as a copy of Basic to start from), one deleted with delete-note-type. A change that would
// lose what notes hold (a field with text, a template with cards) is shown as the service
// words it, and made only once the user says so again.
import { ApiError, callApi } from '../api.js'
import type { Operations } from '../api-types.js'
import { button, confirmButton, el, field, plural, replaceChildren } from '../dom.js'
import { act, actionForm, submitButton } from '../forms.js'
import { reportFailure, showNotice } from '../messages.js'

type NoteType = Operations['get-note-types']['answer']['noteTypes'][number]
interface FieldRow { input: HTMLInputElement, from?: string }
interface TemplateRow { name: HTMLInputElement, front: HTMLTextAreaElement, back: HTMLTextAreaElement, from?: string }

/** The section, its note types read when it is first opened. */
export function noteTypesSection (): HTMLElement {
  const body = el('div', { class: 'note-types' })
  const section = el('details', { class: 'panel note-types-section' }, [el('summary', {}, [el('h2', { class: 'inline-heading' }, ['Note types'])]), body])
  let drawn = false
  const draw = (chosenID?: string): void => {
    body.replaceChildren(el('p', { class: 'loading' }, ['Loading the note types…']))
    callApi('get-note-types', {}).then(({ noteTypes }) => {
      const choice = el('select', { class: 'note-type-pick' }, noteTypes.map((noteType) => el('option', { value: noteType.noteTypeID, selected: noteType.noteTypeID === chosenID }, [noteType.name])))
      const editorHolder = el('div', {})
      const show = (): void => {
        const noteType = noteTypes.find((candidate) => candidate.noteTypeID === choice.value)
        if (noteType !== undefined) replaceChildren(editorHolder, [noteTypeEditor(noteType, draw)])
      }
      choice.addEventListener('change', show)
      const newName = el('input', { type: 'text', class: 'new-note-type-name', maxlength: 200, required: true, autocomplete: 'off' })
      const create = actionForm({ class: 'field-row new-note-type-form' }, [field('New note type', newName, 'Made as a copy of Basic (Front, Back), to change below.'), submitButton('Create')], async () => {
        const made = await callApi('create-note-type', { name: newName.value.trim(), fields: ['Front', 'Back'], templates: [{ name: 'Card 1', front: '{{Front}}', back: '{{FrontSide}}\n\n<hr id=answer>\n\n{{Back}}' }] })
        showNotice(`Note type ${made.name} created.`)
        draw(made.noteTypeID)
      })
      body.replaceChildren(
        el('p', { class: 'hint' }, ['A note\'s cards are made from its fields by its note type\'s card templates (Anki\'s template syntax, {{Field}}) and styled by its CSS.']),
        field('Note type', choice),
        editorHolder,
        create
      )
      show()
    }, (error: unknown) => {
      drawn = false
      reportFailure(error)
    })
  }
  section.addEventListener('toggle', () => {
    if (!section.open || drawn) return
    drawn = true
    draw()
  })
  return section
}

/** One note type's form: its rows continue the fields and templates they were drawn from (`from`), under their names as edited. */
function noteTypeEditor (noteType: NoteType, redraw: (chosenID?: string) => void): HTMLElement {
  const name = el('input', { type: 'text', class: 'note-type-name', maxlength: 200, required: true, value: noteType.name })
  const fieldRows: FieldRow[] = []
  const fieldList = el('ol', { class: 'note-type-fields' })
  const addField = (value: string, from?: string): void => {
    const row: FieldRow = { input: el('input', { type: 'text', class: 'note-type-field', maxlength: 200, required: true, value, 'aria-label': 'Field name' }), ...(from === undefined ? {} : { from }) }
    fieldRows.push(row)
    const item = el('li', {}, [row.input, button('Remove', () => { fieldRows.splice(fieldRows.indexOf(row), 1); item.remove() }, { class: 'remove-field' })])
    fieldList.append(item)
  }
  for (const fieldName of noteType.fields) addField(fieldName, fieldName)

  const templateRows: TemplateRow[] = []
  const templateList = el('div', { class: 'note-type-templates' })
  const addTemplate = (template: { name: string, front: string, back: string }, from?: string): void => {
    const row: TemplateRow = {
      name: el('input', { type: 'text', class: 'template-name', maxlength: 200, required: true, value: template.name }),
      front: el('textarea', { rows: 3, class: 'template-front', spellcheck: false }),
      back: el('textarea', { rows: 4, class: 'template-back', spellcheck: false }),
      ...(from === undefined ? {} : { from })
    }
    row.front.value = template.front
    row.back.value = template.back
    templateRows.push(row)
    const box = el('fieldset', { class: 'plain-fieldset template' }, [
      el('legend', {}, ['Card template']),
      field('Name', row.name), field('Front', row.front), field('Back', row.back),
      ...(noteType.kind === 'cloze' ? [] : [button('Remove this template', () => { templateRows.splice(templateRows.indexOf(row), 1); box.remove() }, { class: 'remove-template' })])
    ])
    templateList.append(box)
  }
  for (const template of noteType.templates) addTemplate(template, template.name)

  const css = el('textarea', { rows: 6, class: 'note-type-css', spellcheck: false })
  css.value = noteType.css
  const problem = el('div', { class: 'note-type-problem', role: 'alert' })

  const save = async (confirm: boolean): Promise<void> => {
    const changed = await callApi('edit-note-type', {
      noteTypeID: noteType.noteTypeID,
      name: name.value.trim(),
      fields: fieldRows.map((row) => ({ name: row.input.value.trim(), ...(row.from === undefined || row.from === row.input.value.trim() ? {} : { from: row.from }) })),
      templates: templateRows.map((row) => ({ name: row.name.value.trim(), front: row.front.value, back: row.back.value, ...(row.from === undefined || row.from === row.name.value.trim() ? {} : { from: row.from }) })),
      css: css.value,
      ...(confirm ? { confirm: true } : {})
    })
    showNotice(`Note type ${changed.name} saved: ${plural(Number(changed.notes), 'note')} made again${changed.underWay === 'true' ? ' so far, the rest in the background' : ''}` +
      `${changed.added.length > 0 ? `, ${plural(changed.added.length, 'new card')}` : ''}${changed.removed.length > 0 ? `, ${plural(changed.removed.length, 'card')} deleted` : ''}.`)
    redraw(noteType.noteTypeID)
  }
  const form = actionForm({ class: 'stacked-form note-type-form', 'data-note-type': noteType.noteTypeID }, [
    field('Name', name),
    el('fieldset', { class: 'plain-fieldset' }, [el('legend', {}, ['Fields']), fieldList, button('Add a field', () => { addField('') }, { class: 'add-field' })]),
    templateList,
    ...(noteType.kind === 'cloze' ? [] : [button('Add a card template', () => { addTemplate({ name: `Card ${templateRows.length + 1}`, front: '', back: '{{FrontSide}}\n\n<hr id=answer>\n\n' }) }, { class: 'add-template' })]),
    field('CSS', css, 'Styles this note type\'s cards only, within the card.'),
    problem,
    el('div', { class: 'button-row' }, [submitButton('Save note type', true)])
  ], async () => {
    problem.replaceChildren()
    try {
      await save(false)
    } catch (error) {
      if (!(error instanceof ApiError) || error.code !== 'note_type_in_use') throw error
      // what it would lose, as the service counts it: saved only once the user says so again
      problem.replaceChildren(el('p', { class: 'field-problem' }, [error.message]),
        button('Save, and lose that', () => { act(null, async () => { await save(true) }) }, { class: 'danger confirm-note-type-save' }))
    }
  })
  const remove = confirmButton('Delete this note type', `Delete ${noteType.name}, with every note of it and their cards?`, (yes) => {
    act(yes, async () => {
      const deleted = await callApi('delete-note-type', { noteTypeID: noteType.noteTypeID, confirm: true })
      showNotice(`Note type ${noteType.name} deleted${deleted.removed.length > 0 ? `, with ${plural(deleted.removed.length, 'card')}` : ''}.`)
      redraw()
    })
  })
  return el('div', { class: 'note-type-editor' }, [form, el('div', { class: 'danger-zone' }, [remove])])
}
