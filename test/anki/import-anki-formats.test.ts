// import-anki of every format Anki writes, and of the same notes again (matched by guid).
import { createHash } from 'node:crypto'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import tap, { test } from 'tap'
import { readAnkiPackageFile } from '../../src/anki/package-file.js'
import { kindOfAnkiEntry, lastScheduledAnswer } from '../../src/domain/anki-revlog.js'
import { writeAnkiPackage } from '../../scripts/bench/anki-package.js'
import { buildTestApp, databaseOf, expectOk, registerUser } from '../helpers/app.js'
import { expected, FIXTURES, type ExpectedCard } from '../helpers/anki.js'
import { exportedFile } from '../helpers/anki-export.js'
import { countsOf, fixture, importAnki, importedCards, LEARNER, postImport, relative, type CardDetails, type Flashcard } from '../helpers/anki-import.js'
import { storedCards } from '../helpers/stored.js'

// every import starts a worker thread of its own: on a machine busy with other tests, a file of them takes minutes
tap.setTimeout(600_000)

for (const name of ['legacy-anki21.apkg', 'legacy-anki2.apkg', 'collection.colpkg', 'genanki.apkg']) {
  test(`${name} imports`, async (t) => {
    const app = await buildTestApp(t, import.meta.filename)
    const user = await registerUser(app, LEARNER)
    const status = await importAnki(app, user.jwtToken, fixture(name))
    t.equal(status.state, 'done', JSON.stringify(status))
    const counts = await countsOf(app, user)
    t.equal(counts.cards, Number(status.cards), `${status.cards} cards`)
    t.ok(counts.cards > 0)
    t.equal(counts.staged, 0, 'none left staged')
    t.equal(counts.states, counts.cards, 'each card with its state')
    t.equal(counts.stagedStates, 0, 'no state left staged')
    if (name === 'legacy-anki21.apkg') {
      const cards = await importedCards(app, user)
      const basic = expected.cards.find((card) => card.label === 'basic/0') as ExpectedCard
      t.ok(relative(Number(cards.get('fixture-basic/0')?.stability), basic.computed.stability as number) < 1e-3, 'memory states as in the current format')
    }
    if (name === 'genanki.apkg') t.equal(status.media, String(Object.keys(expected.genanki.media).length), 'its media')
  })
}

test('importing the same package again finds the notes it matched by guid: an edit made here since stays, unless the package is to be taken always', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app, LEARNER)
  await importAnki(app, user.jwtToken, fixture('collection.apkg'))
  const before = await countsOf(app, user)
  const first = await importedCards(app, user)
  // the learner changes a card here; a package whose note was not changed after that leaves it, as Anki's importer would
  const basic = first.get('fixture-basic/0') as CardDetails & { flashcard: Flashcard }
  await expectOk(app, 'edit-card', { jwtToken: user.jwtToken, flashcardID: basic.flashcard.flashcardID, cardID: basic.cardID, front: 'changed here' })
  const found = async (query: string): Promise<string[]> =>
    (await expectOk<{ results: Array<{ cardID: string }> }>(app, 'search-cards', { jwtToken: user.jwtToken, query })).results.map((result) => result.cardID)
  t.same(await found('changed here'), [basic.cardID], 'search finds the card by the text written here')
  const kept = await importAnki(app, user.jwtToken, fixture('legacy-anki21.apkg'))
  t.equal(kept.state, 'done', JSON.stringify(kept))
  t.match(kept.warnings.join(' '), new RegExp(`${first.size} cards of notes the account has were left as they are: the package's notes were not changed after they were last changed here`))
  t.same(await found('changed here'), [basic.cardID], 'the edit made here stays')
  const unchanged = await countsOf(app, user)
  t.same({ cards: unchanged.cards, notes: unchanged.notes, reviews: unchanged.reviews }, { cards: before.cards, notes: before.notes, reviews: before.reviews }, 'nothing added')

  // asked to take the package's text all the same
  const again = await importAnki(app, user.jwtToken, fixture('legacy-anki21.apkg'), { updateNotes: 'always' })
  t.equal(again.state, 'done', JSON.stringify(again))
  t.match(again.warnings.join(' '), /updated rather than added again/)
  const after = await countsOf(app, user)
  t.same({ cards: after.cards, reviews: after.reviews, media: after.media }, { cards: before.cards, reviews: before.reviews, media: before.media }, 'no card, review or media twice')
  t.equal(after.notes, before.notes, 'nor any note: each brought up to date under its id')
  t.equal(before.notes, Object.keys(expected.notes).length, 'a note for each of Anki\'s')
  const second = await importedCards(app, user)
  t.equal(second.get('fixture-basic/0')?.cardID, basic.cardID, 'the same card')
  t.match(second.get('fixture-basic/0')?.frontHtml, /Capital/, 'its text as the package has it')
  t.equal(second.get('fixture-basic/0')?.stability, basic.stability, 'its schedule as it was')
  t.same(await found('changed here'), [], 'search no longer finds the text the package replaced')
  t.ok((await found('Capital France')).includes(basic.cardID), 'and finds the card by the package\'s text')
  t.equal(after.updates, 0, 'no staged change left')

  const refused = await postImport(app, user.jwtToken, fixture('legacy-anki21.apkg'), { updateNotes: 'sometimes' })
  t.equal(refused.statusCode, 400)
  t.equal(refused.json<{ code: string }>().code, 'invalid_field')
})

test('an import leaves again by export-anki: the notes\' guids, the review log, memory states and media as they came', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app, LEARNER)
  const status = await importAnki(app, user.jwtToken, fixture('collection.apkg'))
  const media = new Map<string, string>()
  const pkg = await readAnkiPackageFile(await exportedFile(t, app, user), {
    onMedia: ({ name, bytes }) => { media.set(name, createHash('sha1').update(bytes).digest('hex')) }
  })
  const collection = pkg.collection
  t.equal(collection.cards.length, expected.cards.length, 'every card')
  t.strictSame(collection.notes.map((note) => note.guid).sort(), Object.keys(expected.notes).sort(), 'each note once, under the guid Anki gave it: Anki matches it on import')
  const ankiNotes = (await readAnkiPackageFile(join(FIXTURES, 'collection.apkg'), { onMedia: () => {} })).collection.notes
  const whole = (notes: typeof ankiNotes) => Object.fromEntries(notes.map((note) => [note.guid, { id: note.id, notetypeId: note.notetypeId, fields: note.fields, modified: note.modified }]))
  t.strictSame(whole(collection.notes), whole(ankiNotes), 'each under Anki\'s ids of it and of its note type, its fields and time as Anki had them')
  t.same(Object.fromEntries(collection.notes.map((note) => [note.guid, note.tags])), Object.fromEntries(Object.entries(expected.notes).map(([guid, note]) => [guid, note.tags])), 'with its tags')
  // each row as Anki wrote it: its time, button, intervals, ease, time taken and kind (the card ids are the export's own)
  const original = (await readAnkiPackageFile(join(FIXTURES, 'collection.apkg'), { onMedia: () => {} })).collection.revlog
  const rowsOf = (log: typeof original): string[] => Array.from({ length: log.length }, (_, row) => row)
    .map((row) => JSON.stringify([log.id[row], log.button[row], log.interval[row], log.lastInterval[row], log.factor[row], log.takenMs[row], log.kind[row]])).sort()
  const manual = Array.from({ length: original.length }, (_, row) => original.button[row]).filter((button) => button === 0).length
  t.ok(manual > 0, `the package holds manual rows (no button): ${manual}`)
  t.equal(collection.revlog.length, Number(status.reviews) + manual, 'the review log: every answer the status counts, and the manual changes')
  t.same(rowsOf(collection.revlog), rowsOf(original), 'every row of Anki\'s log, manual ones too, written back as it came')
  const shown = Object.entries(expected.media).filter(([name]) => name !== 'unused-but-kept.png').map(([, sha1]) => sha1).sort()
  t.same([...media.values()].sort(), shown, 'the media, byte for byte')
  const basic = expected.cards.find((card) => card.label === 'basic/0') as ExpectedCard
  const note = collection.notes.find((candidate) => candidate.guid === basic.noteGuid)
  const card = collection.cards.find((candidate) => candidate.noteId === note?.id)
  t.ok(card?.memoryState !== undefined && relative(card.memoryState.stability, basic.computed.stability as number) < 1e-3, 'its memory state, as Anki computed it')
})

test('each card\'s last review is the one Anki\'s Check Database gives it from the log, imported and exported: a cram answer is no review', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app, LEARNER)
  const status = await importAnki(app, user.jwtToken, fixture('history.apkg'))
  t.equal(status.state, 'done')
  // the import: each card's last review is its log's, a cram answer left out
  const original = (await readAnkiPackageFile(join(FIXTURES, 'history.apkg'), { onMedia: () => {} })).collection
  const guids = new Map(original.notes.map((note) => [note.id, note.guid]))
  const stored = new Map<string, number | null>()
  for (const card of await storedCards(app, { userID: user.userID })) {
    stored.set(`${String(card.ankiGuid)}/${String(card.ankiOrd)}`, card.lastReview instanceof Date ? card.lastReview.getTime() : null)
  }
  const importedWrong: string[] = []
  for (const card of original.cards) {
    const last = lastScheduledAnswer(original.revlog.entriesOf(card.id), (entry) => entry.button > 0)
    if (card.type === 0 || last === undefined) continue
    const key = `${guids.get(card.noteId) ?? ''}/${card.ord}`
    if (stored.get(key) !== last.id) importedWrong.push(`card ${key}: lastReview ${stored.get(key) ?? 'none'}, its log's ${last.id}`)
  }
  t.same(importedWrong, [], 'each imported card\'s last review is its last answer that rescheduled it')

  // two cards as Anki can leave them: one whose every row is a due date set by hand, one only ever crammed
  const histories = databaseOf(app).collection<{ _id: string, userID: string, reviews: Array<{ rating: string | null, kind: number, factor: number }> }>('reviewHistories')
  const [setByHand, crammed] = await histories.find({ userID: user.userID }).limit(2).toArray()
  if (setByHand === undefined || crammed === undefined) throw new Error('history.apkg has studied cards')
  await histories.updateOne({ _id: setByHand._id }, { $set: { reviews: setByHand.reviews.map((row) => ({ ...row, rating: null, kind: 4, factor: 2500 })) } })
  await histories.updateOne({ _id: crammed._id }, { $set: { reviews: crammed.reviews.map((row) => ({ ...row, rating: row.rating ?? 'good', kind: 3, factor: 0 })) } })

  const collection = (await readAnkiPackageFile(await exportedFile(t, app, user), { onMedia: () => {} })).collection
  let compared = 0
  let crammedLast = 0
  const differing: string[] = []
  for (const card of collection.cards) {
    const entries = collection.revlog.entriesOf(card.id)
    if (card.type === 0 || entries.length === 0) continue
    const answers = entries.filter((entry) => entry.button > 0)
    if (kindOfAnkiEntry(answers.at(-1) ?? { kind: 0, factor: 0 }) === 'cram') crammedLast++
    const last = lastScheduledAnswer(entries, (entry) => entry.button > 0)
    const wanted = last === undefined ? undefined : Math.floor(last.id / 1000)
    if (card.lastReviewTime !== wanted) differing.push(`card ${card.id}: lrt ${card.lastReviewTime ?? 'none'}, Anki's ${wanted ?? 'none'}`)
    compared++
  }
  t.same(differing, [], 'each as Anki gives it, none for the card only set by hand and the one only crammed')
  t.ok(compared > 500, `every studied card compared: ${compared}`)
  t.ok(crammedLast > 0, `cards whose last answer was cramming among them: ${crammedLast}`)
})

test('cards of a deck the collection lacks land in Anki\'s Default deck, as Anki\'s Check Database puts them: every card the user\'s, none left staged', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app, LEARNER)
  const dir = await mkdtemp(join(tmpdir(), 'anki-missing-deck-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const path = join(dir, 'missing-deck.apkg')
  await writeAnkiPackage(path, { cards: 30, revlog: 60, cardsInMissingDeck: 3 })
  const status = await importAnki(app, user.jwtToken, await readFile(path))
  t.equal(status.state, 'done')
  t.equal(status.cards, '30')
  const counts = await countsOf(app, user)
  t.equal(counts.cards, 30, 'the user holds every card')
  t.equal(counts.staged, 0, 'none is left staged')
  const library = await expectOk<{ folders: Array<{ name: string, flashcards: Array<{ flashcardName: string, cards: string }> }> }>(app, 'get-library', { jwtToken: user.jwtToken })
  const fallback = library.folders.find((folder) => folder.name === 'Default')
  t.same(fallback?.flashcards.map((flashcard) => [flashcard.flashcardName, flashcard.cards]), [['Default', '3']], 'the three in a flashcard Default')
  const usage = (await databaseOf(app).collection('users').findOne({ _id: user.userID as never }))?.usage
  t.equal(usage?.cards, 30, 'and the quota counts what the user holds')
})

test('cards imported before notes were kept (no note of their own) leave by export-anki as before: a Basic note each, card 1 of it; a cloze card by its number', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app, LEARNER)
  t.equal((await importAnki(app, user.jwtToken, fixture('collection.apkg'))).state, 'done')
  await databaseOf(app).collection('notes').deleteMany({ userID: user.userID })
  const collection = (await readAnkiPackageFile(await exportedFile(t, app, user), { onMedia: () => {} })).collection
  const clozeNotes = new Set(collection.notes.filter((note) => /\{\{c\d/.test(note.fields[0] ?? '')).map((note) => note.id))
  const ords = collection.cards.filter((card) => !clozeNotes.has(card.noteId)).map((card) => card.ord)
  t.ok(ords.length >= 15, `${ords.length} cards of Basic notes`)
  t.strictSame([...new Set(ords)], [0], 'every card of a Basic note is its card 1, the reversed ones too')
})

test('a package whose notes are older than here leaves their note types too: a note type edited here keeps its edit', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app, LEARNER)
  await importAnki(app, user.jwtToken, fixture('collection.apkg'))
  const typesOf = async () => (await expectOk<{ noteTypes: Array<{ noteTypeID: string, name: string, css: string }> }>(app, 'get-note-types', { jwtToken: user.jwtToken })).noteTypes
  const basic = (await typesOf()).find((noteType) => noteType.name === 'Basic') as { noteTypeID: string, css: string }
  await expectOk(app, 'edit-note-type', { jwtToken: user.jwtToken, noteTypeID: basic.noteTypeID, css: '.card { color: teal; }' })
  const again = await importAnki(app, user.jwtToken, fixture('collection.apkg'))
  t.equal(again.state, 'done', JSON.stringify(again))
  t.match(again.warnings.join(' '), /left as they are/)
  t.equal((await typesOf()).find((noteType) => noteType.noteTypeID === basic.noteTypeID)?.css, '.card { color: teal; }', 'the CSS edited here stays')
})

test('cards imported before notes were kept count as older than any package: the next import brings them up to date, with their notes', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app, LEARNER)
  await importAnki(app, user.jwtToken, fixture('collection.apkg'))
  const before = await countsOf(app, user)
  // as such an import left them: guids on the cards, no note documents
  await databaseOf(app).collection('notes').deleteMany({ userID: user.userID })
  const again = await importAnki(app, user.jwtToken, fixture('collection.apkg'))
  t.equal(again.state, 'done', JSON.stringify(again))
  t.match(again.warnings.join(' '), /updated rather than added again/)
  const after = await countsOf(app, user)
  t.equal(after.cards, before.cards, 'no card added')
  t.equal(after.notes, before.notes, 'and every note there again')
})
