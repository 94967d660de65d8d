// Fitting on histories made by learners whose memory follows known parameters:
// the optimizer must find parameters that predict them better than the
// defaults do, and close to the ones that made them.
import { test } from 'tap'
import { evaluateParameters, timeSeriesSplits } from '../../src/domain/fit-evaluation.js'
import { DEFAULT_PARAMETERS, predictedRecall, type Parameters } from '../../src/domain/memory-model.js'
import { RETENTIONS_COMPARED } from '../../src/domain/schedule-fit.js'
import { trainingItems, type TrainingItem } from '../../src/domain/training-items.js'
import { packLog, runFit, runStates } from '../../src/fitting/jobs.js'
import { syntheticLog } from '../helpers/synthetic-reviews.js'

/** A learner who forgets faster than FSRS's average user, with a steeper forgetting curve. */
const FORGETFUL = [0.1, 0.4, 0.9, 3.0, 7.5, 0.5, 1.5, 0.02, 1.2, 0.25, 0.9, 2.2, 0.1, 0.3, 1.9, 0.5, 2.0, 0.4, 0.2, 0.1, 0.45]

function fitJob (log: ReturnType<typeof syntheticLog>, withStates = false) {
  return { type: 'fit' as const, log: packLog(log).log, inUse: null, retentions: RETENTIONS_COMPARED, newCardsPerDay: 20, today: Math.max(...log.map((entry) => entry.day)) + 1, withStates }
}

/** The root mean square difference between the recall two sets of parameters predict for each item. */
function predictionGap (a: Parameters, b: Parameters, items: readonly TrainingItem[]): number {
  return Math.sqrt(items.reduce((sum, item) => sum + Math.pow(predictedRecall(a, item.reviews) - predictedRecall(b, item.reviews), 2), 0) / items.length)
}

test('on a history made by known parameters, the fitted ones beat the defaults on reviews they were not fitted to, and come close to the makers', async (t) => {
  const log = syntheticLog({ parameters: FORGETFUL, reviews: 20_000, newCardsPerDay: 20, seed: 11 })
  const outcome = await runFit(fitJob(log))
  if (outcome.type !== 'fitted') throw new Error(`not fitted: ${JSON.stringify(outcome)}`)
  const { items } = trainingItems(log)
  t.equal(outcome.items, items.length)

  t.ok(outcome.fitted.logLoss < outcome.default.logLoss, `time-series log loss: fitted ${outcome.fitted.logLoss.toFixed(4)} < default ${outcome.default.logLoss.toFixed(4)}`)
  t.ok(outcome.fitted.rmseBins < outcome.default.rmseBins, `time-series RMSE(bins): fitted ${outcome.fitted.rmseBins.toFixed(4)} < default ${outcome.default.rmseBins.toFixed(4)}`)
  t.ok(outcome.adopted, 'so they are adopted')

  // close to the makers where it matters: what they predict, and the stabilities a first answer gives
  const onAll = { fitted: evaluateParameters(outcome.parameters, items).logLoss, maker: evaluateParameters(FORGETFUL, items).logLoss }
  t.ok(onAll.fitted < onAll.maker * 1.005, `log loss on the whole history within 0.5% of the makers': ${onAll.fitted.toFixed(5)} against ${onAll.maker.toFixed(5)}`)
  const gap = { fitted: predictionGap(outcome.parameters, FORGETFUL, items), defaults: predictionGap(DEFAULT_PARAMETERS, FORGETFUL, items) }
  t.ok(gap.fitted < 0.03 && gap.fitted < gap.defaults / 2, `predicted recall differs from the makers' by ${gap.fitted.toFixed(4)} (the defaults' by ${gap.defaults.toFixed(4)})`)
  for (const [weight, name] of [[1, 'hard'], [2, 'good']] as const) {
    const fitted = outcome.parameters[weight] as number
    const maker = FORGETFUL[weight] as number
    t.ok(Math.abs(fitted - maker) <= 0.25 * maker, `initial stability after "${name}": ${fitted.toFixed(3)}, made with ${maker}`)
  }
})

test('on a history made by the default parameters, fitting finds nothing better and the defaults stay', async (t) => {
  const log = syntheticLog({ parameters: DEFAULT_PARAMETERS, reviews: 3000, newCardsPerDay: 10, seed: 1 })
  const outcome = await runFit(fitJob(log, true))
  if (outcome.type !== 'fitted') throw new Error('not fitted')
  t.ok(outcome.fitted.logLoss >= outcome.default.logLoss, `fitted ${outcome.fitted.logLoss.toFixed(4)}, default ${outcome.default.logLoss.toFixed(4)}`)
  t.notOk(outcome.adopted)
  t.notOk('states' in outcome, 'no new schedules for parameters not adopted')
})

test('below the minimum history nothing is fitted, and the count of items says how far it is', async (t) => {
  const log = syntheticLog({ parameters: FORGETFUL, reviews: 600, seed: 3 })
  const outcome = await runFit(fitJob(log))
  t.equal(outcome.type, 'too-little')
  t.equal(outcome.items, trainingItems(log).items.length)
  t.ok(outcome.items > 0 && outcome.items < 1000)
})

test('the workload of each desired retention grows with it, and states are replayed for every card learned', async (t) => {
  const log = syntheticLog({ parameters: FORGETFUL, reviews: 5000, newCardsPerDay: 20, seed: 2 })
  const outcome = await runFit(fitJob(log, true))
  if (outcome.type !== 'fitted' || outcome.states === undefined) throw new Error('not fitted, or no states')
  const costs = outcome.workload.map((cost) => cost.answersPerDay)
  t.strictSame(outcome.workload.map((cost) => cost.retention), [...RETENTIONS_COMPARED])
  t.ok(costs.every((cost, index) => index === 0 || cost > (costs[index - 1] as number)), `answers a day ${costs.map((cost) => cost.toFixed(0)).join(' < ')}`)
  t.equal(outcome.states.card.length, trainingItems(log).cards.length)
  const again = runStates({ type: 'states', log: packLog(log).log, parameters: outcome.parameters })
  t.strictSame([...again.stability], [...outcome.states.stability], 'the same states as a states job with those parameters')
})

test('time-series splits test each segment on parameters fitted to every segment before it', async (t) => {
  const items = Array.from({ length: 62 }, (_, index) => ({ cardID: String(index), at: index, reviews: [] }))
  const splits = timeSeriesSplits(items)
  t.equal(splits.length, 5)
  t.strictSame(splits.map((split) => [split.train.length, split.test[0]?.at, split.test.length]), [[10, 10, 10], [20, 20, 10], [30, 30, 10], [40, 40, 10], [50, 50, 12]])
  t.strictSame(timeSeriesSplits(items.slice(0, 5)), [], 'too few items to split')
})
