// A generated Anki package (.apkg) of any size, for the benchmark's import rows and the import's
// tests: a schema 11 collection (decks, presets and note types as JSON in `col`) written on disk
// with Node's SQLite, zipped with yazl as collection.anki21 and a JSON media map, as Anki 2.1
// before 2.1.50 exported, and which current Anki imports (test/scripts/bench-anki-package.test.ts).
// Basic notes in ten decks under one parent; most cards reviewed, each with a history that starts
// with a learning step and goes on with reviews days apart, so that the import replays real FSRS
// histories.
import { createWriteStream } from 'node:fs'
import { rm } from 'node:fs/promises'
import { DatabaseSync } from 'node:sqlite'
import { pipeline } from 'node:stream/promises'
import yazl from 'yazl'

export interface GeneratedPackage {
  cards: number
  /** review rows in all, spread over the reviewed cards */
  revlog: number
  /** PNG files the first notes show */
  media?: number
  /** the size of each of those files, about (2 KB when not given) */
  mediaBytes?: number
  /** the day the collection was created, days before now */
  ageDays?: number
  /** how many of the first cards sit in a deck the collection does not list (as a damaged collection has them) */
  cardsInMissingDeck?: number
  /** the decks the cards go into, one after the other, each a path of names (`A::B` is ['A', 'B']); ten decks under "Generated" when not given */
  decks?: ReadonlyArray<readonly string[]>
  /** the start of each note's guid (`<guidPrefix>-N`): packages of one prefix are the same notes to an import; `generated` when not given */
  guidPrefix?: string
  /** each note's front and back fields; `Question N` and `Answer N` when not given */
  fields?: (index: number) => readonly [string, string]
  /** with no `fields`: each note's front and back this many characters long, of text that compresses as prose does */
  sideCharacters?: number
}

/** Letters and spaces in no repeating order, a mebibyte of them: sides are cut from it, each at its own place. */
function prose (): string {
  let state = 12345
  const letters = 'etaoinshrdlucmfwypvbgkqjxz      '
  let text = ''
  for (let index = 0; index < 1024 * 1024; index++) {
    state = (state * 1_103_515_245 + 12_345) & 0x7fffffff
    text += letters[(state >> 16) % letters.length]
  }
  return text
}

const DAY = 86_400

function crc32 (bytes: Buffer): number {
  let crc = 0xffffffff
  for (const byte of bytes) {
    crc ^= byte
    for (let bit = 0; bit < 8; bit++) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1))
  }
  return (crc ^ 0xffffffff) >>> 0
}

function chunk (type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4)
  length.writeUInt32BE(data.length)
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data])
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(crc32(body))
  return Buffer.concat([length, body, crc])
}

/** A PNG of about `size` bytes: its signature, an IHDR chunk, and an IDAT chunk of filler. */
function png (size: number, seed: number): Buffer {
  const header = Buffer.alloc(13)
  header.writeUInt32BE(1 + seed, 0)
  header.writeUInt32BE(1, 4)
  header[8] = 8
  header[9] = 2
  const filler = Buffer.alloc(Math.max(16, size - 57))
  for (let index = 0; index < filler.length; index++) filler[index] = (index * 31 + seed * 7) & 0xff
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', header), chunk('IDAT', filler), chunk('IEND', Buffer.alloc(0))])
}

/** Writes the package to `path`; how many notes, cards and review rows it holds. */
export async function writeAnkiPackage (path: string, spec: GeneratedPackage): Promise<{ cards: number, revlog: number, media: number, collectionBytes: number }> {
  const collectionPath = `${path}.collection`
  await rm(collectionPath, { force: true })
  const db = new DatabaseSync(collectionPath)
  const now = Math.floor(Date.now() / 1000)
  const crt = now - (spec.ageDays ?? 400) * DAY
  db.exec(`
    pragma journal_mode = off;
    pragma synchronous = off;
    create table col (id integer primary key, crt integer, mod integer, scm integer, ver integer, dty integer, usn integer, ls integer, conf text, models text, decks text, dconf text, tags text);
    create table notes (id integer primary key, guid text, mid integer, mod integer, usn integer, tags text, flds text, sfld text, csum integer, flags integer, data text);
    create table cards (id integer primary key, nid integer, did integer, ord integer, mod integer, usn integer, type integer, queue integer, due integer, ivl integer, factor integer, reps integer, lapses integer, left integer, odue integer, odid integer, flags integer, data text);
    create table revlog (id integer primary key, cid integer, usn integer, ease integer, ivl integer, lastIvl integer, factor integer, time integer, type integer);
    create table graves (usn integer, oid integer, type integer);
  `)
  // decks, note types and presets carry every field Anki's legacy schema has no default for
  // (rslib/src/{decks,notetype,deckconfig}/schema11.rs): Anki refuses a package that lacks one
  const modelId = 1_600_000_000_000
  const field = (name: string, ord: number) => ({ name, ord, sticky: false, rtl: false, font: 'Arial', size: 20 })
  const models = {
    [modelId]: {
      id: modelId, name: 'Basic', type: 0, mod: now, usn: 0, sortf: 0, did: null, css: '.card { font-family: arial; }',
      flds: [field('Front', 0), field('Back', 1)],
      tmpls: [{ name: 'Card 1', ord: 0, qfmt: '{{Front}}', afmt: '{{FrontSide}}<hr id=answer>{{Back}}', did: null }]
    }
  }
  const deck = (id: number, name: string) => ({
    id, mod: now, name, usn: 0, lrnToday: [0, 0], revToday: [0, 0], newToday: [0, 0], timeToday: [0, 0], collapsed: false, dyn: 0, conf: 1, desc: ''
  })
  const deckPaths = spec.decks ?? Array.from({ length: 10 }, (_, index) => ['Generated', `Deck ${index + 1}`])
  const deckIds = deckPaths.map((_, index) => 1_700_000_000_000 + index)
  const decks: Record<string, unknown> = { 1: deck(1, 'Default') }
  if (spec.decks === undefined) decks[1_699_999_999_999] = deck(1_699_999_999_999, 'Generated')
  for (const [index, id] of deckIds.entries()) decks[id] = deck(id, (deckPaths[index] as readonly string[]).join('::'))
  const dconf = {
    1: {
      id: 1, mod: now, name: 'Default', usn: 0, maxTaken: 60, autoplay: true, timer: 0, replayq: true, dyn: false,
      new: { bury: false, delays: [1, 10], initialFactor: 2500, ints: [1, 4, 0], order: 1, perDay: 20 },
      rev: { bury: false, ease4: 1.3, ivlFct: 1, maxIvl: 36500, perDay: 200, hardFactor: 1.2 },
      lapse: { delays: [10], leechAction: 1, leechFails: 8, minInt: 1, mult: 0 },
      desiredRetention: 0.9, sm2Retention: 0.9,
      fsrsParams6: [0.212, 1.2931, 2.3065, 8.2956, 6.4133, 0.8334, 3.0194, 0.001, 1.8722, 0.1666, 0.796, 1.4835, 0.0614, 0.2629, 1.6483, 0.6014, 1.8729, 0.5425, 0.0912, 0.0658, 0.1542]
    }
  }
  const conf = { schedVer: 2, rollover: 4, creationOffset: 0, localOffset: 0, curModel: modelId }
  db.prepare('insert into col values (1, ?, ?, ?, 11, 0, 0, 0, ?, ?, ?, ?, ?)').run(crt, now * 1000, now * 1000, JSON.stringify(conf), JSON.stringify(models), JSON.stringify(decks), JSON.stringify(dconf), '{}')

  const media = spec.media ?? 0
  const reviewed = Math.min(spec.cards, Math.ceil(spec.cards * 0.8))
  const perCard = reviewed === 0 ? 0 : spec.revlog / reviewed
  let rows = 0
  const text = spec.fields === undefined && spec.sideCharacters !== undefined ? prose() : ''
  const side = (index: number, which: number): string => {
    const length = spec.sideCharacters ?? 0
    const start = (index * 7919 + which * 104_729) % (text.length - length)
    return `${index} ${text.slice(start, start + length - String(index).length - 1)}`
  }
  db.exec('begin')
  const note = db.prepare('insert into notes values (?, ?, ?, ?, 0, ?, ?, ?, 0, 0, \'\')')
  const card = db.prepare('insert into cards values (?, ?, ?, 0, ?, 0, ?, ?, ?, ?, ?, ?, ?, 0, 0, 0, 0, \'\')')
  const review = db.prepare('insert into revlog values (?, ?, 0, ?, ?, ?, ?, ?, ?)')
  for (let index = 0; index < spec.cards; index++) {
    const id = 1_600_000_000_000 + index
    const image = index < media ? ` <img src="image-${index}.png">` : ''
    const [front, back] = spec.fields?.(index) ?? (text === '' ? [`Question ${index}`, `Answer ${index}`] : [side(index, 0), side(index, 1)])
    note.run(id, `${spec.guidPrefix ?? 'generated'}-${index}`, modelId, now, index % 7 === 0 ? ' generated ' : '', `${front}\u001f${back}${image}`, front)
    const deck = index < (spec.cardsInMissingDeck ?? 0) ? 424_242 : deckIds[index % deckIds.length] as number
    if (index >= reviewed) {
      card.run(id, id, deck, now, 0, 0, index, 0, 0, 0, 0)
      continue
    }
    // this card's rows: as many as its share of the total, at least one
    const count = Math.max(1, Math.floor(perCard * (index + 1)) - Math.floor(perCard * index))
    let day = (index * 13) % 60
    let interval = 1
    // each card answered at its own second of the day (and millisecond, past 36,000 cards): row ids, their times, never collide
    const second = 8 * 3600 + (index % 36_000)
    const millisecond = Math.floor(index / 36_000)
    let at = crt + day * DAY + second
    review.run(at * 1000 + millisecond, id, 3, -600, 0, 0, 8000, 0)
    rows++
    for (let step = 1; step < count; step++) {
      const ease = step % 9 === 0 ? 1 : 3
      const last = interval
      interval = ease === 1 ? 1 : Math.min(interval * 2 + 1, 300)
      day += last
      at = crt + day * DAY + second
      review.run(at * 1000 + millisecond, id, ease, interval, last, 2500, 6000, 1)
      rows++
    }
    card.run(id, id, deck, now, 2, 2, day + interval, interval, 2500, count, 0)
  }
  db.exec('commit')
  const collectionBytes = Number((db.prepare('select page_count * page_size as size from pragma_page_count(), pragma_page_size()').get() as { size: number }).size)
  db.close()

  const zip = new yazl.ZipFile()
  zip.addFile(collectionPath, 'collection.anki21')
  const map: Record<string, string> = {}
  for (let index = 0; index < media; index++) {
    map[String(index)] = `image-${index}.png`
    zip.addBuffer(png((spec.mediaBytes ?? 2000) + index, index), String(index), { compress: false })
  }
  zip.addBuffer(Buffer.from(JSON.stringify(map)), 'media')
  zip.end()
  await pipeline(zip.outputStream, createWriteStream(path))
  await rm(collectionPath, { force: true })
  return { cards: spec.cards, revlog: rows, media, collectionBytes }
}
