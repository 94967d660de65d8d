import { test } from 'tap'
import { userDay } from '../../src/domain/calendar.js'
import { dayNumber, trainingItems, type LoggedReview, type ReviewKind } from '../../src/domain/training-items.js'

const calendar = { timezone: 'Europe/Paris', dayStartHour: 4 }

/** An entry of card `cardID` at the instant `iso`, on the user's day as the service counts it. */
function entry (cardID: string, iso: string, rating: number, kind: ReviewKind): LoggedReview {
  const at = new Date(iso)
  return { cardID, at: at.getTime(), day: dayNumber(userDay(at, calendar).day), rating, kind }
}

test('days are the user\'s days: a review before their dayStartHour counts for the day before', async (t) => {
  const { items } = trainingItems([
    entry('a', '2026-03-01T10:00:00+01:00', 3, 'learning'),
    // 02:30 in Paris on 3 March is still 2 March for a day that starts at 04:00: one day later, not two
    entry('a', '2026-03-03T02:30:00+01:00', 3, 'review'),
    // 05:00 on 3 March is the next day
    entry('a', '2026-03-03T05:00:00+01:00', 3, 'review')
  ])
  t.strictSame(items.map((item) => item.reviews), [
    [{ rating: 3, deltaT: 0 }, { rating: 3, deltaT: 1 }],
    [{ rating: 3, deltaT: 0 }, { rating: 3, deltaT: 1 }, { rating: 3, deltaT: 1 }]
  ])
})

test('each review on a later day than the one before is an item with the card\'s answers up to it; same-day answers are history only', async (t) => {
  const { items, reviews } = trainingItems([
    entry('a', '2026-03-01T10:00:00Z', 1, 'learning'),
    entry('a', '2026-03-01T10:10:00Z', 3, 'learning'),
    entry('a', '2026-03-04T10:00:00Z', 1, 'review'),
    entry('a', '2026-03-04T10:10:00Z', 3, 'relearning'),
    entry('a', '2026-03-06T10:00:00Z', 4, 'review')
  ])
  t.strictSame(items.map((item) => item.reviews.map((review) => `${review.rating}/${review.deltaT}`).join(' ')), ['1/0 3/0 1/3', '1/0 3/0 1/3 3/0 4/2'])
  t.equal(reviews, 5, 'every answer of the card counts as used')
})

test('a card is read from its last learning block: a reset and what came before it are left out', async (t) => {
  const { items } = trainingItems([
    entry('a', '2026-01-01T10:00:00Z', 3, 'learning'),
    entry('a', '2026-01-05T10:00:00Z', 3, 'review'),
    entry('a', '2026-02-01T10:00:00Z', 0, 'reset'),
    entry('a', '2026-02-02T10:00:00Z', 2, 'learning'),
    entry('a', '2026-02-02T10:05:00Z', 3, 'learning'),
    entry('a', '2026-02-05T10:00:00Z', 3, 'review')
  ])
  t.strictSame(items.map((item) => item.reviews), [[{ rating: 2, deltaT: 0 }, { rating: 3, deltaT: 0 }, { rating: 3, deltaT: 3 }]])
})

test('cram answers, due dates set by hand and reschedulings are left out, and the days between count across them', async (t) => {
  const { items, reviews } = trainingItems([
    entry('a', '2026-01-01T10:00:00Z', 3, 'learning'),
    entry('a', '2026-01-02T10:00:00Z', 3, 'review'),
    entry('a', '2026-01-04T10:00:00Z', 1, 'cram'),
    entry('a', '2026-01-05T10:00:00Z', 0, 'manual'),
    entry('a', '2026-01-06T10:00:00Z', 0, 'rescheduled'),
    entry('a', '2026-01-07T10:00:00Z', 3, 'review')
  ])
  t.strictSame(items.map((item) => item.reviews.map((review) => review.deltaT)), [[0, 1], [0, 1, 5]])
  t.equal(reviews, 3)
})

test('cards without a learning block, or answered only in review since a reset, give nothing', async (t) => {
  const { items, reviews, cards } = trainingItems([
    entry('imported', '2026-01-01T10:00:00Z', 3, 'review'),
    entry('imported', '2026-01-09T10:00:00Z', 3, 'review'),
    entry('reset', '2026-01-01T10:00:00Z', 3, 'learning'),
    entry('reset', '2026-01-02T10:00:00Z', 0, 'reset'),
    entry('reset', '2026-01-05T10:00:00Z', 3, 'review'),
    entry('once', '2026-01-01T10:00:00Z', 3, 'learning')
  ])
  t.strictSame(items, [])
  t.equal(reviews, 0)
  t.strictSame(cards.map((card) => card.cardID), ['once'], 'a card learned once has a memory state, and no item')
})

test('items come in the time order of their predicted review, whatever the order of the log', async (t) => {
  const log = [
    entry('b', '2026-01-01T09:00:00Z', 3, 'learning'),
    entry('a', '2026-01-01T10:00:00Z', 3, 'learning'),
    entry('a', '2026-01-03T10:00:00Z', 3, 'review'),
    entry('b', '2026-01-04T09:00:00Z', 3, 'review'),
    entry('a', '2026-01-08T10:00:00Z', 3, 'review')
  ]
  const items = trainingItems([...log].reverse()).items
  t.strictSame(items.map((item) => `${item.cardID}@${new Date(item.at).toISOString().slice(0, 10)}`), ['a@2026-01-03', 'b@2026-01-04', 'a@2026-01-08'])
})
