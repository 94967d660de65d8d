// Writes an Anki collection: the SQLite file of schema 11 that Anki's own legacy exporter puts in
// `collection.anki21` ("support older Anki versions"), which every Anki since 2.1 opens and current
// Anki upgrades as it imports. Schema 11 keeps decks, deck options, note types and the
// configuration as JSON in the one `col` row (rslib/src/storage/schema11.sql); the reader
// (collection.ts) reads the same file back. The SQL engine (sql.js) is handed in: no I/O here.
import { createHash } from 'node:crypto'
import type { Database, SqlJsStatic } from 'sql.js'
import type { SiblingBurying } from '../card-states.js'

/** When the collection's days begin, as Anki keeps it (see days.ts for how it counts them). */
export interface CollectionTiming {
  /** `col.crt`: the start of the collection's day 0, epoch seconds */
  creationStamp: number
  /** minutes west of UTC at creation (`creationOffset`) */
  creationOffsetMinutesWest: number
  /** minutes west of UTC now (`localOffset`) */
  localOffsetMinutesWest: number
  /** the hour the next day starts at (`rollover`) */
  rolloverHour: number
}

export type NoteKind = 'basic' | 'cloze'

/** The two note types a package holds: fixed ids, so that a second import finds the ones the first made. */
export const NOTETYPE_IDS: Readonly<Record<NoteKind, number>> = { basic: 1_700_000_000_101, cloze: 1_700_000_000_102 }

export const DEFAULT_DECK_ID = 1

export interface DeckRow {
  id: number
  /** the name's parts: ['A', 'B', 'C'] is `A::B::C` */
  path: string[]
}

export interface NoteRow {
  id: number
  guid: string
  /** one of the package's own note types, or the id of one added with addNotetype */
  kind: NoteKind | { notetypeId: number }
  /** basic: Front, Back; cloze: Text, Back Extra; a note type added: its fields, in its order; each HTML */
  fields: readonly string[]
  /** epoch seconds */
  modified: number
  /** the note's tags, each without spaces */
  tags?: readonly string[]
}

export interface CardRow {
  id: number
  noteId: number
  deckId: number
  ord: number
  type: number
  queue: number
  due: number
  interval: number
  factor: number
  reps: number
  lapses: number
  left: number
  /** `cards.data`: the FSRS memory state as Anki stores it, or '' */
  data: string
  /** `cards.flags`: the flag, 0 (none) to 7, in the low three bits */
  flags: number
  modified: number
}

export interface RevlogRow {
  /** epoch milliseconds of the review, unique in the collection */
  id: number
  cardId: number
  button: number
  interval: number
  lastInterval: number
  factor: number
  takenMs: number
  kind: number
}

const SCHEMA_11 = `
CREATE TABLE col (id integer PRIMARY KEY, crt integer NOT NULL, mod integer NOT NULL, scm integer NOT NULL,
  ver integer NOT NULL, dty integer NOT NULL, usn integer NOT NULL, ls integer NOT NULL, conf text NOT NULL,
  models text NOT NULL, decks text NOT NULL, dconf text NOT NULL, tags text NOT NULL);
CREATE TABLE notes (id integer PRIMARY KEY, guid text NOT NULL, mid integer NOT NULL, mod integer NOT NULL,
  usn integer NOT NULL, tags text NOT NULL, flds text NOT NULL, sfld integer NOT NULL, csum integer NOT NULL,
  flags integer NOT NULL, data text NOT NULL);
CREATE TABLE cards (id integer PRIMARY KEY, nid integer NOT NULL, did integer NOT NULL, ord integer NOT NULL,
  mod integer NOT NULL, usn integer NOT NULL, type integer NOT NULL, queue integer NOT NULL, due integer NOT NULL,
  ivl integer NOT NULL, factor integer NOT NULL, reps integer NOT NULL, lapses integer NOT NULL, left integer NOT NULL,
  odue integer NOT NULL, odid integer NOT NULL, flags integer NOT NULL, data text NOT NULL);
CREATE TABLE revlog (id integer PRIMARY KEY, cid integer NOT NULL, usn integer NOT NULL, ease integer NOT NULL,
  ivl integer NOT NULL, lastIvl integer NOT NULL, factor integer NOT NULL, time integer NOT NULL, type integer NOT NULL);
CREATE TABLE graves (usn integer NOT NULL, oid integer NOT NULL, type integer NOT NULL);
CREATE INDEX ix_notes_usn ON notes (usn);
CREATE INDEX ix_cards_usn ON cards (usn);
CREATE INDEX ix_revlog_usn ON revlog (usn);
CREATE INDEX ix_cards_nid ON cards (nid);
CREATE INDEX ix_cards_sched ON cards (did, queue, due);
CREATE INDEX ix_revlog_cid ON revlog (cid);
CREATE INDEX ix_notes_csum ON notes (csum);
`

const CSS = '.card {\n    font-family: arial;\n    font-size: 20px;\n    line-height: 1.5;\n    text-align: center;\n    color: black;\n    background-color: white;\n}\n'
const CLOZE_CSS = `${CSS}.cloze {\n    font-weight: bold;\n    color: blue;\n}\n.nightMode .cloze {\n    color: lightblue;\n}\n`
const LATEX_PRE = '\\documentclass[12pt]{article}\n\\special{papersize=3in,5in}\n\\usepackage[utf8]{inputenc}\n\\usepackage{amssymb,amsmath}\n\\pagestyle{empty}\n\\setlength{\\parindent}{0in}\n\\begin{document}\n'

function field (name: string, ord: number) {
  return { name, ord, sticky: false, rtl: false, font: 'Arial', size: 20, description: '', plainText: false, collapsed: false, excludeFromSearch: false }
}

function template (name: string, qfmt: string, afmt: string) {
  return { name, ord: 0, qfmt, afmt, bqfmt: '', bafmt: '', did: null, bfont: '', bsize: 0 }
}

/** A note type an Anki import kept, written back under Anki's id of it with its fields, templates and CSS. */
export interface NotetypeRow {
  id: number
  name: string
  kind: 'standard' | 'cloze'
  fields: readonly string[]
  templates: ReadonlyArray<{ name: string, front: string, back: string }>
  css: string
  sortField: number
  /** epoch seconds; 0 for one not changed here, which a collection holding it keeps as it has it */
  modified: number
}

function notetypeJson (notetype: NotetypeRow): Record<string, unknown> {
  return {
    id: notetype.id,
    name: notetype.name,
    type: notetype.kind === 'cloze' ? 1 : 0,
    mod: notetype.modified,
    usn: -1,
    sortf: Math.min(Math.max(0, notetype.sortField), Math.max(0, notetype.fields.length - 1)),
    did: null,
    latexPre: LATEX_PRE,
    latexPost: '\\end{document}',
    latexsvg: false,
    req: [],
    tags: [],
    vers: [],
    flds: notetype.fields.map((name, ord) => field(name, ord)),
    tmpls: notetype.templates.map((one, ord) => ({ ...template(one.name, one.front, one.back), ord })),
    css: notetype.css
  }
}

/** Anki's stock Basic and Cloze note types, as its legacy exporter writes them into `col.models`. */
function notetypes (modified: number): Record<string, unknown> {
  const common = { mod: modified, usn: -1, sortf: 0, did: null, latexPre: LATEX_PRE, latexPost: '\\end{document}', latexsvg: false, req: [[0, 'any', [0]]], tags: [], vers: [] }
  return {
    [NOTETYPE_IDS.basic]: {
      ...common,
      id: NOTETYPE_IDS.basic,
      name: 'Basic',
      type: 0,
      flds: [field('Front', 0), field('Back', 1)],
      tmpls: [template('Card 1', '{{Front}}', '{{FrontSide}}\n\n<hr id=answer>\n\n{{Back}}')],
      css: CSS
    },
    [NOTETYPE_IDS.cloze]: {
      ...common,
      id: NOTETYPE_IDS.cloze,
      name: 'Cloze',
      type: 1,
      flds: [field('Text', 0), field('Back Extra', 1)],
      tmpls: [template('Cloze', '{{cloze:Text}}', '{{cloze:Text}}<br>\n{{Back Extra}}')],
      css: CLOZE_CSS
    }
  }
}

function deckJson (id: number, name: string, modified: number, presetId: number): Record<string, unknown> {
  return {
    id,
    mod: modified,
    name,
    usn: -1,
    lrnToday: [0, 0],
    revToday: [0, 0],
    newToday: [0, 0],
    timeToday: [0, 0],
    collapsed: false,
    browserCollapsed: false,
    desc: '',
    dyn: 0,
    conf: presetId,
    extendNew: 0,
    extendRev: 0
  }
}

/**
 * The learner's scheduling as a deck options preset of its own, which the exported decks use: their
 * desired retention, and their own FSRS parameters once fitted. Anki imports a preset (with "Import
 * any deck presets") only when the collection holds none of its id, and never its Default (id 1),
 * so the learner's settings cannot travel in Default.
 */
export interface LearnerPreset {
  /** the same at every export of one account, so that importing again adds no second preset */
  id: number
  name: string
  desiredRetention: number
  /** FSRS-6's 21 parameters (Anki's `fsrsParams6`); absent, Anki's FSRS runs on its defaults */
  fsrsParameters?: readonly number[]
  /** which siblings answering a card buries (Anki's new.bury, rev.bury, buryInterdayLearning); absent: none */
  siblingBurying?: SiblingBurying
}

/** A deck options preset: Anki's defaults, with a name and the desired retention and FSRS parameters given. */
function presetJson (id: number, name: string, modified: number, desiredRetention: number, fsrsParameters?: readonly number[], burying?: SiblingBurying): Record<string, unknown> {
  return {
    id,
    mod: modified,
    name,
    usn: -1,
    maxTaken: 60,
    autoplay: true,
    timer: 0,
    replayq: true,
    new: { bury: burying?.buryNewSiblings === true, delays: [1.0, 10.0], initialFactor: 2500, ints: [1, 4, 0], order: 1, perDay: 20 },
    rev: { bury: burying?.buryReviewSiblings === true, ease4: 1.3, ivlFct: 1.0, maxIvl: 36500, perDay: 200, hardFactor: 1.2 },
    lapse: { delays: [10.0], leechAction: 1, leechFails: 8, minInt: 1, mult: 0.0 },
    dyn: false,
    newMix: 0,
    newPerDayMinimum: 0,
    interdayLearningMix: 0,
    reviewOrder: 0,
    newSortOrder: 0,
    newGatherPriority: 0,
    buryInterdayLearning: burying?.buryInterdayLearningSiblings === true,
    fsrsWeights: [],
    ...(fsrsParameters === undefined ? {} : { fsrsParams6: [...fsrsParameters] }),
    desiredRetention,
    ignoreRevlogsBeforeDate: '',
    sm2Retention: 0.9
  }
}

/** The presets: Anki's Default, and the learner's when there is one. */
function deckOptions (modified: number, learner?: LearnerPreset): Record<string, unknown> {
  const options: Record<string, unknown> = { 1: presetJson(1, 'Default', modified, 0.9) }
  if (learner !== undefined) options[learner.id] = presetJson(learner.id, learner.name, modified, learner.desiredRetention, learner.fsrsParameters, learner.siblingBurying)
  return options
}

/** A field's text without markup, as Anki sorts and checksums notes by it (entities decoded, media names kept). */
function plainText (html: string): string {
  return html
    .replace(/<img[^>]*src=["']?([^"'>]+)["']?[^>]*>/gi, ' $1 ')
    .replace(/<[^>]*>/g, '')
    .replace(/&nbsp;/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, '\'')
    .replace(/&amp;/g, '&')
    .trim()
}

/** Anki's note checksum: the first 8 hex digits of the SHA-1 of the first field's text, as a number. */
function fieldChecksum (text: string): number {
  return Number.parseInt(createHash('sha1').update(text).digest('hex').slice(0, 8), 16)
}

/**
 * A schema 11 collection being written: rows go in as they come, and `finish` writes the `col`
 * row and gives the file's bytes. The database lives in sql.js's memory until then.
 */
export class CollectionWriter {
  private readonly db: Database
  private readonly decks: Record<string, unknown> = {}
  private readonly addedNotetypes: Record<string, unknown> = {}
  private readonly insertNote
  private readonly insertCard
  private readonly insertRevlog
  private finished = false
  private closed = false

  constructor (sql: SqlJsStatic, private readonly timing: CollectionTiming, private readonly now: Date, private readonly preset?: LearnerPreset) {
    this.db = new sql.Database()
    this.db.run('pragma journal_mode = off')
    this.db.run('pragma synchronous = off')
    this.db.exec(SCHEMA_11)
    this.db.run('begin')
    this.insertNote = this.db.prepare('insert into notes values (?, ?, ?, ?, -1, ?, ?, ?, ?, 0, \'\')')
    this.insertCard = this.db.prepare('insert into cards values (?, ?, ?, ?, ?, -1, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0, ?, ?)')
    this.insertRevlog = this.db.prepare('insert into revlog values (?, ?, -1, ?, ?, ?, ?, ?, ?)')
    this.decks[DEFAULT_DECK_ID] = deckJson(DEFAULT_DECK_ID, 'Default', this.seconds(), 1)
  }

  private seconds (): number {
    return Math.floor(this.now.getTime() / 1000)
  }

  addDeck (deck: DeckRow): void {
    this.decks[deck.id] = deckJson(deck.id, deck.path.join('::'), this.seconds(), this.preset?.id ?? 1)
  }

  /** Adds a note type an import kept (once; a second call for its id changes nothing). */
  addNotetype (notetype: NotetypeRow): void {
    this.addedNotetypes[notetype.id] ??= notetypeJson(notetype)
  }

  addNote (note: NoteRow, sortFieldIndex = 0): void {
    const sortField = plainText(note.fields[sortFieldIndex] ?? '')
    const notetypeId = typeof note.kind === 'string' ? NOTETYPE_IDS[note.kind] : note.kind.notetypeId
    // Anki keeps a note's tags space-separated, with a space before the first and after the last
    const tags = note.tags === undefined || note.tags.length === 0 ? '' : ` ${note.tags.join(' ')} `
    this.insertNote.run([note.id, note.guid, notetypeId, note.modified, tags, note.fields.join('\u001f'), sortField, fieldChecksum(sortField)])
  }

  addCard (card: CardRow): void {
    this.insertCard.run([card.id, card.noteId, card.deckId, card.ord, card.modified, card.type, card.queue, card.due,
      card.interval, card.factor, card.reps, card.lapses, card.left, card.flags, card.data])
  }

  addRevlog (entry: RevlogRow): void {
    this.insertRevlog.run([entry.id, entry.cardId, entry.button, entry.interval, entry.lastInterval, entry.factor, entry.takenMs, entry.kind])
  }

  /** Sets the epoch second of a card's last review in its `data` (`lrt`), or takes it out (null). */
  setLastReviewTime (cardId: number, seconds: number | null): void {
    const [row] = this.db.exec('select data from cards where id = ?', [cardId])
    const data = row?.values[0]?.[0]
    const memory = typeof data === 'string' && data !== '' ? JSON.parse(data) as Record<string, unknown> : {}
    if (seconds === null) delete memory.lrt
    else memory.lrt = seconds
    this.db.run('update cards set data = ? where id = ?', [Object.keys(memory).length === 0 ? '' : JSON.stringify(memory), cardId])
  }

  /** Gives the new cards their places in the new-card queue, in the order given: 1, 2, 3... */
  positionNewCards (cardIds: readonly number[]): void {
    const statement = this.db.prepare('update cards set due = ? where id = ?')
    try {
      cardIds.forEach((id, index) => statement.run([index + 1, id]))
    } finally {
      statement.free()
    }
  }

  /** Writes the `col` row and gives the SQLite file; the writer is closed after. */
  finish (nextPosition: number): Uint8Array {
    if (this.finished) throw new Error('the collection was finished already')
    this.finished = true
    try {
      const modified = this.seconds()
      const conf = {
        activeDecks: [DEFAULT_DECK_ID],
        curDeck: DEFAULT_DECK_ID,
        newSpread: 0,
        collapseTime: 1200,
        timeLim: 0,
        estTimes: true,
        dueCounts: true,
        curModel: NOTETYPE_IDS.basic,
        nextPos: nextPosition,
        sortType: 'noteFld',
        sortBackwards: false,
        addToCur: true,
        dayLearnFirst: false,
        schedVer: 2,
        sched2021: true,
        rollover: this.timing.rolloverHour,
        creationOffset: this.timing.creationOffsetMinutesWest,
        localOffset: this.timing.localOffsetMinutesWest
      }
      this.db.run('insert into col values (1, ?, ?, ?, 11, 0, 0, 0, ?, ?, ?, ?, \'{}\')', [
        this.timing.creationStamp,
        this.now.getTime(),
        this.now.getTime(),
        JSON.stringify(conf),
        JSON.stringify({ ...notetypes(modified), ...this.addedNotetypes }),
        JSON.stringify(this.decks),
        JSON.stringify(deckOptions(modified, this.preset))
      ])
      this.db.run('commit')
      return this.db.export()
    } finally {
      this.close()
    }
  }

  /** Frees the database without writing it (a refused export). */
  close (): void {
    this.finished = true
    if (this.closed) return
    this.closed = true
    for (const statement of [this.insertNote, this.insertCard, this.insertRevlog]) statement.free()
    this.db.close()
  }
}

/**
 * The `collection.anki2` a package carries beside its real collection, as Anki's exporter writes
 * it: one note asking whoever opens it in an Anki too old for the real one to update.
 */
export function dummyCollection (sql: SqlJsStatic, now: Date): Uint8Array {
  const seconds = Math.floor(now.getTime() / 1000)
  const writer = new CollectionWriter(sql, { creationStamp: seconds, creationOffsetMinutesWest: 0, localOffsetMinutesWest: 0, rolloverHour: 4 }, now)
  writer.addNote({ id: 1, guid: 'update-anki', kind: 'basic', fields: ['Please update to the latest Anki version, then import the .colpkg/.apkg file again.', ''], modified: seconds })
  writer.addCard({ id: 1, noteId: 1, deckId: DEFAULT_DECK_ID, ord: 0, type: 0, queue: 0, due: 1, interval: 0, factor: 0, reps: 0, lapses: 0, left: 0, data: '', flags: 0, modified: seconds })
  return writer.finish(2)
}
