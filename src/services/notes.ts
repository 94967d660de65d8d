import { RenderedTooLong, TemplateError } from '../domain/anki/templates.js'
import { renderingOf } from '../domain/card-html.js'
import { MAX_CARD_TEXT } from '../domain/limits.js'
import { editedFields, keptCardContent } from '../domain/notes.js'
import { Refusal } from '../domain/refusals.js'
import type { CardContent, CardDocument } from '../repositories/cards.js'
import type { Repositories } from '../repositories/index.js'
import type { NoteDocument } from '../repositories/notes.js'
import type { NoteTypeDocument } from '../repositories/note-types.js'
import type { ServiceContext } from './context.js'
import { storedContent } from './library.js'

function noNote (noteID: string): Refusal {
  return new Refusal('note_not_found', `no note ${noteID}: notes are those Anki imports brought, and a note goes with its last card`)
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
    const made = rendering(() => keptCardContent(card, edited, noteType, ''))
    const options = renderingOf({ noteTypeID: noteType._id })
    const content: CardContent = made.kind === 'cloze'
      ? storedContent(made.cloze, made.back, 'html', made.clozeNumber, options)
      : storedContent(made.front, made.back, 'html', undefined, options)
    const written = { ...content, noteTypeID: noteType._id, ...(tags.length > 0 ? { tags } : {}) }
    let list = byFlashcard.get(card.flashcardID)
    if (list === undefined) byFlashcard.set(card.flashcardID, list = [])
    list.push({ cardID: card._id, content: written })
    const { html, media, tags: _, ...rest } = card
    changed.push({ ...rest, ...written })
  }
  for (const [flashcardID, changes] of byFlashcard) await repositories.cards.setContents(userID, flashcardID, changes)
  if (tags.length === 0) await repositories.cards.dropTags(userID, note._id)
  await repositories.notes.setFields(userID, note._id, { fields, tags, modified: Math.floor(now.getTime() / 1000) })
  return changed
}

/** The notes Anki imports brought: read one, change its fields and tags. */
export function notesService (context: Pick<ServiceContext, 'clock' | 'userTransaction' | 'repositories'>) {
  return {
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
        const cards = await rewriteNote(repositories, userID, kept, fields, tags, context.clock())
        return { noteID: kept.note._id, cardIDs: cards.map((card) => card._id), added: [] as string[], removed: [] as string[] }
      })
    }
  }
}

export type NotesService = ReturnType<typeof notesService>
