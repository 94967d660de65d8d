import type { ClientSession, Db, ObjectId } from 'mongodb'
import type { UpdateNotes } from '../domain/anki-import.js'
import type { LocalDay, UserCalendar } from '../domain/calendar.js'
import type { SiblingBurying } from '../domain/card-states.js'

/**
 * Where an import of an Anki package stands: `uploading` while its package arrives (it holds one of
 * the account's places before its importID is answered), shown as queued; `committing` is shown as running.
 */
export type ImportState = 'uploading' | 'queued' | 'running' | 'committing' | 'done' | 'failed'

/** The states of an import that holds one of its account's places. */
export const UNFINISHED: readonly ImportState[] = ['uploading', 'queued', 'running', 'committing']

/** A flashcard an import puts cards in: one it adds, or one the user has (found by folder and name). */
export interface PlannedFlashcard {
  flashcardID: string
  folder: string[]
  name: string
  existing: boolean
  /** the Anki deck ids the folders of `folder` made for it keep, and the flashcard's own (DeckPlacement); absent in plans staged before they were kept */
  folderAnkiIDs?: Array<number | null>
  ankiID?: number
  /** the cards staged into it and their characters of content (absent in plans staged before they were counted) */
  cards?: number
  contentCharacters?: number
}

/** A media file an import wrote into GridFS, to be recorded under this id when the import is kept. */
export interface PlannedMedia {
  mediaID: string
  fileId: ObjectId
  sha256: string
  bytes: number
  contentType: string
}

/** What an import makes visible in one step, once its cards and reviews are staged. */
export interface ImportPlan {
  flashcards: PlannedFlashcard[]
  media: PlannedMedia[]
  /** new cards staged under the import's owner */
  cards: number
  /** cards of notes the user has already (matched by guid) whose content is replaced */
  updated: number
  /** characters of content of the cards staged and the changes (absent in plans staged before it was counted) */
  contentCharacters?: number
  /**
   * imported answers by the user's day, and of them the first answers of new cards (absent in
   * plans staged before they were counted)
   */
  activity: Array<{ day: LocalDay, reviews: number, newCards?: number }>
  /** the calendar the days of `activity` are counted in (absent in plans staged before it was kept) */
  calendar?: UserCalendar
  /** the FSRS parameters and desired retention of the collection's main preset, adopted by the user */
  parameters?: number[]
  desiredRetention?: number
  /** which siblings that preset buries, adopted by the user (absent in plans staged before it was kept) */
  siblingBurying?: SiblingBurying
  firstNew?: { due: Date, createdOrder: number }
  firstDue?: Date
  /** when the cards buried in Anki come back (the learner's next day) */
  buriedUntil?: Date
  /** cards suspended in Anki, suspended here too */
  suspended: number
}

export interface ImportCounts { cards: number, notes: number, reviews: number, media: number }

export interface ImportDocument {
  _id: string
  userID: string
  state: ImportState
  percent: number
  counts: ImportCounts
  warnings: string[]
  error?: { code: string, message: string }
  /** how the import ended after a restart: finished, or cleaned away */
  recovered?: 'finished' | 'cleaned'
  /** updateNotes absent: an import queued before it was asked for, which takes the default */
  request: { folder: string[], withScheduling: boolean, updateNotes?: UpdateNotes, fileName: string, path: string }
  /** the instance running it, and until when it holds the import without renewing */
  holder: string
  until: Date
  plan?: ImportPlan
  createdAt: Date
  updatedAt: Date
}

/** A content change of a card the user has, staged until the import is kept. */
export interface StagedUpdateDocument {
  _id: string
  importID: string
  userID: string
  cardID: string
  flashcardID: string
  content: Record<string, unknown>
  unset: string[]
}

/** The owner staged cards carry until their import is kept: no user's queries find them. */
/** What every import's staging owner starts with: no account's id does. */
export const STAGING_OWNER_PREFIX = 'anki-import:'

export function stagingOwner (importID: string): string {
  return `${STAGING_OWNER_PREFIX}${importID}`
}

export function importsRepository (db: Db, session?: ClientSession) {
  const imports = db.collection<ImportDocument>('imports')
  const updates = db.collection<StagedUpdateDocument>('importUpdates')
  const inSession = { session }
  return {
    async insert (document: ImportDocument): Promise<void> {
      await imports.insertOne(document, inSession)
    },

    /** The user's import; null when it is not theirs. */
    findOwned (userID: string, importID: string): Promise<ImportDocument | null> {
      return imports.findOne({ _id: importID, userID }, inSession)
    },

    findById (importID: string): Promise<ImportDocument | null> {
      return imports.findOne({ _id: importID }, inSession)
    },

    /** Changes an import while `holder` holds it; false when another instance took it over. */
    async update (importID: string, holder: string, changes: Partial<ImportDocument>): Promise<boolean> {
      return (await imports.updateOne({ _id: importID, holder }, { $set: { ...changes, updatedAt: new Date() } }, inSession)).matchedCount === 1
    },

    /** How far a running import is; nothing once it has moved on (a late report of progress must not undo its end). */
    async progress (importID: string, holder: string, percent: number, counts: ImportCounts): Promise<void> {
      await imports.updateOne({ _id: importID, holder, state: 'running' }, { $set: { percent, counts, updatedAt: new Date() } }, inSession)
    },

    /** Imports not finished whose holder has not renewed them by `now`. Index state_until. */
    abandoned (now: Date): Promise<ImportDocument[]> {
      return imports.find({ state: { $in: [...UNFINISHED] }, until: { $lt: now } }, inSession).toArray()
    },

    /** Whether an import not finished is held by an instance that renewed it after `now`. Index _id. */
    async heldAfter (importID: string, now: Date): Promise<boolean> {
      return await imports.countDocuments({ _id: importID, state: { $in: [...UNFINISHED] }, until: { $gte: now } }, { ...inSession, limit: 1 }) === 1
    },

    /** Removes an import whose package never arrived whole, while `holder` holds it. */
    async removeUploading (importID: string, holder: string): Promise<void> {
      await imports.deleteOne({ _id: importID, holder, state: 'uploading' }, inSession)
    },

    /** Takes an abandoned import over; false when another instance did first. */
    async takeOver (document: ImportDocument, holder: string, until: Date): Promise<boolean> {
      const result = await imports.updateOne({ _id: document._id, holder: document.holder, until: document.until }, { $set: { holder, until } }, inSession)
      return result.matchedCount === 1
    },

    /** How many of the user's imports are arriving, waiting or running. Index user_created (its prefix). */
    countUnfinished (userID: string): Promise<number> {
      return imports.countDocuments({ userID, state: { $in: [...UNFINISHED] } }, inSession)
    },

    /** The ids of the user's imports that are done: those whose review histories are the user's. Index user_created (its prefix). */
    async keptOf (userID: string): Promise<string[]> {
      return (await imports.find({ userID, state: 'done' }, { projection: { _id: 1 }, session }).toArray()).map((kept) => kept._id)
    },

    async stageUpdates (documents: StagedUpdateDocument[]): Promise<void> {
      if (documents.length > 0) await updates.insertMany(documents, { ordered: false, session })
    },

    stagedUpdates (importID: string): Promise<StagedUpdateDocument[]> {
      return updates.find({ importID }, inSession).toArray()
    },

    async dropStagedUpdates (importID: string): Promise<void> {
      await updates.deleteMany({ importID }, inSession)
    },

    async removeOf (userID: string): Promise<void> {
      await imports.deleteMany({ userID }, inSession)
      await updates.deleteMany({ userID }, inSession)
    }
  }
}

export type ImportsRepository = ReturnType<typeof importsRepository>
