import { test } from 'tap'
import { DEFAULT_PARAMETERS } from '../../src/domain/memory-model.js'
import { answerHabits, answersPerDay, studiedCards, USUAL_HABITS } from '../../src/domain/workload.js'

const options = { studied: [], newCardsPerDay: 20, habits: USUAL_HABITS }

test('a higher desired retention costs more answers a day, and the estimate is the same every time', async (t) => {
  const costs = [0.7, 0.8, 0.9, 0.95].map((retention) => answersPerDay(DEFAULT_PARAMETERS, retention, options))
  t.ok(costs.every((cost, index) => index === 0 || cost > (costs[index - 1] as number)), costs.map((cost) => cost.toFixed(1)).join(' < '))
  t.equal(answersPerDay(DEFAULT_PARAMETERS, 0.9, options), costs[2])
})

test('the cost follows the new cards a day, and the cards already studied add theirs', async (t) => {
  const twenty = answersPerDay(DEFAULT_PARAMETERS, 0.9, options)
  const forty = answersPerDay(DEFAULT_PARAMETERS, 0.9, { ...options, newCardsPerDay: 40 })
  t.ok(Math.abs(forty - 2 * twenty) < 1e-9, 'twice the new cards, twice the answers')
  t.equal(answersPerDay(DEFAULT_PARAMETERS, 0.9, { ...options, newCardsPerDay: 0 }), 0, 'nothing to study, nothing to do')
  const deck = studiedCards(DEFAULT_PARAMETERS, Array.from({ length: 500 }, (_, index) => ({ cardID: String(index), steps: [{ rating: 3, deltaT: 0 }, { rating: 3, deltaT: 3 }], lastDay: 100 })), 110)
  t.ok(answersPerDay(DEFAULT_PARAMETERS, 0.9, { ...options, newCardsPerDay: 0, studied: deck }) > 0, 'studied cards come back')
})

test('answer habits are read from the log: first answers, recalls, and the steps of a day', async (t) => {
  const card = (first: number, later: number[]) => ({ cardID: 'c', lastDay: 0, steps: [{ rating: first, deltaT: 0 }, { rating: 3, deltaT: 0 }, ...later.map((rating) => ({ rating, deltaT: 5 }))] })
  const cards = Array.from({ length: 40 }, (_, index) => card(index % 4 === 0 ? 1 : 3, [index % 2 === 0 ? 4 : 3]))
  const habits = answerHabits(cards)
  t.strictSame(habits.first, [0.25, 0, 0.75, 0])
  t.strictSame(habits.recalled, [0, 0.5, 0.5])
  t.equal(habits.learningSteps, 1, 'one more answer on the first day')
  t.strictSame(answerHabits(cards.slice(0, 5)), USUAL_HABITS, 'too few cards to tell: the usual habits')
})
