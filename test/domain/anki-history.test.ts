// A card's Anki log as its imported history keeps it (historyOf), and the row Anki takes as its
// last review (lastScheduledAnswer): what the import, fitting, today's limits and export-anki read.
import { test } from 'tap'
import { answersIn, historyOf } from '../../src/domain/anki-import.js'
import { lastScheduledAnswer } from '../../src/domain/anki-revlog.js'
import { CardState } from '../../src/domain/scheduling.js'

const DAY = 86_400_000
const CALENDAR = { timezone: 'Europe/Paris', dayStartHour: 4 }
const start = Date.parse('2025-03-01T10:00:00Z')
const row = (days: number, button: number, kind: number, factor: number) =>
  ({ id: start + days * DAY, cardId: 1, button, interval: 1, lastInterval: 0, factor, takenMs: 5000, kind })

// learnt, reviewed, crammed, forgotten, learnt again, given a due date by hand
const LOG = [
  row(0, 3, 0, 0), row(0.01, 3, 0, 0), row(1, 3, 1, 2500), row(3, 1, 3, 0),
  row(4, 0, 4, 0), row(5, 2, 0, 0), row(6, 3, 1, 2500), row(7, 0, 4, 2500)
]

test('every row is kept, a manual one without a rating; a forget makes the card new again', async (t) => {
  const history = historyOf(LOG, CALENDAR)
  t.equal(history.length, LOG.length, 'every row')
  t.same(history.map((entry) => entry.rating), ['good', 'good', 'good', 'again', null, 'hard', 'good', null], 'manual rows have no rating')
  t.same(history.map((entry) => entry.stateBefore), [
    CardState.New, CardState.Learning, CardState.Review, CardState.Review,
    CardState.Review, CardState.New, CardState.Review, CardState.Review
  ], 'the first answer starts a new card, and so does the first after the forget')
  t.same(history.map((entry) => entry.day), ['2025-03-01', '2025-03-01', '2025-03-02', '2025-03-04', '2025-03-05', '2025-03-06', '2025-03-07', '2025-03-08'], 'each on its day in the user\'s calendar')
  t.same(answersIn(history).map((entry) => entry.reviewedAt.getTime()), LOG.filter((entry) => entry.button > 0).map((entry) => entry.id), 'the answers are the rows with a button')
})

test('a new card previewed in a filtered deck is still new at its first learning answer; a row of a button Anki never writes is left out', async (t) => {
  const history = historyOf([row(0, 3, 3, 0), row(0.5, 7, 1, 2500), row(1, 3, 0, 0), row(1.01, 3, 0, 0)], CALENDAR)
  t.same(history.map((entry) => entry.rating), ['good', 'good', 'good'], 'the damaged row is not kept')
  t.same(history.map((entry) => entry.stateBefore), [CardState.Review, CardState.New, CardState.Learning], 'the cram answer did not start the card')
})

test('the last review is the last answer that rescheduled the card: a cram answer is not one, a forget after it leaves none', async (t) => {
  const answered = (entry: { button: number }) => entry.button > 0
  t.equal(lastScheduledAnswer(LOG, answered)?.id, LOG[6]?.id, 'a due date set by hand after the last answer leaves it the last review')
  t.equal(lastScheduledAnswer(LOG.slice(0, 4), answered)?.id, LOG[2]?.id, 'the review before a cram answer')
  t.equal(lastScheduledAnswer(LOG.slice(0, 5), answered), undefined, 'none once forgotten')
  t.equal(lastScheduledAnswer([], answered), undefined, 'none without a log')
})
