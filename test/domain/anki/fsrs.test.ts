import { test } from 'tap'
import { REVLOG_KIND, type AnkiCollection, type AnkiRevlogEntry } from '../../../src/domain/anki/collection.js'
import { nextDayAt } from '../../../src/domain/anki/days.js'
import { fsrsParameters, fsrsReplayer, memoryStateFromSm2, reviewsForFsrs } from '../../../src/domain/anki/fsrs.js'
import { cardFor, expected, readFixture } from '../../helpers/anki.js'

function relative (actual: number, wanted: number): number {
  return Math.abs(actual - wanted) / Math.abs(wanted)
}

/** The replayer of a card's preset, with the collection's own day rollover, as Anki computed it. */
function replayerFor (collection: AnkiCollection, deckId: number) {
  const deck = collection.decks.find((candidate) => candidate.id === deckId)
  const preset = collection.deckConfigs.find((config) => config.id === deck?.configId)
  if (preset === undefined) throw new Error('no preset')
  return fsrsReplayer({
    params: preset.fsrsParams,
    historicalRetention: preset.historicalRetention,
    ignoreRevlogsBeforeDate: preset.ignoreRevlogsBeforeDate,
    nextDayAt: nextDayAt(expected.exportedAt, expected.utcOffsetMinutesWest, expected.rolloverHour)
  })
}

for (const name of ['collection.apkg', 'legacy-anki21.apkg']) {
  test(`${name}: every card's replayed memory state is within 1e-3 of Anki's`, async (t) => {
    const { pkg } = await readFixture(name)
    const collection = pkg.collection
    let compared = 0
    for (const want of expected.cards) {
      const card = cardFor(collection, want)
      const state = replayerFor(collection, card.deckId).memoryStateOf(card, collection.revlog.entriesOf(card.id))
      const label = want.label ?? `${want.noteGuid}/${want.ord}`
      // what Anki computes from the history (unrounded), else what its scheduler starts from when the
      // card is next shown: for a card without usable history, the conversion from interval and ease
      const anki = want.computed.stability !== null ? want.computed : want.whenShown
      if (anki === null || anki.stability === null || anki.difficulty === null) {
        t.equal(state, undefined, `${label}: no memory state, as in Anki`)
        continue
      }
      if (state === undefined) {
        t.fail(`${label}: no memory state, but Anki has one`)
        continue
      }
      t.ok(relative(state.stability, anki.stability) < 1e-3, `${label}: stability ${state.stability} ~ Anki's ${anki.stability}`)
      t.ok(relative(state.difficulty, anki.difficulty) < 1e-3, `${label}: difficulty ${state.difficulty} ~ Anki's ${anki.difficulty}`)
      if (want.stored.stability !== null && want.stored.difficulty !== null) {
        t.ok(relative(state.stability, want.stored.stability) < 1e-3, `${label}: stability ~ the stored ${want.stored.stability}`)
        t.ok(relative(state.difficulty, want.stored.difficulty) < 1e-3, `${label}: difficulty ~ the stored ${want.stored.difficulty}`)
      }
      compared++
    }
    t.ok(compared >= 12, `memory states compared: ${compared}`)
  })
}

test('the fixture holds the histories the replay rule is about', async (t) => {
  const labels = new Set(expected.cards.filter((card) => card.computed.stability !== null || card.whenShown !== null).map((card) => card.label))
  for (const label of ['basic/0', 'truncated/0', 'nohistory/0', 'reset/0', 'relearning/0', 'learning/0', 'early/0', 'custom1/0']) {
    t.ok(labels.has(label), label)
  }
})

function entry (id: number, button: number, kind: number, interval: number, factor = 2500): AnkiRevlogEntry {
  return { id, cardId: 1, button, interval, lastInterval: 0, factor, takenMs: 1000, kind }
}

test('days are counted from the rollover, not from UTC midnight', async (t) => {
  // rollover at 04:00 UTC: 03:59 and 04:01 on the same date are a day apart; 23:00 and 02:00 are not
  const next = Date.UTC(2025, 0, 20, 4) / 1000
  const history = [
    entry(Date.UTC(2025, 0, 10, 3, 59), 3, REVLOG_KIND.learning, 1),
    entry(Date.UTC(2025, 0, 10, 4, 1), 3, REVLOG_KIND.review, 1),
    entry(Date.UTC(2025, 0, 10, 23, 0), 3, REVLOG_KIND.review, 1),
    entry(Date.UTC(2025, 0, 11, 2, 0), 3, REVLOG_KIND.review, 1)
  ]
  t.same(reviewsForFsrs(history, next)?.reviews.map((review) => review.deltaT), [0, 1, 0, 0])
})

test('cram and manual rows are skipped; the history starts at the last learning block, after a reset', async (t) => {
  const day = (n: number) => Date.UTC(2025, 0, 1 + n, 12)
  const history = [
    entry(day(0), 3, REVLOG_KIND.learning, 1),
    entry(day(1), 3, REVLOG_KIND.review, 3),
    entry(day(2), 0, REVLOG_KIND.manual, 0, 0), // forget: a reset
    entry(day(3), 1, REVLOG_KIND.learning, -60, 0),
    entry(day(3) + 60_000, 3, REVLOG_KIND.learning, 1),
    entry(day(4), 3, REVLOG_KIND.filtered, 0, 0), // cram
    entry(day(5), 0, REVLOG_KIND.manual, 9), // set due date
    entry(day(6), 4, REVLOG_KIND.review, 8)
  ]
  const reviews = reviewsForFsrs(history, day(10) / 1000 + 3600)
  t.same(reviews?.reviews, [{ rating: 1, deltaT: 0 }, { rating: 3, deltaT: 0 }, { rating: 4, deltaT: 3 }])
  t.equal(reviews?.complete, true)
  t.equal(reviewsForFsrs([entry(day(0), 0, REVLOG_KIND.manual, 0, 0)], day(10) / 1000), undefined, 'only a reset: no history')
  const truncated = reviewsForFsrs([entry(day(0), 3, REVLOG_KIND.review, 10), entry(day(10), 3, REVLOG_KIND.review, 25)], day(20) / 1000)
  t.equal(truncated?.complete, false, 'no learning block: the history was cut')
})

test('the conversions of Anki\'s own tests (rslib memory_state.rs) with FSRS\'s default parameters', async (t) => {
  const w = fsrsParameters([]) as number[]
  // zero_history_is_handled: interval 100, ease 1.3 -> stability 99.999954, difficulty 9.979899
  // (Anki's test compares them rounded, as FSRS's defaults have moved since)
  const converted = memoryStateFromSm2(w, 1.3, 100, 0.9)
  t.equal(Math.round(converted.stability), 100)
  t.equal(Math.round(converted.difficulty), 10)
  // bypassed_learning_is_handled: the starting state from ease 2.5 and interval 100 is about (100, 5.0036),
  // and after a review on the same day about (248.9, 5.0)
  const start = memoryStateFromSm2(w, 2.5, 100, 0.9)
  t.equal(Math.round(start.stability), 100)
  t.equal(Math.round(start.difficulty), 5)
  const now = Date.UTC(2025, 5, 1, 12) / 1000
  const replayer = fsrsReplayer({ params: [], historicalRetention: 0.9, nextDayAt: now + 3600 })
  const state = replayer.memoryStateOf({ type: 2, interval: 100, factor: 2500 }, [
    entry((now - 99 * 86400) * 1000, 3, REVLOG_KIND.review, 100),
    entry(now * 1000, 3, REVLOG_KIND.review, 250)
  ])
  t.equal(Math.round(state?.stability ?? 0), 249)
  t.equal(Math.round(state?.difficulty ?? 0), 5)
})

test('FSRS-4.5 and FSRS-5 parameters are filled out to 21 as the fsrs crate fills them', async (t) => {
  const params5 = expected.presets.Second?.fsrsParams5 ?? []
  const filled = fsrsParameters(params5) as number[]
  t.equal(filled.length, 21)
  t.same(filled.slice(19), [0, 0.5], 'w[19] 0: no short-term decay, as FSRS-5 had none')
  t.equal(fsrsParameters([1, 2, 3]), undefined, 'other lengths are no parameters')
  const params45 = [0.4, 0.6, 2.4, 5.8, 4.93, 0.94, 0.86, 0.01, 1.49, 0.14, 0.94, 2.18, 0.05, 0.34, 1.26, 0.29, 2.61]
  const from45 = fsrsParameters(params45) as number[]
  t.ok(Math.abs((from45[4] as number) - (4.93 + 2 * 0.94)) < 1e-9)
  t.ok(Math.abs((from45[5] as number) - Math.log(0.94 * 3 + 1) / 3) < 1e-9)
  t.same(from45.slice(17), [0, 0, 0, 0.5])
})
