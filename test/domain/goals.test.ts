import { test } from 'tap'
import {
  FAIL_DATE_PLACEHOLDER,
  evaluateGoal,
  goalTitle,
  goalView,
  NOTHING_DONE,
  progressOf,
  type ActivityByDay,
  type DayActivity,
  type Goal
} from '../../src/domain/goals.js'

function cardGoal (overrides: Partial<Goal> = {}): Goal {
  return {
    id: '123456789012345678901234567890123456789',
    type: 'Card',
    target: 5,
    startDay: '2026-03-10',
    endDay: '2026-03-15',
    startingXp: 0,
    earlierThatDay: NOTHING_DONE,
    status: 'in progress',
    failDay: null,
    ...overrides
  }
}

function xpGoal (overrides: Partial<Goal> = {}): Goal {
  return cardGoal({ type: 'XP', target: 100, startingXp: 340, ...overrides })
}

function activity (days: Record<string, Partial<DayActivity>>): ActivityByDay {
  return new Map(Object.entries(days).map(([day, done]) => [day, { reviews: done.reviews ?? 0, xp: done.xp ?? 0 }]))
}

test('progress counts the goal window only, both ends included', async t => {
  const history = activity({
    '2026-03-09': { reviews: 100, xp: 1000 },
    '2026-03-10': { reviews: 2, xp: 20 },
    '2026-03-15': { reviews: 3, xp: 30 },
    '2026-03-16': { reviews: 100, xp: 1000 }
  })
  t.equal(progressOf(cardGoal(), history), 5, 'Card goals count reviews')
  t.equal(progressOf(xpGoal(), history), 50, 'XP goals count XP')
  t.equal(progressOf(cardGoal(), new Map()), 0)
})

test('what the start day held when the goal was created does not count toward it', async t => {
  const history = activity({
    '2026-03-10': { reviews: 7, xp: 70 },
    '2026-03-12': { reviews: 3, xp: 30 }
  })
  const earlierThatDay = { reviews: 5, xp: 50 }
  t.equal(progressOf(cardGoal({ earlierThatDay }), history), 5, 'the 2 reviews after creation and the 3 of a later day')
  t.equal(progressOf(xpGoal({ earlierThatDay }), history), 50, 'XP alike')
  t.equal(progressOf(cardGoal({ earlierThatDay }), activity({ '2026-03-10': { reviews: 5, xp: 50 } })), 0, 'nothing since: 0, not the day\'s 5')
  t.equal(evaluateGoal(cardGoal({ target: 5, earlierThatDay }), activity({ '2026-03-10': { reviews: 9, xp: 90 } }), '2026-03-10').status, 'in progress',
    'a target the day had reached before the goal existed is not met by it')
  t.equal(evaluateGoal(cardGoal({ target: 5, earlierThatDay }), history, '2026-03-12').status, 'completed', 'reviews after it are')
  const late = evaluateGoal(cardGoal({ target: 5, earlierThatDay }), activity({ '2026-03-10': { reviews: 9 }, '2026-03-16': { reviews: 9 } }), '2026-04-01')
  t.match(late, { status: 'failed', failDay: '2026-03-16' }, 'nor by reviews after the end day, asked whenever')
})

test('a goal is in progress until its target is met or its end day has passed', async t => {
  const history = activity({ '2026-03-11': { reviews: 4 } })
  for (const today of ['2026-03-10', '2026-03-12', '2026-03-15']) {
    const goal = evaluateGoal(cardGoal(), history, today)
    t.equal(goal.status, 'in progress', today)
    t.equal(goal.failDay, null)
  }
})

test('reviews inside the window complete a Card goal', async t => {
  const history = activity({ '2026-03-11': { reviews: 3 }, '2026-03-15': { reviews: 2 } })
  const goal = evaluateGoal(cardGoal(), history, '2026-03-15')
  t.equal(goal.status, 'completed')
  t.equal(goal.failDay, null)
  t.equal(evaluateGoal(cardGoal(), history, '2026-04-30').status, 'completed', 'met in time, even if first asked later')
})

test('reviews after the end day do not save a goal: it fails the day after', async t => {
  const history = activity({ '2026-03-12': { reviews: 4 }, '2026-03-16': { reviews: 50 } })
  const goal = evaluateGoal(cardGoal(), history, '2026-03-16')
  t.equal(goal.status, 'failed')
  t.equal(goal.failDay, '2026-03-16', 'fail day is end day + 1')
  t.same(evaluateGoal(cardGoal(), history, '2026-09-01'), goal, 'the same history gives the same answer later')
})

test('a goal crossing a month end fails on the first of the next month', async t => {
  const goal = evaluateGoal(cardGoal({ endDay: '2026-02-28' }), new Map(), '2026-03-05')
  t.equal(goal.failDay, '2026-03-01')
})

test('completed and failed are final', async t => {
  const completed = cardGoal({ status: 'completed' })
  t.equal(evaluateGoal(completed, new Map(), '2026-04-01'), completed, 'completed stays completed with its history gone')

  const failed = cardGoal({ status: 'failed', failDay: '2026-03-16' })
  const lateHistory = activity({ '2026-03-12': { reviews: 50 } })
  t.equal(evaluateGoal(failed, lateHistory, '2026-03-20'), failed, 'failed stays failed whatever activity appears')
})

test('evaluating does not change the goal passed in', async t => {
  const goal = cardGoal()
  evaluateGoal(goal, activity({ '2026-03-11': { reviews: 9 } }), '2026-03-11')
  t.equal(goal.status, 'in progress')
})

test('XP goals are met by XP, not by review count', async t => {
  const manyReviewsLittleXp = activity({ '2026-03-11': { reviews: 500, xp: 90 } })
  t.equal(evaluateGoal(xpGoal(), manyReviewsLittleXp, '2026-03-11').status, 'in progress')
  const enoughXp = activity({ '2026-03-11': { reviews: 5, xp: 60 }, '2026-03-14': { reviews: 4, xp: 40 } })
  t.equal(evaluateGoal(xpGoal(), enoughXp, '2026-03-14').status, 'completed')
  const failed = evaluateGoal(xpGoal(), manyReviewsLittleXp, '2026-03-16')
  t.equal(failed.status, 'failed')
  t.equal(failed.failDay, '2026-03-16')
})

test('titles name the target and the end date', async t => {
  t.equal(goalTitle('Card', 20, '2026-03-15'), 'Revise 20 cards by 15/03/2026')
  t.equal(goalTitle('XP', 500, '2026-12-01'), 'Gain 500 XP by 01/12/2026')
})

function leaves (value: unknown, path = ''): Array<[string, unknown]> {
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([key, inner]) => leaves(inner, `${path}.${key}`))
  }
  return [[path, value]]
}

test('a Card goal as the published interface shows it', async t => {
  const view = goalView(cardGoal({ target: 20 }), 7)
  t.same(JSON.parse(JSON.stringify(view)), {
    data: { cards_revised_so_far: '7', cards_to_revise: '20' },
    end_date: '15/03/2026',
    fail_date: '" "',
    status: 'in progress',
    title: 'Revise 20 cards by 15/03/2026',
    type: 'Card'
  })
  t.same(Object.keys(view), ['data', 'end_date', 'fail_date', 'status', 'title', 'type'])
  for (const [path, leaf] of leaves(view)) t.type(leaf, 'string', path)
})

test('an XP goal as the published interface shows it', async t => {
  const view = goalView(xpGoal({ target: 250, startingXp: 1230, startDay: '2026-03-02' }), 40)
  t.same(JSON.parse(JSON.stringify(view)), {
    data: { goal_xp: '250', start_date: '02/03/2026', starting_xp: '1230' },
    end_date: '15/03/2026',
    fail_date: '" "',
    status: 'in progress',
    title: 'Gain 250 XP by 15/03/2026',
    type: 'XP'
  })
  for (const [path, leaf] of leaves(view)) t.type(leaf, 'string', path)
})

test('fail_date is the three-character placeholder until the goal fails', async t => {
  t.equal(FAIL_DATE_PLACEHOLDER, '" "')
  t.equal(FAIL_DATE_PLACEHOLDER.length, 3)
  t.same([...FAIL_DATE_PLACEHOLDER], ['"', ' ', '"'])
  t.equal(JSON.stringify({ fail_date: FAIL_DATE_PLACEHOLDER }), '{"fail_date":"\\" \\""}')

  t.equal(goalView(cardGoal({ status: 'completed' }), 5).fail_date, FAIL_DATE_PLACEHOLDER)
  const failed = evaluateGoal(cardGoal(), new Map(), '2026-03-20')
  const view = goalView(failed, 0)
  t.equal(view.status, 'failed')
  t.equal(view.fail_date, '16/03/2026')
})
