// An Anki collection (the SQLite file inside a package) read into plain structures. Schema 11
// keeps decks, deck options and note types as JSON in the `col` row; schema 15 and later keep them
// in tables of their own, as protobuf blobs (rslib/src/storage/). The caller hands in the SQL
// engine (sql.js), so that this module does no I/O of its own.
import type { Database, SqlJsStatic, SqlValue } from 'sql.js'
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

export interface AnkiCollection {
  schemaVersion: number
  timing: AnkiTiming
  decks: AnkiDeck[]
  deckConfigs: AnkiDeckConfig[]
  notetypes: AnkiNotetype[]
  notes: AnkiNote[]
  cards: AnkiCard[]
  revlog: RevlogColumns
}

/**
 * Reads a collection from the bytes of its SQLite file. Refuses a file SQLite cannot read or check
 * (`corrupt_collection`) and a schema outside 11 to 18 (`unknown_schema`). The database lives in
 * sql.js's memory while this runs and is closed before it returns.
 */
export function readCollection (sql: SqlJsStatic, bytes: Uint8Array): AnkiCollection {
  let db: Database
  try {
    db = new sql.Database(bytes)
  } catch {
    throw new AnkiImportError('corrupt_collection', 'the collection is not an SQLite database')
  }
  try {
    return readOpenCollection(db)
  } catch (error) {
    if (error instanceof AnkiImportError) throw error
    throw new AnkiImportError('corrupt_collection', `the collection cannot be read: ${error instanceof Error ? error.message : String(error)}`)
  } finally {
    db.close()
  }
}

function readOpenCollection (db: Database): AnkiCollection {
  const schema = rows(db, 'select ver, crt, conf, decks, dconf, models from col')[0]
  if (schema === undefined) throw new AnkiImportError('corrupt_collection', 'the collection has no col row')
  const schemaVersion = Number(schema[0])
  if (!Number.isInteger(schemaVersion) || schemaVersion < OLDEST_SCHEMA || schemaVersion > NEWEST_SCHEMA) {
    throw new AnkiImportError('unknown_schema', `the collection's schema is version ${String(schema[0])}; this reader knows ${OLDEST_SCHEMA} to ${NEWEST_SCHEMA}`)
  }
  withoutUnicase(db)
  const check = rows(db, 'pragma quick_check')
  if (check.length !== 1 || check[0]?.[0] !== 'ok') {
    throw new AnkiImportError('corrupt_collection', `the collection's database is damaged: ${String(check[0]?.[0])}`)
  }
  const tables = new Set(rows(db, "select name from sqlite_master where type = 'table'").map((row) => String(row[0])))
  const config = tables.has('config') ? configFromTable(db) : jsonObject(schema[2], 'col.conf')
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
    decks: tables.has('decks') ? decksFromTable(db) : decksFromJson(jsonObject(schema[3], 'col.decks')),
    deckConfigs: tables.has('deck_config') ? deckConfigsFromTable(db) : deckConfigsFromJson(jsonObject(schema[4], 'col.dconf')),
    notetypes: tables.has('notetypes') ? notetypesFromTables(db) : notetypesFromJson(jsonObject(schema[5], 'col.models')),
    notes: notesOf(db),
    cards: cardsOf(db),
    revlog: revlogOf(db)
  }
}

/**
 * Schema 15 and later declare `COLLATE unicase`, a collation of Anki's own that sql.js lacks, and
 * SQLite refuses any statement that touches such a column (or checks its index). The declarations
 * are rewritten out of `sqlite_master`, and `writable_schema = reset` makes the connection reload
 * the schema as if the file were reopened. Names then compare as plain text, which a reader that
 * only scans never notices.
 */
function withoutUnicase (db: Database): void {
  const declared = rows(db, "select count(*) from sqlite_master where sql like '%collate unicase%'")[0]?.[0]
  if (declared === 0) return
  db.run('pragma writable_schema = on')
  db.run("update sqlite_master set sql = replace(replace(sql, 'COLLATE unicase', ''), 'collate unicase', '') where sql like '%collate unicase%'")
  db.run('pragma writable_schema = reset')
}

function rows (db: Database, query: string): SqlValue[][] {
  const statement = db.prepare(query)
  try {
    const out: SqlValue[][] = []
    while (statement.step()) out.push(statement.get())
    return out
  } finally {
    statement.free()
  }
}

function each (db: Database, query: string, visit: (row: SqlValue[]) => void): void {
  const statement = db.prepare(query)
  try {
    while (statement.step()) visit(statement.get())
  } finally {
    statement.free()
  }
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

function configFromTable (db: Database): Record<string, unknown> {
  const config: Record<string, unknown> = {}
  for (const [key, value] of rows(db, 'select KEY, val from config')) {
    try {
      config[text(key)] = JSON.parse(text(value))
    } catch {
      // a value that is not JSON is no setting this reader uses
    }
  }
  return config
}

function decksFromTable (db: Database): AnkiDeck[] {
  return rows(db, 'select id, name, kind from decks').map(([id, name, kind]) => {
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

function deckConfigsFromTable (db: Database): AnkiDeckConfig[] {
  return rows(db, 'select id, name, config from deck_config').map(([id, name, config]) => {
    const inner = decodeDeckConfig(blob(config))
    return {
      id: Number(id),
      name: text(name),
      fsrsParams: chosenParams(inner.fsrsParams6, inner.fsrsParams5, inner.fsrsParams4),
      desiredRetention: retentionOr(inner.desiredRetention, 0.9),
      historicalRetention: retentionOr(inner.historicalRetention, 0.9),
      ignoreRevlogsBeforeDate: inner.ignoreRevlogsBeforeDate,
      maximumInterval: inner.maximumReviewInterval
    }
  })
}

function deckConfigsFromJson (configs: Record<string, unknown>): AnkiDeckConfig[] {
  return Object.values(configs).map((value) => {
    const config = value as Record<string, unknown>
    const review = (config.rev ?? {}) as Record<string, unknown>
    return {
      id: Number(config.id),
      name: String(config.name),
      fsrsParams: chosenParams(numbers(config.fsrsParams6), numbers(config.fsrsParams5), numbers(config.fsrsWeights)),
      desiredRetention: retentionOr(optionalNumber(config.desiredRetention), 0.9),
      historicalRetention: retentionOr(optionalNumber(config.sm2Retention), 0.9),
      ignoreRevlogsBeforeDate: typeof config.ignoreRevlogsBeforeDate === 'string' ? config.ignoreRevlogsBeforeDate : '',
      maximumInterval: optionalNumber(review.maxIvl) ?? 36500
    }
  })
}

function notetypesFromTables (db: Database): AnkiNotetype[] {
  const fields = new Map<number, AnkiField[]>()
  for (const [ntid, ord, name] of rows(db, 'select ntid, ord, name from fields order by ntid, ord')) {
    const list = fields.get(Number(ntid)) ?? []
    list.push({ ord: Number(ord), name: text(name) })
    fields.set(Number(ntid), list)
  }
  const templates = new Map<number, AnkiTemplate[]>()
  for (const [ntid, ord, name, config] of rows(db, 'select ntid, ord, name, config from templates order by ntid, ord')) {
    const decoded = decodeTemplateConfig(blob(config))
    const list = templates.get(Number(ntid)) ?? []
    list.push({ ord: Number(ord), name: text(name), questionFormat: decoded.qFormat, answerFormat: decoded.aFormat })
    templates.set(Number(ntid), list)
  }
  return rows(db, 'select id, name, config from notetypes').map(([id, name, config]) => {
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

function notesOf (db: Database): AnkiNote[] {
  const notes: AnkiNote[] = []
  each(db, 'select id, guid, mid, mod, tags, flds from notes order by id', ([id, guid, mid, mod, tags, fields]) => {
    notes.push({
      id: Number(id),
      guid: text(guid),
      notetypeId: Number(mid),
      fields: text(fields).split('\u001f'),
      tags: text(tags).split(/\s+/).filter((tag) => tag !== ''),
      modified: Number(mod)
    })
  })
  return notes
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

function cardsOf (db: Database): AnkiCard[] {
  const cards: AnkiCard[] = []
  each(db, 'select id, nid, did, ord, type, queue, due, ivl, factor, reps, lapses, left, odue, odid, flags, data from cards order by id',
    ([id, nid, did, ord, type, queue, due, ivl, factor, reps, lapses, left, odue, odid, flags, data]) => {
      cards.push({
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
      })
    })
  return cards
}

function revlogOf (db: Database): RevlogColumns {
  const count = Number(rows(db, 'select count(*) from revlog')[0]?.[0] ?? 0)
  const revlog = new RevlogColumns(count)
  let row = 0
  each(db, 'select id, cid, ease, ivl, lastIvl, factor, time, type from revlog order by cid, id',
    ([id, cid, ease, ivl, lastIvl, factor, time, type]) => {
      if (row >= count) return
      revlog.id[row] = Number(id)
      revlog.cardId[row] = Number(cid)
      revlog.button[row] = Number(ease)
      revlog.interval[row] = Number(ivl)
      revlog.lastInterval[row] = Number(lastIvl)
      revlog.factor[row] = Number(factor)
      revlog.takenMs[row] = Number(time)
      revlog.kind[row] = Number(type)
      row++
    })
  revlog.index()
  return revlog
}
