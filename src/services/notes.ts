import { RenderedTooLong, TemplateError } from '../domain/anki/templates.js'
import { quotedName } from '../domain/names.js'
import { MAX_CARD_TEXT } from '../domain/limits.js'
import { noteGuid } from '../domain/anki/export.js'
import { newId } from '../domain/ids.js'
import { flashcardWithPath } from '../domain/library-tree.js'
import { cardOrdsOf, editedFields, keptCardContent, STOCK_NOTE_TYPES } from '../domain/notes.js'
import { noteTypeIdOf, type NoteTypeContent } from '../domain/note-types.js'
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

/**
 * New cards of a note, one for each of these ords, at the end of the flashcard: never reviewed, each
 * rendered from the note's fields by its template.
 */
function newNoteCards (userID: string, flashcardID: string, note: NoteDocument, noteType: NoteTypeDocument, ords: readonly number[], now: Date): CardDocument[] {
  return ords.map((ord, index) => {
    const made = rendering(() => keptCardContent({ ankiOrd: ord }, note, noteType, ''))
    // a card of a cloze note type shows a cloze deletion, unless it is an image occlusion's
    const sibling = { noteID: note._id, ...(made.kind === 'cloze' ? { clozeNumber: made.clozeNumber } : {}) }
    return {
      ...cardDocument(userID, flashcardID, storedNoteContent(made, noteType._id), null, now, index),
      ...sibling,
      noteTypeID: noteType._id,
      ankiGuid: note.guid,
      ankiOrd: ord,
      ankiID: now.getTime() + index,
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

/** A kept note, its note type and its cards, the user's; 404 for a note the user lacks. */
async function keptNote (repositories: Repositories, userID: string, noteID: string): Promise<{ note: NoteDocument, noteType: NoteTypeDocument, cards: CardDocument[] }> {
  const note = await repositories.notes.findById(userID, noteID)
  const noteType = note === null ? null : await repositories.noteTypes.findById(userID, note.noteTypeID)
  if (note === null || noteType === null) throw noNote(noteID)
  return { note, noteType, cards: await repositories.cards.ofNoteAnywhere(userID, noteID) }
}

/**
 * A kept note given new fields (and tags): every card of it rendered again from them by its
 * template, its schedule, standing and history kept, and the note marked changed now, so that an
 * export brings the change to Anki. The note's cards as they are now.
 */
export async function rewriteNote (repositories: Repositories, userID: string, kept: { note: NoteDocument, noteType: NoteTypeDocument, cards: readonly CardDocument[] },
  fields: string[], tags: string[], now: Date): Promise<CardDocument[]> {
  const { note, noteType, cards } = kept
  const edited = { ...note, fields, tags }
  const byFlashcard = new Map<string, Array<{ cardID: string, content: CardContent }>>()
  const changed: CardDocument[] = []
  for (const card of cards) {
    const content = storedNoteContent(rendering(() => keptCardContent(card, edited, noteType, '')), noteType._id)
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

/** The notes Anki imports brought: read one, change its fields and tags. */
export function notesService (context: ServiceContext) {
  return {
    /** The account's note types, by name: those Anki imports brought, and Anki's stock ones it has none of the name of. */
    async noteTypes (userID: string) {
      const noteTypes = await noteTypesOf(context.repositories, userID)
      return {
        noteTypes: noteTypes.map((noteType) => ({
          noteTypeID: noteType._id,
          name: noteType.name,
          kind: noteType.kind,
          fields: noteType.fields,
          templates: noteType.templates,
          css: noteType.css,
          sortField: String(noteType.sortField)
        }))
      }
    },

    /**
     * Adds a note of one of the account's note types to a flashcard, with the cards its fields make
     * (a card for each template whose question they fill, or each cloze number): all or nothing.
     */
    async addNote (userID: string, request: { flashcardID: string, noteTypeID: string, fields: Record<string, string>, tags?: string[] }) {
      return await context.userTransaction(userID, async (repositories) => {
        const now = context.clock()
        flashcardWithPath(await repositories.trees.read(userID), request.flashcardID)
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
        const note: NoteDocument = { _id: noteID, userID, noteTypeID: noteType._id, ankiID: now.getTime(), guid: noteGuid(noteID), fields, tags, modified: Math.floor(now.getTime() / 1000), createdAt: now }
        const cards = newNoteCards(userID, request.flashcardID, note, noteType, ords, now)
        await repositories.notes.stage([note])
        await storeNoteCards(context, repositories, userID, request.flashcardID, cards)
        return { noteID, cardIDs: cards.map((card) => card._id) }
      })
    },

    async getNote (userID: string, noteID: string) {
      const { note, noteType, cards } = await keptNote(context.repositories, userID, noteID)
      return {
        noteID: note._id,
        noteTypeID: noteType._id,
        fields: Object.fromEntries(noteType.fields.map((name, index) => [name, note.fields[index] ?? ''])),
        tags: note.tags,
        cardIDs: cards.map((card) => card._id)
      }
    },

    /** Changes the fields named (the others stay) and, when given, the tags; every card of the note shows the change and keeps its schedule. */
    async editNote (userID: string, change: { noteID: string, fields?: Record<string, string>, tags?: string[] }) {
      if (change.fields === undefined && change.tags === undefined) {
        throw new Refusal('nothing_to_change', 'body has neither "fields" nor "tags": send what to change')
      }
      return await context.userTransaction(userID, async (repositories) => {
        const kept = await keptNote(repositories, userID, change.noteID)
        const tags = change.tags ?? kept.note.tags
        const fields = editedFields(kept.noteType, kept.note.fields, change.fields ?? {}, tags)
        const now = context.clock()
        const cards = await rewriteNote(repositories, userID, kept, fields, tags, now)
        // a template (or cloze number) the edit filled makes its card, as Anki's optional reversed card
        const before = new Set(rendering(() => cardOrdsOf(kept.noteType, kept.note.fields)))
        const had = new Set(kept.cards.map((card) => card.clozeNumber === undefined ? card.ankiOrd ?? 0 : card.clozeNumber - 1))
        const filled = rendering(() => cardOrdsOf(kept.noteType, fields)).filter((ord) => !before.has(ord) && !had.has(ord))
        const home = kept.cards[0]?.flashcardID
        const added = home === undefined ? [] : newNoteCards(userID, home, { ...kept.note, fields, tags }, kept.noteType, filled, now)
        if (home !== undefined) await storeNoteCards(context, repositories, userID, home, added)
        return { noteID: kept.note._id, cardIDs: [...cards, ...added].map((card) => card._id), added: added.map((card) => card._id), removed: [] as string[] }
      })
    }
  }
}

export type NotesService = ReturnType<typeof notesService>
