/**
 * A note an Anki import kept, and the cards made from it: each card is one template of its note
 * type (or one cloze number), rendered from the note's fields by the template engine the import
 * renders with (anki/templates.ts, through cardContentOf), so that an edit of the note shows on
 * every card of it, as in Anki. Pure: stored values in, card content out.
 */
import { cardContentOf, withMediaIds, type ImportedContent } from './anki-import.js'
import type { AnkiCard, AnkiNote, AnkiNotetype } from './anki/collection.js'
import { MAX_NOTE_TEXT } from './limits.js'
import type { NoteTypeContent } from './note-types.js'
import { quotedName } from './names.js'
import { Refusal } from './refusals.js'

/** What rendering a note's cards reads of the note. */
export interface KeptNote {
  ankiID: number
  guid: string
  fields: readonly string[]
  tags: readonly string[]
  modified: number
  media?: ReadonlyArray<{ name: string, mediaID: string }>
}

/** What rendering reads of a card of the note: its template (or cloze number less one), flag and Anki's id. */
export interface KeptCard {
  ankiOrd?: number
  clozeNumber?: number
  flag?: number
  ankiID?: number
}

function ankiNotetypeOf (noteType: NoteTypeContent): AnkiNotetype {
  return {
    id: noteType.ankiID,
    name: noteType.name,
    cloze: noteType.kind === 'cloze',
    fields: noteType.fields.map((name, ord) => ({ name, ord })),
    templates: noteType.templates.map((template, ord) => ({ ord, name: template.name, questionFormat: template.front, answerFormat: template.back })),
    css: noteType.css,
    sortField: noteType.sortField
  }
}

/** A card's content made from its note, as an import makes it; media named in the fields become `media:<mediaID>`. */
export function keptCardContent (card: KeptCard, note: KeptNote, noteType: NoteTypeContent, deckName: string): ImportedContent {
  const byName = new Map((note.media ?? []).map((file) => [file.name, file.mediaID]))
  const fields = note.fields.map((field) => withMediaIds(field, (name) => byName.get(name), new Set()))
  const ord = card.clozeNumber !== undefined ? card.clozeNumber - 1 : card.ankiOrd ?? 0
  const ankiCard = { id: card.ankiID ?? 0, ord, flags: card.flag ?? 0 } as unknown as AnkiCard
  const ankiNote: AnkiNote = { id: note.ankiID, guid: note.guid, notetypeId: noteType.ankiID, fields: [...note.fields], tags: [...note.tags], modified: note.modified }
  return cardContentOf(ankiCard, ankiNote, ankiNotetypeOf(noteType), fields, deckName)
}

/**
 * A note's fields after an edit: the fields named take their new values, the others stay. A name
 * the note type lacks, or a note past the size a note may have, is refused.
 */
export function editedFields (noteType: Pick<NoteTypeContent, 'name' | 'fields'>, fields: readonly string[], changes: Readonly<Record<string, string>>, tags: readonly string[]): string[] {
  const unknown = Object.keys(changes).filter((name) => !noteType.fields.includes(name))
  if (unknown.length > 0) {
    throw new Refusal('invalid_field', `the note type ${quotedName(noteType.name)} has no field ${quotedName(unknown[0] as string)}: its fields are ${noteType.fields.map(quotedName).join(', ')}`)
  }
  const edited = noteType.fields.map((name, index) => Object.hasOwn(changes, name) ? changes[name] as string : fields[index] ?? '')
  const length = edited.reduce((sum, field) => sum + field.length, 0) + tags.reduce((sum, tag) => sum + tag.length + 1, 0)
  if (length > MAX_NOTE_TEXT) {
    throw new Refusal('invalid_field', `the note would hold ${length.toLocaleString('en')} characters of fields and tags, and a note may hold at most ${MAX_NOTE_TEXT.toLocaleString('en')}: shorten it`)
  }
  return edited
}

/** Whether edit-card's front and back are a note's two fields: a note type of one card, made of Front and Back, as Anki's Basic. */
export function isBasicNoteType (noteType: Pick<NoteTypeContent, 'kind' | 'fields' | 'templates'>): boolean {
  return noteType.kind === 'standard' && noteType.templates.length === 1 && noteType.fields.length === 2 &&
    noteType.fields[0] === 'Front' && noteType.fields[1] === 'Back'
}
