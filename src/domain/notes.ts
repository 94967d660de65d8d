/**
 * A note an Anki import kept, and the cards made from it: each card is one template of its note
 * type (or one cloze number), rendered from the note's fields by the template engine the import
 * renders with (anki/templates.ts, through cardContentOf), so that an edit of the note shows on
 * every card of it, as in Anki. Pure: stored values in, card content out.
 */
import { cardContentOf, RENDER_LIMIT, withMediaIds, type ImportedContent } from './anki-import.js'
import { clozeNumbers as ankiClozeNumbers } from './anki/cloze.js'
import { renderCard } from './anki/templates.js'
import { NOTETYPE_IDS } from './anki/writer.js'
import type { AnkiCard, AnkiNote, AnkiNotetype } from './anki/collection.js'
import { MAX_NOTE_TEXT } from './limits.js'
import type { NoteTypeContent } from './note-types.js'
import { quotedName } from './names.js'
import { Refusal } from './refusals.js'
import { sideHtml } from './card-html.js'
import type { TextFormat } from './card-content.js'

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

/**
 * The account's own note types that cards made here are notes of, where an import brought them
 * (a Basic of Front and Back, a Cloze of Text and Back Extra): export-anki writes those cards as
 * notes of them, so that Anki adds no second one, and get-note names them. Absent: Anki's stock one.
 */
export function madeHereNoteTypes<T extends Pick<NoteTypeContent, 'name' | 'kind' | 'fields' | 'templates'>> (held: Iterable<T>): { basic?: T, cloze?: T } {
  const types = [...held]
  const basic = types.find((noteType) => noteType.name === 'Basic' && isBasicNoteType(noteType))
  const cloze = types.find((noteType) => noteType.name === 'Cloze' && noteType.kind === 'cloze' && noteType.fields[0] === 'Text' && noteType.fields[1] === 'Back Extra')
  return { ...(basic === undefined ? {} : { basic }), ...(cloze === undefined ? {} : { cloze }) }
}

/**
 * The two fields of a note made here, as HTML, media as `media:<mediaID>`: a card's front and back
 * (Basic's Front and Back), or a cloze note's text and back extra (Cloze's Text and Back Extra).
 * Plain text is escaped (its line breaks `<br>`); HTML is reduced to the service's allowlist.
 */
export function madeHereFields (source: { front: string, back: string, format?: TextFormat }): [string, string] {
  const format = source.format ?? 'text'
  return [sideHtml(source.front, format), sideHtml(source.back, format)]
}

/**
 * Which cards a note makes, as Anki's card generation decides: of a standard note type, a card for
 * each template whose question renders with the note's fields (Anki's "empty card" rule: one that
 * names only empty fields makes none); of a cloze note type, a card for each cloze number its
 * fields hold. Each as Anki's ord: the template's, or the cloze number less one.
 */
export function cardOrdsOf (noteType: NoteTypeContent, fields: readonly string[]): number[] {
  if (noteType.kind === 'cloze') {
    const numbers = new Set<number>()
    for (const field of fields) for (const number of ankiClozeNumbers(field)) numbers.add(number)
    return [...numbers].sort((a, b) => a - b).map((number) => number - 1)
  }
  return noteType.templates.flatMap((template, ord) => renderCard({
    fieldNames: noteType.fields,
    fieldValues: [...fields],
    questionFormat: template.front,
    answerFormat: '',
    cloze: false,
    cardOrd: ord,
    tags: [],
    notetypeName: noteType.name,
    deckName: '',
    templateName: template.name,
    maxLength: RENDER_LIMIT
  }).empty ? [] : [ord])
}

const STOCK_CSS = '.card {\n    font-family: arial;\n    font-size: 20px;\n    line-height: 1.5;\n    text-align: center;\n    color: black;\n    background-color: white;\n}\n'
const BASIC_BACK = '{{FrontSide}}\n\n<hr id=answer>\n\n{{Back}}'

/**
 * Anki's stock note types, with its own names of them, of their fields and templates, and its CSS:
 * an account has them as soon as it adds a note (unless an import brought one of the name), each
 * under an id of its own in Anki (Basic and Cloze those that export-anki has always written).
 */
export const STOCK_NOTE_TYPES: readonly NoteTypeContent[] = [
  {
    ankiID: NOTETYPE_IDS.basic,
    name: 'Basic',
    kind: 'standard',
    fields: ['Front', 'Back'],
    templates: [{ name: 'Card 1', front: '{{Front}}', back: BASIC_BACK }],
    css: STOCK_CSS,
    sortField: 0
  },
  {
    ankiID: 1_700_000_000_103,
    name: 'Basic (and reversed card)',
    kind: 'standard',
    fields: ['Front', 'Back'],
    templates: [
      { name: 'Card 1', front: '{{Front}}', back: BASIC_BACK },
      { name: 'Card 2', front: '{{Back}}', back: '{{FrontSide}}\n\n<hr id=answer>\n\n{{Front}}' }
    ],
    css: STOCK_CSS,
    sortField: 0
  },
  {
    ankiID: 1_700_000_000_104,
    name: 'Basic (optional reversed card)',
    kind: 'standard',
    fields: ['Front', 'Back', 'Add Reverse'],
    templates: [
      { name: 'Card 1', front: '{{Front}}', back: BASIC_BACK },
      { name: 'Card 2', front: '{{#Add Reverse}}{{Back}}{{/Add Reverse}}', back: '{{FrontSide}}\n\n<hr id=answer>\n\n{{Front}}' }
    ],
    css: STOCK_CSS,
    sortField: 0
  },
  {
    ankiID: 1_700_000_000_105,
    name: 'Basic (type in the answer)',
    kind: 'standard',
    fields: ['Front', 'Back'],
    templates: [{ name: 'Card 1', front: '{{Front}}\n\n{{type:Back}}', back: '{{Front}}\n\n<hr id=answer>\n\n{{type:Back}}' }],
    css: STOCK_CSS,
    sortField: 0
  },
  {
    ankiID: NOTETYPE_IDS.cloze,
    name: 'Cloze',
    kind: 'cloze',
    fields: ['Text', 'Back Extra'],
    templates: [{ name: 'Cloze', front: '{{cloze:Text}}', back: '{{cloze:Text}}<br>\n{{Back Extra}}' }],
    css: `${STOCK_CSS}.cloze {\n    font-weight: bold;\n    color: blue;\n}\n.nightMode .cloze {\n    color: lightblue;\n}\n`,
    sortField: 0
  }
]

/** What a note made here is: a card of a front and a back (Basic), or the cards of a cloze note (Cloze). */
export type MadeHereKind = 'basic' | 'cloze'

/** Anki's stock note type a note made here is of, by its kind: Basic (Front, Back) or Cloze (Text, Back Extra). */
export function stockOfMadeHere (kind: MadeHereKind): NoteTypeContent {
  return STOCK_NOTE_TYPES.find((stock) => stock.name === (kind === 'basic' ? 'Basic' : 'Cloze')) as NoteTypeContent
}
