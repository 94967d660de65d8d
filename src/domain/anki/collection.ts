// An Anki collection (the SQLite file inside a package) read into plain structures. Schema 11
// keeps decks, deck options and note types as JSON in the `col` row; schema 15 and later keep them
// in tables of their own, as protobuf blobs (rslib/src/storage/). The caller hands in the opened
// database (an SqlSource), so that this module does no I/O of its own.
import type { SiblingBurying } from '../card-states.js'
import { AnkiImportError } from './errors.js'
import { decodeDeckConfig, decodeDeckKind, decodeNotetypeConfig, decodeTemplateConfig } from './protobuf.js'

/** The schema versions Anki opens (rslib/src/storage/upgrades: SCHEMA_MIN_VERSION to SCHEMA_MAX_VERSION). */
export const OLDEST_SCHEMA = 11
export const NEWEST_SCHEMA = 18

export interface AnkiDeck {
  id: number
  /** the name's parts: `A::B::C` is ['A', 'B', 'C'] */
  path: string[]
  /** a filtered deck gathers cards from others for a while; its cards' home decks are their odid */
  filtered: boolean
  /** the deck options preset, for a normal deck */
  configId?: number
  /** a desired retention the deck sets over its preset's */
  desiredRetention?: number
  description: string
}

export interface AnkiDeckConfig {
  id: number
  name: string
  /** the FSRS parameters Anki uses: FSRS-6's if set, else FSRS-5's, else FSRS-4.5's; empty means FSRS's defaults */
  fsrsParams: number[]
  desiredRetention: number
  /** the retention assumed where a card's state is converted from its SM-2 interval and ease */
  historicalRetention: number
  /** reviews before this day (YYYY-MM-DD, UTC) are ignored by FSRS; empty if none */
  ignoreRevlogsBeforeDate: string
  maximumInterval: number
  /** which siblings answering a card buries: "bury new siblings", "bury review siblings", "bury interday learning siblings" */
  siblingBurying: SiblingBurying
}

export interface AnkiField { ord: number, name: string }
export interface AnkiTemplate { ord: number, name: string, questionFormat: string, answerFormat: string }
export interface AnkiNotetype {
  id: number
  name: string
  cloze: boolean
  fields: AnkiField[]
  templates: AnkiTemplate[]
  css: string
  sortField: number
}

export interface AnkiNote {
  id: number
  guid: string
  notetypeId: number
  fields: string[]
  tags: string[]
  modified: number
}

/** Card type (what the card is) and queue (where it waits), as Anki stores them. */
export const CARD_TYPE = { new: 0, learning: 1, review: 2, relearning: 3 } as const
export const CARD_QUEUE = { userBuried: -3, schedBuried: -2, suspended: -1, new: 0, learning: 1, review: 2, dayLearning: 3, preview: 4 } as const

export interface AnkiCard {
  id: number
  noteId: number
  deckId: number
  /** the template's ord, or the cloze number less one */
  ord: number
  type: number
  queue: number
  /** new: position; review and day learning: day number since the collection's creation; learning: epoch seconds */
  due: number
  interval: number
  /** ease in permille (2500 = 250%) */
  factor: number
  reps: number
  lapses: number
  left: number
  /** in a filtered deck: the home deck and the due there */
  originalDeckId: number
  originalDue: number
  flags: number
  /** the FSRS memory state Anki stored, if it computed one */
  memoryState?: { stability: number, difficulty: number }
  desiredRetention?: number
  decay?: number
  /** the last review's time, epoch seconds, where Anki recorded it */
  lastReviewTime?: number
}

/** Review kinds of the revlog's `type` column (rslib/src/revlog/mod.rs). */
export const REVLOG_KIND = { learning: 0, review: 1, relearning: 2, filtered: 3, manual: 4, rescheduled: 5 } as const

export interface AnkiRevlogEntry {
  /** epoch milliseconds of the review: also its id */
  id: number
  cardId: number
  /** 1 again, 2 hard, 3 good, 4 easy; 0 for a manual change */
  button: number
  /** days if positive, seconds if negative */
  interval: number
  lastInterval: number
  factor: number
  /** milliseconds taken to answer */
  takenMs: number
  kind: number
}

/**
 * The review log in columns, sorted by card then time: a million rows take tens of megabytes this
 * way rather than hundreds as objects. `entriesOf` gives one card's rows.
 */
export class RevlogColumns {
  readonly id: Float64Array
  readonly cardId: Float64Array
  readonly button: Int8Array
  readonly interval: Int32Array
  readonly lastInterval: Int32Array
  readonly factor: Int32Array
  readonly takenMs: Int32Array
  readonly kind: Int8Array
  private readonly ranges = new Map<number, [number, number]>()

  constructor (readonly length: number) {
    this.id = new Float64Array(length)
    this.cardId = new Float64Array(length)
    this.button = new Int8Array(length)
    this.interval = new Int32Array(length)
    this.lastInterval = new Int32Array(length)
    this.factor = new Int32Array(length)
    this.takenMs = new Int32Array(length)
    this.kind = new Int8Array(length)
  }

  /** Indexes the rows by card; rows must be sorted by card. */
  index (): void {
    let start = 0
    for (let row = 1; row <= this.length; row++) {
      if (row === this.length || this.cardId[row] !== this.cardId[start]) {
        this.ranges.set(this.cardId[start] as number, [start, row])
        start = row
      }
    }
  }

  entry (row: number): AnkiRevlogEntry {
    return {
      id: this.id[row] as number,
      cardId: this.cardId[row] as number,
      button: this.button[row] as number,
      interval: this.interval[row] as number,
      lastInterval: this.lastInterval[row] as number,
      factor: this.factor[row] as number,
      takenMs: this.takenMs[row] as number,
      kind: this.kind[row] as number
    }
  }

  /** A card's review log, oldest first. */
  entriesOf (cardId: number): AnkiRevlogEntry[] {
    const range = this.ranges.get(cardId)
    if (range === undefined) return []
    const entries: AnkiRevlogEntry[] = []
    for (let row = range[0]; row < range[1]; row++) entries.push(this.entry(row))
    return entries
  }
}

/** When the collection's days begin: what turns its day numbers into calendar days. */
export interface AnkiTiming {
  /** the collection's creation, epoch seconds (`col.crt`) */
  creationStamp: number
  /** minutes west of UTC where it was created (`creationOffset`), if recorded */
  creationOffsetMinutesWest?: number
  /** minutes west of UTC of the last device that used it (`localOffset`), if recorded */
  localOffsetMinutesWest?: number
  /** the hour the next day starts at (`rollover`); absent for the oldest scheduler (v1) */
  rolloverHour?: number
  schedulerVersion: number
}

/** What a collection says besides its notes, cards and review log: small enough to hold whole. */
export interface CollectionHeader {
  schemaVersion: number
  timing: AnkiTiming
  decks: AnkiDeck[]
  deckConfigs: AnkiDeckConfig[]
  notetypes: AnkiNotetype[]
}

/** A collection read whole: for tests and scripts. An import streams its notes instead (CollectionRows). */
export interface AnkiCollection extends CollectionHeader {
  notes: AnkiNote[]
  cards: AnkiCard[]
  revlog: RevlogColumns
}

/** A value of an SQLite column, as the SQL engine gives it. */
export type SqlValue = number | bigint | string | Uint8Array | null

/**
 * What the reader needs of the collection's SQLite database, which the caller opens (src/anki/
 * collection-file.ts: on disk, so that a collection is never held in memory whole). The database
 * is the caller's own copy: the reader changes its schema (see withoutUnicase) and adds indexes.
 */
export interface SqlSource {
  /** a query's rows, one at a time, each as its columns in order */
  rows: (query: string, ...params: SqlValue[]) => Iterable<SqlValue[]>
  /** a query's rows all at once, for a query that answers few (a note's cards, a card's log): far less work a query than rows */
  all: (query: string, ...params: SqlValue[]) => SqlValue[][]
  /** runs statements that change the database */
  run: (statements: string) => void
}

/**
 * Characters (or bytes) of a collection's decks, presets, note types and settings: they are read
 * whole, so a collection past this is refused before they are read. Anki's own are far smaller.
 */
export const MAX_HEADER_CHARACTERS = 32 * 1024 * 1024

/**
 * SQL for the size of a column's value in bytes, without reading it into memory: never NULL (a NULL
 * counts 0, where it would make a sum or a comparison NULL), and whole (length() of text stops at a
 * NUL character, which the value handed on does not). Bytes are at least characters, so this bounds both.
 */
function bytesOf (column: string): string {
  return `coalesce(length(cast(${column} as blob)), 0)`
}

/** The size of what readHeader reads whole, counted by SQLite without reading it into memory. */
function headerCharacters (source: SqlSource, objects: ReadonlyMap<string, string>): number {
  const size = (query: string): number => Number(rows(source, query)[0]?.[0] ?? 0)
  let total = size(`select coalesce(sum(${['conf', 'models', 'decks', 'dconf'].map(bytesOf).join(' + ')}), 0) from col`)
  for (const [table, columns] of Object.entries(HEADER_TABLES)) {
    if (objects.get(table) === 'table') total += size(`select coalesce(sum(${columns.map(bytesOf).join(' + ')}), 0) from ${table}`)
  }
  return total
}

/** The tables of schema 15 and later that readHeader reads whole, with the columns it reads. */
const HEADER_TABLES: Record<string, readonly string[]> = {
  config: ['KEY', 'val'],
  decks: ['name', 'kind'],
  deck_config: ['name', 'config'],
  notetypes: ['name', 'config'],
  fields: ['name'],
  templates: ['name', 'config']
}

/** The reader's own indexes (created in the reader's copy of the file), by which it looks up a note's cards and a card's review log. */
const CARDS_INDEX = 'flashcard_service_cards'
const REVLOG_INDEX = 'flashcard_service_revlog'

/**
 * Refuses a table whose reading would compute rather than read: a virtual table (a module that
 * makes rows), or one with generated columns (an expression evaluated on every read, which can take
 * any time and memory for a file of a few kilobytes).
 */
function checkPlainTables (source: SqlSource, objects: ReadonlyMap<string, string>): void {
  const read = [...ROW_TABLES, ...Object.keys(HEADER_TABLES)].filter((table) => objects.get(table) === 'table')
  for (const table of read) {
    const declared = text(rows(source, 'select sql from sqlite_master where type = \'table\' and name = ?', table)[0]?.[0])
    if (/^\s*create\s+virtual\s+table/i.test(declared)) throw new AnkiImportError('corrupt_collection', `the collection's ${table} is a virtual table, which Anki never writes`)
    const hidden = rows(source, `select name from pragma_table_xinfo('${table}') where hidden != 0`)
    if (hidden.length > 0) throw new AnkiImportError('corrupt_collection', `the collection's ${table} table has computed columns, which Anki never writes`)
  }
  for (const index of [CARDS_INDEX, REVLOG_INDEX]) {
    if (objects.has(index)) throw new AnkiImportError('corrupt_collection', `the collection holds an object named ${index}, which Anki never writes`)
  }
}

/** The tables a collection of any schema has, which the reader reads row by row. */
const ROW_TABLES = ['col', 'notes', 'cards', 'revlog'] as const

/**
 * Reads what a collection says besides its notes, cards and reviews, after checking it: a file
 * SQLite cannot read or check (`corrupt_collection`), a schema outside 11 to 18 (`unknown_schema`).
 * Readies the database for reading row by row (CollectionRows): Anki's collation declared out,
 * and indexes of its own on what the reader looks up.
 */
export function readCollectionHeader (source: SqlSource): CollectionHeader {
  try {
    return readHeader(source)
  } catch (error) {
    if (error instanceof AnkiImportError) throw error
    throw new AnkiImportError('corrupt_collection', `the collection cannot be read: ${error instanceof Error ? error.message : String(error)}`)
  }
}

function readHeader (source: SqlSource): CollectionHeader {
  const objects = new Map(rows(source, 'select name, type from sqlite_master').map(([name, type]) => [text(name), text(type)]))
  for (const table of ROW_TABLES) {
    // a view in a table's place could compute rows without end
    if (objects.get(table) !== 'table') throw new AnkiImportError('corrupt_collection', `the collection has no ${table} table`)
  }
  const schema = rows(source, 'select ver, crt from col')[0]
  if (schema === undefined) throw new AnkiImportError('corrupt_collection', 'the collection has no col row')
  const schemaVersion = Number(schema[0])
  if (!Number.isInteger(schemaVersion) || schemaVersion < OLDEST_SCHEMA || schemaVersion > NEWEST_SCHEMA) {
    throw new AnkiImportError('unknown_schema', `the collection's schema is version ${String(schema[0])}; this reader knows ${OLDEST_SCHEMA} to ${NEWEST_SCHEMA}`)
  }
  checkPlainTables(source, objects)
  withoutUnicase(source)
  const headerSize = headerCharacters(source, objects)
  if (headerSize > MAX_HEADER_CHARACTERS) {
    throw new AnkiImportError('zip_bomb', `the collection's decks, presets and note types take ${headerSize.toLocaleString('en')} characters, more than the ${MAX_HEADER_CHARACTERS.toLocaleString('en')} a collection may hold`)
  }
  const check = rows(source, 'pragma quick_check')
  if (check.length !== 1 || check[0]?.[0] !== 'ok') {
    throw new AnkiImportError('corrupt_collection', `the collection's database is damaged: ${String(check[0]?.[0])}`)
  }
  // what the reader looks up row by row, whatever indexes the file came with
  source.run(`create index ${CARDS_INDEX} on cards (nid, id); create index ${REVLOG_INDEX} on revlog (cid, id)`)
  const tables = new Set([...objects].filter(([, type]) => type === 'table').map(([name]) => name))
  const json = (column: string): Record<string, unknown> => jsonObject(rows(source, `select ${column} from col`)[0]?.[0], `col.${column}`)
  const config = tables.has('config') ? configFromTable(source) : json('conf')
  const timing: AnkiTiming = {
    creationStamp: Number(schema[1]),
    creationOffsetMinutesWest: optionalNumber(config.creationOffset),
    localOffsetMinutesWest: optionalNumber(config.localOffset),
    rolloverHour: Number(config.schedVer ?? 1) >= 2 ? Math.min(23, Math.max(0, optionalNumber(config.rollover) ?? 4)) : undefined,
    schedulerVersion: Number(config.schedVer ?? 1)
  }
  return {
    schemaVersion,
    timing,
    decks: tables.has('decks') ? decksFromTable(source) : decksFromJson(json('decks')),
    deckConfigs: tables.has('deck_config') ? deckConfigsFromTable(source) : deckConfigsFromJson(json('dconf')),
    notetypes: tables.has('notetypes') ? notetypesFromTables(source) : notetypesFromJson(json('models'))
  }
}

/**
 * A whole collection: its header, then every note, card and review. For tests and scripts, which
 * read small collections; an import reads row by row.
 */
export function wholeCollection (header: CollectionHeader, reading: CollectionRows): AnkiCollection {
  try {
    return { ...header, notes: [...reading.notes()], cards: [...reading.cards()], revlog: reading.reviewColumns() }
  } catch (error) {
    if (error instanceof AnkiImportError) throw error
    throw new AnkiImportError('corrupt_collection', `the collection cannot be read: ${error instanceof Error ? error.message : String(error)}`)
  }
}

/**
 * Schema 15 and later declare `COLLATE unicase`, a collation of Anki's own that the SQL engine
 * lacks, and SQLite refuses any statement that touches such a column (or checks its index). The
 * declarations are rewritten out of `sqlite_master`, and `writable_schema = reset` makes the
 * connection reload the schema as if the file were reopened. Names then compare as plain text,
 * which a reader that only scans never notices.
 */
function withoutUnicase (source: SqlSource): void {
  const declared = rows(source, "select count(*) from sqlite_master where sql like '%collate unicase%'")[0]?.[0]
  if (declared === 0) return
  source.run("pragma writable_schema = on; update sqlite_master set sql = replace(replace(sql, 'COLLATE unicase', ''), 'collate unicase', '') where sql like '%collate unicase%'; pragma writable_schema = reset")
}

function rows (source: SqlSource, query: string, ...params: SqlValue[]): SqlValue[][] {
  return source.all(query, ...params)
}

const utf8 = new TextDecoder()

function text (value: SqlValue | undefined): string {
  if (typeof value === 'string') return value
  if (value instanceof Uint8Array) return utf8.decode(value)
  return value === null || value === undefined ? '' : String(value)
}

function blob (value: SqlValue | undefined): Uint8Array {
  if (value instanceof Uint8Array) return value
  return new TextEncoder().encode(text(value))
}

function jsonObject (value: SqlValue | undefined, where: string): Record<string, unknown> {
  let parsed: unknown
  try {
    parsed = JSON.parse(text(value ?? ''))
  } catch {
    throw new AnkiImportError('corrupt_collection', `${where} is not JSON`)
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new AnkiImportError('corrupt_collection', `${where} is not a JSON object`)
  }
  return parsed as Record<string, unknown>
}

function optionalNumber (value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined
}

function numbers (value: unknown): number[] {
  return Array.isArray(value) ? value.filter((item): item is number => typeof item === 'number') : []
}

function configFromTable (source: SqlSource): Record<string, unknown> {
  const config: Record<string, unknown> = {}
  for (const [key, value] of source.rows('select KEY, val from config')) {
    try {
      config[text(key)] = JSON.parse(text(value))
    } catch {
      // a value that is not JSON is no setting this reader uses
    }
  }
  return config
}

function decksFromTable (source: SqlSource): AnkiDeck[] {
  return rows(source, 'select id, name, kind from decks').map(([id, name, kind]) => {
    const decoded = decodeDeckKind(blob(kind))
    const normal = decoded.normal ?? undefined
    return {
      id: Number(id),
      // schema 15 and later store the parts of a deck's name separated by U+001F
      path: text(name).split('\u001f'),
      filtered: normal === undefined,
      configId: normal?.configId,
      desiredRetention: normal?.desiredRetention !== undefined && normal.desiredRetention > 0 ? normal.desiredRetention : undefined,
      description: normal?.description ?? ''
    }
  })
}

function decksFromJson (decks: Record<string, unknown>): AnkiDeck[] {
  return Object.values(decks).map((value) => {
    const deck = value as Record<string, unknown>
    const filtered = deck.dyn === 1 || deck.dyn === true
    const retention = optionalNumber(deck.desiredRetention)
    return {
      id: Number(deck.id),
      path: String(deck.name).split('::'),
      filtered,
      configId: filtered ? undefined : Number(deck.conf ?? 1),
      // schema 11 keeps a deck's desired retention as a whole percentage
      desiredRetention: retention !== undefined && retention > 0 ? retention / 100 : undefined,
      description: typeof deck.desc === 'string' ? deck.desc : ''
    }
  })
}

function retentionOr (value: number | undefined, fallback: number): number {
  return value !== undefined && value > 0 && value < 1 ? value : fallback
}

function chosenParams (params6: number[], params5: number[], params4: number[]): number[] {
  if (params6.length > 0) return params6
  if (params5.length > 0) return params5
  return params4
}

function deckConfigsFromTable (source: SqlSource): AnkiDeckConfig[] {
  return rows(source, 'select id, name, config from deck_config').map(([id, name, config]) => {
    const inner = decodeDeckConfig(blob(config))
    return {
      id: Number(id),
      name: text(name),
      fsrsParams: chosenParams(inner.fsrsParams6, inner.fsrsParams5, inner.fsrsParams4),
      desiredRetention: retentionOr(inner.desiredRetention, 0.9),
      historicalRetention: retentionOr(inner.historicalRetention, 0.9),
      ignoreRevlogsBeforeDate: inner.ignoreRevlogsBeforeDate,
      maximumInterval: inner.maximumReviewInterval,
      siblingBurying: { buryNewSiblings: inner.buryNew, buryReviewSiblings: inner.buryReviews, buryInterdayLearningSiblings: inner.buryInterdayLearning }
    }
  })
}

function deckConfigsFromJson (configs: Record<string, unknown>): AnkiDeckConfig[] {
  return Object.values(configs).map((value) => {
    const config = value as Record<string, unknown>
    const review = (config.rev ?? {}) as Record<string, unknown>
    const fresh = (config.new ?? {}) as Record<string, unknown>
    return {
      id: Number(config.id),
      name: String(config.name),
      fsrsParams: chosenParams(numbers(config.fsrsParams6), numbers(config.fsrsParams5), numbers(config.fsrsWeights)),
      desiredRetention: retentionOr(optionalNumber(config.desiredRetention), 0.9),
      historicalRetention: retentionOr(optionalNumber(config.sm2Retention), 0.9),
      ignoreRevlogsBeforeDate: typeof config.ignoreRevlogsBeforeDate === 'string' ? config.ignoreRevlogsBeforeDate : '',
      maximumInterval: optionalNumber(review.maxIvl) ?? 36500,
      // Anki's legacy schema: new.bury, rev.bury and buryInterdayLearning, false when absent
      siblingBurying: { buryNewSiblings: fresh.bury === true, buryReviewSiblings: review.bury === true, buryInterdayLearningSiblings: config.buryInterdayLearning === true }
    }
  })
}

function notetypesFromTables (source: SqlSource): AnkiNotetype[] {
  const fields = new Map<number, AnkiField[]>()
  for (const [ntid, ord, name] of source.rows('select ntid, ord, name from fields order by ntid, ord')) {
    const list = fields.get(Number(ntid)) ?? []
    list.push({ ord: Number(ord), name: text(name) })
    fields.set(Number(ntid), list)
  }
  const templates = new Map<number, AnkiTemplate[]>()
  for (const [ntid, ord, name, config] of source.rows('select ntid, ord, name, config from templates order by ntid, ord')) {
    const decoded = decodeTemplateConfig(blob(config))
    const list = templates.get(Number(ntid)) ?? []
    list.push({ ord: Number(ord), name: text(name), questionFormat: decoded.qFormat, answerFormat: decoded.aFormat })
    templates.set(Number(ntid), list)
  }
  return rows(source, 'select id, name, config from notetypes').map(([id, name, config]) => {
    const decoded = decodeNotetypeConfig(blob(config))
    return {
      id: Number(id),
      name: text(name),
      cloze: decoded.kind === 1,
      fields: fields.get(Number(id)) ?? [],
      templates: templates.get(Number(id)) ?? [],
      css: decoded.css,
      sortField: decoded.sortFieldIdx
    }
  })
}

function notetypesFromJson (models: Record<string, unknown>): AnkiNotetype[] {
  return Object.values(models).map((value) => {
    const model = value as Record<string, unknown>
    const fields = Array.isArray(model.flds) ? model.flds as Array<Record<string, unknown>> : []
    const templates = Array.isArray(model.tmpls) ? model.tmpls as Array<Record<string, unknown>> : []
    return {
      id: Number(model.id),
      name: String(model.name),
      cloze: model.type === 1,
      fields: fields.map((field, index) => ({ ord: optionalNumber(field.ord) ?? index, name: String(field.name) })),
      templates: templates.map((template, index) => ({
        ord: optionalNumber(template.ord) ?? index,
        name: String(template.name),
        questionFormat: String(template.qfmt ?? ''),
        answerFormat: String(template.afmt ?? '')
      })),
      css: typeof model.css === 'string' ? model.css : '',
      sortField: optionalNumber(model.sortf) ?? 0
    }
  })
}

function cardData (value: SqlValue | undefined): Pick<AnkiCard, 'memoryState' | 'desiredRetention' | 'decay' | 'lastReviewTime'> {
  const raw = text(value)
  if (raw === '' || raw === '{}') return {}
  let data: Record<string, unknown>
  try {
    data = JSON.parse(raw) as Record<string, unknown>
  } catch {
    return {} // Anki reads invalid data as none
  }
  const stability = optionalNumber(data.s)
  const difficulty = optionalNumber(data.d)
  return {
    memoryState: stability !== undefined && difficulty !== undefined ? { stability, difficulty } : undefined,
    desiredRetention: optionalNumber(data.dr),
    decay: optionalNumber(data.decay),
    lastReviewTime: optionalNumber(data.lrt)
  }
}

/** A row of `notes` as read by CollectionRows: id, guid, mid, mod, tags, flds. */
function noteOf ([id, guid, mid, mod, tags, fields]: SqlValue[]): AnkiNote {
  return {
    id: Number(id),
    guid: text(guid),
    notetypeId: Number(mid),
    fields: text(fields).split('\u001f'),
    tags: text(tags).split(/\s+/).filter((tag) => tag !== ''),
    modified: Number(mod)
  }
}

/** The most of a card's `data` read: Anki's own is a few numbers; more is no data Anki would read either. */
const CARD_DATA_CHARACTERS = 10_000

/** A row of `cards` as read by CollectionRows. */
function cardOf ([id, nid, did, ord, type, queue, due, ivl, factor, reps, lapses, left, odue, odid, flags, data]: SqlValue[]): AnkiCard {
  return {
    id: Number(id),
    noteId: Number(nid),
    deckId: Number(did),
    ord: Number(ord),
    type: Number(type),
    queue: Number(queue),
    due: Number(due),
    interval: Number(ivl),
    factor: Number(factor),
    reps: Number(reps),
    lapses: Number(lapses),
    left: Number(left),
    originalDue: Number(odue),
    originalDeckId: Number(odid),
    flags: Number(flags),
    ...cardData(data ?? '')
  }
}

const NOTE_COLUMNS = 'id, guid, mid, mod, tags, flds'
const CARD_COLUMNS = `id, nid, did, ord, type, queue, due, ivl, factor, reps, lapses, left, odue, odid, flags, case when length(data) <= ${CARD_DATA_CHARACTERS} then data else '' end`
const REVLOG_COLUMNS = 'id, cid, ease, ivl, lastIvl, factor, time, type'

function revlogEntryOf ([id, cid, ease, ivl, lastIvl, factor, time, type]: SqlValue[]): AnkiRevlogEntry {
  return {
    id: Number(id),
    cardId: Number(cid),
    button: Number(ease),
    interval: Number(ivl),
    lastInterval: Number(lastIvl),
    factor: Number(factor),
    takenMs: Number(time),
    kind: Number(type)
  }
}

/** A note with its cards, as CollectionRows.notesWithCards gives them; `note` undefined for cards whose note the collection lacks. */
export interface NoteWithCards {
  note: AnkiNote | undefined
  cards: AnkiCard[]
}

/**
 * A collection's notes, cards and reviews, read from its database a row at a time, so that what is
 * held at once is one note and its cards, whatever the collection holds. Read its header first
 * (readCollectionHeader), which readies the indexes these lookups use.
 */
export function collectionRows (source: SqlSource) {
  return {
    cardCount: (): number => Number(rows(source, 'select count(*) from cards')[0]?.[0] ?? 0),

    /**
     * The first note whose guid, tags and fields together are longer than `characters`, with its
     * length: found without reading any note whole, so that one note of a gigabyte is refused
     * before it is read.
     */
    oversizedNote (characters: number): { guid: string, length: number } | null {
      const row = rows(source, `select substr(guid, 1, 100), ${bytesOf('guid')} + ${bytesOf('tags')} + ${bytesOf('flds')} as size from notes where size > ? limit 1`, characters)[0]
      return row === undefined ? null : { guid: text(row[0]), length: Number(row[1]) }
    },

    /** The first note whose guid is longer than `characters` (Anki's are a few characters), with its length. */
    longGuid (characters: number): { guid: string, length: number } | null {
      const row = rows(source, `select substr(guid, 1, 40), ${bytesOf('guid')} as size from notes where size > ? limit 1`, characters)[0]
      return row === undefined ? null : { guid: text(row[0]), length: Number(row[1]) }
    },

    /** The first card with more than `entries` rows in the review log, with its note's guid and its count. */
    longestHistoryOver (entries: number): { cardId: number, guid: string, count: number } | null {
      const row = rows(source, 'select cid, count(*) as count from revlog group by cid having count > ? limit 1', entries)[0]
      if (row === undefined) return null
      const guid = rows(source, 'select substr(guid, 1, 100) from notes where id = (select nid from cards where id = ?)', Number(row[0]))[0]?.[0]
      return { cardId: Number(row[0]), guid: text(guid), count: Number(row[1]) }
    },

    /** Every note's guid, one at a time. */
    * guids (): Generator<string> {
      for (const [guid] of source.rows('select guid from notes')) yield text(guid)
    },

    /** Every note's fields, one note at a time (the media they name are looked up this way). */
    * fields (): Generator<string[]> {
      for (const [fields] of source.rows('select flds from notes')) yield text(fields).split('\u001f')
    },

    * notes (): Generator<AnkiNote> {
      for (const row of source.rows(`select ${NOTE_COLUMNS} from notes order by id`)) yield noteOf(row)
    },

    * cards (): Generator<AnkiCard> {
      for (const row of source.rows(`select ${CARD_COLUMNS} from cards order by id`)) yield cardOf(row)
    },

    /** Each card's note's guid with the card's ord and decks, one card at a time: where the cards go. */
    * cardPlaces (): Generator<{ guid: string, ord: number, deckId: number, originalDeckId: number }> {
      for (const [guid, ord, did, odid] of source.rows('select notes.guid, cards.ord, cards.did, cards.odid from cards join notes on notes.id = cards.nid')) {
        yield { guid: text(guid), ord: Number(ord), deckId: Number(did), originalDeckId: Number(odid) }
      }
    },

    /** The ids of the new cards (type 0) in Anki's new-card order: by due position, then id. */
    * newCardOrder (): Generator<number> {
      for (const [id] of source.rows('select id from cards where type = 0 order by due, id')) yield Number(id)
    },

    /**
     * Each note with its cards in id order, by note id; then the cards whose note the collection
     * lacks, note undefined. A note's cards are looked up by the note's id as SQLite holds it, and
     * the cards without a note are those SQLite finds none for: one engine decides both, whatever
     * the ids are (NULL, text, negative).
     */
    * notesWithCards (): Generator<NoteWithCards> {
      for (const row of source.rows(`select ${NOTE_COLUMNS} from notes order by id`)) {
        const cards = rows(source, `select ${CARD_COLUMNS} from cards indexed by ${CARDS_INDEX} where nid = ? order by id`, row[0] ?? null).map(cardOf)
        if (cards.length > 0) yield { note: noteOf(row), cards }
      }
      let orphans: AnkiCard[] = []
      for (const row of source.rows(`select ${CARD_COLUMNS} from cards where not exists (select 1 from notes where notes.id = cards.nid) order by id`)) {
        orphans.push(cardOf(row))
        if (orphans.length === 1000) {
          yield { note: undefined, cards: orphans }
          orphans = []
        }
      }
      if (orphans.length > 0) yield { note: undefined, cards: orphans }
    },

    /** A card's review log, oldest first. */
    revlogOf (cardId: number): AnkiRevlogEntry[] {
      return rows(source, `select ${REVLOG_COLUMNS} from revlog indexed by ${REVLOG_INDEX} where cid = ? order by id`, cardId).map(revlogEntryOf)
    },

    /** The whole review log in columns (wholeCollection). */
    reviewColumns: (): RevlogColumns => revlogColumns(source)
  }
}

export type CollectionRows = ReturnType<typeof collectionRows>

/** The whole review log in columns (readCollection). */
function revlogColumns (source: SqlSource): RevlogColumns {
  const count = Number(rows(source, 'select count(*) from revlog')[0]?.[0] ?? 0)
  const revlog = new RevlogColumns(count)
  let row = 0
  for (const values of source.rows(`select ${REVLOG_COLUMNS} from revlog order by cid, id`)) {
    if (row >= count) break
    const entry = revlogEntryOf(values)
    revlog.id[row] = entry.id
    revlog.cardId[row] = entry.cardId
    revlog.button[row] = entry.button
    revlog.interval[row] = entry.interval
    revlog.lastInterval[row] = entry.lastInterval
    revlog.factor[row] = entry.factor
    revlog.takenMs[row] = entry.takenMs
    revlog.kind[row] = entry.kind
    row++
  }
  revlog.index()
  return revlog
}
