// What the service's cards, reviews and folders become in an Anki collection (writer.ts writes
// it): decks from folder paths, notes of Anki's Basic and Cloze types, each card's FSRS schedule
// as Anki's type, queue and due, and each review as a revlog row. Pure: the service reads the data
// and hands it in.
import { createHash } from 'node:crypto'
import { IANAZone } from 'luxon'
import { addDays, dayOf, daysBetween, startOfDay, userDay, type LocalDay, type UserCalendar } from '../calendar.js'
import { madeHereFields } from '../notes.js'
import type { TextFormat } from '../card-content.js'
import { flashcardIDsIn, locateFlashcard, locateFolder, type FlashcardNode, type FolderNode, type LibraryTree } from '../library-tree.js'
import { Refusal } from '../refusals.js'
import { isBuriedAt } from '../card-states.js'
import { CardState, type CardSchedule, type Rating } from '../scheduling.js'
import { CARD_QUEUE } from './collection.js'
import { DEFAULT_DECK_ID, type CardRow, type CollectionTiming, type RevlogRow } from './writer.js'
import type { HistoryEntry } from '../anki-import.js'

/** What an export holds: the whole account, a folder with everything below it, or one flashcard. */
export type ExportScope = { kind: 'account' } | { kind: 'folder', folderID: string } | { kind: 'flashcard', flashcardID: string }

export interface ExportedDeck {
  /** the deck's name, part by part: the folder path, the flashcard last */
  path: string[]
  /** the flashcard whose cards it holds; absent for a deck made of a folder */
  flashcardID?: string
  /** the folder or flashcard it is made of, and the Anki id that one keeps from an Anki import */
  nodeID: string
  ankiID?: number
}

/** A folder or flashcard as the deck it is made of: its name, with its ids. */
function deckOf (node: FolderNode | FlashcardNode, path: string[]): ExportedDeck {
  return { path, nodeID: node.id, ...(node.ankiID === undefined ? {} : { ankiID: node.ankiID }) }
}

/**
 * A deck's name part as Anki reads it: Anki splits names at `::`, so a name that holds it would
 * become two decks; it keeps one colon there instead.
 */
function deckPart (name: string): string {
  return name.replace(/:{2,}/g, ':')
}

function folderDecks (folder: FolderNode, above: string[], decks: ExportedDeck[]): void {
  const path = [...above, deckPart(folder.name)]
  decks.push(deckOf(folder, path))
  for (const flashcard of folder.flashcards) decks.push({ ...deckOf(flashcard, [...path, deckPart(flashcard.name)]), flashcardID: flashcard.id })
  for (const child of folder.folders) folderDecks(child, path, decks)
}

/** The folders above a scope, as its parent decks. */
function decksAbove (above: readonly FolderNode[], decks: ExportedDeck[]): string[] {
  const path = above.map((folder) => deckPart(folder.name))
  above.forEach((folder, index) => decks.push(deckOf(folder, path.slice(0, index + 1))))
  return path
}

/**
 * The decks of an export and the name of its file: every folder and flashcard in scope becomes a
 * deck (`A::B::C`, a flashcard the leaf), and the folders above the scope become its parent decks.
 * Refuses a folder or flashcard the tree does not hold (404: another user's is not there either).
 */
export function exportedDecks (tree: LibraryTree, scope: ExportScope): { decks: ExportedDeck[], flashcardIDs: string[], name: string } {
  const decks: ExportedDeck[] = []
  if (scope.kind === 'flashcard') {
    const found = locateFlashcard(tree, scope.flashcardID)
    if (found === null) throw new Refusal('flashcard_not_found', `no flashcard ${scope.flashcardID}`)
    const above = decksAbove(found.above, decks)
    decks.push({ ...deckOf(found.node, [...above, deckPart(found.node.name)]), flashcardID: found.node.id })
    return { decks, flashcardIDs: [found.node.id], name: found.node.name }
  }
  if (scope.kind === 'folder') {
    const found = locateFolder(tree, scope.folderID)
    if (found === null) throw new Refusal('folder_not_found', `no folder ${scope.folderID}`)
    folderDecks(found.node, decksAbove(found.above, decks), decks)
    return { decks, flashcardIDs: flashcardIDsIn([found.node]), name: found.node.name }
  }
  for (const folder of tree.folders) folderDecks(folder, [], decks)
  return { decks, flashcardIDs: flashcardIDsIn(tree.folders), name: 'flashcards' }
}

/** 64 bits of SHA-256 of `flashcard-service:` and `text`: what an export derives the same at every export (a guid, a deck id). */
function stableBits (text: string): bigint {
  return createHash('sha256').update(`flashcard-service:${text}`).digest().readBigUInt64BE(0)
}

/**
 * Where the deck ids derived from a folder's or flashcard's id lie: millisecond times of the years
 * 6429 to 8660, which no deck Anki made can have (Anki's deck ids are their creation times), yet
 * times any date arithmetic still reads; 46 bits, so that two of one account meet only by a
 * vanishingly rare chance.
 */
export const DERIVED_DECK_IDS = { from: 2 ** 47, span: 2 ** 46 }

/** The deck id of a folder or flashcard without one of Anki's: the same at every export, from the node's id alone. */
export function derivedDeckId (nodeID: string): number {
  return DERIVED_DECK_IDS.from + Number(stableBits(`deck:${nodeID}`) % BigInt(DERIVED_DECK_IDS.span))
}

/**
 * The ids of an export's decks, in their order: the Anki id a folder or flashcard keeps from an
 * Anki import, else its derived one, so that a deck has the same id at every export whatever its
 * scope. Ids never repeat in one package, and Default's 1 is Default's: an id taken already (two
 * folders imported from one deck, Anki's Default deck imported) gives way to the derived one, and
 * that, should it be taken too, to the next free number above it.
 */
export function exportedDeckIds (decks: readonly ExportedDeck[]): number[] {
  const taken = new Set([DEFAULT_DECK_ID])
  return decks.map((deck) => {
    let id = deck.ankiID !== undefined && !taken.has(deck.ankiID) ? deck.ankiID : derivedDeckId(deck.nodeID)
    while (taken.has(id)) id += 1
    taken.add(id)
    return id
  })
}

/**
 * The most one export holds: the collection is built in memory before it is sent, so these bound
 * the memory an export takes (docs/anki.md gives what they cost). The card quota is one account's
 * whole; the text and the reviews bound what its cards can hold beyond that.
 */
export interface ExportLimits {
  cards: number
  /** the cards' front and back (a cloze note's text and back extra on each of its cards), in UTF-16 code units */
  textCharacters: number
  reviews: number
}

export const EXPORT_LIMITS: ExportLimits = { cards: 200_000, textCharacters: 64 * 1024 * 1024, reviews: 1_000_000 }

/** How the collection counts days: the learner's calendar, its day 0 the day the account was made. */
export interface AnkiDays {
  calendar: UserCalendar
  creationDay: LocalDay
  timing: CollectionTiming
  /** the learner's today at the export, and when it ends */
  today: LocalDay
  endOfToday: Date
}

function minutesWest (zone: IANAZone, at: number): number {
  return -zone.offset(at)
}

/**
 * The collection's timing: `crt` the start (at the learner's day start hour) of `creationDay`,
 * the offsets of their zone then and now, their rollover hour. Anki counts a review card's due as
 * days since that day (days.ts), and an import shifts it by the days between the package's today
 * and the collection's, so a card keeps its place relative to today.
 */
export function ankiDays (calendar: UserCalendar, creationDay: LocalDay, now: Date): AnkiDays {
  const zone = IANAZone.create(calendar.timezone)
  const creation = startOfDay(creationDay, calendar).getTime()
  const today = userDay(now, calendar)
  return {
    calendar,
    creationDay,
    timing: {
      creationStamp: Math.floor(creation / 1000),
      creationOffsetMinutesWest: minutesWest(zone, creation),
      localOffsetMinutesWest: minutesWest(zone, now.getTime()),
      rolloverHour: calendar.dayStartHour
    },
    today: today.day,
    endOfToday: today.end
  }
}

/** Anki's day number of an instant: the learner's day it falls on, counted from the collection's day 0. */
export function dayNumber (days: AnkiDays, instant: Date): number {
  return daysBetween(days.creationDay, dayOf(instant, days.calendar))
}

/** The calendar day of a day number: what days.ts's cardDue gives back. */
export function dayOfNumber (days: AnkiDays, number: number): LocalDay {
  return addDays(days.creationDay, number)
}

/** Anki's SM-2 ease for a card FSRS schedules: the starting ease of its default options. */
const DEFAULT_EASE = 2500
/** The learning steps of ts-fsrs's defaults (1m 10m) and relearning steps (10m), as the service schedules. */
const LEARNING_STEPS = 2
const RELEARNING_STEPS = 1

function round (value: number, places: number): number {
  const factor = 10 ** places
  return Math.round(value * factor) / factor
}

export type CardScheduleRow = Pick<CardRow, 'type' | 'queue' | 'due' | 'interval' | 'factor' | 'reps' | 'lapses' | 'left' | 'data'>

/**
 * A card's FSRS schedule in Anki's terms (rslib/src/card): type and queue (0 new, 1 learning,
 * 2 review, 3 relearning; queue 3 learning across days); a new card's due its `position`, a
 * review card's a day number, a learning card's the epoch second it is due, or its day number when
 * that is after today (Anki's day learning). Its memory state goes into `cards.data` as Anki keeps
 * it (`s` 4 places, `d` 3, the desired retention, the last review's epoch second), so Anki's FSRS
 * carries on from it; the interval and an ease of 250% serve Anki's SM-2.
 */
export function scheduleRow (card: CardSchedule, position: number, days: AnkiDays, desiredRetention: number): CardScheduleRow {
  const counts = { reps: card.reps, lapses: card.lapses }
  if (card.state === CardState.New) {
    return { type: 0, queue: 0, due: position, interval: 0, factor: 0, left: 0, data: '', ...counts }
  }
  const memory: Record<string, number> = {}
  if (card.stability > 0 && card.difficulty > 0) {
    memory.s = round(card.stability, 4)
    memory.d = round(card.difficulty, 3)
    memory.dr = round(desiredRetention, 2)
  }
  if (card.lastReview !== null) memory.lrt = Math.floor(card.lastReview.getTime() / 1000)
  const data = Object.keys(memory).length === 0 ? '' : JSON.stringify(memory)
  if (card.state === CardState.Review) {
    return { type: 2, queue: 2, due: dayNumber(days, card.due), interval: Math.max(1, Math.round(card.scheduledDays)), factor: DEFAULT_EASE, left: 0, data, ...counts }
  }
  const relearning = card.state === CardState.Relearning
  const steps = relearning ? RELEARNING_STEPS : LEARNING_STEPS
  const left = Math.max(1, steps - Math.max(0, Math.trunc(card.learningSteps)))
  const later = card.due.getTime() >= days.endOfToday.getTime()
  return {
    type: relearning ? 3 : 1,
    queue: later ? 3 : 1,
    due: later ? dayNumber(days, card.due) : Math.floor(card.due.getTime() / 1000),
    // a lapsed card's interval once relearnt, as Anki's default lapse options give it; a learning card has none yet
    interval: relearning ? 1 : 0,
    factor: relearning ? DEFAULT_EASE : 0,
    left,
    data,
    ...counts
  }
}

/** What an export reads of a card's standing (domain/card-states.ts). */
export interface StandingToExport {
  suspended?: boolean
  buriedUntil?: Date
  /** buried as a sibling in Anki (queue -2), as an Anki import brought it; else by the user */
  buriedAsSibling?: boolean
  flag?: number
}

/**
 * A card's standing as Anki keeps it (rslib/src/card, rslib/src/scheduler/bury_and_suspend.rs): a
 * suspended card in queue -1, a buried one in -3 (by the user) or -2 (as a sibling), its type and
 * due as its schedule gives them, which Anki restores its queue from; the flag in the low three
 * bits of `flags`. Suspension comes first, as Anki never buries a suspended card. A burial whose
 * day has begun at `now` is over: the card is in the queue its schedule gives.
 */
export function standingRow (card: StandingToExport, scheduledQueue: number, now: Date): Pick<CardRow, 'queue' | 'flags'> {
  const flags = (card.flag ?? 0) & 7
  if (card.suspended === true) return { queue: CARD_QUEUE.suspended, flags }
  if (isBuriedAt(card, now)) return { queue: card.buriedAsSibling === true ? CARD_QUEUE.schedBuried : CARD_QUEUE.userBuried, flags }
  return { queue: scheduledQueue, flags }
}

const BUTTONS: Readonly<Record<Rating, number>> = { again: 1, hard: 2, good: 3, easy: 4 }

export interface ReviewToExport {
  rating: Rating
  reviewedAt: Date
  before: CardSchedule
  after: CardSchedule
}

/** An interval as the revlog keeps it: whole days for a review card, negative seconds until due otherwise. */
function revlogInterval (schedule: CardSchedule, from: Date | null): number {
  if (schedule.state === CardState.Review) return Math.max(1, Math.round(schedule.scheduledDays))
  if (schedule.state === CardState.New || from === null) return 0
  return -Math.max(1, Math.round((schedule.due.getTime() - from.getTime()) / 1000))
}

/**
 * A review as a revlog row (rslib/src/revlog): the button, the kind by the state the card was in
 * (0 learning, for a new or learning card; 1 review; 2 relearning), the interval it gave and the
 * one before, the ease after it, and no time taken (the service does not measure it). `id` is the
 * review's epoch millisecond, made unique by the caller.
 */
export function revlogRow (review: ReviewToExport, id: number, cardId: number): RevlogRow {
  const { before, after } = review
  const kind = before.state === CardState.Review ? 1 : before.state === CardState.Relearning ? 2 : 0
  return {
    id,
    cardId,
    button: BUTTONS[review.rating],
    interval: revlogInterval(after, review.reviewedAt),
    lastInterval: revlogInterval(before, before.lastReview),
    factor: after.state === CardState.Review || after.state === CardState.Relearning ? DEFAULT_EASE : 0,
    takenMs: 0,
    kind
  }
}

/** A row an Anki import brought, written back as Anki wrote it, under a new `id` if its own was taken. */
export function importedRevlogRow (entry: HistoryEntry, id: number, cardId: number): RevlogRow {
  const { interval, lastInterval, factor, takenMs, kind } = entry
  return { id, cardId, button: entry.rating === null ? 0 : BUTTONS[entry.rating], interval, lastInterval, factor, takenMs, kind }
}

// Anki's guid alphabet (pylib/anki/utils.py base91)
const GUID_ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&()*+,-./:;<=>?@[]^_`{|}~'

/**
 * A note's guid, by which Anki matches a note imported again to the one it holds: a guid the card
 * brought from Anki, else 64 bits of a hash of the card's or the cloze note's id in Anki's base 91,
 * the same at every export.
 */
export function noteGuid (id: string, ankiGuid?: string): string {
  if (ankiGuid !== undefined && ankiGuid !== '') return ankiGuid
  let value = stableBits(id)
  let guid = ''
  do {
    guid = (GUID_ALPHABET[Number(value % 91n)] as string) + guid
    value /= 91n
  } while (value > 0n)
  return guid
}


// the media elements the sanitizer writes (card-html.ts): the source first, an audio element empty
const MEDIA_ELEMENT = /<img src="media:([A-Za-z0-9_-]{1,128})"([^>]*)>|<audio src="media:([A-Za-z0-9_-]{1,128})"[^>]*><\/audio>/g

/**
 * HTML with the service's media made Anki's: an image's source the file's name in the package,
 * a sound `[sound:<file>]`, as Anki plays it. An element whose media the account does not hold
 * (`fileOf` gives null) is left out, as a card read leaves it out.
 */
export function withAnkiMedia (html: string, fileOf: (mediaID: string) => string | null): string {
  if (!html.includes('media:')) return html
  return html.replace(MEDIA_ELEMENT, (_, imageID: string | undefined, rest: string | undefined, audioID: string | undefined) => {
    if (imageID !== undefined) {
      const file = fileOf(imageID)
      return file === null ? '' : `<img src="${file}"${rest ?? ''}>`
    }
    const file = fileOf(audioID as string)
    return file === null ? '' : `[sound:${file}]`
  })
}

/** What a note is made of: a card of a front and a back, or a cloze note's text and back extra. */
export interface NoteSource {
  front: string
  back: string
  format?: TextFormat
  noteID?: string
}

/**
 * A note's fields, as HTML: plain text escaped (its line breaks `<br>`), HTML reduced to the
 * service's allowlist, media as Anki names them. A cloze note's text keeps its deletions as
 * written, which is Anki's syntax.
 */
export function noteFields (source: NoteSource, fileOf: (mediaID: string) => string | null): [string, string] {
  const [front, back] = madeHereFields(source)
  return [withAnkiMedia(front, fileOf), withAnkiMedia(back, fileOf)]
}
