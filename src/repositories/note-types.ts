import type { ClientSession, Db } from 'mongodb'
import { checkedNoteType, type NoteTypeContent } from '../domain/note-types.js'

/** A note type an account keeps (domain/note-types.ts), or one an import has staged for it. */
export interface NoteTypeDocument extends NoteTypeContent {
  /** noteTypeIdOf(the account, ankiID); a staged one has an id of its own and names this one in `noteTypeID` */
  _id: string
  /** the account; an import's staging owner while staged */
  userID: string
  /** a staged note type: the id it takes when the import is kept */
  noteTypeID?: string
  /** when edit-note-type last changed it, epoch seconds: an export gives it, so that Anki takes the change (absent: changed only in Anki) */
  modified?: number
  /**
   * its cards being rendered again after an edit of its templates' text (services/note-type-renders.ts):
   * `run` names this rendering (a later edit starts another), `after` the last note done (by id),
   * `holder` the instance doing it until `until`, past which any instance takes it over
   */
  rendering?: NoteTypeRendering
  createdAt: Date
  updatedAt: Date
}

export interface NoteTypeRendering { run: string, after: string | null, holder: string, until: Date }

export function noteTypesRepository (db: Db, session?: ClientSession) {
  const noteTypes = db.collection<NoteTypeDocument>('noteTypes')
  const inSession = { session }

  return {
    /** The account's note types, by name. Index user_name. */
    ofUser (userID: string): Promise<NoteTypeDocument[]> {
      return noteTypes.find({ userID }, { ...inSession, sort: { name: 1, _id: 1 } }).toArray()
    },

    /** One note type of the account. Index _id. */
    findById (userID: string, noteTypeID: string): Promise<NoteTypeDocument | null> {
      return noteTypes.findOne({ _id: noteTypeID, userID }, inSession)
    },

    /** Gives the account these note types, each unless it has it already (by id). */
    async ensure (userID: string, wanted: ReadonlyArray<{ _id: string, content: NoteTypeContent }>, now: Date): Promise<void> {
      if (wanted.length === 0) return
      await noteTypes.bulkWrite(wanted.map(({ _id, content }) => ({
        updateOne: { filter: { _id, userID }, update: { $setOnInsert: { ...checkedNoteType(content), createdAt: now, updatedAt: now } }, upsert: true }
      })), { ordered: false, session })
    },

    /** How many note types the account keeps, and which of these ids it has. Index user_name, then _id. */
    async held (userID: string, noteTypeIDs: readonly string[]): Promise<{ count: number, found: Set<string> }> {
      const count = await noteTypes.countDocuments({ userID }, inSession)
      const found = await noteTypes.find({ _id: { $in: [...noteTypeIDs] }, userID }, { ...inSession, projection: { _id: 1 } }).toArray()
      return { count, found: new Set(found.map((document) => document._id)) }
    },

    /** Keeps a note type a client defined (create-note-type). */
    async create (document: NoteTypeDocument): Promise<void> {
      await noteTypes.insertOne({ ...document, ...checkedNoteType(document) }, inSession)
    },

    /** A note type's content after edit-note-type, changed at `modified` (epoch seconds). */
    async rewrite (userID: string, noteTypeID: string, content: NoteTypeContent, modified: number, now: Date): Promise<void> {
      await noteTypes.updateOne({ _id: noteTypeID, userID }, { $set: { ...checkedNoteType(content), modified, updatedAt: now } }, inSession)
    },

    /** Starts rendering a note type's cards again from its first note, as `run`, held by `holder` until `until`; a rendering under way is ended by it. */
    async beginRendering (userID: string, noteTypeID: string, rendering: NoteTypeRendering): Promise<void> {
      await noteTypes.updateOne({ _id: noteTypeID, userID }, { $set: { rendering } }, inSession)
    },

    /** Notes a rendering's progress and renews its hold; false when the rendering is no longer `run` (a later edit, or ended). */
    async advanceRendering (userID: string, noteTypeID: string, run: string, after: string, holder: string, until: Date): Promise<boolean> {
      return (await noteTypes.updateOne({ _id: noteTypeID, userID, 'rendering.run': run }, { $set: { 'rendering.after': after, 'rendering.holder': holder, 'rendering.until': until } }, inSession)).matchedCount === 1
    },

    /** Ends a rendering done (or no longer wanted: a reshaping rendered every card itself). */
    async endRendering (userID: string, noteTypeID: string, run?: string): Promise<void> {
      await noteTypes.updateOne({ _id: noteTypeID, userID, ...(run === undefined ? {} : { 'rendering.run': run }) }, { $unset: { rendering: '' } }, inSession)
    },

    /** Takes over a rendering whose holder stopped renewing it; null when there is none. Index rendering_until. */
    async takeOverRendering (holder: string, now: Date, until: Date): Promise<NoteTypeDocument | null> {
      return await noteTypes.findOneAndUpdate({ 'rendering.until': { $lt: now } }, { $set: { 'rendering.holder': holder, 'rendering.until': until } }, { ...inSession, returnDocument: 'after' })
    },

    /** Removes a note type of the account (delete-note-type, once no note is of it). */
    async remove (userID: string, noteTypeID: string): Promise<boolean> {
      return (await noteTypes.deleteOne({ _id: noteTypeID, userID }, inSession)).deletedCount === 1
    },

    /** Stages note types for an import (`owner`: its staging owner), each checked against the limits; each takes its id when the import is kept. */
    async stage (owner: string, staged: ReadonlyArray<{ _id: string, noteTypeID: string, content: NoteTypeContent }>, now: Date): Promise<void> {
      if (staged.length === 0) return
      await noteTypes.insertMany(staged.map(({ _id, noteTypeID, content }) => ({
        ...checkedNoteType(content), _id, userID: owner, noteTypeID, createdAt: now, updatedAt: now
      })), inSession)
    },

    /**
     * The note types an import staged, made the account's: a new one added, one the account has
     * brought up to date (its id and creation kept); the staged ones removed. Repeating it changes nothing more.
     */
    async handOver (owner: string, userID: string): Promise<void> {
      for (const staged of await noteTypes.find({ userID: owner }, inSession).toArray()) {
        const { _id: stagedID, noteTypeID, createdAt, ...rest } = staged
        if (noteTypeID === undefined) continue
        await noteTypes.updateOne({ _id: noteTypeID, userID }, { $set: { ...rest, userID }, $setOnInsert: { createdAt } }, { ...inSession, upsert: true })
        await noteTypes.deleteOne({ _id: stagedID, userID: owner }, inSession)
      }
    },

    /** Removes what an import staged (one that failed or was cancelled). */
    async removeStaged (owner: string): Promise<number> {
      return (await noteTypes.deleteMany({ userID: owner }, inSession)).deletedCount
    }
  }
}

export type NoteTypesRepository = ReturnType<typeof noteTypesRepository>
