// import-anki end to end, against the fixtures PyPI's anki made (test/fixtures/anki/, expected.json):
// what comes over, read back through the API as a learner sees it.
import { createHash } from 'node:crypto'
import tap, { test } from 'tap'
import { join } from 'node:path'
import { readAnkiPackageFile } from '../../src/anki/package-file.js'
import { dayOf, startOfDay } from '../../src/domain/calendar.js'
import { buildTestApp, databaseOf, expectOk, expectRefusal, makeDeck, registerUser } from '../helpers/app.js'
import { expected, FIXTURES } from '../helpers/anki.js'
import { CALENDAR, countsOf, fixture, importAnki, importedCards, labelOf, loggedReviews, LEARNER, relative } from '../helpers/anki-import.js'

// every import starts a worker thread of its own: on a machine busy with other tests, a file of them takes minutes
tap.setTimeout(600_000)

const graded = expected.cards.reduce((sum, card) => sum + card.revlogCount, 0)

test('collection.apkg: every card, its memory state within 1e-3 of Anki\'s and its due day as Anki shows it', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app, LEARNER)
  const status = await importAnki(app, user.jwtToken, fixture('collection.apkg'))
  t.equal(status.state, 'done', JSON.stringify(status))
  t.equal(status.percent, '100')
  t.equal(status.cards, String(expected.cards.length), 'every card')
  t.equal(status.notes, String(Object.keys(expected.notes).length), 'every note')
  t.equal(status.media, '3', 'the media its notes show (the collection keeps a fourth no note shows)')
  const cards = await importedCards(app, user)
  t.equal(cards.size, expected.cards.length)
  let compared = 0
  for (const want of expected.cards) {
    const label = labelOf(want)
    const card = cards.get(`${want.noteGuid}/${want.ord}`)
    if (card === undefined) {
      t.fail(`${label}: not imported`)
      continue
    }
    const anki = want.computed.stability !== null ? want.computed : want.whenShown
    if (want.type === 0) {
      t.equal(card.review_status, '0.0', `${label}: new`)
      t.equal(card.stability, undefined, `${label}: no memory state`)
      continue
    }
    t.equal(dayOf(new Date(card.due), CALENDAR), want.dueDay, `${label}: due on ${want.dueDay ?? ''}, as Anki shows it`)
    if (anki === null || anki.stability === null || anki.difficulty === null) continue
    t.ok(relative(Number(card.stability), anki.stability) < 1e-3, `${label}: stability ${card.stability ?? ''} ~ Anki's ${anki.stability}`)
    t.ok(relative(Number(card.difficulty), anki.difficulty) < 1e-3, `${label}: difficulty ${card.difficulty ?? ''} ~ Anki's ${anki.difficulty}`)
    if (want.stored.stability !== null && want.stored.difficulty !== null) {
      t.ok(relative(Number(card.stability), want.stored.stability) < 1e-3, `${label}: stability ~ the stored ${want.stored.stability}`)
      t.ok(relative(Number(card.difficulty), want.stored.difficulty) < 1e-3, `${label}: difficulty ~ the stored ${want.stored.difficulty}`)
    }
    const retrievability = Number(card.retrievability)
    t.ok(retrievability > 0 && retrievability < 1, `${label}: retrievability ${card.retrievability ?? ''} now`)
    compared++
  }
  t.ok(compared >= 12, `memory states compared: ${compared}`)
})

test('decks become nested folders; a deck with subdecks and cards of its own holds a flashcard of them', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app, LEARNER)
  await importAnki(app, user.jwtToken, fixture('collection.apkg'))
  const cards = await importedCards(app, user)
  const placeOf = (deck: string): string[] => {
    const card = [...cards.entries()].find(([key]) => expected.cards.some((want) => want.deck === deck && `${want.noteGuid}/${want.ord}` === key))?.[1]
    return card === undefined ? [] : [...card.flashcard.folder, card.flashcard.flashcardName]
  }
  t.same(placeOf('A'), ['A', 'A'], 'A has subdecks: a folder A holding a flashcard A of its own cards')
  t.same(placeOf('A::B'), ['A', 'B', 'B'], 'A::B too')
  t.same(placeOf('A::B::C'), ['A', 'B', 'C'], 'A::B::C has none: a flashcard C in folder A/B')
  t.same(placeOf('Langues::Français'), ['Langues', 'Français'], 'Langues has no cards of its own: only a folder')
})

test('a target folder holds the decks', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app, LEARNER)
  await expectOk(app, 'create-folder', { jwtToken: user.jwtToken, path: ['From Anki'] }, 201)
  const status = await importAnki(app, user.jwtToken, fixture('collection.apkg'), { folder: ['From Anki'] })
  t.equal(status.state, 'done')
  const cards = await importedCards(app, user)
  const folders = new Set([...cards.values()].map((card) => JSON.stringify([...card.flashcard.folder, card.flashcard.flashcardName])))
  t.same([...folders].sort(), [
    '["From Anki","A","A"]', '["From Anki","A","B","B"]', '["From Anki","A","B","C"]', '["From Anki","Langues","Français"]'
  ])
})

test('note types and templates: rendered as Anki renders them, through the sanitizer; cloze siblings share their note', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app, LEARNER)
  await importAnki(app, user.jwtToken, fixture('collection.apkg'))
  const cards = await importedCards(app, user)
  const basic = cards.get('fixture-basic/0')
  t.match(basic?.frontHtml, /<b>Capital<\/b> of France\?/, 'the question')
  t.match(basic?.backHtml, /^Paris <img src="\/media\//, 'the answer, without the question above <hr id=answer>, its image a media URL')
  t.equal(basic?.format, 'html')
  const reversed = cards.get('fixture-reversed/1')
  t.ok(reversed !== undefined && reversed.front !== cards.get('fixture-reversed/0')?.front, 'a reversed card asks the other way round')
  const cloze = [0, 1, 2].map((ord) => cards.get(`fixture-cloze/${ord}`))
  t.equal(new Set(cloze.map((card) => card?.noteID)).size, 1, 'the cloze cards share one note')
  t.ok(cloze[0]?.noteID !== undefined, 'and have one')
  t.same(cloze.map((card) => card?.clozeNumber), ['1', '2', '3'], 'numbered as Anki numbers them')
  t.match(cloze[1]?.frontHtml, /\[country\]/, 'a hint shows in the question')
  t.match(cloze[0]?.backHtml, /extra <i>info<\/i>/, 'the back extra under the answer')
  const custom = cards.get('fixture-custom1/0')
  t.notMatch(custom?.frontHtml ?? '', /\{\{/, 'a custom template leaves no field reference')
  const tags = await databaseOf(app).collection('cards').findOne({ userID: user.userID, ankiGuid: 'fixture-basic' })
  t.same(tags?.tags, ['europe', 'geo'], 'the note\'s tags kept on its cards')
  const typed = cards.get('fixture-typed/0')
  t.notMatch(typed?.frontHtml ?? '', /\[\[type:/, 'the type-in-answer box is left out')
})

test('media bytes come over equal, and tags with the notes', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app, LEARNER)
  await importAnki(app, user.jwtToken, fixture('collection.apkg'))
  const cards = await importedCards(app, user)
  const urls = new Set<string>()
  for (const card of cards.values()) for (const match of `${card.frontHtml}${card.backHtml}`.matchAll(/src="([^"]+)"/g)) urls.add((match[1] as string).replaceAll('&amp;', '&'))
  const digests = new Set<string>()
  for (const url of urls) {
    const answer = await app.inject({ method: 'GET', url })
    t.equal(answer.statusCode, 200, url)
    digests.add(createHash('sha1').update(answer.rawPayload).digest('hex'))
  }
  const shown = Object.entries(expected.media).filter(([name]) => name !== 'unused-but-kept.png').map(([, sha1]) => sha1)
  t.same([...digests].sort(), shown.sort(), 'each media file the cards show, byte for byte')
  const usage = (await databaseOf(app).collection('users').findOne({ _id: user.userID as never }))?.usage
  t.ok(usage?.mediaBytes > 0, 'charged to the media quota')
  // every card shows its note's tags (get-flashcard), none when the note had none
  const tagsOf = Object.fromEntries([...cards].map(([key, card]) => [key, card.tags ?? []]))
  const wanted = Object.fromEntries([...cards.keys()].map((key) => [key, expected.notes[key.slice(0, key.lastIndexOf('/'))]?.tags ?? []]))
  t.same(tagsOf, wanted, 'each card with its note\'s tags')
  t.same(cards.get('fixture-basic/0')?.tags, ['europe', 'geo'])
})

test('the review history: in the log, the heatmap and the streak, earning no XP; the preset\'s parameters adopted', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app, LEARNER)
  const status = await importAnki(app, user.jwtToken, fixture('collection.apkg'))
  const reviews = await loggedReviews(databaseOf(app), user.userID)
  t.equal(Number(status.reviews), reviews, 'the status counts the reviews logged')
  t.ok(reviews >= graded - 4 && reviews <= expected.revlogCount, `every graded row of Anki's log: ${reviews} of ${expected.revlogCount} rows`)
  const activity = await databaseOf(app).collection('activity').find({ userID: user.userID }).toArray()
  t.equal(activity.reduce((sum, day) => sum + (day.reviews as number), 0), reviews, 'every review counted on its day')
  t.equal(activity.reduce((sum, day) => sum + (day.xp as number), 0), 0, 'imported reviews earn no XP')
  const stats = await expectOk<{ total_xp: string }>(app, 'get-stats', { jwtToken: user.jwtToken })
  t.equal(stats.total_xp, '0')
  const schedule = await expectOk<{ parameters: string[], fitted: string, desiredRetention: string }>(app, 'get-schedule', { jwtToken: user.jwtToken })
  t.same(schedule.parameters.map(Number), expected.presets.Default?.fsrsParams6, 'the Default preset\'s FSRS-6 parameters, which most cards use')
  t.equal(schedule.desiredRetention, '0.85', 'and its desired retention')
  await t.resolves(expectOk(app, 'undo-review', { jwtToken: user.jwtToken }).catch((error: Error) => {
    if (!/nothing_to_undo/.test(error.message)) throw error
  }), 'an imported review is history, not an answer undo takes back')
})

test('optimize-schedule fits on the imported history as Anki\'s optimizer reads it, manual rows kept, once the import is done', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app, LEARNER)
  await expectRefusal(t, app, 'optimize-schedule', { jwtToken: user.jwtToken }, 409, 'not_enough_history', 'before the import: no history')
  const status = await importAnki(app, user.jwtToken, fixture('history.apkg'))
  t.equal(status.state, 'done')
  const histories = databaseOf(app).collection<{ _id: string, reviews: Array<{ rating: string | null, kind: number, factor: number }> }>('reviewHistories')
  const kept = await histories.find({ userID: user.userID }).toArray()
  const lastIsManual = kept.filter((history) => history.reviews.at(-1)?.rating === null)
  t.ok(kept.some((history) => history.reviews.some((row) => row.rating === null && row.kind === 4 && row.factor === 0)), 'the histories keep Anki\'s forget rows')
  t.ok(lastIsManual.length > 0, `and its due dates set by hand: ${lastIsManual.length} cards end their history with one`)
  const crammedLast = kept.filter((history) => {
    const last = history.reviews.filter((row) => row.rating !== null).at(-1)
    return last?.kind === 3 && last.factor === 0
  })
  t.ok(crammedLast.length > 0, `cards whose last answer was cramming: ${crammedLast.length}`)
  const before = new Map((await databaseOf(app).collection<{ _id: string, stability: number }>('cardStates').find({ _id: { $in: [...lastIsManual, ...crammedLast].map((history) => history._id) } }).toArray())
    .map((card) => [card._id, card.stability]))
  const fit = await expectOk<{ reviews: string, items: string, adopted: string }>(app, 'optimize-schedule', { jwtToken: user.jwtToken, reschedule: 'true' })
  // Anki's optimizer trained on 1,897 items of this history (history-parameters.json): the same rows
  // here give as many, cram answers told from reviews by their kind and ease and a forget ending the
  // history before it, as Anki tells them (read as reviews, the cram rows alone would make 1,999)
  const anki = (JSON.parse(fixture('history-parameters.json').toString()) as { fsrsItems: number }).fsrsItems
  t.equal(Number(fit.items), anki, 'trained on the items Anki\'s optimizer trains on')
  t.ok(Number(fit.reviews) > 0.8 * Number(status.reviews), `made of the imported reviews: ${fit.reviews} of ${status.reviews}`)
  t.equal(fit.adopted, 'true')
  const after = await databaseOf(app).collection<{ _id: string, stability: number }>('cardStates').find({ _id: { $in: [...before.keys()] } }).toArray()
  const unchanged = (group: typeof kept) => group.filter((history) => after.find((card) => card._id === history._id)?.stability === before.get(history._id)).length
  t.equal(after.length, before.size)
  t.equal(unchanged(lastIsManual), 0, 'a card whose last row is a due date set by hand is rescheduled by the fit: its last answer is still its last review')
  t.equal(unchanged(crammedLast), 0, 'and one whose last answer was cramming: its last review is the answer before, as Anki counts it')

  // an import not done (running, committing, failed) keeps its histories to itself
  const imports = databaseOf(app).collection('imports')
  await imports.updateOne({ _id: status.importID as never }, { $set: { state: 'running' } })
  await expectRefusal(t, app, 'optimize-schedule', { jwtToken: user.jwtToken }, 409, 'not_enough_history', 'the same history while its import runs: not read')
  await imports.updateOne({ _id: status.importID as never }, { $set: { state: 'done' } })
})

test('answers given in Anki on the day of the import count in that day\'s limits, as answers given here do', async (t) => {
  // the fixture's day with the most new cards first answered, in the learner's calendar
  const { collection } = await readAnkiPackageFile(join(FIXTURES, 'history.apkg'), { onMedia: () => {} })
  const { revlog } = collection
  const rows = Array.from({ length: revlog.length }, (_, row) => ({ at: revlog.id[row] as number, card: revlog.cardId[row] as number, button: revlog.button[row] as number, kind: revlog.kind[row] as number, factor: revlog.factor[row] as number }))
    .sort((a, b) => a.at - b.at)
  const byDay = new Map<string, { answers: number, newCards: number }>()
  const answered = new Set<number>()
  for (const row of rows) {
    // a forget (a manual row of ease 0) makes the card new again
    if (row.button === 0 && row.kind === 4 && row.factor === 0) answered.delete(row.card)
    if (row.button === 0) continue
    const day = dayOf(new Date(row.at), CALENDAR)
    const done = byDay.get(day) ?? { answers: 0, newCards: 0 }
    byDay.set(day, done)
    done.answers += 1
    // a cram answer (a filtered deck's, ease 0) does not start a new card
    if (row.kind === 3 && row.factor === 0) continue
    if (!answered.has(row.card)) done.newCards += 1
    answered.add(row.card)
  }
  const [day, done] = [...byDay].sort((a, b) => b[1].newCards - a[1].newCards)[0] as [string, { answers: number, newCards: number }]
  t.ok(done.newCards > 0 && done.newCards < 20, `on ${day} the learner started ${done.newCards} new cards in Anki and answered ${done.answers} times`)

  const now = new Date(startOfDay(day, CALENDAR).getTime() + 12 * 3600_000)
  const app = await buildTestApp(t, import.meta.filename, { clock: () => now })
  const user = await registerUser(app, LEARNER)
  // a new card studied here this morning, before the import
  const mine = await makeDeck(app, user, { folder: ['Mine'], name: 'Words', cards: 1 })
  await expectOk(app, 'review-card', { jwtToken: user.jwtToken, flashcardID: mine.flashcardID, cardID: mine.cardIDs[0], rating: 'good' })
  const status = await importAnki(app, user.jwtToken, fixture('history.apkg'))
  t.equal(status.state, 'done')
  const queue = await expectOk<{ counts: { new: string } }>(app, 'get-study-queue', { jwtToken: user.jwtToken })
  t.equal(Number(queue.counts.new), 20 - 1 - done.newCards, 'today\'s new cards are the 20 a day less the one started here and those started in Anki today')
  const account = await databaseOf(app).collection<{ _id: string, studyDay?: { day: string, reviews: number, newCards: number } }>('users').findOne({ _id: user.userID })
  t.match(account?.studyDay, { day, reviews: done.answers - done.newCards, newCards: 1 + done.newCards }, 'and today\'s reviews count the other answers')
})

test('without withScheduling every card arrives new, without history', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app, LEARNER)
  const status = await importAnki(app, user.jwtToken, fixture('collection.apkg'), { withScheduling: 'false' })
  t.equal(status.state, 'done')
  t.equal(status.reviews, '0')
  const cards = await importedCards(app, user)
  t.ok([...cards.values()].every((card) => card.review_status === '0.0' && card.stability === undefined), 'all new')
  t.equal((await countsOf(app, user)).reviews, 0)
  const schedule = await expectOk<{ fitted: string }>(app, 'get-schedule', { jwtToken: user.jwtToken })
  t.equal(schedule.fitted, 'false', 'the user\'s parameters are left alone')
})

test('suspended and buried cards stay so: out of today\'s cards, the buried ones back the next day', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app, LEARNER)
  const status = await importAnki(app, user.jwtToken, fixture('collection.apkg'))
  t.match(status.warnings.join(' '), /2 cards were buried in Anki/)
  const cards = await importedCards(app, user) as Map<string, { cardID: string, suspended?: string, buriedUntil?: string }>
  t.equal(cards.get('fixture-suspended/0')?.suspended, 'true', 'suspended (queue -1)')
  t.equal(cards.get('fixture-basic/0')?.suspended, 'false', 'the others are not')
  t.ok(cards.get('fixture-userburied/0')?.buriedUntil !== undefined, 'buried by the user (queue -3): until the next day')
  t.ok(cards.get('fixture-siblings/1')?.buriedUntil !== undefined, 'buried as a sibling (queue -2)')
  t.equal(cards.get('fixture-siblings/0')?.buriedUntil, undefined, 'its sibling is not')
  const today = JSON.stringify(await expectOk(app, 'get-today-cards', { jwtToken: user.jwtToken }))
  for (const key of ['fixture-suspended/0', 'fixture-userburied/0', 'fixture-siblings/1']) {
    t.notOk(today.includes(cards.get(key)?.cardID as string), `${key} is not in today's cards`)
  }
  t.ok(today.includes(cards.get('fixture-basic/0')?.cardID as string), 'an overdue review card is')
})

test('imported cards are found by search-cards', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app, LEARNER)
  await importAnki(app, user.jwtToken, fixture('collection.apkg'))
  const found = await expectOk<{ results: Array<{ cardID: string }> }>(app, 'search-cards', { jwtToken: user.jwtToken, query: 'capital france' })
  const cards = await importedCards(app, user)
  t.ok(found.results.some((card) => card.cardID === cards.get('fixture-basic/0')?.cardID), `the basic card is found (${JSON.stringify(found).slice(0, 300)})`)
})
