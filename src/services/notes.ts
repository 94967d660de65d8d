import { fieldIsEmpty, renderCard, RenderedTooLong, TemplateError } from '../domain/anki/templates.js'
import { quotedName } from '../domain/names.js'
import { MAX_CARD_TEXT, MAX_NOTE_TYPES, MAX_NOTES_RESHAPED } from '../domain/limits.js'
import { noteGuid } from '../domain/anki/export.js'
import { newId } from '../domain/ids.js'
import { flashcardWithPath } from '../domain/library-tree.js'
import { cardOrdsOf, editedFields, keptCardContent, madeHereFields, madeHereNoteTypes, STOCK_NOTE_TYPES, stockOfMadeHere, type MadeHereKind } from '../domain/notes.js'
import { definitionProblem, editedNoteType, noteTypeIdOf, type NoteTypeChange, type NoteTypeContent, type NoteTypeDefinition, type NoteTypeEdit } from '../domain/note-types.js'
import { Refusal } from '../domain/refusals.js'
import type { CardContent, CardDocument } from '../repositories/cards.js'
import type { Repositories } from '../repositories/index.js'
import type { NoteDocument } from '../repositories/notes.js'
import type { NoteTypeDocument } from '../repositories/note-types.js'
import { addToUsageWithinQuotas, storeNewCards, type ServiceContext } from './context.js'
import { cardDocument, placeAfterLast, storedNoteContent } from './library.js'

function noNote (noteID: string): Refusal {
  return new Refusal('note_not_found', `no note ${noteID}: a card's noteID names its note, and a note goes with its last card`)
}

/** Runs a rendering of a note's cards; a template that renders past a side's size, or cannot be rendered, refused as such. */
function rendering<T> (work: () => T): T {
  try {
    return work()
  } catch (error) {
    if (error instanceof RenderedTooLong) throw new Refusal('invalid_field', `a card of the note would render ${error.message}, and a card side holds at most ${MAX_CARD_TEXT.toLocaleString('en')}: shorten the fields`)
    if (error instanceof TemplateError) throw new Refusal('invalid_field', `a card template of the note cannot be rendered: ${error.message}`)
    if (error instanceof RangeError) throw new Refusal('invalid_field', 'a card template of the note nests too deep or renders too much to be rendered')
    throw error
  }
}

function noNoteType (noteTypeID: string): Refusal {
  return new Refusal('note_type_not_found', `no note type ${noteTypeID}: get-note-types lists the account's`)
}

/** Anki's stock note types the account lacks by name, each with the id it has in the account. */
function stockMissing (userID: string, held: ReadonlyArray<Pick<NoteTypeContent, 'name'>>): Array<{ _id: string, content: NoteTypeContent }> {
  const names = new Set(held.map((noteType) => noteType.name))
  return STOCK_NOTE_TYPES.filter((stock) => !names.has(stock.name)).map((content) => ({ _id: noteTypeIdOf(userID, content.ankiID), content }))
}

/**
 * The account's note types, by name: those it keeps, and Anki's stock ones it has none of the name
 * of, which it is given when it first adds a note of one (ensureNoteType).
 */
export async function noteTypesOf (repositories: Repositories, userID: string): Promise<Array<NoteTypeContent & { _id: string }>> {
  const held = await repositories.noteTypes.ofUser(userID)
  const stock = stockMissing(userID, held).map(({ _id, content }) => ({ ...content, _id }))
  return [...held, ...stock].sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : a._id < b._id ? -1 : 1)
}

/** A note type of the account, a stock one stored the first time it is named; 404 for one it does not have. */
async function ensureNoteType (repositories: Repositories, userID: string, noteTypeID: string, now: Date): Promise<NoteTypeDocument> {
  const held = await repositories.noteTypes.findById(userID, noteTypeID)
  if (held !== null) return held
  const stock = stockMissing(userID, await repositories.noteTypes.ofUser(userID)).find((candidate) => candidate._id === noteTypeID)
  if (stock === undefined) throw noNoteType(noteTypeID)
  await repositories.noteTypes.ensure(userID, [stock], now)
  return await repositories.noteTypes.findById(userID, noteTypeID) ?? (() => { throw noNoteType(noteTypeID) })()
}

/** A flashcard's name as a template's {{Deck}} gives it: its place in the library, Anki's way (`Folder::Subfolder::Flashcard`). */
export type DeckNames = (flashcardID: string) => string

/** The names {{Deck}} gives the account's flashcards, read from its tree once. */
export async function deckNamesOf (repositories: Repositories, userID: string): Promise<DeckNames> {
  const tree = await repositories.trees.read(userID)
  const names = new Map<string, string>()
  return (flashcardID) => {
    let name = names.get(flashcardID)
    if (name === undefined) {
      const { flashcard, folder } = flashcardWithPath(tree, flashcardID)
      names.set(flashcardID, name = [...folder, flashcard.name].join('::'))
    }
    return name
  }
}

/**
 * New cards of a note, one for each of these ords, at the end of the flashcard: never reviewed, each
 * rendered from the note's fields by its template.
 */
function newNoteCards (userID: string, flashcardID: string, note: NoteDocument, noteType: NoteTypeDocument, ords: readonly number[], now: Date, deckNames: DeckNames): CardDocument[] {
  return ords.map((ord, index) => {
    const made = rendering(() => keptCardContent({ ankiOrd: ord }, note, noteType, deckNames(flashcardID)))
    // a card of a cloze note type shows a cloze deletion, unless it is an image occlusion's
    const sibling = { noteID: note._id, ...(made.kind === 'cloze' ? { clozeNumber: made.clozeNumber } : {}) }
    return {
      ...cardDocument(userID, flashcardID, storedNoteContent(made, noteType._id), null, now, index),
      ...sibling,
      noteTypeID: noteType._id,
      ankiGuid: note.guid,
      ankiOrd: ord,
      ...(note.tags.length > 0 ? { tags: note.tags } : {})
    }
  })
}

/** Stores new cards of a note after the flashcard's last, within the card quota. */
async function storeNoteCards (context: ServiceContext, repositories: Repositories, userID: string, flashcardID: string, documents: CardDocument[]): Promise<void> {
  if (documents.length === 0) return
  await placeAfterLast(repositories.cards, userID, flashcardID, documents)
  await storeNewCards(repositories, userID, documents)
  await addToUsageWithinQuotas(context, repositories.users, userID, { cards: documents.length })
}

/** A kept note with its note type and its cards; 404 when its note type is gone. */
async function keptNote (repositories: Repositories, userID: string, note: NoteDocument): Promise<{ note: NoteDocument, noteType: NoteTypeDocument, cards: CardDocument[] }> {
  const noteType = await repositories.noteTypes.findById(userID, note.noteTypeID)
  if (noteType === null) throw noNote(note._id)
  return { note, noteType, cards: await repositories.cards.ofNoteAnywhere(userID, note._id) }
}

/** A note of the user by its id: a kept one (an Anki import's, add-note's), else one made here; 404 for neither. */
export async function noteOf (repositories: Repositories, userID: string, noteID: string): Promise<{ kept: NoteDocument } | { made: MadeHereNote }> {
  const kept = await repositories.notes.findById(userID, noteID)
  if (kept !== null) return { kept }
  const made = await madeHereNote(repositories, userID, noteID)
  if (made === null) throw noNote(noteID)
  return { made }
}

/**
 * A note made here, which has no document of its own: the cards of a cloze note made here (they
 * share its noteID), or a card of a front and a back (a note of its own, under the card's id).
 * Null for an id of neither; the caller has looked for a kept note of the id first (noteOf).
 */
async function madeHereNote (repositories: Repositories, userID: string, noteID: string): Promise<MadeHereNote | null> {
  const siblings = await repositories.cards.ofNoteAnywhere(userID, noteID)
  if (siblings.length > 0) return siblings.every((card) => card.clozeNumber !== undefined) ? { kind: 'cloze', cards: siblings } : null
  const [card] = await repositories.cards.byIds(userID, [noteID])
  return card === undefined || card.noteID !== undefined ? null : { kind: 'basic', cards: [card] }
}

export interface MadeHereNote {
  kind: MadeHereKind
  /** by cloze number; at least one */
  cards: CardDocument[]
}

/** The note type a note made here is of: the account's own Basic or Cloze, where an import brought one, else Anki's stock one (as export-anki writes it). */
async function madeHereNoteTypeID (repositories: Repositories, userID: string, kind: MadeHereKind): Promise<string> {
  return madeHereNoteTypes(await repositories.noteTypes.ofUser(userID))[kind]?._id ?? noteTypeIdOf(userID, stockOfMadeHere(kind).ankiID)
}

/**
 * Changes the fields named of a kept note (the others stay) and, when given, its tags, in the
 * caller's transaction: every card of the note shows the change and keeps its schedule, and a
 * template (or cloze number) the edit filled makes its card, as Anki's optional reversed card.
 */
export async function editKeptNote (context: ServiceContext, repositories: Repositories, userID: string, found: NoteDocument,
  change: { fields?: Record<string, string>, tags?: string[] }) {
  const kept = await keptNote(repositories, userID, found)
  const tags = change.tags ?? kept.note.tags
  const fields = editedFields(kept.noteType, kept.note.fields, change.fields ?? {}, tags)
  const now = context.clock()
  const deckNames = await deckNamesOf(repositories, userID)
  const cards = await rewriteNote(repositories, userID, kept, fields, tags, now, deckNames)
  const before = new Set(rendering(() => cardOrdsOf(kept.noteType, kept.note.fields)))
  const had = new Set(kept.cards.map((card) => card.clozeNumber === undefined ? card.ankiOrd ?? 0 : card.clozeNumber - 1))
  const filled = rendering(() => cardOrdsOf(kept.noteType, fields)).filter((ord) => !before.has(ord) && !had.has(ord))
  const home = kept.cards[0]?.flashcardID
  const added = home === undefined ? [] : newNoteCards(userID, home, { ...kept.note, fields, tags }, kept.noteType, filled, now, deckNames)
  if (home !== undefined) await storeNoteCards(context, repositories, userID, home, added)
  return { noteID: kept.note._id, cardIDs: [...cards, ...added].map((card) => card._id), added: added.map((card) => card._id), removed: [] as string[] }
}

/**
 * A kept note given new fields (and tags): every card of it rendered again from them by its
 * template, its schedule, standing and history kept, and the note marked changed now, so that an
 * export brings the change to Anki. The note's cards as they are now.
 */
export async function rewriteNote (repositories: Repositories, userID: string, kept: { note: NoteDocument, noteType: NoteTypeDocument, cards: readonly CardDocument[] },
  fields: string[], tags: string[], now: Date, deckNames: DeckNames): Promise<CardDocument[]> {
  const { note, noteType, cards } = kept
  const edited = { ...note, fields, tags }
  const byFlashcard = new Map<string, Array<{ cardID: string, content: CardContent }>>()
  const changed: CardDocument[] = []
  for (const card of cards) {
    const content = storedNoteContent(rendering(() => keptCardContent(card, edited, noteType, deckNames(card.flashcardID))), noteType._id)
    const written = { ...content, noteTypeID: noteType._id, ...(tags.length > 0 ? { tags } : {}) }
    let list = byFlashcard.get(card.flashcardID)
    if (list === undefined) byFlashcard.set(card.flashcardID, list = [])
    list.push({ cardID: card._id, content: written })
    // the card as it is now: a field the new content lacks is gone
    const rewritten: CardDocument = { ...card, ...written }
    if (written.html === undefined) delete rewritten.html
    if (written.media === undefined) delete rewritten.media
    if (tags.length === 0) delete rewritten.tags
    changed.push(rewritten)
  }
  for (const [flashcardID, changes] of byFlashcard) await repositories.cards.setContents(userID, flashcardID, changes)
  if (tags.length === 0) await repositories.cards.dropTags(userID, note._id)
  await repositories.notes.setFields(userID, note._id, { fields, tags, modified: Math.floor(now.getTime() / 1000) })
  return changed
}

/** A note type as every answer gives it. */
export function noteTypeShown (noteType: NoteTypeContent & { _id: string, rendering?: unknown }) {
  return {
    noteTypeID: noteType._id,
    name: noteType.name,
    kind: noteType.kind,
    fields: noteType.fields,
    templates: noteType.templates,
    css: noteType.css,
    sortField: String(noteType.sortField),
    ...(noteType.rendering === undefined ? {} : { rendering: 'true' as const })
  }
}

/** Refuses a note type Anki would refuse, or one past the limits, saying why. */
function checkedDefinition (noteType: NoteTypeDefinition): void {
  const problem = definitionProblem(noteType, (template, fields) => renderCard({
    fieldNames: [...fields],
    fieldValues: fields.map(() => 'x'),
    questionFormat: template.front,
    answerFormat: template.back,
    cloze: noteType.kind === 'cloze',
    cardOrd: 0,
    tags: [],
    notetypeName: noteType.name,
    deckName: '',
    templateName: '',
    maxLength: MAX_CARD_TEXT
  }))
  if (problem !== null) throw new Refusal('invalid_field', problem)
}

/** Refuses a name another of the account's note types (or a stock one it is offered) has. */
function checkNameFree (held: ReadonlyArray<{ _id: string, name: string }>, name: string, except?: string): void {
  if (held.some((noteType) => noteType.name === name && noteType._id !== except)) {
    throw new Refusal('name_taken', `the account has a note type named ${quotedName(name)} already (get-note-types): give this one another name`)
  }
}

function inUse (message: string): Refusal {
  return new Refusal('note_type_in_use', `${message}: send confirm: true to go ahead`)
}

/** What an edit of a note type did: its cards to delete (of templates it dropped), those it added, how many notes it rendered again. */
export interface NoteTypeEdited {
  noteType: NoteTypeDocument
  dropped: Array<{ flashcardID: string, cardID: string }>
  added: string[]
  notes: number
}

/** How many notes edit-note-type reads and writes at a time, each batch of a change of CSS or template text in a transaction of its own. */
export const NOTE_BATCH = 500

/**
 * An edit of a note type decided: the note type as it will be, and what becomes of each field and
 * template it had. `reshapes`: fields or templates added, dropped or moved (a rename is not), which change
 * every note and card of it at once; otherwise only the cards' rendering changes (or nothing, for
 * CSS and sort field).
 */
export interface NoteTypePlan {
  noteType: NoteTypeDocument
  edit: NoteTypeEdit
  reshapes: boolean
  rendersAgain: boolean
  modified: number
}

function isIdentity (from: ReadonlyArray<number | null>, length: number): boolean {
  return from.length === length && from.every((index, position) => index === position)
}

/**
 * Decides an edit of a note type and writes the note type (edit-note-type), in the caller's
 * transaction: refused as Anki would refuse the note type; refused when it reshapes a note type of
 * more notes than one transaction changes (MAX_NOTES_RESHAPED); refused unless `confirm` when it
 * drops a field that holds text or a template that has cards, counted before anything is written.
 */
export async function planNoteTypeEdit (context: ServiceContext, repositories: Repositories, userID: string, noteTypeID: string, change: NoteTypeChange, confirm: boolean): Promise<NoteTypePlan> {
  const now = context.clock()
  const current = await ensureNoteType(repositories, userID, noteTypeID, now)
  const edit = editedNoteType(current, change)
  checkedDefinition(edit.content)
  if (change.name !== undefined) checkNameFree(await noteTypesOf(repositories, userID), change.name, noteTypeID)
  const modified = Math.floor(now.getTime() / 1000)
  // the edited note type as it will be, without a rendering of an earlier edit
  const noteType: NoteTypeDocument = { ...current, ...edit.content, fields: [...edit.content.fields], templates: [...edit.content.templates], modified, updatedAt: now }
  delete noteType.rendering
  const reshapes = !isIdentity(edit.fieldFrom, current.fields.length) || !isIdentity(edit.templateFrom, current.templates.length)
  const rendersAgain = change.name !== undefined || change.fields !== undefined || change.templates !== undefined
  const plan = { noteType, edit, reshapes, rendersAgain, modified }

  if (reshapes) {
    const notes = await repositories.notes.countOfNoteType(userID, noteTypeID, MAX_NOTES_RESHAPED + 1)
    if (notes > MAX_NOTES_RESHAPED) {
      throw new Refusal('note_type_too_large', `${quotedName(current.name)} has more than ${MAX_NOTES_RESHAPED.toLocaleString('en')} notes, and adding, dropping or moving its fields or templates changes every one at once: ` +
        'make a note type of the new shape and move the notes in Anki, or change only names, CSS and the text of its templates, which have no such limit')
    }
  }
  if (!confirm && (edit.droppedFields.length > 0 || edit.droppedTemplates.length > 0)) {
    let filled = 0
    let cardsLost = 0
    for await (const notes of repositories.notes.ofNoteType(userID, noteTypeID, NOTE_BATCH)) {
      filled += notes.filter((note) => edit.droppedFields.some((index) => !fieldIsEmpty(note.fields[index] ?? ''))).length
      if (edit.droppedTemplates.length > 0) cardsLost += (await repositories.cards.ofNotes(userID, notes.map((note) => note._id))).filter((card) => newOrdOf(plan, card) === null).length
    }
    const lost = [
      ...(filled > 0 ? [`${filled.toLocaleString('en')} notes hold text in the fields it drops (${edit.droppedFields.map((index) => quotedName(current.fields[index] as string)).join(', ')})`] : []),
      ...(cardsLost > 0 ? [`${cardsLost.toLocaleString('en')} cards of the templates it drops (${edit.droppedTemplates.map((index) => quotedName(current.templates[index]?.name as string)).join(', ')}) would be deleted with their schedules`] : [])
    ]
    if (lost.length > 0) throw inUse(`the change to ${quotedName(current.name)} would lose what is kept: ${lost.join('; ')}`)
  }
  await repositories.noteTypes.rewrite(userID, noteTypeID, { ankiID: current.ankiID, ...edit.content, fields: noteType.fields, templates: noteType.templates }, modified, now)
  return plan
}

/** The template a card is of once the note type is edited, or null for one of a dropped template. */
function newOrdOf (plan: Pick<NoteTypePlan, 'noteType' | 'edit'>, card: CardDocument): number | null {
  if (plan.noteType.kind === 'cloze') return card.ankiOrd ?? 0
  const ord = plan.edit.templateFrom.indexOf(card.ankiOrd ?? 0)
  return ord === -1 ? null : ord
}

/**
 * Brings notes of an edited note type to it, in the caller's transaction: each note's fields in
 * the new order (a renamed one keeps its text, a new one is empty), each card rendered again by
 * its template with its schedule kept, a template its fields fill that it had no card of making
 * one (as Anki makes it). The cards of dropped templates are named in `dropped`, for the caller to
 * delete. Rendering a note twice gives the same cards: a batch cut off is run again whole.
 */
export async function renderNotesAgain (context: ServiceContext, repositories: Repositories, userID: string, plan: NoteTypePlan, notes: readonly NoteDocument[], result: NoteTypeEdited): Promise<void> {
  const { noteType, edit } = plan
  const now = context.clock()
  const deckNames = await deckNamesOf(repositories, userID)
  const cardsOf = new Map<string, CardDocument[]>()
  for (const card of await repositories.cards.ofNotes(userID, notes.map((note) => note._id))) {
    cardsOf.set(card.noteID as string, [...(cardsOf.get(card.noteID as string) ?? []), card])
  }
  const fieldChanges: Array<{ noteID: string, fields: string[] }> = []
  const byFlashcard = new Map<string, Array<{ cardID: string, content: CardContent & { ankiOrd?: number } }>>()
  for (const note of notes) {
    const fields = edit.fieldFrom.map((index) => index === null ? '' : note.fields[index] ?? '')
    if (plan.reshapes) fieldChanges.push({ noteID: note._id, fields })
    const edited = { ...note, fields }
    const cards = cardsOf.get(note._id) ?? []
    const had = new Set<number>()
    for (const card of cards) {
      const ord = newOrdOf(plan, card)
      if (ord === null) {
        result.dropped.push({ flashcardID: card.flashcardID, cardID: card._id })
        continue
      }
      had.add(card.clozeNumber === undefined ? ord : card.clozeNumber - 1)
      const content = storedNoteContent(rendering(() => keptCardContent({ ...card, ankiOrd: ord }, edited, noteType, deckNames(card.flashcardID))), noteType._id)
      let list = byFlashcard.get(card.flashcardID)
      if (list === undefined) byFlashcard.set(card.flashcardID, list = [])
      list.push({ cardID: card._id, content: { ...content, noteTypeID: noteType._id, ...(note.tags.length > 0 ? { tags: note.tags } : {}), ...(card.ankiOrd === ord ? {} : { ankiOrd: ord }) } })
    }
    const home = cards[0]?.flashcardID
    const missing = rendering(() => cardOrdsOf(noteType, fields)).filter((ord) => !had.has(ord))
    if (home !== undefined && missing.length > 0) {
      const made = newNoteCards(userID, home, edited, noteType, missing, now, deckNames)
      await storeNoteCards(context, repositories, userID, home, made)
      result.added.push(...made.map((card) => card._id))
    }
  }
  for (const [flashcardID, changes] of byFlashcard) await repositories.cards.setContents(userID, flashcardID, changes)
  await repositories.notes.setFieldsOfMany(userID, fieldChanges, plan.modified)
  result.notes += notes.length
}

/**
 * One step of deleting a note type (delete-note-type), in the caller's transaction: refused for one
 * the account does not keep (404, or 409 for a stock one it never stored) and, without `confirm`,
 * for one with notes (409). The cards of its next NOTE_BATCH notes, for the caller to delete (a note
 * goes with its last card; one without cards goes here); none once it has no notes left, when the
 * note type itself goes.
 */
export async function noteTypeDeletionStep (repositories: Repositories, userID: string, noteTypeID: string, confirm: boolean): Promise<Array<{ flashcardID: string, cardID: string }>> {
  const held = await repositories.noteTypes.findById(userID, noteTypeID)
  if (held === null) {
    if (stockMissing(userID, await repositories.noteTypes.ofUser(userID)).some((stock) => stock._id === noteTypeID)) {
      throw new Refusal('stock_note_type', `${noteTypeID} is one of Anki's stock note types, which every account is offered: the account keeps none of it, so there is nothing to delete`)
    }
    throw noNoteType(noteTypeID)
  }
  const notes = await repositories.notes.pageOfNoteType(userID, noteTypeID, null, NOTE_BATCH)
  if (notes.length > 0 && !confirm) throw inUse(`the note type ${quotedName(held.name)} has notes, which would be deleted with their cards and schedules`)
  if (notes.length === 0) {
    await repositories.noteTypes.remove(userID, noteTypeID)
    return []
  }
  const cards = await repositories.cards.ofNotes(userID, notes.map((note) => note._id))
  const withCards = new Set(cards.map((card) => card.noteID))
  await repositories.notes.remove(userID, notes.filter((note) => !withCards.has(note._id)).map((note) => note._id))
  return cards.map((card) => ({ flashcardID: card.flashcardID, cardID: card._id }))
}

/** The notes Anki imports brought: read one, change its fields and tags. */
export function notesService (context: ServiceContext) {
  return {
    /** The account's note types, by name: those Anki imports brought, and Anki's stock ones it has none of the name of. */
    async noteTypes (userID: string) {
      const noteTypes = await noteTypesOf(context.repositories, userID)
      return { noteTypes: noteTypes.map(noteTypeShown) }
    },

    /** Keeps a note type the client defines, as Anki would keep it, under a new Anki id: its notes are added with add-note. */
    async createNoteType (userID: string, request: { name: string, kind?: 'standard' | 'cloze', fields: string[], templates: Array<{ name: string, front: string, back: string }>, css?: string, sortField?: number }) {
      const definition: NoteTypeDefinition = {
        name: request.name,
        kind: request.kind ?? 'standard',
        fields: request.fields,
        templates: request.templates,
        css: request.css ?? STOCK_NOTE_TYPES[0]?.css ?? '',
        sortField: request.sortField ?? 0
      }
      checkedDefinition(definition)
      return await context.userTransaction(userID, async (repositories) => {
        const now = context.clock()
        const held = await repositories.noteTypes.ofUser(userID)
        checkNameFree(await noteTypesOf(repositories, userID), definition.name)
        if (held.length >= MAX_NOTE_TYPES) throw new Refusal('quota_exceeded', `an account keeps at most ${MAX_NOTE_TYPES.toLocaleString('en')} note types: delete one first`)
        // Anki's ids are times in milliseconds: the first after now that no note type of the account, or stock one, has
        const taken = new Set([...held, ...STOCK_NOTE_TYPES].map((noteType) => noteType.ankiID))
        let ankiID = now.getTime()
        while (taken.has(ankiID)) ankiID += 1
        const document: NoteTypeDocument = {
          ...definition,
          fields: [...definition.fields],
          templates: definition.templates.map(({ name, front, back }) => ({ name, front, back })),
          ankiID,
          _id: noteTypeIdOf(userID, ankiID),
          userID,
          modified: Math.floor(now.getTime() / 1000),
          createdAt: now,
          updatedAt: now
        }
        await repositories.noteTypes.create(document)
        return noteTypeShown(document)
      })
    },

    /**
     * Adds a note of one of the account's note types to a flashcard, with the cards its fields make
     * (a card for each template whose question they fill, or each cloze number): all or nothing.
     */
    async addNote (userID: string, request: { flashcardID: string, noteTypeID: string, fields: Record<string, string>, tags?: string[] }) {
      return await context.userTransaction(userID, async (repositories) => {
        const now = context.clock()
        const deckNames = await deckNamesOf(repositories, userID)
        deckNames(request.flashcardID)
        const noteType = await ensureNoteType(repositories, userID, request.noteTypeID, now)
        const tags = request.tags ?? []
        const fields = editedFields(noteType, [], request.fields, tags)
        const ords = rendering(() => cardOrdsOf(noteType, fields))
        if (ords.length === 0) {
          throw new Refusal('invalid_field', noteType.kind === 'cloze'
            ? 'the note has no cloze deletion ({{c1::…}}), and makes no card: add one'
            : `the note makes no card: each card template of ${quotedName(noteType.name)} asks a field left empty`)
        }
        const noteID = newId()
        // the note's Anki id is handed out as its cards' are (storeNewCards), never one of the account's twice
        const ankiID = await repositories.users.takeAnkiIDs(userID, 1, now)
        const note: NoteDocument = { _id: noteID, userID, noteTypeID: noteType._id, ankiID, guid: noteGuid(noteID), fields, tags, modified: Math.floor(now.getTime() / 1000), createdAt: now }
        const cards = newNoteCards(userID, request.flashcardID, note, noteType, ords, now, deckNames)
        await repositories.notes.stage([note])
        await storeNoteCards(context, repositories, userID, request.flashcardID, cards)
        return { noteID, cardIDs: cards.map((card) => card._id) }
      })
    },

    /** A note: a kept one (an Anki import's, add-note's), or one made here, shown as a note of Basic or Cloze. */
    async getNote (userID: string, noteID: string) {
      const { repositories } = context
      const found = await noteOf(repositories, userID, noteID)
      if ('made' in found) {
        const { made } = found
        const first = made.cards[0] as CardDocument
        const names = stockOfMadeHere(made.kind).fields
        return {
          noteID,
          noteTypeID: await madeHereNoteTypeID(repositories, userID, made.kind),
          fields: Object.fromEntries(madeHereFields(first).map((value, index) => [names[index] as string, value])),
          tags: first.tags ?? [],
          cardIDs: made.cards.map((card) => card._id)
        }
      }
      const { note, noteType, cards } = await keptNote(repositories, userID, found.kept)
      return {
        noteID: note._id,
        noteTypeID: noteType._id,
        fields: Object.fromEntries(noteType.fields.map((name, index) => [name, note.fields[index] ?? ''])),
        tags: note.tags,
        cardIDs: cards.map((card) => card._id)
      }
    }
  }
}

export type NotesService = ReturnType<typeof notesService>
