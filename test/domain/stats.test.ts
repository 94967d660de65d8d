import { test } from 'tap'
import type { ActivityByDay, DayActivity } from '../../src/domain/goals.js'
import {
  cardCountsOf,
  HEATMAP_DAYS,
  heatmapOf,
  heatmapStart,
  statsOf,
  streakOf,
  weeklyXpOf,
  weekStart
} from '../../src/domain/stats.js'

function activity (days: Record<string, number>): ActivityByDay {
  return new Map(Object.entries(days).map(([day, reviews]): [string, DayActivity] => [day, { reviews, xp: reviews * 10 }]))
}

test('a week starts on the Monday on or before the day', async t => {
  // 2026-03-09 is a Monday
  t.equal(weekStart('2026-03-09'), '2026-03-09', 'a Monday starts its own week')
  t.equal(weekStart('2026-03-10'), '2026-03-09')
  t.equal(weekStart('2026-03-15'), '2026-03-09', 'Sunday is the last day of the week')
  t.equal(weekStart('2026-03-16'), '2026-03-16')
  t.equal(weekStart('2026-01-01'), '2025-12-29', 'a week may start in the year before')
  t.equal(weekStart('2024-03-01'), '2024-02-26', 'across a leap day')
})

test('weekly XP adds Monday through today, nothing before or after', async t => {
  const history = activity({
    '2026-03-08': 50, // Sunday of the week before
    '2026-03-09': 1,
    '2026-03-11': 2,
    '2026-03-12': 4, // after "today": a later timezone change can leave such days
    '2026-03-16': 8
  })
  t.equal(weeklyXpOf(history, '2026-03-11'), 30)
  t.equal(weeklyXpOf(history, '2026-03-09'), 10, 'on a Monday only that day counts')
  t.equal(weeklyXpOf(history, '2026-03-15'), 70, 'on a Sunday the whole week counts')
  t.equal(weeklyXpOf(history, '2026-03-16'), 80, 'a new week starts afresh')
  t.equal(weeklyXpOf(new Map(), '2026-03-11'), 0)
})

test('weekly XP reads the XP of each day, not 10 per review', async t => {
  const history: ActivityByDay = new Map([['2026-03-10', { reviews: 2, xp: 35 }]])
  t.equal(weeklyXpOf(history, '2026-03-10'), 35)
})

test('a streak counts consecutive days ending today', async t => {
  const history = activity({ '2026-03-05': 1, '2026-03-07': 1, '2026-03-08': 3, '2026-03-09': 1, '2026-03-10': 2 })
  t.same(streakOf(history, '2026-03-10'), { length: 4, first: '2026-03-07' })
})

test('a streak still stands on a day without reviews yet, ending yesterday', async t => {
  const history = activity({ '2026-03-08': 1, '2026-03-09': 1 })
  t.same(streakOf(history, '2026-03-10'), { length: 2, first: '2026-03-08' })
  t.same(streakOf(history, '2026-03-11'), { length: 0, first: null }, 'a whole day missed ends it')
})

test('no reviews, no streak; a day with zero reviews does not count', async t => {
  t.same(streakOf(new Map(), '2026-03-10'), { length: 0, first: null })
  t.same(streakOf(activity({ '2026-03-10': 0, '2026-03-09': 1 }), '2026-03-10'), { length: 1, first: '2026-03-09' })
})

test('a streak runs across month and year ends', async t => {
  const history = activity({ '2025-12-30': 1, '2025-12-31': 1, '2026-01-01': 1, '2026-01-02': 1 })
  t.equal(streakOf(history, '2026-01-02').length, 4)
  const leap = activity({ '2024-02-28': 1, '2024-02-29': 1, '2024-03-01': 1 })
  t.equal(streakOf(leap, '2024-03-01').length, 3)
})

test('the heatmap covers today and the 364 days before, only days with reviews, oldest first', async t => {
  t.equal(HEATMAP_DAYS, 365)
  t.equal(heatmapStart('2026-03-10'), '2025-03-11')
  const history = activity({
    '2026-03-10': 2,
    '2025-03-11': 1, // the first day of the window
    '2025-03-10': 9, // one day too old
    '2025-09-01': 0,
    '2026-01-15': 4,
    '2026-03-11': 7 // after today
  })
  t.same(heatmapOf(history, '2026-03-10'), [
    { day: '2025-03-11', reviews: 1 },
    { day: '2026-01-15', reviews: 4 },
    { day: '2026-03-10', reviews: 2 }
  ])
  t.same(heatmapOf(new Map(), '2026-03-10'), [])
})

test('card counts name each state and add up to the total', async t => {
  t.same(cardCountsOf([{ state: 0, count: 5 }, { state: 1, count: 2 }, { state: 2, count: 7 }, { state: 3, count: 1 }]),
    { new: 5, learning: 2, review: 7, relearning: 1, total: 15 })
  t.same(cardCountsOf([]), { new: 0, learning: 0, review: 0, relearning: 0, total: 0 })
  t.same(cardCountsOf([{ state: 2, count: 3 }]), { new: 0, learning: 0, review: 3, relearning: 0, total: 3 }, 'missing states are 0')
  t.same(cardCountsOf([{ state: 9, count: 4 }, { state: 0, count: 1 }]), { new: 1, learning: 0, review: 0, relearning: 0, total: 5 },
    'an unknown state still counts toward the total')
})

test('statsOf puts the pieces together', async t => {
  const stats = statsOf({
    totalXp: 1234,
    activity: activity({ '2026-03-09': 1, '2026-03-10': 2 }),
    today: '2026-03-10',
    cardStates: [{ state: 0, count: 3 }, { state: 2, count: 1 }]
  })
  t.same(stats, {
    totalXp: 1234,
    weeklyXp: 30,
    streak: 2,
    heatmap: [{ day: '2026-03-09', reviews: 1 }, { day: '2026-03-10', reviews: 2 }],
    cards: { new: 3, learning: 0, review: 1, relearning: 0, total: 4 }
  })
})
