import { test } from 'tap'
import { fsrs, generatorParameters, Rating } from 'ts-fsrs'
import { DEFAULT_PARAMETERS } from '../../src/domain/memory-model.js'
import { newSchedule, scheduleReview, type CardSchedule } from '../../src/domain/scheduling.js'

const now = new Date('2026-03-01T10:00:00Z')
const FITTED = [0.1, 0.4, 0.9, 3.0, 7.5, 0.5, 1.5, 0.02, 1.2, 0.25, 0.9, 2.2, 0.1, 0.3, 1.9, 0.5, 2.0, 0.4, 0.2, 0.1, 0.45]

/** A card answered good twice: out of its learning steps, due in days. */
function learned (options: { desiredRetention: number, parameters?: readonly number[] }): CardSchedule {
  const first = scheduleReview(newSchedule(now), 'good', now, options)
  return scheduleReview(first, 'good', first.due, options)
}

test('a user\'s own parameters schedule their reviews; without them, the defaults do', async (t) => {
  const own = learned({ desiredRetention: 0.9, parameters: FITTED })
  const usual = learned({ desiredRetention: 0.9 })
  t.strictSame(learned({ desiredRetention: 0.9, parameters: DEFAULT_PARAMETERS }), usual, 'the defaults given are the defaults')
  t.not(own.due.getTime(), usual.due.getTime())
  // what ts-fsrs itself schedules with those weights
  const scheduler = fsrs(generatorParameters({ w: FITTED, request_retention: 0.9, enable_fuzz: false }))
  const card = scheduler.next({ due: now, stability: 0, difficulty: 0, elapsed_days: 0, scheduled_days: 0, learning_steps: 0, reps: 0, lapses: 0, state: 0 }, now, Rating.Good).card
  t.equal(own.due.getTime(), scheduler.next(card, card.due, Rating.Good).card.due.getTime())
})

test('schedulers are kept per retention and parameters: many users\' parameters never mix', async (t) => {
  const expected = learned({ desiredRetention: 0.85, parameters: FITTED })
  for (let user = 0; user < 1500; user++) learned({ desiredRetention: 0.85, parameters: FITTED.map((w, index) => index === 3 ? w + user / 1000 : w) })
  t.strictSame(learned({ desiredRetention: 0.85, parameters: FITTED }), expected)
  t.throws(() => learned({ desiredRetention: 0.9, parameters: FITTED.slice(0, 19) }), /21 parameters/)
})
