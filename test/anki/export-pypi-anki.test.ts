// export-anki's package imported by Anki itself (PyPI `anki`, Anki's own backend, in
// .tools/anki-fixtures-venv, made here if missing): decks, notes, every card's schedule relative to
// Anki's today, memory states, the review log and the media, against what the service holds; and
// Anki's Check Database finds nothing to repair. Without Python the test is skipped, except in CI
// (CI=true), where it fails.
import { createHash } from 'node:crypto'
import t from 'tap'
import { noteGuid } from '../../src/domain/anki/export.js'
import { dayOf, daysBetween, userDay } from '../../src/domain/calendar.js'
import { CardState } from '../../src/domain/scheduling.js'
import { exportedFile, libraryWithHistory, storedOf } from '../helpers/anki-export.js'
import { databaseOf, expectOk } from '../helpers/app.js'
import { ankiVenv, assertAnki, importIntoAnki, needsAnki } from '../helpers/pypi-anki.js'

// making the environment the first time downloads Anki's wheels
t.setTimeout(15 * 60 * 1000)

const TIMEZONE = 'America/New_York'

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex')

t.test('Anki imports the whole account with its schedules, review history and media', needsAnki, async (t) => {
  assertAnki()
  t.comment(`the environment took ${ankiVenv.seconds.toFixed(1)} s to make or check`)
  // the test's clock stands still while it reviews, so the rows of one millisecond go a millisecond
  // apart: at 998 ms some move into the next second, and each card's last review time with them
  const late = new Date()
  late.setUTCMilliseconds(998)
  const { app, user, ids, bytes } = await libraryWithHistory(t, import.meta.filename, late)
  const path = await exportedFile(t, app, user)
  const imported = importIntoAnki(path, TIMEZONE)
  const stored = await storedOf(app, user.userID)

  t.same(imported.problems.filter((line) => !/^Database rebuilt and optimized/.test(line)), [], 'Anki\'s Check Database repairs nothing')
  t.same(imported.imported, { new: 7, updated: 0, duplicate: 0, conflicting: 0, missingNotetype: 0 }, 'every note is imported as new')
  t.same(imported.decks, ['Default', 'Languages', 'Languages::Pictures & sounds', 'Languages::Spanish', 'Languages::Spanish::Verbs', 'Other', 'Other::Misc'])
  t.equal(Object.keys(imported.notes).length, 7)
  t.equal(imported.noteCount, 7, 'seven notes counted: no two share a guid')
  t.equal(imported.cards.length, stored.cards.length, 'every card')

  const imageFile = `${sha256(bytes.image)}.png`
  const soundFile = `${sha256(bytes.sound)}.mp3`
  t.same(imported.media, { [imageFile]: sha256(bytes.image), [soundFile]: sha256(bytes.sound) }, 'the image and the sound, byte for byte')
  const picture = imported.notes[noteGuid(ids.pictureCard)]
  t.match(picture?.notetype, /^Basic/, 'a card of a front and a back is a Basic note (Anki renames it beside its own Basic)')
  t.same(picture?.fields, [`<b>Robin</b> <img src="${imageFile}" alt="a robin" />`, `a bird [sound:${soundFile}]`], 'its fields show the media by file name')
  const clozeCard = stored.cards.find((card) => card._id === ids.clozeCards[0])
  const cloze = imported.notes[noteGuid(clozeCard?.noteID as string)]
  t.match(cloze?.notetype, /^Cloze/)
  t.same(cloze?.fields, ['{{c1::Madrid}} is the capital of {{c2::Spain::country}}', 'in <i>Europe</i>'])

  // Anki keeps a card's due relative to its today: the package's day N is the collection's today
  // plus the days between the learner's today and that day, at the moment Anki imported it
  const calendar = { timezone: TIMEZONE, dayStartHour: 4 }
  const today = userDay(new Date(imported.now * 1000), calendar)
  const buttons = { again: 1, hard: 2, good: 3, easy: 4 }
  const newCards = stored.cards.filter((card) => card.state === CardState.New).map((card) => card._id)
  for (const card of stored.cards) {
    const got = imported.cards.find((candidate) => candidate.guid === noteGuid(card.noteID ?? card._id) && candidate.ord === (card.clozeNumber ?? 1) - 1)
    const what = `${card.front.slice(0, 20)} (${card.clozeNumber ?? ''}), state ${card.state}`
    if (got === undefined) {
      t.fail(`${what} is in Anki`)
      continue
    }
    t.same({ reps: got.reps, lapses: got.lapses }, { reps: card.reps, lapses: card.lapses }, `${what}: reps and lapses`)
    t.same(got.revlog, stored.reviews.filter((review) => review.cardID === card._id).map((review) => buttons[review.rating]), `${what}: its review history`)
    if (card.state === CardState.New) {
      t.same({ type: got.type, queue: got.queue, due: got.due }, { type: 0, queue: 0, due: newCards.indexOf(card._id) + 1 }, `${what}: new, in creation order`)
      t.equal(got.memory, null)
      continue
    }
    t.ok(got.memory !== null && Math.abs(got.memory.stability - card.stability) < 1e-4 * Math.max(1, card.stability), `${what}: stability ${card.stability}`)
    t.ok(got.memory !== null && Math.abs(got.memory.difficulty - card.difficulty) < 1e-3, `${what}: difficulty ${card.difficulty}`)
    const daysAway = daysBetween(today.day, dayOf(card.due, calendar))
    if (card.state === CardState.Review) {
      t.same({ type: got.type, queue: got.queue, interval: got.interval, daysAway: got.due - imported.today },
        { type: 2, queue: 2, interval: card.scheduledDays, daysAway }, `${what}: a review card due in ${daysAway} days`)
    } else if (card.due.getTime() < today.end.getTime()) {
      t.same({ type: got.type, queue: got.queue, due: got.due },
        { type: card.state === CardState.Learning ? 1 : 3, queue: 1, due: Math.floor(card.due.getTime() / 1000) }, `${what}: learning, due at its instant`)
    } else {
      t.same({ type: got.type, queue: got.queue, daysAway: got.due - imported.today },
        { type: card.state === CardState.Learning ? 1 : 3, queue: 3, daysAway }, `${what}: learning, due on its day`)
    }
  }
  t.equal(imported.revlogCount, stored.reviews.length, 'every review')
  t.same(new Set(Object.values(imported.presets).map((preset) => preset.name)), new Set(['Default']), 'without "Import any deck presets", every deck uses Anki\'s Default')
})

t.test('with "Import any deck presets", Anki gives the decks the learner\'s desired retention and fitted FSRS parameters', needsAnki, async (t) => {
  assertAnki()
  const { app, user } = await libraryWithHistory(t, import.meta.filename)
  await expectOk(app, 'update-settings', { jwtToken: user.jwtToken, desiredRetention: 0.85 })
  // as optimize-schedule leaves the account when it adopts a fit: FSRS-6's 21 parameters
  const fitted = [0.3, 1.1, 2.9, 14.2, 6.9, 0.6, 2.1, 0.002, 1.5, 0.1, 0.9, 1.9, 0.09, 0.3, 2.2, 0.2, 2.9, 0.6, 0.1, 0.05, 0.2]
  await databaseOf(app).collection<{ _id: string }>('users').updateOne({ _id: user.userID }, { $set: { fsrsParameters: fitted } })
  const imported = importIntoAnki(await exportedFile(t, app, user), TIMEZONE, true)
  const { Default: defaultPreset, ...exported } = imported.presets
  t.equal(defaultPreset?.name, 'Default', 'Anki\'s Default deck keeps its Default preset')
  t.same(Object.keys(exported).sort(), imported.decks.filter((name) => name !== 'Default'))
  for (const [deck, preset] of Object.entries(exported)) {
    t.equal(preset.name, 'flashcard-service', `${deck}: the learner's preset`)
    t.ok(Math.abs(preset.desiredRetention - 0.85) < 1e-6, `${deck}: their desired retention`)
    t.ok(preset.fsrsParams6 !== null && preset.fsrsParams6.length === 21 && preset.fsrsParams6.every((w, index) => Math.abs(w - (fitted[index] as number)) < 1e-6),
      `${deck}: their FSRS parameters`)
  }
})
