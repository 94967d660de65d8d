// The staging of an Anki import, run in the import worker (worker.ts): the package read, its media
// written into GridFS as files no record holds (removed by the sweep unless the import is kept),
// its new cards stored under the import's own owner (stagingOwner: no query of the user finds them),
// each card's review history written as one document marked with the import (read only once the
// import is done: review-histories.ts), and content changes of cards the user has staged aside.
// What makes all of it visible is the plan returned, applied in one step (services/anki-import.ts).
import { createHash } from 'node:crypto'
import { dirname } from 'node:path'
import type { Db } from 'mongodb'
import { openAnkiPackage, type OpenedPackage } from '../anki/package-file.js'
import { answersIn, cardContentOf, type UpdateNotes, cardScheduler, deckPlacements, homeDeckOf, historyOf, mediaNamesIn, presetOf, presetParameters, standingOf, withMediaIds } from '../domain/anki-import.js'
import type { AnkiCard, AnkiDeck, AnkiNotetype } from '../domain/anki/collection.js'
import type { UserCalendar } from '../domain/calendar.js'
import type { SiblingBurying } from '../domain/card-states.js'
import { createFolderPath, addFlashcard, folderAtPath, type LibraryTree } from '../domain/library-tree.js'
import { newId } from '../domain/ids.js'
import { noteGuid } from '../domain/anki/export.js'
import { checkedNoteType, noteTypeIdOf, noteTypeOf, type NoteTypeContent } from '../domain/note-types.js'
import { MAX_MEDIA_BYTES, SNIFF_BYTES } from '../domain/media.js'
import { MAX_CARD_HISTORY, MAX_CARD_TEXT, MAX_NOTE_TEXT, MAX_NOTE_TYPES } from '../domain/limits.js'
import { RenderedTooLong, TemplateError } from '../domain/anki/templates.js'
import { quotedName } from '../domain/names.js'
import { quotaText, type Quotas, type Usage } from '../domain/quotas.js'
import { Refusal } from '../domain/refusals.js'
import { queueKeyOf } from '../domain/card-states.js'
import { CardState, newSchedule } from '../domain/scheduling.js'
import { oneWriteInFlight } from '../repositories/batches.js'
import type { CardContent, CardDocument } from '../repositories/cards.js'
import { repositoriesOf } from '../repositories/index.js'
import { stagingOwner, type ImportCounts, type ImportPlan, type PlannedFlashcard, type PlannedMedia, type StagedUpdateDocument } from '../repositories/imports.js'
import { newFileId } from '../repositories/media.js'
import type { ReviewHistoryDocument } from '../repositories/review-histories.js'
import type { NoteDocument } from '../repositories/notes.js'
import { storedNoteContent } from '../services/library.js'
import { sniffedType } from '../services/media.js'

/** A card the user has already, of a note the package holds: where it is, and when its content was last changed (epoch seconds). */
interface HeldCard { _id: string, flashcardID: string, noteID?: string, modified: number }

export interface StageJob {
  importID: string
  userID: string
  /** the package, saved whole */
  path: string
  folder: string[]
  withScheduling: boolean
  /** a note the user has already: brought up to date when the package's is newer (Anki's default), or always */
  updateNotes: UpdateNotes
  calendar: UserCalendar
  /** epoch ms: the import's "now" */
  now: number
  quotas: Quotas
  /** a staged media file no record took is removed from then on (epoch ms) */
  removeUnkeptMediaAt: number
}

export interface StageProgress {
  (percent: number, counts: ImportCounts): Promise<void>
}

export interface StagedImport {
  plan: ImportPlan
  counts: ImportCounts
  warnings: string[]
}

/** Anki's own deck, which every collection starts with */
const DEFAULT_DECK_ID = 1

const CARD_BATCH = 2000
/** a batch of cards is written once this many characters of content are in it, however few cards */
const CARD_BATCH_CHARACTERS = 8_000_000
/** histories of about ten reviews each: as many bytes a write as a batch of cards */
const HISTORY_BATCH = 1000
/** a batch of histories is written once this many reviews are in it, however few cards */
const HISTORY_BATCH_ROWS = 50_000
/** notes' guids looked up among the user's cards at once */
const GUID_BATCH = 5000
/** The longest guid a note may have: Anki makes them ten characters long, and a batch of guids is one query. */
const MAX_GUID_LENGTH = 200

/** The characters of a card's content (its text as written and its sides rendered): what a batch of cards holds. */
function contentCharacters (content: CardContent): number {
  return content.front.length + content.back.length + (content.html === undefined ? 0 : content.html.front.length + content.html.back.length)
}

/** The media a note's fields name, each name with the media it is here: what an export names them by again. */
function mediaOfNote (fields: readonly string[], mediaIDs: ReadonlyMap<string, string>): Pick<NoteDocument, 'media'> {
  const media = new Map<string, string>()
  for (const name of fields.flatMap(mediaNamesIn)) {
    const mediaID = mediaIDs.get(name)
    if (mediaID !== undefined) media.set(name, mediaID)
  }
  return media.size === 0 ? {} : { media: [...media].map(([name, mediaID]) => ({ name, mediaID })) }
}

function byteCount (bytes: number): string {
  return `${bytes.toLocaleString('en')} byte${bytes === 1 ? '' : 's'}`
}

/** Minutes west of UTC of a zone at an instant, as Anki counts offsets. */
function offsetMinutesWest (timezone: string, at: Date): number {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone: timezone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' }).formatToParts(at)
  const value = (type: string): number => Number(parts.find((part) => part.type === type)?.value ?? 0)
  const local = Date.UTC(value('year'), value('month') - 1, value('day'), value('hour'), value('minute'), value('second'))
  return Math.round((Math.floor(at.getTime() / 1000) * 1000 - local) / 60_000)
}

/**
 * Stages an import (see the top of this file) and answers its plan. Throws a Refusal or an
 * AnkiImportError for a package refused; what was staged before then is the caller's to clean away
 * (cleanStaged), as is everything staged when the plan is never applied.
 */
export async function stageImport (db: Db, job: StageJob, progress: StageProgress): Promise<StagedImport> {
  const written: PlannedMedia[] = []
  try {
    return await staged(db, job, progress, written)
  } catch (error) {
    // the media files written go now rather than wait for the sweep; their listing goes last
    const { media } = repositoriesOf(db)
    for (const file of written) {
      await media.deleteFile(file.fileId).then(async () => await media.claim(file.fileId)).catch(() => {})
    }
    throw error
  }
}

async function staged (db: Db, job: StageJob, progress: StageProgress, planned: PlannedMedia[]): Promise<StagedImport> {
  // the collection is written out beside the package, in the import's own folder, which goes when the import ends
  const pkg = await openAnkiPackage(job.path, { workDirectory: dirname(job.path) })
  try {
    return await stagedFrom(pkg, db, job, progress, planned)
  } finally {
    await pkg.close()
  }
}

/** The limits an Anki package is held to before anything of it is read whole (see limits.ts). */
function checkCollectionSizes (pkg: OpenedPackage, job: StageJob, usage: Partial<Usage> | null): void {
  const { header, rows } = pkg
  const cards = rows.cardCount()
  const room = job.quotas.cards - (usage?.cards ?? 0)
  if (cards > room) {
    throw new Refusal('quota_exceeded', `the package holds ${cards.toLocaleString('en')} cards, and the account's quota of ${quotaText('cards', job.quotas)} has room for ${Math.max(0, room).toLocaleString('en')} more: delete some cards first, or import a smaller deck`)
  }
  if (header.decks.length > job.quotas.nodes) {
    throw new Refusal('quota_exceeded', `the package holds ${header.decks.length.toLocaleString('en')} decks, more than the ${quotaText('nodes', job.quotas)} an account may hold: import fewer decks at once`)
  }
  const guid = rows.longGuid(MAX_GUID_LENGTH)
  if (guid !== null) {
    throw new Refusal('invalid_field', `the note with guid ${quotedName(`${guid.guid}…`)} has a guid of ${guid.length.toLocaleString('en')} characters, where Anki's have about ten: the package is not as Anki writes it`)
  }
  const note = rows.oversizedNote(MAX_NOTE_TEXT)
  if (note !== null) {
    throw new Refusal('invalid_field', `the note with guid ${quotedName(note.guid)} holds ${note.length.toLocaleString('en')} characters of fields and tags, and a note may hold at most ${MAX_NOTE_TEXT.toLocaleString('en')}: shorten it in Anki, or leave it out of the package`)
  }
  if (job.withScheduling) {
    const longest = rows.longestHistoryOver(MAX_CARD_HISTORY)
    if (longest !== null) {
      throw new Refusal('invalid_field', `a card of the note with guid ${quotedName(longest.guid)} has ${longest.count.toLocaleString('en')} rows in its review log, and a card keeps at most ${MAX_CARD_HISTORY.toLocaleString('en')}: ` +
        'import without scheduling, or leave that card out of the package')
    }
  }
}

/** A deck's name as a message shows it: quoted, its middle left out when it is long. */
function deckNameOf (deck: AnkiDeck): string {
  const path = deck.path.length > 6 ? [...deck.path.slice(0, 3), '…', ...deck.path.slice(-2)] : deck.path
  const name = path.join('::')
  return `${quotedName(name.length > 300 ? `${name.slice(0, 300)}…` : name)}${deck.path.length > 6 ? ` (${deck.path.length.toLocaleString('en')} levels)` : ''}`
}

/**
 * Runs `work`, a refusal of it naming `what` (a deck, a note) first: the learner finds it in Anki by
 * that. A template that renders a side past any size, names a field its note type lacks, or nests
 * past what can be rendered is the package's fault, refused as such.
 */
function naming<T> (what: () => string, work: () => T): T {
  try {
    return work()
  } catch (error) {
    if (error instanceof Refusal) throw new Refusal(error.code, `${what()}: ${error.message}`)
    if (error instanceof RenderedTooLong) throw new Refusal('invalid_field', `${what()}: ${error.message}, and a card side holds at most ${MAX_CARD_TEXT.toLocaleString('en')}`)
    if (error instanceof TemplateError) throw new Refusal('corrupt_collection', `${what()}: its card template cannot be rendered: ${error.message}`)
    if (error instanceof RangeError) throw new Refusal('invalid_field', `${what()}: its card template nests too deep or renders too much to be rendered`)
    throw error
  }
}

async function stagedFrom (pkg: OpenedPackage, db: Db, job: StageJob, progress: StageProgress, planned: PlannedMedia[]): Promise<StagedImport> {
  const repositories = repositoriesOf(db)
  const { userID, importID, calendar } = job
  const now = new Date(job.now)
  const owner = stagingOwner(importID)
  const warnings: string[] = []
  const counts: ImportCounts = { cards: 0, notes: 0, reviews: 0, media: 0 }
  const { header, rows } = pkg

  const [tree, usage] = await Promise.all([repositories.trees.read(userID), repositories.users.usageOf(userID)])
  checkCollectionSizes(pkg, job, usage)
  const cardCount = rows.cardCount()

  // the media files the notes show: only those are read
  const inPackage = new Set(pkg.media.map((file) => file.name))
  const referenced = new Set<string>()
  for (const fields of rows.fields()) {
    for (const field of fields) for (const name of mediaNamesIn(field)) if (inPackage.has(name)) referenced.add(name)
  }
  const mediaIDs = new Map<string, string>()
  const bySha = new Map<string, string>()
  const skipped: string[] = []
  const skippedNames = new Set<string>()
  for (const file of pkg.media) {
    const { name } = file
    if (!referenced.has(name)) continue
    const bytes = await pkg.readMedia(file, MAX_MEDIA_BYTES)
    if (bytes === null) {
      skipped.push(`${name} (larger than ${MAX_MEDIA_BYTES / 1024 / 1024} MiB)`)
      skippedNames.add(name)
      continue
    }
    let contentType: string
    try {
      contentType = await sniffedType(Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, SNIFF_BYTES)))
    } catch (error) {
      if (!(error instanceof Refusal)) throw error
      skipped.push(`${name} (not an image or sound the service keeps)`)
      skippedNames.add(name)
      continue
    }
    const sha256 = createHash('sha256').update(bytes).digest('hex')
    const known = bySha.get(sha256)
    if (known !== undefined) {
      mediaIDs.set(name, known)
      continue
    }
    const held = await repositories.media.findByHash(userID, sha256)
    if (held !== null) {
      bySha.set(sha256, held._id)
      mediaIDs.set(name, held._id)
      continue
    }
    const fileId = newFileId()
    await repositories.media.expectUpload(fileId, new Date(job.removeUnkeptMediaAt))
    const writer = repositories.media.openUpload(fileId, newId())
    await writer.write(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength))
    await writer.finish()
    const mediaID = newId()
    planned.push({ mediaID, fileId, sha256, bytes: bytes.byteLength, contentType })
    bySha.set(sha256, mediaID)
    mediaIDs.set(name, mediaID)
  }
  if (skipped.length > 0) warnings.push(`${skipped.length} media file${skipped.length === 1 ? ' was' : 's were'} left out: ${skipped.slice(0, 10).join(', ')}${skipped.length > 10 ? ', …' : ''}`)
  const mediaBytes = planned.reduce((sum, file) => sum + file.bytes, 0)
  const mediaRoom = job.quotas.mediaBytes - (usage?.mediaBytes ?? 0)
  if (mediaBytes > mediaRoom) {
    throw new Refusal('quota_exceeded', `the package's media take ${byteCount(mediaBytes)} that the account does not hold yet, and its quota of ${quotaText('mediaBytes', job.quotas)} ` +
      `has room for ${byteCount(Math.max(0, mediaRoom))} more: delete at least ${byteCount(mediaBytes - Math.max(0, mediaRoom))} of media first, or import without them`)
  }
  counts.media = mediaIDs.size
  await progress(10, counts)

  // notes the user has already, by guid: their cards are brought up to date, not added
  const existing = new Map<string, Map<number, HeldCard>>()
  const hold = (guid: string, ord: number, card: Pick<CardDocument, '_id' | 'flashcardID' | 'noteID' | 'modified' | 'createdAt' | 'ankiGuid'>): void => {
    let byOrd = existing.get(guid)
    if (byOrd === undefined) existing.set(guid, byOrd = new Map())
    // a card from Anki not changed here since cards kept the time (nor kept its note, which has it): Anki's text is as new as any
    const changed = card.modified ?? (card.ankiGuid === undefined ? card.createdAt : undefined)
    byOrd.set(ord, {
      _id: card._id,
      flashcardID: card.flashcardID,
      ...(card.noteID === undefined ? {} : { noteID: card.noteID }),
      modified: changed === undefined ? 0 : Math.floor(changed.getTime() / 1000)
    })
  }
  let guids: string[] = []
  const lookUp = async (): Promise<void> => {
    for (const card of await repositories.cards.ofAnkiNotes(userID, guids)) hold(card.ankiGuid as string, card.ankiOrd as number, card)
    guids = []
  }
  /** the package's guids that no card of the user carries */
  const unmatched = new Set<string>()
  for (const guid of rows.guids()) {
    guids.push(guid)
    unmatched.add(guid)
    if (guids.length >= GUID_BATCH) await lookUp()
  }
  await lookUp()
  for (const guid of existing.keys()) unmatched.delete(guid)
  // cards made here come back in a package this account exported (studied in Anki meanwhile, say) under
  // the guids the export gave them (noteGuid: of the card, or of a cloze card's note), which they do not
  // carry: found by them, they are brought up to date as an earlier import's cards are, never added twice
  if (unmatched.size > 0) {
    for await (const card of repositories.cards.withoutAnkiNote(userID)) {
      const guid = noteGuid(card.noteID ?? card._id)
      // the export's ord: a cloze card's number less one, the one card of a Basic note's 0
      if (unmatched.has(guid)) hold(guid, card.clozeNumber === undefined ? 0 : card.clozeNumber - 1, card)
    }
  }
  // a card of a note (an import's or add-note's) was last changed when its note was
  const heldNotes = [...new Set([...existing.values()].flatMap((byOrd) => [...byOrd.values()].flatMap((card) => card.noteID === undefined ? [] : [card.noteID])))]
  const notesModified = new Map<string, number>()
  for (let start = 0; start < heldNotes.length; start += GUID_BATCH) {
    for (const [noteID, modified] of await repositories.notes.modifiedOf(userID, heldNotes.slice(start, start + GUID_BATCH))) notesModified.set(noteID, modified)
  }
  for (const byOrd of existing.values()) {
    for (const card of byOrd.values()) card.modified = (card.noteID === undefined ? undefined : notesModified.get(card.noteID)) ?? card.modified
  }

  // where the decks go: checked on a copy of the tree now, made for real when the plan is applied
  // a card whose deck the collection lacks goes to Anki's Default deck, where Anki's Check Database puts it
  const deckIds = new Set(header.decks.map((deck) => deck.id))
  const deckOf = (card: Pick<AnkiCard, 'deckId' | 'originalDeckId'>): number => deckIds.has(homeDeckOf(card)) ? homeDeckOf(card) : DEFAULT_DECK_ID
  const decks: readonly AnkiDeck[] = deckIds.has(DEFAULT_DECK_ID)
    ? header.decks
    : [...header.decks, { id: DEFAULT_DECK_ID, path: ['Default'], filtered: false, description: '' }]
  const freshDecks = new Set<number>()
  for (const place of rows.cardPlaces()) {
    if (existing.get(place.guid)?.has(place.ord) !== true) freshDecks.add(deckOf(place))
  }
  const placements = deckPlacements(decks, freshDecks, job.folder)
  if (job.folder.length > 0 && folderAtPath(tree, job.folder) === null) {
    throw new Refusal('folder_not_found', `no folder ${JSON.stringify(job.folder)}: create it first with create-folder, or import without a folder`)
  }
  const trial: LibraryTree = structuredClone({ folders: tree.folders })
  const flashcards: PlannedFlashcard[] = []
  const flashcardOfDeck = new Map<number, string>()
  const flashcardAt = new Map<string, string>()
  const deckById = new Map(decks.map((deck) => [deck.id, deck]))
  for (const [deckId, placement] of placements) {
    const at = JSON.stringify([...placement.folder, placement.flashcardName])
    let flashcardID = flashcardAt.get(at)
    if (flashcardID === undefined) {
      const id = naming(() => `the deck ${deckNameOf(deckById.get(deckId) as AnkiDeck)}`, () => {
        createFolderPath(trial, placement.folder, newId, placement.folderAnkiIDs)
        const found = folderAtPath(trial, placement.folder)?.flashcards.find((flashcard) => flashcard.name === placement.flashcardName)
        const id = found?.id ?? newId()
        const ankiID = placement.flashcardAnkiID
        if (found === undefined) addFlashcard(trial, placement.folder, { id, name: placement.flashcardName, description: '', ...(ankiID === undefined ? {} : { ankiID }) })
        flashcards.push({
          flashcardID: id,
          folder: placement.folder,
          name: placement.flashcardName,
          existing: found !== undefined,
          // kept in the plan as BSON keeps arrays: a hole is null
          folderAnkiIDs: placement.folderAnkiIDs.map((deckId) => deckId ?? null),
          ...(ankiID === undefined ? {} : { ankiID })
        })
        return id
      })
      flashcardID = id
      flashcardAt.set(at, flashcardID)
    }
    flashcardOfDeck.set(deckId, flashcardID)
  }

  const plannedOf = new Map(flashcards.map((flashcard) => [flashcard.flashcardID, flashcard]))
  const deckNames = new Map(decks.map((deck) => [deck.id, deck.path.join('::')]))
  const notetypes = new Map(header.notetypes.map((notetype) => [notetype.id, notetype]))
  /** the note types the notes use, by Anki's id: checked against the limits at their first note, kept with the cards */
  const usedNoteTypes = new Map<number, { noteTypeID: string, content: NoteTypeContent }>()
  const noteTypeIDOf = (notetype: AnkiNotetype): string => {
    let used = usedNoteTypes.get(notetype.id)
    if (used === undefined) usedNoteTypes.set(notetype.id, used = { noteTypeID: noteTypeIdOf(userID, notetype.id), content: checkedNoteType(noteTypeOf(notetype)) })
    return used.noteTypeID
  }
  const schedule = cardScheduler({ collection: header, calendar, now, userOffsetMinutesWest: offsetMinutesWest(calendar.timezone, now) })
  const missingMedia = new Set<string>()
  // new cards in Anki's new-card order first, then the others as Anki lists them
  const newOrder = new Map<number, number>()
  for (const id of rows.newCardOrder()) newOrder.set(id, newOrder.size)

  /** the answers of each day, and of them the first answers of new cards (as today's limits count them) */
  const activity = new Map<string, { reviews: number, newCards: number }>()
  let cardBatch: CardDocument[] = []
  let cardBatchCharacters = 0
  let historyBatch: ReviewHistoryDocument[] = []
  let historyBatchRows = 0
  let updateBatch: StagedUpdateDocument[] = []
  let noteBatch: NoteDocument[] = []
  let staged = 0
  let updated = 0
  /** cards of notes the user has that were not changed in the package since they were here, and the cards of those notes the package has and the user not */
  let left = 0
  let notAdded = 0
  let suspended = 0
  let buried = 0
  let buriedUntil: Date | undefined
  let firstNew: ImportPlan['firstNew']
  let firstDue: Date | undefined
  // one write in flight while the next batch is made: the database and this thread work side by side
  const writes = oneWriteInFlight()
  const write = writes.write
  const flush = async (force: boolean): Promise<void> => {
    if (cardBatch.length >= CARD_BATCH || cardBatchCharacters >= CARD_BATCH_CHARACTERS || (force && cardBatch.length > 0)) {
      const batch = cardBatch
      cardBatch = []
      cardBatchCharacters = 0
      await write(async () => { await repositories.cards.insertMany(batch, { searchable: false }) })
    }
    if (historyBatch.length >= HISTORY_BATCH || historyBatchRows >= HISTORY_BATCH_ROWS || (force && historyBatch.length > 0)) {
      const batch = historyBatch
      historyBatch = []
      historyBatchRows = 0
      await write(async () => { await repositories.reviewHistories.insertMany(batch) })
    }
    if (noteBatch.length >= CARD_BATCH || (force && noteBatch.length > 0)) {
      const batch = noteBatch
      noteBatch = []
      await write(async () => { await repositories.notes.stage(batch) })
    }
    if (updateBatch.length >= CARD_BATCH || (force && updateBatch.length > 0)) {
      const batch = updateBatch
      updateBatch = []
      await write(async () => { await repositories.imports.stageUpdates(batch) })
    }
    if (force) await writes.finished()
  }

  const base = job.now * 1000
  let done = 0
  let lastReported = 0
  let leftOut = 0
  const presets = new Map<number, ReturnType<typeof presetOf>>()
  const presetOfDeck = (deckId: number): ReturnType<typeof presetOf> => {
    if (!presets.has(deckId)) presets.set(deckId, presetOf(header, deckId))
    return presets.get(deckId)
  }
  /** characters of content staged, cards and changes: how large keeping them in one transaction would be */
  let contentTotal = 0
  /** how many cards use each preset: the one most use becomes the learner's */
  const presetUses = new Map<number, number>()
  try {
    for (const { note, cards: noteCards } of rows.notesWithCards()) {
      const notetype = note === undefined ? undefined : notetypes.get(note.notetypeId)
      if (note === undefined || notetype === undefined) {
        leftOut += noteCards.length
        continue
      }
      counts.notes += 1
      const matched = existing.get(note.guid)
      // a note the user has is brought up to date when the package's was changed after it (as Anki's importer does by
      // default), so that an older package never undoes an edit made here; or always, when the learner asks for it.
      // One left as it is is left whole: its cards, and its note type, are not touched, and no card is added to it
      // (a card the package has and it lacks would be made from the older text, beside cards of the newer)
      if (matched !== undefined && job.updateNotes !== 'always' && note.modified <= Math.max(...[...matched.values()].map((card) => card.modified))) {
        for (const card of noteCards) {
          if (matched.has(card.ord)) left++
          else notAdded++
        }
        counts.cards += noteCards.length
        continue
      }
      const fields = note.fields.map((field) => withMediaIds(field, (name) => mediaIDs.get(name), missingMedia))
      const noteTypeID = noteTypeIDOf(notetype)
      // the note: the one its cards had from an earlier import, brought up to date, or a new one
      const earlierNoteID = [...(matched?.values() ?? [])].find((card) => card.noteID !== undefined)?.noteID
      const noteID = earlierNoteID ?? newId()
      // a new note is the user's at once (no card of theirs names it until the import is kept); one brought up to date is staged
      noteBatch.push({
        _id: earlierNoteID === undefined ? noteID : newId(),
        ...(earlierNoteID === undefined ? { importID } : { replaces: earlierNoteID }),
        userID: earlierNoteID === undefined ? userID : owner,
        noteTypeID,
        ankiID: note.id,
        guid: note.guid,
        fields: note.fields,
        tags: note.tags,
        modified: note.modified,
        ...mediaOfNote(note.fields, mediaIDs),
        createdAt: now
      })
      for (const card of noteCards) {
        const deckId = deckOf(card)
        const preset = presetOfDeck(deckId)
        if (preset !== undefined) presetUses.set(preset.id, (presetUses.get(preset.id) ?? 0) + 1)
        const stored = naming(() => `the note with guid ${quotedName(note.guid)} (deck ${deckNameOf(deckById.get(deckId) as AnkiDeck)})`, () => {
          const content = cardContentOf(card, note, notetype, fields, deckNames.get(deckId) ?? '')
          return { content, stored: storedNoteContent(content, noteTypeID) }
        })
        const { content } = stored
        const standing = standingOf(card, now, calendar)
        const earlier = matched?.get(card.ord)
        counts.cards += 1
        if (earlier !== undefined) {
          const { html, media, ...rest } = stored.stored
          contentTotal += contentCharacters(stored.stored)
          updateBatch.push({
            _id: newId(),
            importID,
            userID,
            cardID: earlier._id,
            flashcardID: earlier.flashcardID,
            // the guid and ord too: a card made here, found by the guid its export gave it, carries them from now on
            content: { ...rest, noteTypeID, noteID, ankiID: card.id, ankiGuid: note.guid, ankiOrd: card.ord, ...(html === undefined ? {} : { html }), ...(media === undefined ? {} : { media }) },
            unset: [...(html === undefined ? ['html'] : []), ...(media === undefined ? ['media'] : [])]
          })
          updated++
          continue
        }
        const flashcardID = flashcardOfDeck.get(deckId) as string
        const cardID = newId()
        const entries = job.withScheduling ? rows.revlogOf(card.id) : []
        const history = historyOf(entries, calendar)
        const cardSchedule = job.withScheduling ? schedule(card, entries, history) : newSchedule(now)
        const createdOrder = base + (newOrder.get(card.id) ?? newOrder.size + done)
        const isNew = queueKeyOf({ state: cardSchedule.state, ...standing }, now)
        if (standing.suspended === true) suspended++
        if (standing.buriedUntil !== undefined) {
          buried++
          buriedUntil = standing.buriedUntil
        }
        cardBatch.push({
          _id: cardID,
          userID: owner,
          flashcardID,
          ...stored.stored,
          noteID,
          ...(content.kind === 'cloze' ? { clozeNumber: content.clozeNumber } : {}),
          noteTypeID,
          ankiID: card.id,
          ...cardSchedule,
          isNew,
          ...standing,
          createdOrder,
          createdAt: now,
          version: 0,
          lastReviewID: null,
          ankiGuid: note.guid,
          ankiOrd: card.ord,
          ...(note.tags.length > 0 ? { tags: note.tags } : {})
        })
        staged++
        if (isNew === true) {
          if (firstNew === undefined || createdOrder < firstNew.createdOrder) firstNew = { due: cardSchedule.due, createdOrder }
        } else if (isNew === false && (firstDue === undefined || cardSchedule.due < firstDue)) {
          firstDue = cardSchedule.due
        }
        const characters = contentCharacters(stored.stored)
        cardBatchCharacters += characters
        contentTotal += characters
        const into = plannedOf.get(flashcardID) as PlannedFlashcard
        into.cards = (into.cards ?? 0) + 1
        into.contentCharacters = (into.contentCharacters ?? 0) + characters
        if (history.length > 0) {
          historyBatch.push({ _id: cardID, userID, flashcardID, importID, reviews: history })
          historyBatchRows += history.length
        }
        const answers = answersIn(history)
        for (const review of answers) {
          let day = activity.get(review.day)
          if (day === undefined) activity.set(review.day, day = { reviews: 0, newCards: 0 })
          day.reviews += 1
          if (review.stateBefore === CardState.New) day.newCards += 1
        }
        counts.reviews += answers.length
        done++
      }
      await flush(false)
      const percent = 10 + Math.floor(85 * counts.cards / Math.max(1, cardCount))
      if (percent > lastReported) {
        lastReported = percent
        await progress(percent, counts)
      }
    }
    await flush(true)
    // the note types go with the cards: staged, each taking its id when the import is kept
    const { count, found } = await repositories.noteTypes.held(userID, [...usedNoteTypes.values()].map((used) => used.noteTypeID))
    const added = [...usedNoteTypes.values()].filter((used) => !found.has(used.noteTypeID)).length
    if (count + added > MAX_NOTE_TYPES) {
      throw new Refusal('quota_exceeded', `the package's notes use ${added.toLocaleString('en')} note types the account does not have, and an account keeps at most ${MAX_NOTE_TYPES.toLocaleString('en')} ` +
        `(it has ${count.toLocaleString('en')}): import fewer note types at once`)
    }
    await repositories.noteTypes.stage(stagingOwner(importID), [...usedNoteTypes.values()].map((used) => ({ _id: newId(), ...used })), new Date(now))
  } catch (error) {
    // a write still in flight lands after the caller's clean-up unless it is waited for
    await writes.settled()
    throw error
  }

  if (leftOut > 0) warnings.push(`${leftOut} card${leftOut === 1 ? '' : 's'} of a note or note type the collection lacks ${leftOut === 1 ? 'was' : 'were'} left out`)
  for (const name of skippedNames) missingMedia.delete(name)
  if (missingMedia.size > 0) warnings.push(`${missingMedia.size} media file${missingMedia.size === 1 ? '' : 's'} the notes show ${missingMedia.size === 1 ? 'is' : 'are'} not in the package: ${[...missingMedia].slice(0, 10).join(', ')}`)
  if (buried > 0) warnings.push(`${buried} card${buried === 1 ? ' was' : 's were'} buried in Anki: buried here too, until tomorrow`)
  if (updated > 0) warnings.push(`${updated} card${updated === 1 ? '' : 's'} of notes the account has ${updated === 1 ? 'was' : 'were'} updated rather than added again (matched by the note's guid), with ${updated === 1 ? 'its' : 'their'} schedule and history as they were`)
  if (left > 0) {
    const others = notAdded === 0 ? '' : `, and ${notAdded} card${notAdded === 1 ? '' : 's'} the package has of those notes ${notAdded === 1 ? 'was' : 'were'} not added`
    warnings.push(`${left} card${left === 1 ? '' : 's'} of notes the account has ${left === 1 ? 'was' : 'were'} left as ${left === 1 ? 'it is' : 'they are'}${others}: the package's notes were not changed ` +
      'after they were last changed here (to take the package\'s text all the same, import it with updateNotes=always)')
  }

  // the preset most cards use: its parameters, desired retention and sibling burying become the user's
  let parameters: number[] | undefined
  let desiredRetention: number | undefined
  let siblingBurying: SiblingBurying | undefined
  if (job.withScheduling && presetUses.size > 0) {
    const uses = presetUses
    const main = [...uses].sort((a, b) => b[1] - a[1])[0]
    const preset = header.deckConfigs.find((config) => config.id === main?.[0])
    parameters = presetParameters(preset)
    if (preset !== undefined && preset.desiredRetention > 0 && preset.desiredRetention < 1) desiredRetention = preset.desiredRetention
    siblingBurying = preset?.siblingBurying
  }

  const plan: ImportPlan = {
    // a deck made for cards of notes left as they are alone holds none: it is not made
    flashcards: flashcards.filter((flashcard) => flashcard.existing || (flashcard.cards ?? 0) > 0),
    media: planned,
    cards: staged,
    updated,
    contentCharacters: contentTotal,
    activity: [...activity].sort((a, b) => a[0] < b[0] ? -1 : 1).map(([day, done]) => ({ day, ...done })),
    calendar: { timezone: calendar.timezone, dayStartHour: calendar.dayStartHour },
    ...(parameters === undefined ? {} : { parameters }),
    ...(desiredRetention === undefined ? {} : { desiredRetention }),
    ...(siblingBurying === undefined ? {} : { siblingBurying }),
    ...(firstNew === undefined ? {} : { firstNew }),
    ...(firstDue === undefined ? {} : { firstDue }),
    ...(buriedUntil === undefined ? {} : { buriedUntil }),
    suspended
  }
  return { plan, counts, warnings }
}
