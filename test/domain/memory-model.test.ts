import { test } from 'tap'
import { default_w, FSRSAlgorithm, generatorParameters } from 'ts-fsrs'
import { DEFAULT_PARAMETERS, areParameters, firstState, intervalFor, nextState, predictedRecall, retrievability, stateAfter } from '../../src/domain/memory-model.js'

const FITTED = [0.1, 0.4, 0.9, 3.0, 7.5, 0.5, 1.5, 0.02, 1.2, 0.25, 0.9, 2.2, 0.1, 0.3, 1.9, 0.5, 2.0, 0.4, 0.2, 0.1, 0.45]

test('the defaults are FSRS-6\'s, those the scheduler uses', async (t) => {
  t.strictSame([...DEFAULT_PARAMETERS], [...default_w])
  t.ok(areParameters(DEFAULT_PARAMETERS))
  t.notOk(areParameters(DEFAULT_PARAMETERS.slice(0, 19)), 'FSRS-5 lengths are not FSRS-6 parameters')
  t.notOk(areParameters([...DEFAULT_PARAMETERS.slice(0, 20), 0.05]), 'a decay the forgetting curve refuses')
})

test('a history replayed day by day gives the states the scheduler\'s algorithm gives, for the defaults and for fitted parameters', async (t) => {
  const history = [[3, 0], [3, 0], [3, 2], [1, 9], [3, 0], [2, 4], [4, 12], [3, 40]] as const
  for (const w of [[...DEFAULT_PARAMETERS], FITTED]) {
    const algorithm = new FSRSAlgorithm(generatorParameters({ w, enable_short_term: true }))
    let expected = algorithm.next_state(null, 0, history[0][0])
    let state = firstState(w, history[0][0])
    for (const [rating, days] of history.slice(1)) {
      expected = algorithm.next_state(expected, days, rating)
      state = nextState(w, state, days, rating)
      t.ok(Math.abs(state.stability - expected.stability) < 1e-6 * Math.max(1, expected.stability), `stability after ${rating} at ${days} days`)
      t.ok(Math.abs(state.difficulty - expected.difficulty) < 1e-6, `difficulty after ${rating} at ${days} days`)
    }
    t.ok(Math.abs(retrievability(w, 17, state.stability) - algorithm.forgetting_curve(17, state.stability)) < 1e-7, `recall after 17 days`)
  }
})

test('recall falls to the desired retention after the interval it gives', async (t) => {
  for (const retention of [0.7, 0.9, 0.97]) {
    const days = intervalFor(FITTED, 12.5, retention)
    t.ok(Math.abs(retrievability(FITTED, days, 12.5) - retention) < 1e-9, `at ${retention}`)
  }
  t.ok(Math.abs(intervalFor(DEFAULT_PARAMETERS, 8, 0.9) - 8) < 1e-9, 'stability is the interval at 90%')
})

test('the recall predicted for a review comes from the answers before it', async (t) => {
  const reviews = [{ rating: 3, deltaT: 0 }, { rating: 3, deltaT: 3 }, { rating: 1, deltaT: 20 }]
  const before = stateAfter(DEFAULT_PARAMETERS, reviews, 2)
  t.equal(predictedRecall(DEFAULT_PARAMETERS, reviews), retrievability(DEFAULT_PARAMETERS, 20, before?.stability ?? 0))
  t.throws(() => predictedRecall(DEFAULT_PARAMETERS, reviews.slice(0, 1)))
})
