import { test } from 'tap'
import { cardDue } from '../../../src/domain/anki/days.js'
import { ankiDays, DERIVED_DECK_IDS, derivedDeckId, exportedDeckIds, exportedDecks, noteGuid, revlogRow, scheduleRow, withAnkiMedia } from '../../../src/domain/anki/export.js'
import type { AnkiCard } from '../../../src/domain/anki/collection.js'
import { dayOf } from '../../../src/domain/calendar.js'
import { Refusal } from '../../../src/domain/refusals.js'
import { CardState, newSchedule, scheduleReview, type CardSchedule } from '../../../src/domain/scheduling.js'

const calendar = { timezone: 'America/New_York', dayStartHour: 4 }
const HOUR = 3_600_000

function asAnkiCard (row: ReturnType<typeof scheduleRow>): AnkiCard {
  return { id: 1, noteId: 1, deckId: 1, ord: 0, originalDeckId: 0, originalDue: 0, flags: 0, ...row }
}

test('a review card is due on its day in the learner\'s calendar, across daylight saving, as the reader counts Anki\'s days', async (t) => {
  // the collection begins in winter (UTC-5); the export and the due dates are in summer (UTC-4)
  const now = new Date('2026-07-15T15:00:00Z')
  const days = ankiDays(calendar, '2026-01-10', now)
  t.equal(days.timing.creationOffsetMinutesWest, 300, 'the offset the collection was created in')
  t.equal(days.timing.localOffsetMinutesWest, 240, 'the offset now')
  t.equal(days.timing.creationStamp, Date.parse('2026-01-10T09:00:00Z') / 1000, 'day 0 starts at 04:00 local')
  const timing = { ...days.timing, schedulerVersion: 2 }
  for (const due of ['2026-07-16T07:59:00Z', '2026-07-16T08:00:00Z', '2026-11-02T03:30:00Z', '2026-03-08T08:30:00Z']) {
    const card: CardSchedule = { ...newSchedule(now), state: CardState.Review, due: new Date(due), stability: 10, difficulty: 5, scheduledDays: 9, reps: 3, lastReview: now }
    const exported = cardDue(asAnkiCard(scheduleRow(card, 0, days, 0.9)), timing)
    t.equal(exported.kind === 'day' ? exported.day : exported.kind, dayOf(card.due, calendar), `due ${due}: on the learner's day of it`)
  }
})

test('a learning card is due at its instant today, and on its day after today', async (t) => {
  const now = new Date('2026-07-15T15:00:00Z')
  const days = ankiDays(calendar, '2026-01-10', now)
  const learning = scheduleReview(newSchedule(now), 'good', now, { desiredRetention: 0.9 })
  const soon = scheduleRow(learning, 0, days, 0.9)
  t.same({ type: soon.type, queue: soon.queue, due: soon.due }, { type: 1, queue: 1, due: Math.floor(learning.due.getTime() / 1000) })
  t.ok(soon.left >= 1, 'steps left')
  const tomorrow = scheduleRow({ ...learning, due: new Date(days.endOfToday.getTime() + HOUR) }, 0, days, 0.9)
  t.same({ queue: tomorrow.queue, day: cardDue(asAnkiCard(tomorrow), { ...days.timing, schedulerVersion: 2 }) }, { queue: 3, day: { kind: 'day', dayNumber: tomorrow.due, day: '2026-07-16' } })
  const data = JSON.parse(soon.data) as Record<string, number>
  t.same(Object.keys(data).sort(), ['d', 'dr', 'lrt', 's'], 'the memory state, desired retention and last review, as Anki keeps them')
  t.same(scheduleRow(newSchedule(now), 7, days, 0.9), { type: 0, queue: 0, due: 7, interval: 0, factor: 0, left: 0, data: '', reps: 0, lapses: 0 }, 'a new card: its position')
})

test('a review becomes a revlog row: the button, the kind of the card before it, the intervals', async (t) => {
  const start = new Date('2026-07-01T12:00:00Z')
  const fresh = newSchedule(start)
  const learnt = scheduleReview(fresh, 'easy', start, { desiredRetention: 0.9 })
  t.equal(learnt.state, CardState.Review)
  const first = revlogRow({ rating: 'easy', reviewedAt: start, before: fresh, after: learnt }, 5, 9)
  t.same(first, { id: 5, cardId: 9, button: 4, interval: learnt.scheduledDays, lastInterval: 0, factor: 2500, takenMs: 0, kind: 0 })
  const later = new Date(learnt.due.getTime())
  const lapsed = scheduleReview(learnt, 'again', later, { desiredRetention: 0.9 })
  const lapse = revlogRow({ rating: 'again', reviewedAt: later, before: learnt, after: lapsed }, 6, 9)
  t.same({ button: lapse.button, kind: lapse.kind, lastInterval: lapse.lastInterval }, { button: 1, kind: 1, lastInterval: learnt.scheduledDays })
  t.equal(lapse.interval, -Math.round((lapsed.due.getTime() - later.getTime()) / 1000), 'a relearning step: negative seconds')
  t.equal(lapsed.state, CardState.Relearning)
  const relearnt = scheduleReview(lapsed, 'good', lapsed.due, { desiredRetention: 0.9 })
  t.equal(relearnt.state, CardState.Review)
  const relearning = revlogRow({ rating: 'good', reviewedAt: lapsed.due, before: lapsed, after: relearnt }, 7, 9)
  t.same({ button: relearning.button, kind: relearning.kind, interval: relearning.interval, factor: relearning.factor }, { button: 3, kind: 2, interval: relearnt.scheduledDays, factor: 2500 },
    'a review of a relearning card: kind 2, and the days it gives')
  t.equal(relearning.lastInterval, -Math.round((lapsed.due.getTime() - later.getTime()) / 1000), 'the interval before it, the relearning step\'s seconds')
})

test('guids are stable, in Anki\'s alphabet, and a guid from Anki is kept', async (t) => {
  const id = '123456789012345678901234567890123456789'
  t.equal(noteGuid(id), noteGuid(id))
  t.not(noteGuid(id), noteGuid(`${id}0`))
  t.match(noteGuid(id), /^[A-Za-z0-9!#$%&()*+,\-./:;<=>?@[\]^_`{|}~]{1,11}$/)
  t.equal(noteGuid(id, 'f8Kq;e2@x|'), 'f8Kq;e2@x|')
})

test('media become file names and sounds; media the account does not hold is left out', async (t) => {
  const files: Record<string, string> = { abc: 'aa.png', snd: 'bb.mp3' }
  const fileOf = (id: string) => files[id] ?? null
  t.equal(withAnkiMedia('<p>x <img src="media:abc" alt="pic" /> <audio src="media:snd" controls=""></audio></p>', fileOf),
    '<p>x <img src="aa.png" alt="pic" /> [sound:bb.mp3]</p>')
  t.equal(withAnkiMedia('<img src="media:gone" />y', fileOf), 'y')
  t.equal(withAnkiMedia('media:abc as text', fileOf), 'media:abc as text', 'only the sanitizer\'s elements are media')
})

test('decks are named by their path, a :: inside a name kept as one colon', async (t) => {
  const tree = {
    folders: [{
      id: 'f1', name: 'A::B', folders: [{ id: 'f2', name: 'C', folders: [], flashcards: [{ id: 'k1', name: 'D', description: '' }] }], flashcards: []
    }]
  }
  t.same(exportedDecks(tree, { kind: 'flashcard', flashcardID: 'k1' }).decks.map((deck) => deck.path.join('::')), ['A:B', 'A:B::C', 'A:B::C::D'])
  t.same(exportedDecks(tree, { kind: 'account' }).flashcardIDs, ['k1'])
  t.throws(() => exportedDecks(tree, { kind: 'folder', folderID: 'nope' }), new Refusal('folder_not_found', 'no folder nope'))
})

test('a deck\'s id is the one its folder or flashcard kept from Anki, else derived from its id, and no two decks of a package share one', async (t) => {
  const tree = {
    folders: [
      { id: 'f1', name: 'From Anki', ankiID: 1_600_000_000_001, folders: [], flashcards: [{ id: 'k1', name: 'Deck', description: '', ankiID: 1_600_000_000_002 }] },
      // imported twice, and Anki's Default deck imported
      { id: 'f2', name: 'Again', ankiID: 1_600_000_000_001, folders: [], flashcards: [{ id: 'k2', name: 'Default', description: '', ankiID: 1 }] },
      { id: 'f3', name: 'Made here', folders: [], flashcards: [{ id: 'k3', name: 'Deck', description: '' }] }
    ]
  }
  const whole = exportedDecks(tree, { kind: 'account' }).decks
  const ids = exportedDeckIds(whole)
  t.strictSame(ids, [1_600_000_000_001, 1_600_000_000_002, derivedDeckId('f2'), derivedDeckId('k2'), derivedDeckId('f3'), derivedDeckId('k3')],
    'Anki\'s ids where they are free; a repeat, and Default\'s 1, give way to the derived id')
  t.strictSame(exportedDeckIds(exportedDecks(tree, { kind: 'folder', folderID: 'f3' }).decks), [derivedDeckId('f3'), derivedDeckId('k3')], 'the same in a folder\'s export')
  t.equal(derivedDeckId('f3'), derivedDeckId('f3'), 'derived from the id alone')
  for (const id of ids.slice(2)) t.ok(id >= DERIVED_DECK_IDS.from && id < DERIVED_DECK_IDS.from + DERIVED_DECK_IDS.span && Number.isSafeInteger(id), `${id} in the derived range`)
  const clashing = [{ path: ['A'], nodeID: 'f3' }, { path: ['B'], nodeID: 'x', ankiID: derivedDeckId('f3') }, { path: ['C'], nodeID: 'f3' }]
  const unique = exportedDeckIds(clashing)
  t.equal(new Set([1, ...unique]).size, 4, 'ids that would meet still make a package of distinct ids, Default\'s apart')
})
