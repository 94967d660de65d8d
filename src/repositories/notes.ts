import type { ClientSession, Db, Filter } from 'mongodb'
import { oneBatch } from './batches.js'

/**
 * A note as Anki keeps it, brought by an Anki import: its note type, its fields as Anki wrote them
 * (media named by their file names, as in the package), its tags and Anki's ids. Its cards name it
 * in `noteID`; an export writes it back once, as it is, so that Anki finds the note it came from.
 */
export interface NoteDocument {
  /** the cards' noteID; a staged note that brings an account's note up to date has an id of its own and names that one in `replaces` */
  _id: string
  /** the account; an import's staging owner while staged */
  userID: string
  /** the note type (repositories/note-types.ts) */
  noteTypeID: string
  /** Anki's id of the note, and its guid, as the collection it came from has them */
  ankiID: number
  guid: string
  /** the fields' values, in the note type's order, HTML as Anki keeps it */
  fields: string[]
  tags: string[]
  /** when the note was last changed, epoch seconds: Anki's, or the time of an edit here */
  modified: number
  /** the media files the fields name, each file name with the media it is here */
  media?: Array<{ name: string, mediaID: string }>
  /** a staged note bringing this note of the account up to date */
  replaces?: string
  /**
   * the import that brought it: a new note is written under the account at once, no card of the
   * account naming it until the import is kept, and removed by this if the import is not kept
   */
  importID?: string
  createdAt: Date
}

/** How many staged notes are handed over in one write. */
const HAND_OVER_BATCH = 2000

export function notesRepository (db: Db, session?: ClientSession) {
  const notes = db.collection<NoteDocument>('notes')
  const inSession = { session }

  /** The notes of a note type after `after` (by id), at most `size`. Index user_noteType. */
  function pageOfNoteType (userID: string, noteTypeID: string, after: string | null, size: number): Promise<NoteDocument[]> {
    const filter: Filter<NoteDocument> = after === null ? { userID, noteTypeID } : { userID, noteTypeID, _id: { $gt: after } }
    return notes.find(filter, { sort: { _id: 1 }, limit: size, session }).toArray()
  }

  return {
    /** Stages notes for an import (`userID` its staging owner). */
    async stage (staged: readonly NoteDocument[]): Promise<void> {
      if (staged.length > 0) await notes.insertMany([...staged], { ordered: false, session })
    },

    /** These notes of the user, in no order. Index _id. */
    byIds (userID: string, noteIDs: readonly string[]): Promise<NoteDocument[]> {
      if (noteIDs.length === 0) return Promise.resolve([])
      return notes.find({ _id: { $in: [...noteIDs] }, userID }, { ...oneBatch(noteIDs.length + 1), session }).toArray()
    },

    /** When each of these notes of the user was last changed (epoch seconds), by id; a note the user lacks is left out. Index _id. */
    async modifiedOf (userID: string, noteIDs: readonly string[]): Promise<Map<string, number>> {
      if (noteIDs.length === 0) return new Map()
      const found = await notes.find({ _id: { $in: [...noteIDs] }, userID }, { projection: { modified: 1 }, ...oneBatch(noteIDs.length + 1), session }).toArray()
      return new Map(found.map((note) => [note._id, note.modified]))
    },

    findById (userID: string, noteID: string): Promise<NoteDocument | null> {
      return notes.findOne({ _id: noteID, userID }, inSession)
    },

    /** The notes of a note type, in batches of `size`, by id. Index user_noteType. */
    async * ofNoteType (userID: string, noteTypeID: string, size = HAND_OVER_BATCH): AsyncGenerator<NoteDocument[]> {
      let after: string | null = null
      for (;;) {
        const batch = await pageOfNoteType(userID, noteTypeID, after, size)
        if (batch.length === 0) return
        yield batch
        after = (batch.at(-1) as NoteDocument)._id
      }
    },

    pageOfNoteType,

    /** How many notes a note type has, counted up to `upTo`. Index user_noteType. */
    countOfNoteType (userID: string, noteTypeID: string, upTo: number): Promise<number> {
      return notes.countDocuments({ userID, noteTypeID }, { limit: upTo, session })
    },

    /** Sets many notes' fields at once, as changed at `modified`. */
    async setFieldsOfMany (userID: string, changes: ReadonlyArray<{ noteID: string, fields: string[] }>, modified: number): Promise<void> {
      if (changes.length === 0) return
      await notes.bulkWrite(changes.map(({ noteID, fields }) => ({ updateOne: { filter: { _id: noteID, userID }, update: { $set: { fields, modified } } } })), { ordered: false, session })
    },

    /** Sets a note's fields (and tags), as edited at `modified`; whether the user has it. */
    async setFields (userID: string, noteID: string, change: Pick<NoteDocument, 'fields' | 'modified'> & Partial<Pick<NoteDocument, 'tags' | 'media'>>): Promise<boolean> {
      return (await notes.updateOne({ _id: noteID, userID }, { $set: change }, inSession)).matchedCount === 1
    },

    /**
     * The notes an import staged, made the user's: a new one by its owner changed, one that brings
     * a note of the user up to date written over it (its creation kept) and the staged one removed.
     * A batch at a time; repeating it changes nothing more. Index user_guid (its prefix).
     */
    async handOver (owner: string, userID: string): Promise<void> {
      // the new notes are the user's already (importID): only those that bring a note up to date are staged
      for (;;) {
        const staged = await notes.find({ userID: owner, replaces: { $exists: true } }, { limit: HAND_OVER_BATCH, session }).toArray()
        if (staged.length === 0) break
        await notes.bulkWrite(staged.map(({ _id, replaces, createdAt, ...rest }) => ({
          updateOne: {
            filter: { _id: replaces as string, userID },
            // a note that names no media any more loses its list
            update: { $set: { ...rest, userID }, $setOnInsert: { createdAt }, ...(rest.media === undefined ? { $unset: { media: '' as const } } : {}) },
            upsert: true
          }
        })), { ordered: false, session })
        await notes.deleteMany({ _id: { $in: staged.map((note) => note._id) }, userID: owner }, inSession)
      }
    },

    /**
     * Removes what an import wrote (one that failed or was cancelled): its staged notes, and the
     * new notes it wrote under the user, a batch at a time. Indexes user_guid (its prefix) and import.
     */
    async removeStaged (owner: string, userID: string, importID: string): Promise<number> {
      let removed = 0
      for (const filter of [{ userID: owner }, { userID, importID }]) {
        for (;;) {
          const ids = (await notes.find(filter, { projection: { _id: 1 }, limit: HAND_OVER_BATCH, session }).toArray()).map((note) => note._id)
          if (ids.length === 0) break
          removed += (await notes.deleteMany({ _id: { $in: ids }, ...filter }, inSession)).deletedCount
        }
      }
      return removed
    },

    /** Removes notes of the user (once no card of them is left), a batch at a time. */
    async remove (userID: string, noteIDs: readonly string[]): Promise<number> {
      let removed = 0
      for (let start = 0; start < noteIDs.length; start += HAND_OVER_BATCH) {
        removed += (await notes.deleteMany({ _id: { $in: noteIDs.slice(start, start + HAND_OVER_BATCH) }, userID }, inSession)).deletedCount
      }
      return removed
    }
  }
}

export type NotesRepository = ReturnType<typeof notesRepository>
