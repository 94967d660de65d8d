// Packages no Anki writes, made to get past the import's limits or to make its reading take without
// end: each is refused with a code of the package's fault (never internal_error), nothing of it is
// stored, and a refusal in the middle of the staging leaves no staged card behind.
import { setTimeout as sleep } from 'node:timers/promises'
import tap, { test } from 'tap'
import { MAX_CARD_HISTORY, MAX_NOTE_TEXT } from '../../src/domain/limits.js'
import { buildTestApp, registerUser } from '../helpers/app.js'
import { craftedPackage } from '../helpers/anki-craft.js'
import { countsOf, importAnki, NOTHING } from '../helpers/anki-import.js'

tap.setTimeout(900_000)

/** Text that compresses as prose does, so that a long field is not refused as a zip bomb first. */
function prose (length: number, seed = 1): string {
  let state = seed
  let text = ''
  for (let index = 0; index < length; index++) {
    state = (state * 1_103_515_245 + 12_345) & 0x7fffffff
    text += 'etaoin shrdlu'[(state >> 16) % 13]
  }
  return text
}

test('a refusal just after a batch of cards was sent leaves nothing staged, then or later', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app)
  // 2,000 cards go in one write; the 2,004th note's side is refused while that write may be under way
  const file = await craftedPackage(t, { cards: 2004, revlog: 2004, fields: (index) => [index === 2003 ? 'f'.repeat(10_001) : `front ${index}`, 'back'] })
  const status = await importAnki(app, user.jwtToken, file)
  t.equal(status.code, 'invalid_field', JSON.stringify(status))
  t.same(await countsOf(app, user), NOTHING, 'nothing right after the failure')
  await sleep(3000)
  t.same(await countsOf(app, user), NOTHING, 'nothing a while later: no write landed after the clean-up')
})

test('a note past its size is refused before it is read, whatever NULL or NUL characters hide its length', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const cases: Array<[string, string]> = [
    ['update notes set tags = NULL, flds = ? where id = (select min(id) from notes)', `q\u001f${prose(MAX_NOTE_TEXT + 1000)}`],
    ['update notes set flds = ? where id = (select min(id) from notes)', `\u0000${prose(MAX_NOTE_TEXT + 1000)}`]
  ]
  for (const [statement, value] of cases) {
    const user = await registerUser(app)
    const file = await craftedPackage(t, { cards: 3, revlog: 3 }, (db) => { db.prepare(statement).run(value) })
    const status = await importAnki(app, user.jwtToken, file)
    t.equal(status.code, 'invalid_field', `${statement}: ${JSON.stringify(status)}`)
    t.match(status.error, /^the note with guid "generated-0" holds [0-9,]+ characters of fields and tags/)
    t.same(await countsOf(app, user), NOTHING)
  }
})

test('collections that would make the reading compute without end are refused as corrupt_collection', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const cases: Array<[string, (db: import('node:sqlite').DatabaseSync) => void]> = [
    // an index of the reader's name on other columns would turn every lookup of a card's log into a scan
    ['an index named as the reader\'s own', (db) => { db.exec('create index flashcard_service_revlog on revlog (ease)') }],
    // a computed column is evaluated on every read
    ['a generated column', (db) => { db.exec("alter table cards add column heavy text generated always as (printf('%.*c', 1000, 'x')) virtual") }],
    // numbers past what JavaScript holds, and a column missing: reading fails, in the package's fault
    ['a number past 2^53', (db) => { db.exec('update cards set due = 9007199254740993 where id = (select min(id) from cards)') }],
    ['a column missing', (db) => { db.exec('alter table notes drop column flds') }]
  ]
  for (const [name, change] of cases) {
    const user = await registerUser(app)
    const status = await importAnki(app, user.jwtToken, await craftedPackage(t, { cards: 3, revlog: 3 }, change))
    t.equal(status.code, 'corrupt_collection', `${name}: ${JSON.stringify(status)}`)
    t.same(await countsOf(app, user), NOTHING, `${name}: nothing stored`)
  }
})

test('notes and cards of ids no Anki writes are matched as SQLite matches them: no card of a note is lost', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app)
  const file = await craftedPackage(t, { cards: 3, revlog: 3 }, (db) => {
    const [first, second] = db.prepare('select id from notes order by id').all().map((row) => Number(row.id))
    db.prepare('update notes set id = -5 where id = ?').run(first as number)
    db.prepare('update cards set nid = -5 where nid = ?').run(first as number)
    // a card whose note id is NULL sorts before every other: it has no note
    db.prepare('insert into cards select id + 1000, NULL, did, ord, mod, usn, type, queue, due, ivl, factor, reps, lapses, left, odue, odid, flags, data from cards where nid = ?').run(second as number)
  })
  const status = await importAnki(app, user.jwtToken, file)
  t.equal(status.state, 'done', JSON.stringify(status))
  t.equal(status.cards, '3', 'the three cards of notes, the one of note -5 among them')
  t.match(status.warnings.join(' '), /1 card of a note or note type the collection lacks was left out/)
})

test('a card with more review rows than a card keeps is refused, naming its note', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app)
  const file = await craftedPackage(t, { cards: 2, revlog: 2 }, (db) => {
    const card = Number(db.prepare('select min(id) as id from cards').get()?.id)
    db.prepare(`with recursive n(i) as (select 1 union all select i + 1 from n where i < ${MAX_CARD_HISTORY + 1})
      insert into revlog select 1500000000000 + i, ?, 0, 3, 1, 1, 2500, 5000, 1 from n`).run(card)
  })
  const status = await importAnki(app, user.jwtToken, file)
  t.equal(status.code, 'invalid_field', JSON.stringify(status))
  t.match(status.error, /^a card of the note with guid "generated-0" has 20,00[0-9] rows in its review log, and a card keeps at most 20,000/)
  t.same(await countsOf(app, user), NOTHING)
  const without = await importAnki(app, user.jwtToken, file, { withScheduling: 'false' })
  t.equal(without.state, 'done', 'without scheduling the log is not read: imported')
})

test('templates that render without end, or name a field the note type lacks, are refused naming the note', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const templated = (qfmt: string) => (db: import('node:sqlite').DatabaseSync): void => {
    const models = JSON.parse(String(db.prepare('select models from col').get()?.models)) as Record<string, { tmpls: Array<{ qfmt: string }> }>
    for (const model of Object.values(models)) for (const template of model.tmpls) template.qfmt = qfmt
    db.prepare('update col set models = ?').run(JSON.stringify(models))
  }
  const repeat = await importAnki(app, (await registerUser(app)).jwtToken,
    await craftedPackage(t, { cards: 2, revlog: 2, fields: () => [prose(90_000), 'b'] }, templated('{{Front}}'.repeat(2000))))
  t.equal(repeat.code, 'invalid_field', JSON.stringify(repeat))
  t.match(repeat.error, /^the note with guid "generated-0" \(deck "Generated::Deck 1"\): a side of the card renders to more than 1,000,000 characters/)
  const missing = await importAnki(app, (await registerUser(app)).jwtToken, await craftedPackage(t, { cards: 2, revlog: 2 }, templated('{{Nowhere}}')))
  t.equal(missing.code, 'corrupt_collection', JSON.stringify(missing))
  t.match(missing.error, /its card template cannot be rendered: the template names a field the note type lacks: \{\{Nowhere\}\}/)
})

test('decks, presets and note types past their size are refused before they are read', async (t) => {
  // made before the app, whose load shedding would take the seconds this takes for an overloaded event loop
  const file = await craftedPackage(t, { cards: 2, revlog: 2 }, (db) => {
    const decks = JSON.parse(String(db.prepare('select decks from col').get()?.decks)) as Record<string, { desc: string }>
    for (const [index, deck] of Object.values(decks).entries()) deck.desc = prose(3 * 1024 * 1024, index + 7)
    db.prepare('update col set decks = ?').run(JSON.stringify(decks))
  })
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app)
  const status = await importAnki(app, user.jwtToken, file)
  t.equal(status.code, 'zip_bomb', JSON.stringify(status))
  t.match(status.error, /the collection's decks, presets and note types take [0-9,]+ characters, more than the 33,554,432/)
  t.same(await countsOf(app, user), NOTHING)
})
