import { test } from 'tap'
import {
  CardState,
  RATINGS,
  XP_PER_REVIEW,
  intervalText,
  isNewCard,
  isRating,
  newSchedule,
  reviewStatus,
  scheduleReview,
  type CardSchedule,
  type Rating
} from '../../src/domain/scheduling.js'

const DAY = 86_400_000
const now = new Date('2026-03-01T10:00:00Z')
const usual = { desiredRetention: 0.9 }

function review (schedule: CardSchedule, ratings: Rating[], options = usual): CardSchedule {
  // Each answer is given when the card falls due, as a diligent user would
  let current = schedule
  for (const rating of ratings) {
    const when = current.due.getTime() < now.getTime() ? now : current.due
    current = scheduleReview(current, rating, when, options)
  }
  return current
}

test('the ratings and the XP a review earns', async t => {
  t.same(RATINGS, ['again', 'hard', 'good', 'easy'])
  t.equal(XP_PER_REVIEW, 10)
  t.ok(isRating('good'))
  t.notOk(isRating('Good'))
  t.notOk(isRating('manual'))
})

test('a new card is due now and shows 0.0', async t => {
  const schedule = newSchedule(now)
  t.equal(schedule.state, CardState.New)
  t.equal(schedule.due.getTime(), now.getTime())
  t.equal(schedule.reps, 0)
  t.equal(schedule.lastReview, null)
  t.ok(isNewCard(schedule))
  t.equal(reviewStatus(schedule), '0.0')
})

test('again, hard and good on a new card start learning at a step', async t => {
  const again = scheduleReview(newSchedule(now), 'again', now, usual)
  t.equal(again.state, CardState.Learning)
  t.equal(reviewStatus(again), '0.1')
  t.equal(again.due.getTime(), now.getTime() + 60_000, 'again: the first learning step, one minute')
  t.same(again.lastReview, now)
  t.equal(again.reps, 1)
  t.notOk(isNewCard(again))

  const hard = scheduleReview(newSchedule(now), 'hard', now, usual)
  t.equal(hard.state, CardState.Learning)
  t.equal(reviewStatus(hard), '0.1')

  const good = scheduleReview(newSchedule(now), 'good', now, usual)
  t.equal(good.state, CardState.Learning)
  t.equal(reviewStatus(good), '0.2', 'good moves on to the second step')
  t.equal(good.due.getTime(), now.getTime() + 10 * 60_000)
})

test('easy on a new card goes straight to review with an interval of days', async t => {
  const easy = scheduleReview(newSchedule(now), 'easy', now, usual)
  t.equal(easy.state, CardState.Review)
  t.ok(easy.scheduledDays >= 1)
  t.equal(reviewStatus(easy), `${easy.scheduledDays}.0`)
  t.match(reviewStatus(easy), /^[1-9][0-9]*\.0$/)
  t.equal(easy.due.getTime(), now.getTime() + easy.scheduledDays * DAY)
  // FSRS-6 default weights, no fuzz: the first easy interval is exactly 8 days
  t.equal(easy.scheduledDays, 8)
})

test('each successful review pushes the due date further out', async t => {
  let schedule = review(newSchedule(now), ['good', 'good'])
  t.equal(schedule.state, CardState.Review, 'two goods graduate a new card')
  const intervals: number[] = [schedule.scheduledDays]
  for (let i = 0; i < 3; i++) {
    const before = schedule.due.getTime()
    schedule = review(schedule, ['good'])
    t.ok(schedule.due.getTime() > before, `review ${i + 1} moves due forward`)
    intervals.push(schedule.scheduledDays)
  }
  for (let i = 1; i < intervals.length; i++) {
    t.ok((intervals[i] ?? 0) > (intervals[i - 1] ?? 0), `interval ${intervals[i]} > ${intervals[i - 1]}`)
  }
})

test('forgetting a review card sends it to relearning', async t => {
  const learnt = review(newSchedule(now), ['easy', 'good'])
  const forgotten = review(learnt, ['again'])
  t.equal(forgotten.state, CardState.Relearning)
  t.equal(forgotten.lapses, learnt.lapses + 1)
  t.match(reviewStatus(forgotten), /^0\.[1-9]$/)
  t.ok(forgotten.due.getTime() < learnt.due.getTime() + DAY, 'due again within the day')
})

test('the desired retention changes the intervals', async t => {
  const at90 = scheduleReview(newSchedule(now), 'easy', now, { desiredRetention: 0.9 })
  const at80 = scheduleReview(newSchedule(now), 'easy', now, { desiredRetention: 0.8 })
  const at97 = scheduleReview(newSchedule(now), 'easy', now, { desiredRetention: 0.97 })
  t.ok(at80.scheduledDays > at90.scheduledDays, `0.8 waits longer (${at80.scheduledDays} > ${at90.scheduledDays})`)
  t.ok(at97.scheduledDays < at90.scheduledDays, `0.97 comes back sooner (${at97.scheduledDays} < ${at90.scheduledDays})`)
  t.throws(() => scheduleReview(newSchedule(now), 'good', now, { desiredRetention: 1.5 }), RangeError)
  t.throws(() => scheduleReview(newSchedule(now), 'good', now, { desiredRetention: 0 }), RangeError)
})

test('scheduling leaves the stored schedule untouched and is repeatable', async t => {
  const schedule = review(newSchedule(now), ['easy'])
  const copy = structuredClone(schedule)
  const first = scheduleReview(schedule, 'good', schedule.due, usual)
  const second = scheduleReview(schedule, 'good', schedule.due, usual)
  t.same(schedule, copy)
  t.same(first, second)
})

test('review_status reads the stored schedule', async t => {
  const base = newSchedule(now)
  t.equal(reviewStatus({ ...base, state: CardState.Learning, learningSteps: 0 }), '0.1')
  t.equal(reviewStatus({ ...base, state: CardState.Relearning, learningSteps: 2 }), '0.3')
  t.equal(reviewStatus({ ...base, state: CardState.Learning, learningSteps: 40 }), '0.9', 'steps beyond 9 show as 9')
  t.equal(reviewStatus({ ...base, state: CardState.Review, scheduledDays: 12 }), '12.0')
  t.equal(reviewStatus({ ...base, state: CardState.Review, scheduledDays: 0 }), '1.0', 'a review interval is at least a day')
  t.equal(reviewStatus({ ...base, state: CardState.New, scheduledDays: 5 }), '0.0')
})

test('intervalText: how long until a due instant, as an answer button shows it', async (t) => {
  const after = (ms: number) => intervalText(now, new Date(now.getTime() + ms))
  const MINUTE = 60_000
  t.equal(after(0), '1 min', 'never less than a minute')
  t.equal(after(10 * MINUTE), '10 min')
  t.equal(after(5 * 60 * MINUTE), '5 h')
  t.equal(after(DAY), '1 day')
  t.equal(after(4 * DAY), '4 days')
  t.equal(after(30 * DAY), '1 month')
  t.equal(after(75 * DAY), '2.5 months')
  t.equal(after(400 * DAY), '1.1 years')
  t.equal(intervalText(now, new Date(now.getTime() - DAY)), '1 min', 'a due instant already past reads as at once')
})
