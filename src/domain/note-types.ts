/**
 * Note types as an Anki import keeps them: a note type names its notes' fields
 * and holds their card templates and the CSS that styles their cards. The cards
 * an import makes are rendered from them then; the note type stays with the
 * account, so that its cards are shown with its CSS (the study page confines it
 * to the card) and an export can name it again.
 *
 * Its id here is made from the account and Anki's id of it: importing the
 * collection again finds the same note type and brings it up to date, rather
 * than keeping a second one under the same name.
 */
import type { AnkiNotetype } from './anki/collection.js'
import { idOf } from './ids.js'
import { MAX_NOTE_TYPE_CSS, MAX_NOTE_TYPE_FIELDS, MAX_NOTE_TYPE_NAME, MAX_NOTE_TYPE_TEMPLATES, MAX_NOTE_TYPE_TEXT, MAX_TEMPLATE_TEXT } from './limits.js'
import type { NotetypeRow } from './anki/writer.js'
import { CONTROL_CHARACTERS, quotedName } from './names.js'
import { Refusal } from './refusals.js'

/** A note type as the account keeps it. */
export interface NoteTypeContent {
  /** Anki's id of it, as the collection it came from has it */
  ankiID: number
  name: string
  kind: 'standard' | 'cloze'
  /** the fields' names, in Anki's order */
  fields: string[]
  /** the card templates, in Anki's order: a standard note has a card for each, a cloze note one for each number */
  templates: Array<{ name: string, front: string, back: string }>
  css: string
  /** which field the browser shows and sorts by (Anki's sort field), an index into `fields` */
  sortField: number
}

/** The account's id of the note type Anki calls `ankiID`: the same at every import of it. */
export function noteTypeIdOf (userID: string, ankiID: number): string {
  return idOf(`note-type:${userID}:${ankiID}`)
}

/** A note type of a package as the account keeps it. */
export function noteTypeOf (notetype: AnkiNotetype): NoteTypeContent {
  return {
    ankiID: notetype.id,
    name: notetype.name,
    kind: notetype.cloze ? 'cloze' : 'standard',
    fields: [...notetype.fields].sort((a, b) => a.ord - b.ord).map((field) => field.name),
    templates: [...notetype.templates].sort((a, b) => a.ord - b.ord).map((template) => ({ name: template.name, front: template.questionFormat, back: template.answerFormat })),
    css: notetype.css,
    sortField: notetype.sortField
  }
}

/** What keeps a note type from being stored, or null: the limits every door keeps. */
export function noteTypeProblem (noteType: NoteTypeContent): string | null {
  const named = `the note type ${quotedName(noteType.name)}`
  if (noteType.name.length > MAX_NOTE_TYPE_NAME) return `${named} has a name of ${noteType.name.length.toLocaleString('en')} characters, and a name may have at most ${MAX_NOTE_TYPE_NAME}`
  if (noteType.fields.length > MAX_NOTE_TYPE_FIELDS) return `${named} has ${noteType.fields.length.toLocaleString('en')} fields, and a note type may have at most ${MAX_NOTE_TYPE_FIELDS}`
  if (noteType.templates.length > MAX_NOTE_TYPE_TEMPLATES) return `${named} has ${noteType.templates.length.toLocaleString('en')} card templates, and a note type may have at most ${MAX_NOTE_TYPE_TEMPLATES}`
  const longName = [...noteType.fields, ...noteType.templates.map((template) => template.name)].find((name) => name.length > MAX_NOTE_TYPE_NAME)
  if (longName !== undefined) return `${named} has a field or template named with ${longName.length.toLocaleString('en')} characters, and a name may have at most ${MAX_NOTE_TYPE_NAME}`
  if (noteType.css.length > MAX_NOTE_TYPE_CSS) return `${named} has ${noteType.css.length.toLocaleString('en')} characters of CSS, and a note type may have at most ${MAX_NOTE_TYPE_CSS.toLocaleString('en')}`
  const longSide = noteType.templates.flatMap((template) => [template.front, template.back]).find((side) => side.length > MAX_TEMPLATE_TEXT)
  if (longSide !== undefined) return `${named} has a card template of ${longSide.length.toLocaleString('en')} characters, and a template side may have at most ${MAX_TEMPLATE_TEXT.toLocaleString('en')}`
  const total = noteType.css.length + noteType.templates.reduce((sum, template) => sum + template.front.length + template.back.length, 0)
  if (total > MAX_NOTE_TYPE_TEXT) return `${named} has ${total.toLocaleString('en')} characters of templates and CSS, and a note type may have at most ${MAX_NOTE_TYPE_TEXT.toLocaleString('en')}`
  return null
}

/** Refuses a note type past the limits, with the sentence that says which. */
export function checkedNoteType (noteType: NoteTypeContent): NoteTypeContent {
  const problem = noteTypeProblem(noteType)
  if (problem !== null) throw new Refusal('invalid_field', `${problem}: shorten it in Anki, or leave its notes out of the package`)
  return noteType
}

/** A note type as create-note-type defines it (as an export writes one, less its Anki id and time): Anki's stock ones, imported ones and these are kept alike. */
export type NoteTypeDefinition = Omit<NotetypeRow, 'id' | 'modified'>

/** Why Anki would refuse this name of a field, or null: its template syntax could not name it. */
function fieldNameProblem (name: string): string | null {
  if (name.trim() === '') return 'is empty'
  if (name !== name.trim()) return 'starts or ends with a space'
  if (/[:"{}]/u.test(name)) return 'holds one of : " { }, which a template cannot name a field by'
  if (/^[#/^]/u.test(name)) return 'starts with one of # / ^, which a template reads as a section'
  if (CONTROL_CHARACTERS.test(name)) return 'holds a control character'
  return null
}

/** The first name given twice (Anki compares names without case), or null. */
function repeatedName (names: readonly string[]): string | null {
  const seen = new Set<string>()
  for (const name of names) {
    const key = name.toLowerCase()
    if (seen.has(key)) return name
    seen.add(key)
  }
  return null
}

/**
 * What keeps a note type a client defines (create-note-type, edit-note-type) from being kept, or
 * null: what Anki itself refuses (fields a template cannot name, two fields or templates of one
 * name, a template its engine cannot read, a front that names no field, a cloze note type without
 * its one template of {{cloze:…}}), then the limits every door keeps.
 */
export function definitionProblem (noteType: NoteTypeDefinition, render: (template: { front: string, back: string }, fields: readonly string[]) => { empty: boolean }): string | null {
  if (noteType.name.trim() === '' || CONTROL_CHARACTERS.test(noteType.name)) return 'the note type\'s name is empty or holds a control character'
  if (noteType.fields.length === 0) return 'a note type needs at least one field'
  for (const field of noteType.fields) {
    const problem = fieldNameProblem(field)
    if (problem !== null) return `the field name ${quotedName(field)} ${problem}`
  }
  const field = repeatedName(noteType.fields)
  if (field !== null) return `two fields are named ${quotedName(field)}: each field needs a name of its own`
  if (noteType.templates.length === 0) return 'a note type needs at least one card template'
  if (noteType.kind === 'cloze' && noteType.templates.length !== 1) return 'a cloze note type has exactly one card template: its cards are its cloze numbers'
  const template = repeatedName(noteType.templates.map((one) => one.name))
  if (template !== null) return `two card templates are named ${quotedName(template)}: each template needs a name of its own`
  for (const one of noteType.templates) {
    if (one.name.trim() === '' || CONTROL_CHARACTERS.test(one.name)) return 'a card template\'s name is empty or holds a control character'
    if (noteType.kind === 'cloze' && !/\{\{[^}]*cloze:/u.test(one.front)) return `the front of ${quotedName(one.name)} has no {{cloze:Field}}: a cloze note type shows its deletions through it`
    let empty: boolean
    try {
      empty = render(one, noteType.fields).empty
    } catch (error) {
      return `the card template ${quotedName(one.name)} cannot be read: ${error instanceof Error ? error.message : String(error)}`
    }
    if (noteType.kind === 'standard' && empty) return `the front of ${quotedName(one.name)} names no field, so it would never make a card: put a field on it, as {{${noteType.fields[0] as string}}}`
  }
  if (!Number.isInteger(noteType.sortField) || noteType.sortField < 0 || noteType.sortField >= noteType.fields.length) {
    return `sortField ${noteType.sortField} is not the index of one of the ${noteType.fields.length} fields`
  }
  return noteTypeProblem({ ...noteType, ankiID: 0, fields: [...noteType.fields], templates: [...noteType.templates] })
}

/** A field of an edited note type: `from` names the field of the note type as it is that it continues (a rename), when it is not the one of its own name. */
export interface FieldChange { name: string, from?: string }
/** A card template of an edited note type, as a field: `from` names the template it continues, when not the one of its own name. */
export interface TemplateChange { name: string, front: string, back: string, from?: string }

export interface NoteTypeChange {
  name?: string
  fields?: readonly FieldChange[]
  templates?: readonly TemplateChange[]
  css?: string
  sortField?: number
}

/**
 * A note type after an edit, with what becomes of what it had: for each field (template) of the
 * edited one, the index of the one it continues, or null for a new one; the indexes of those no
 * longer there. A field or template is continued by the one that names it in `from`, else by the
 * one of its own name; `from` naming none of the note type's, or one named twice, is refused.
 */
export interface NoteTypeEdit {
  content: NoteTypeDefinition
  fieldFrom: Array<number | null>
  templateFrom: Array<number | null>
  droppedFields: number[]
  droppedTemplates: number[]
}

function continued<T extends { name: string, from?: string }> (kept: readonly string[], changes: readonly T[], what: string): { from: Array<number | null>, dropped: number[] } {
  const taken = new Set<number>()
  const from = changes.map((change) => {
    const source = change.from ?? change.name
    const index = kept.indexOf(source)
    if (index === -1) {
      if (change.from !== undefined) throw new Refusal('invalid_field', `from ${quotedName(change.from)}: the note type has no ${what} of that name; it has ${kept.map(quotedName).join(', ')}`)
      return null
    }
    if (taken.has(index)) throw new Refusal('invalid_field', `two ${what}s continue ${quotedName(source)}: name it in from once`)
    taken.add(index)
    return index
  })
  return { from, dropped: kept.map((_, index) => index).filter((index) => !taken.has(index)) }
}

export function editedNoteType (current: NoteTypeContent, change: NoteTypeChange): NoteTypeEdit {
  const fields = change.fields === undefined
    ? { from: current.fields.map((_, index) => index), dropped: [] }
    : continued(current.fields, change.fields, 'field')
  const templates = change.templates === undefined
    ? { from: current.templates.map((_, index) => index), dropped: [] }
    : continued(current.templates.map((template) => template.name), change.templates, 'card template')
  // the sort field follows its field; one dropped gives way to the first
  const sortField = change.sortField ?? Math.max(0, fields.from.indexOf(current.sortField))
  return {
    content: {
      name: change.name ?? current.name,
      kind: current.kind,
      fields: change.fields?.map((field) => field.name) ?? current.fields,
      templates: change.templates?.map(({ name, front, back }) => ({ name, front, back })) ?? current.templates,
      css: change.css ?? current.css,
      sortField
    },
    fieldFrom: fields.from,
    templateFrom: templates.from,
    droppedFields: fields.dropped,
    droppedTemplates: templates.dropped
  }
}
