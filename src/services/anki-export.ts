import type { Readable } from 'node:stream'
import { setImmediate as othersTurn } from 'node:timers/promises'
import yazl from 'yazl'
import { loadSqlEngine } from '../anki/sql-engine.js'
import { kindOfAnkiEntry, lastReviewRole } from '../domain/anki-revlog.js'
import { siblingBuryingOf } from '../domain/accounts.js'
import { dayOf } from '../domain/calendar.js'
import {
  ankiDays, EXPORT_LIMITS, exportedDeckIds, exportedDecks, importedRevlogRow, noteFields, noteGuid, revlogRow, scheduleRow, standingRow, withAnkiMedia,
  type ExportLimits, type ExportScope
} from '../domain/anki/export.js'
import { mediaFileName } from '../domain/card-archive.js'
import { madeHereNoteTypes } from '../domain/notes.js'
import { PACKAGE_VERSIONS } from '../domain/anki/package.js'
import { CollectionWriter, dummyCollection, type RevlogRow } from '../domain/anki/writer.js'
import { invalidToken, Refusal } from '../domain/refusals.js'
import { CardState } from '../domain/scheduling.js'
import type { ExportCard } from '../repositories/cards.js'
import type { MediaDocument } from '../repositories/media.js'
import type { NoteDocument } from '../repositories/notes.js'
import type { ServiceContext } from './context.js'

/** A card that came from Anki keeps the guid of its note there (the import sets it), so that Anki finds the note again. */
type CardWithGuid = ExportCard & { ankiGuid?: string }

/** An .apkg on its way: the name to give the file, and its bytes as a stream. */
export interface AnkiPackageStream {
  fileName: string
  stream: Readable
}

/** How many cards are read before the records of the media they show are looked up together. */
const CARD_BATCH = 500
/**
 * How many reviews are written between two turns of the event loop: a cursor hands over a batch of
 * thousands without waiting, and writing them all at once would keep every other request waiting.
 */
const REVIEW_BATCH = 2000

/**
 * Ids of one kind (notes, cards, revlog rows) made unique within the package: each the id wanted (a
 * note's or card's kept one, the same at every export; a review's millisecond), unless the package
 * holds it already (two sources met on one millisecond), and then the next one free.
 */
function uniqueIds (): (wanted: number) => number {
  const taken = new Set<number>()
  // where to look next for an id wanted before: many of one millisecond cost one step each, not a walk past all before them
  const nextFree = new Map<number, number>()
  return (wanted) => {
    let id = nextFree.get(wanted) ?? wanted
    while (taken.has(id)) id += 1
    taken.add(id)
    if (id !== wanted || nextFree.has(wanted)) nextFree.set(wanted, id + 1)
    return id
  }
}

/**
 * The latest rows of each card's log, as they are written (imported histories, then the reviews
 * given here, so not in time order): its last answer that rescheduled it and its last forget.
 */
class LastRows {
  private readonly answers = new Map<number, number>()
  private readonly resets = new Map<number, number>()
  private readonly logged = new Set<number>()

  add (row: RevlogRow): void {
    this.logged.add(row.cardId)
    const role = lastReviewRole(kindOfAnkiEntry(row), row.button > 0)
    const latest = role === 'sets' ? this.answers : role === 'clears' ? this.resets : null
    if (latest !== null && row.id > (latest.get(row.cardId) ?? -1)) latest.set(row.cardId, row.id)
  }

  /**
   * The epoch second Anki takes as the card's last review: null when no answer rescheduled it
   * since its last forget (only cram answers or manual rows), undefined for a card with no row.
   */
  lastReviewSecondsOf (cardId: number): number | null | undefined {
    if (!this.logged.has(cardId)) return undefined
    const answer = this.answers.get(cardId)
    const reset = this.resets.get(cardId)
    return answer === undefined || (reset !== undefined && reset > answer) ? null : Math.floor(answer / 1000)
  }
}

function tooLarge (what: string): Refusal {
  return new Refusal('export_too_large', `the export would hold more than ${what}, the most one package is built with: export one folder or flashcard at a time`)
}

/**
 * A kept note's fields for the package: the files it names are the package's under those names;
 * a name the package gives another file already, or a file the account no longer holds, is
 * written under the file's own name (mediaFileName); media added here by an edit as Anki names them.
 */
function keptFields (note: NoteDocument, media: ReadonlyMap<string, MediaDocument>, files: Map<string, MediaDocument>, fileOf: (mediaID: string) => string | null): string[] {
  let fields = note.fields
  for (const { name, mediaID } of note.media ?? []) {
    const record = media.get(mediaID)
    if (record === undefined) continue
    const taken = files.get(name)
    if (taken === undefined || taken.sha256 === record.sha256) {
      files.set(name, record)
      continue
    }
    const own = fileOf(mediaID) as string
    fields = fields.map((field) => renamedMedia(field, name, own))
  }
  return fields.map((field) => withAnkiMedia(field, fileOf))
}

/** A field with its references to the file `from` (an image's source, a sound) naming `to` instead; the rest of its text as it was. */
function renamedMedia (field: string, from: string, to: string): string {
  const name = from.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  return field
    .replace(new RegExp(`(<img\\b[^>]*?\\ssrc\\s*=\\s*)(["']?)${name}\\2(?=[\\s>/])`, 'gi'), (_, start: string, quote: string) => `${start}${quote}${to}${quote}`)
    .split(`[sound:${from}]`).join(`[sound:${to}]`)
}

/** The name of the deck options preset that carries the learner's desired retention and FSRS parameters. */
const PRESET_NAME = 'flashcard-service'

/** The `meta` entry of a legacy package: protobuf PackageMetadata, field 1 (varint) the version. */
const META = Buffer.from([0x08, PACKAGE_VERSIONS.legacy2])

/**
 * export-anki: a folder, a flashcard or the whole account as an Anki package (.apkg) with its
 * media, schedules and review history. The collection is built in memory (sql.js), within
 * EXPORT_LIMITS, before anything is sent; the media files are then read from GridFS one at a
 * time as the archive streams out.
 */
export function ankiExportService ({ repositories, clock }: Pick<ServiceContext, 'repositories' | 'clock'>, limits: ExportLimits = EXPORT_LIMITS) {
  return {
    async exportAnki (userID: string, scope: ExportScope): Promise<AnkiPackageStream> {
      const [user, tree] = await Promise.all([repositories.users.findById(userID), repositories.trees.read(userID)])
      if (user === null) throw invalidToken()
      const { decks, flashcardIDs, name } = exportedDecks(tree, scope)
      const now = clock()
      const calendar = { timezone: user.timezone, dayStartHour: user.dayStartHour }
      const days = ankiDays(calendar, dayOf(user.createdAt, calendar), now)
      const sql = await loadSqlEngine()
      const writer = new CollectionWriter(sql, days.timing, now, {
        // ids in Anki are creation times in milliseconds: the account's, the same at every export
        id: user.createdAt.getTime(),
        name: PRESET_NAME,
        desiredRetention: user.desiredRetention,
        fsrsParameters: user.fsrsParameters,
        siblingBurying: siblingBuryingOf(user)
      })
      try {
        const deckIds = new Map<string, number>()
        // the same ids at every export, whatever its scope; Anki matches decks by name on import
        const ids = exportedDeckIds(decks)
        decks.forEach((deck, index) => {
          const id = ids[index] as number
          writer.addDeck({ id, path: deck.path })
          if (deck.flashcardID !== undefined) deckIds.set(deck.flashcardID, id)
        })

        const noteId = uniqueIds()
        const cardId = uniqueIds()
        const notes = new Map<string, number>()
        /** the notes written as kept (their own note type), by noteID */
        const keptNotes = new Set<string>()
        const cardIds = new Map<string, number>()
        const newCards: Array<{ id: number, createdOrder: number }> = []
        /** the `lrt` written for each card not new, by its Anki id */
        const lastReviewSeconds = new Map<number, number | null>()
        const media = new Map<string, MediaDocument>()
        // the package's media files by name: a note an import kept names its files as Anki named them
        const files = new Map<string, MediaDocument>()
        const noteTypes = new Map((await repositories.noteTypes.ofUser(userID)).map((noteType) => [noteType._id, noteType]))
        // a card made here is a note of the account's own Basic or Cloze, where an import brought them: Anki then adds no second one
        const stock = madeHereNoteTypes(noteTypes.values())
        let text = 0

        const writeBatch = async (batch: CardWithGuid[]): Promise<void> => {
          const kept = new Map((await repositories.notes.byIds(userID, [...new Set(batch.flatMap((card) => card.noteID === undefined || notes.has(card.noteID) ? [] : [card.noteID]))]))
            .map((note) => [note._id, note]))
          const shown = [...batch.flatMap((card) => card.media ?? []), ...[...kept.values()].flatMap((note) => (note.media ?? []).map((file) => file.mediaID))]
          const unknown = [...new Set(shown)].filter((mediaID) => !media.has(mediaID))
          for (const record of await repositories.media.ownedAmong(userID, unknown)) media.set(record._id, record)
          const fileOf = (mediaID: string): string | null => {
            const record = media.get(mediaID)
            if (record === undefined) return null
            const name = mediaFileName(record.sha256, record.contentType)
            files.set(name, record)
            return name
          }
          for (const card of batch) {
            const created = card.createdAt.getTime()
            let nid = card.noteID === undefined ? undefined : notes.get(card.noteID)
            const note = card.noteID === undefined ? undefined : kept.get(card.noteID)
            const noteType = note === undefined ? undefined : noteTypes.get(note.noteTypeID)
            if (nid === undefined && note !== undefined && noteType !== undefined) {
              // a note an Anki import kept: written back as it is, under its ids, with its note type
              nid = noteId(note.ankiID)
              notes.set(note._id, nid)
              keptNotes.add(note._id)
              // changed nowhere but in Anki: written as not newer than Anki's, which keeps its own; edited here (edit-note-type), as of the edit
              writer.addNotetype({ ...noteType, id: noteType.ankiID, modified: noteType.modified ?? 0 })
              writer.addNote({
                id: nid,
                guid: note.guid,
                kind: { notetypeId: noteType.ankiID },
                fields: keptFields(note, media, files, fileOf),
                modified: note.modified,
                tags: note.tags
              }, noteType.sortField)
            } else if (nid === undefined) {
              // a basic card made here is a note of its own id; a cloze note's cards share theirs
              nid = noteId(card.ankiNoteID ?? (card.noteID === undefined ? card.ankiID : undefined) ?? created)
              if (card.noteID !== undefined) notes.set(card.noteID, nid)
              const kind = card.clozeNumber === undefined ? 'basic' : 'cloze'
              const own = stock[kind]
              if (own !== undefined) writer.addNotetype({ ...own, id: own.ankiID, modified: own.modified ?? 0 })
              writer.addNote({
                id: nid,
                guid: noteGuid(card.noteID ?? card._id, card.ankiGuid),
                kind: own === undefined ? kind : { notetypeId: own.ankiID },
                fields: noteFields(card, fileOf),
                // when its text was last changed here: Anki then keeps a note edited there since, as it keeps any newer note
                modified: Math.floor((card.modified ?? card.createdAt).getTime() / 1000),
                ...(card.tags === undefined ? {} : { tags: card.tags })
              })
            }
            const id = cardId(card.ankiID ?? created)
            cardIds.set(card._id, id)
            if (card.state === CardState.New) newCards.push({ id, createdOrder: card.createdOrder })
            else lastReviewSeconds.set(id, card.lastReview === null ? null : Math.floor(card.lastReview.getTime() / 1000))
            const schedule = scheduleRow(card, 0, days, user.desiredRetention)
            writer.addCard({
              id,
              noteId: nid,
              deckId: deckIds.get(card.flashcardID) ?? 1,
              // a card of a kept note is its template's; any other is the one card of a Basic note, or its cloze number's
              ord: card.clozeNumber !== undefined ? Math.max(0, card.clozeNumber - 1) : card.noteID !== undefined && keptNotes.has(card.noteID) ? card.ankiOrd ?? 0 : 0,
              modified: Math.floor(now.getTime() / 1000),
              ...schedule,
              ...standingRow(card, schedule.queue, now)
            })
          }
        }

        let batch: CardWithGuid[] = []
        for await (const card of repositories.cards.forExport(userID, flashcardIDs) as AsyncIterable<CardWithGuid>) {
          if (cardIds.size + batch.length >= limits.cards) throw tooLarge(`${limits.cards} cards`)
          text += card.front.length + card.back.length
          if (text > limits.textCharacters) throw tooLarge(`${limits.textCharacters} characters of card text`)
          batch.push(card)
          if (batch.length >= CARD_BATCH) {
            await writeBatch(batch)
            batch = []
            await othersTurn()
          }
        }
        await writeBatch(batch)
        // new cards come in the order they were made, as the new-card queue has them
        newCards.sort((a, b) => a.createdOrder - b.createdOrder || a.id - b.id)
        writer.positionNewCards(newCards.map((card) => card.id))

        // revlog ids are unique: a review of a millisecond taken already goes a millisecond later
        const revlogId = uniqueIds()
        const lastRows = new LastRows()
        let reviews = 0
        const added = async (row: RevlogRow): Promise<void> => {
          writer.addRevlog(row)
          lastRows.add(row)
          reviews += 1
          if (reviews > limits.reviews) throw tooLarge(`${limits.reviews} reviews`)
          if (reviews % REVIEW_BATCH === 0) await othersTurn()
        }
        // the histories Anki imports brought, rows as Anki wrote them; then the reviews given here
        for await (const history of repositories.reviewHistories.ofImports(userID, await repositories.imports.keptOf(userID))) {
          const cid = cardIds.get(history._id)
          if (cid === undefined) continue
          for (const entry of history.reviews) await added(importedRevlogRow(entry, revlogId(entry.reviewedAt.getTime()), cid))
        }
        for await (const review of repositories.reviews.allOf(userID)) {
          const cid = cardIds.get(review.cardID)
          if (cid === undefined) continue
          await added(revlogRow(review, revlogId(review.reviewedAt.getTime()), cid))
        }
        // a card's `lrt` is the second of its last review's row, as Anki's Check Database makes it:
        // a row moved a millisecond later into the next second, or an answer that was cramming, moves it
        for (const [cid, seconds] of lastReviewSeconds) {
          const logged = lastRows.lastReviewSecondsOf(cid)
          if (logged !== undefined && logged !== seconds) writer.setLastReviewTime(cid, logged)
        }

        const collection = writer.finish(newCards.length + 1)
        return { fileName: `${name}.apkg`, stream: packageStream(collection, dummyCollection(sql, now), files, repositories.media) }
      } finally {
        writer.close()
      }
    }
  }
}

/**
 * The package as Anki's legacy exporter lays it out (rslib/src/import_export/package/colpkg/
 * export.rs): `meta` (version 2), `collection.anki21`, the dummy `collection.anki2`, the media
 * files as numbered entries, then the media map, JSON. Media is stored as it is (images and
 * sounds are compressed already), each file read from GridFS only when its turn comes.
 */
function packageStream (collection: Uint8Array, dummy: Uint8Array, media: ReadonlyMap<string, MediaDocument>, files: ServiceContext['repositories']['media']): Readable {
  const zip = new yazl.ZipFile()
  const output = zip.outputStream as Readable
  zip.on('error', (error: Error) => output.destroy(error))
  zip.addBuffer(META, 'meta', { compress: false })
  zip.addBuffer(Buffer.from(collection.buffer, collection.byteOffset, collection.byteLength), 'collection.anki21')
  zip.addBuffer(Buffer.from(dummy.buffer, dummy.byteOffset, dummy.byteLength), 'collection.anki2')
  const map: Record<string, string> = {}
  ;[...media].forEach(([name, record], index) => {
    map[index] = name
    zip.addReadStreamLazy(String(index), { size: record.bytes, compress: false }, (done) => {
      done(null, files.openDownload(record.fileId, { start: 0, end: record.bytes }))
    })
  })
  zip.addBuffer(Buffer.from(JSON.stringify(map)), 'media')
  zip.end()
  return output
}

export type AnkiExportService = ReturnType<typeof ankiExportService>
