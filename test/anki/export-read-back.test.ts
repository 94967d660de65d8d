// export-anki's package read back by the project's own Anki reader (src/anki/package-file.ts):
// the layout, decks, notes, each card's schedule and memory state, the review log and the media
// bytes, against what the service holds.
import { createHash } from 'node:crypto'
import { test } from 'tap'
import { readAnkiPackageFile } from '../../src/anki/package-file.js'
import { cardDue } from '../../src/domain/anki/days.js'
import { noteGuid } from '../../src/domain/anki/export.js'
import { dayOf, userDay } from '../../src/domain/calendar.js'
import { CardState } from '../../src/domain/scheduling.js'
import { exportedFile, libraryWithHistory, storedOf } from '../helpers/anki-export.js'

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex')

async function readBack (path: string) {
  const media = new Map<string, Uint8Array>()
  const pkg = await readAnkiPackageFile(path, { onMedia: ({ name, bytes }) => { media.set(name, bytes) } })
  return { pkg, media }
}

test('the whole account reads back: decks, notes, schedules, memory states, the review log and the media', async (t) => {
  const library = await libraryWithHistory(t, import.meta.filename)
  const { app, user, ids, bytes } = library
  const { pkg, media } = await readBack(await exportedFile(t, app, user))
  const collection = pkg.collection
  t.same(pkg.layout, { version: 2, collectionEntry: 'collection.anki21', zstd: false }, 'the legacy layout: meta version 2, collection.anki21')
  t.equal(collection.schemaVersion, 11)

  const deckNames = new Map(collection.decks.map((deck) => [deck.id, deck.path.join('::')]))
  t.same([...deckNames.values()].sort(), [
    'Default', 'Languages', 'Languages::Pictures & sounds', 'Languages::Spanish', 'Languages::Spanish::Verbs', 'Other', 'Other::Misc'
  ], 'a deck per folder and flashcard, by its path')

  const stored = await storedOf(app, user.userID)
  const calendar = { timezone: 'America/New_York', dayStartHour: 4 }
  const notetypes = new Map(collection.notetypes.map((notetype) => [notetype.id, notetype]))
  const notes = new Map(collection.notes.map((note) => [note.guid, note]))
  t.equal(collection.notes.length, 7, 'a note per card, one per cloze note')
  t.equal(collection.cards.length, stored.cards.length, 'every card')
  t.equal(new Set(collection.notes.map((note) => note.guid)).size, 7, 'guids are unique')

  const [image, sound] = [stored.media.find((record) => record._id === ids.image), stored.media.find((record) => record._id === ids.sound)]
  t.same(image?.contentType, 'image/png')
  const imageFile = `${image?.sha256 ?? ''}.png`
  const soundFile = `${sound?.sha256 ?? ''}.mp3`
  t.same([...media.keys()].sort(), [imageFile, soundFile].sort(), 'each media file once, named by its content')
  t.equal(sha256(media.get(imageFile) ?? new Uint8Array()), sha256(bytes.image), 'the image\'s bytes')
  t.equal(sha256(media.get(soundFile) ?? new Uint8Array()), sha256(bytes.sound), 'the sound\'s bytes')

  const verbsNote = notes.get(noteGuid(ids.verbCards[0] as string))
  t.equal(notetypes.get(verbsNote?.notetypeId ?? 0)?.name, 'Basic')
  t.same(verbsNote?.fields, ['to be', 'ser &lt;or&gt; estar &amp; &quot;more&quot;<br>second line'], 'plain text is escaped, its line breaks <br>')
  const pictureNote = notes.get(noteGuid(ids.pictureCard))
  t.same(pictureNote?.fields, [`<b>Robin</b> <img src="${imageFile}" alt="a robin" />`, `a bird [sound:${soundFile}]`],
    'an image names its file; a sound is [sound:file]')
  const clozeCard = stored.cards.find((card) => card._id === ids.clozeCards[0])
  const clozeNote = notes.get(noteGuid(clozeCard?.noteID as string))
  t.equal(notetypes.get(clozeNote?.notetypeId ?? 0)?.name, 'Cloze')
  t.same(clozeNote?.fields, ['{{c1::Madrid}} is the capital of {{c2::Spain::country}}', 'in <i>Europe</i>'], 'a cloze note keeps its deletions')

  const timing = collection.timing
  t.equal(timing.rolloverHour, 4, 'the learner\'s day start hour is the rollover')
  const today = userDay(new Date(), calendar)
  const newOrder = stored.cards.filter((card) => card.state === CardState.New).map((card) => card._id)
  const states = new Set<number>()
  for (const card of stored.cards) {
    const note = notes.get(noteGuid(card.noteID ?? card._id))
    const exported = collection.cards.find((candidate) => candidate.noteId === note?.id && candidate.ord === (card.clozeNumber ?? 1) - 1)
    if (exported === undefined) {
      t.fail(`card ${card._id} is in the package`)
      continue
    }
    states.add(card.state)
    const what = `${card.front.slice(0, 20)} (${card.clozeNumber ?? ''}), state ${card.state}`
    const path = card.flashcardID === ids.verbs ? 'Languages::Spanish::Verbs' : card.flashcardID === ids.misc ? 'Other::Misc' : 'Languages::Pictures & sounds'
    t.equal(deckNames.get(exported.deckId), path, `${what}: in its flashcard's deck`)
    t.same({ reps: exported.reps, lapses: exported.lapses }, { reps: card.reps, lapses: card.lapses }, `${what}: reps and lapses`)
    const due = cardDue(exported, timing)
    if (card.state === CardState.New) {
      t.same({ type: exported.type, queue: exported.queue }, { type: 0, queue: 0 })
      t.same(due, { kind: 'new', position: newOrder.indexOf(card._id) + 1 }, `${what}: its place in the new-card queue`)
      t.equal(exported.memoryState, undefined, `${what}: no memory state`)
      continue
    }
    t.ok(Math.abs((exported.memoryState?.stability ?? 0) - card.stability) < 1e-4 * Math.max(1, card.stability), `${what}: stability`)
    t.ok(Math.abs((exported.memoryState?.difficulty ?? 0) - card.difficulty) < 1e-3, `${what}: difficulty`)
    t.equal(exported.lastReviewTime, Math.floor((card.lastReview?.getTime() ?? 0) / 1000), `${what}: the last review's time`)
    if (card.state === CardState.Review) {
      t.same({ type: exported.type, queue: exported.queue, interval: exported.interval }, { type: 2, queue: 2, interval: card.scheduledDays }, `${what}: a review card`)
      t.same(due.kind === 'day' ? due.day : due, dayOf(card.due, calendar), `${what}: due on its day in the learner's calendar`)
    } else {
      t.equal(exported.type, card.state === CardState.Learning ? 1 : 3, `${what}: learning or relearning`)
      if (card.due.getTime() < today.end.getTime()) {
        t.same({ queue: exported.queue, due: exported.due }, { queue: 1, due: Math.floor(card.due.getTime() / 1000) }, `${what}: due at its instant`)
      } else {
        t.equal(exported.queue, 3, `${what}: learning across days`)
        t.same(due.kind === 'day' ? due.day : due, dayOf(card.due, calendar), `${what}: due on its day`)
      }
    }
  }
  t.same([...states].sort(), [CardState.New, CardState.Learning, CardState.Review, CardState.Relearning], 'cards of every state were compared')

  t.equal(collection.revlog.length, stored.reviews.length, 'every review')
  t.equal(new Set(collection.revlog.id).size, stored.reviews.length, 'revlog ids are unique, as Anki keeps only the first row of an id')
  const buttons = { again: 1, hard: 2, good: 3, easy: 4 }
  for (const card of stored.cards) {
    const note = notes.get(noteGuid(card.noteID ?? card._id))
    const exported = collection.cards.find((candidate) => candidate.noteId === note?.id && candidate.ord === (card.clozeNumber ?? 1) - 1)
    const reviews = stored.reviews.filter((review) => review.cardID === card._id)
    const entries = collection.revlog.entriesOf(exported?.id ?? 0)
    t.same(entries.map((entry) => entry.button), reviews.map((review) => buttons[review.rating]), `${card.front.slice(0, 20)}: its reviews, each by its button`)
    // reviews of one millisecond (this test's clock stands still) follow each other a millisecond apart
    t.ok(entries.every((entry, index) => {
      const late = entry.id - (reviews[index]?.reviewedAt.getTime() ?? 0)
      return late >= 0 && late < stored.reviews.length
    }), 'each at its review\'s time')
    t.same(entries.map((entry) => entry.kind), reviews.map((review) => review.before.state === CardState.Review ? 1 : review.before.state === CardState.Relearning ? 2 : 0), 'each of the kind the card was in')
  }
})

test('an account without folders exports a package that reads back empty', async (t) => {
  const library = await libraryWithHistory(t, import.meta.filename)
  const { app } = library
  const { registerUser } = await import('../helpers/app.js')
  const empty = await registerUser(app)
  const { pkg, media } = await readBack(await exportedFile(t, app, empty))
  t.same(pkg.collection.decks.map((deck) => deck.path.join('::')), ['Default'])
  t.equal(pkg.collection.notes.length, 0)
  t.equal(pkg.collection.revlog.length, 0)
  t.equal(media.size, 0)
})

test('the decks use a preset of the learner\'s: their desired retention, and their own FSRS parameters once fitted', async (t) => {
  const library = await libraryWithHistory(t, import.meta.filename)
  const { app, user } = library
  const { databaseOf, expectOk } = await import('../helpers/app.js')
  await expectOk(app, 'update-settings', { jwtToken: user.jwtToken, desiredRetention: 0.85 })
  const preset = async () => {
    const { pkg } = await readBack(await exportedFile(t, app, user))
    const decks = pkg.collection.decks.filter((deck) => deck.path.join('::') !== 'Default')
    const presetIds = [...new Set(decks.map((deck) => deck.configId))]
    t.equal(presetIds.length, 1, 'every exported deck uses one preset')
    t.not(presetIds[0], 1, 'not Anki\'s Default, which an import never changes')
    return pkg.collection.deckConfigs.find((config) => config.id === presetIds[0])
  }
  const unfitted = await preset()
  t.equal(unfitted?.name, 'flashcard-service')
  t.equal(unfitted?.desiredRetention, 0.85, 'the learner\'s desired retention')
  t.same(unfitted?.fsrsParams, [], 'no parameters of its own: Anki\'s FSRS runs on its defaults, as the service does')

  // as optimize-schedule leaves the account when it adopts a fit: FSRS-6's 21 parameters
  const fitted = [0.3, 1.1, 2.9, 14.2, 6.9, 0.6, 2.1, 0.002, 1.5, 0.1, 0.9, 1.9, 0.09, 0.3, 2.2, 0.2, 2.9, 0.6, 0.1, 0.05, 0.2]
  await databaseOf(app).collection<{ _id: string }>('users').updateOne({ _id: user.userID }, { $set: { fsrsParameters: fitted } })
  const withFit = await preset()
  t.equal(withFit?.id, unfitted?.id, 'the same preset at every export, so that importing again adds none')
  t.same(withFit?.fsrsParams, fitted, 'the fitted parameters, as fsrsParams6')
  t.equal(withFit?.desiredRetention, 0.85)
})
