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
import { quotedName } from './names.js'
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
