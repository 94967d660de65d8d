// An imported Anki history: the parameters fitted here must predict it about as
// well as those Anki's own optimizer found for it, on the same items.
//
// The fixtures are made by `npm run anki-fixtures` (scripts/anki-fixtures/make_fixtures.py,
// history_package): test/fixtures/anki/history.apkg is a collection of 620 cards, 600 of
// them studied over 300 days by a simulated learner (a seeded RNG, their memory following
// FSRS-6 with parameters of their own, scheduled by FSRS's defaults; with cram rows on days
// a card is not due, set-due-date, forget and filtered-deck rows), exported by Anki;
// history-parameters.json is what Anki 26.9.3 reported on it: its optimizer's parameters
// (compute_fsrs_params over the deck, one relearning step, from the defaults), the number
// of items it trained on, and its own log loss and RMSE(bins) of those parameters and of
// the defaults on those items (evaluate_params_legacy).
//
// What is fair to compare. Both fits run the same optimizer (the Rust fsrs crate: Anki
// links it, the service reaches it through @open-spaced-repetition/binding), so once the
// items are the same the parameters can differ only by the crate's version and by how the
// items were built from the revlog (which rows count, which day each falls on, their
// order). Parameters themselves are a poor yardstick: the loss is flat in several
// directions (w0, w7, w17-w19 move a lot for little change in prediction), so two good fits
// can differ by half a weight. What matters is how well they predict, so the test checks:
// 1. the items: as many as Anki trained on, and Anki's parameters evaluated here on them
//    give the log loss Anki computed for them, to 0.01%. Anki's figure weighs each item by
//    its recency as the fsrs crate's evaluate and training do (0.25 + 0.75 (i / (n-1))^3 for
//    the i-th of n in time order); matching it to five digits shows the same items, in the
//    same order, with the same days, replayed by the same model;
// 2. the fit: on those items, the fitted parameters' log loss is within 1% of that of
//    Anki's parameters (issue 28), both unweighted (the service's measure, what
//    optimize-schedule reports) and recency-weighted (the optimizer's own objective); RMSE
//    (bins) within 20% (on 1,900 items in some 30 bins, a few reviews move a bin: it is
//    coarse, but the defaults are 61% off here, 83% by Anki's weighted figure); and the recall the two predict differs, item by
//    item, by less than half what separates the defaults from Anki's;
// 3. that 1% means something: FSRS's defaults are more than 2% worse than Anki's
//    parameters on this history (3 to 4%), so a fit that did nothing (or returned the
//    defaults) fails.
// Both sets are judged on the items they were fitted to (Anki's optimizer reports that
// too): the question is whether the two optimizers found equally good optima of the same
// loss, not how well either generalises, which the synthetic tests measure.
import { test } from 'tap'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { readAnkiPackageFile } from '../../src/anki/package-file.js'
import { loggedFromAnkiRevlog } from '../../src/domain/anki-revlog.js'
import { evaluateParameters } from '../../src/domain/fit-evaluation.js'
import { DEFAULT_PARAMETERS, predictedRecall, type Parameters } from '../../src/domain/memory-model.js'
import { RETENTIONS_COMPARED } from '../../src/domain/schedule-fit.js'
import { trainingItems, type TrainingItem } from '../../src/domain/training-items.js'
import { packLog, runFit } from '../../src/fitting/jobs.js'

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'anki')
const PACKAGE = join(FIXTURES, 'history.apkg')
const REPORTED = join(FIXTURES, 'history-parameters.json')

interface Figures { logLoss: number, rmseBins: number }
interface Reported extends Figures {
  parameters: number[]
  fsrsItems: number
  defaultParameters: Figures
  revlogCount: number
  rolloverHour: number
  utcOffsetMinutesWest: number
}

/** Log loss with each item weighed by its recency, as the fsrs crate's evaluate weighs them (items in time order). */
function recencyWeightedLogLoss (w: Parameters, items: readonly TrainingItem[]): number {
  const last = Math.max(1, items.length - 1)
  let loss = 0
  let weights = 0
  items.forEach((item, index) => {
    const weight = 0.25 + 0.75 * Math.pow(index / last, 3)
    const p = Math.min(1 - 1e-7, Math.max(1e-7, predictedRecall(w, item.reviews)))
    const recalled = (item.reviews[item.reviews.length - 1] as TrainingItem['reviews'][number]).rating > 1
    loss -= weight * Math.log(recalled ? p : 1 - p)
    weights += weight
  })
  return loss / weights
}

/** The root mean square difference between the recall two sets of parameters predict for each item. */
function predictionGap (a: Parameters, b: Parameters, items: readonly TrainingItem[]): number {
  return Math.sqrt(items.reduce((sum, item) => sum + Math.pow(predictedRecall(a, item.reviews) - predictedRecall(b, item.reviews), 2), 0) / items.length)
}

test('on an Anki history, the fitted parameters\' log loss is within 1% of that of Anki\'s own optimizer\'s parameters, on the same items', async (t) => {
  const reported = JSON.parse(readFileSync(REPORTED, 'utf8')) as Reported
  const { collection } = await readAnkiPackageFile(PACKAGE, { onMedia: () => {} })
  const { timing, revlog } = collection
  t.equal(revlog.length, reported.revlogCount, 'the package holds the revlog Anki was given')
  t.same([timing.rolloverHour, timing.creationOffsetMinutesWest], [reported.rolloverHour, reported.utcOffsetMinutesWest], 'and the collection\'s day: rollover hour and offset')

  // Anki's days: blocks of 24 hours from the rollover, in the collection's offset
  const offsetWest = timing.creationOffsetMinutesWest ?? 0
  const rollover = timing.rolloverHour ?? 0
  const dayOf = (epochMs: number): number => Math.floor((epochMs / 1000 - offsetWest * 60 - rollover * 3600) / 86_400)
  const log = loggedFromAnkiRevlog(Array.from({ length: revlog.length }, (_, row) => revlog.entry(row)), dayOf)
  const { items } = trainingItems(log)

  // 1. the same items as Anki's, judged as Anki judges them
  t.equal(items.length, reported.fsrsItems, `${items.length} training items, as many as Anki's optimizer used`)
  const anki = { ...evaluateParameters(reported.parameters, items), weighted: recencyWeightedLogLoss(reported.parameters, items) }
  t.ok(Math.abs(anki.weighted - reported.logLoss) <= 1e-4 * reported.logLoss,
    `Anki's parameters on these items: recency-weighted log loss ${anki.weighted.toFixed(6)}, Anki computed ${reported.logLoss.toFixed(6)}`)

  // 2. the fit, through the worker's job as optimize-schedule runs it
  const outcome = await runFit({ type: 'fit', log: packLog(log).log, inUse: null, retentions: RETENTIONS_COMPARED, newCardsPerDay: 20, today: Math.max(...log.map((entry) => entry.day)) + 1, withStates: false })
  if (outcome.type !== 'fitted') throw new Error(`not fitted: ${outcome.items} items`)
  t.equal(outcome.items, items.length, 'fitted on those items')
  const ours = { ...evaluateParameters(outcome.parameters, items), weighted: recencyWeightedLogLoss(outcome.parameters, items) }
  t.ok(Math.abs(ours.logLoss - anki.logLoss) <= 0.01 * anki.logLoss,
    `log loss ${ours.logLoss.toFixed(5)} against Anki's ${anki.logLoss.toFixed(5)} (${signedPercent(ours.logLoss, anki.logLoss)})`)
  t.ok(Math.abs(ours.weighted - anki.weighted) <= 0.01 * anki.weighted,
    `recency-weighted log loss ${ours.weighted.toFixed(5)} against Anki's ${anki.weighted.toFixed(5)} (${signedPercent(ours.weighted, anki.weighted)})`)
  t.ok(Math.abs(ours.rmseBins - anki.rmseBins) <= 0.2 * anki.rmseBins,
    `RMSE(bins) ${ours.rmseBins.toFixed(5)} against Anki's ${anki.rmseBins.toFixed(5)} (${signedPercent(ours.rmseBins, anki.rmseBins)})`)
  const gap = { anki: predictionGap(outcome.parameters, reported.parameters, items), defaults: predictionGap(DEFAULT_PARAMETERS, reported.parameters, items) }
  t.ok(gap.anki < gap.defaults / 2, `predicted recall differs from Anki's parameters' by ${gap.anki.toFixed(4)} (RMS), the defaults' by ${gap.defaults.toFixed(4)}`)
  t.comment(`parameters: ours ${outcome.parameters.map((w) => w.toFixed(4)).join(' ')}`)
  t.comment(`            Anki ${reported.parameters.map((w) => w.toFixed(4)).join(' ')}`)

  // 3. the tolerance tells a fit from no fit
  const defaults = { ...evaluateParameters(DEFAULT_PARAMETERS, items), weighted: recencyWeightedLogLoss(DEFAULT_PARAMETERS, items) }
  t.ok(Math.abs(defaults.weighted - reported.defaultParameters.logLoss) <= 1e-4 * reported.defaultParameters.logLoss,
    `the defaults on these items: recency-weighted log loss ${defaults.weighted.toFixed(6)}, Anki computed ${reported.defaultParameters.logLoss.toFixed(6)}`)
  t.ok(defaults.logLoss > 1.02 * anki.logLoss && defaults.weighted > 1.02 * anki.weighted,
    `the defaults' log loss is ${signedPercent(defaults.logLoss, anki.logLoss)} (weighted ${signedPercent(defaults.weighted, anki.weighted)}) from Anki's parameters': well outside the 1%`)
})

function signedPercent (value: number, reference: number): string {
  const percent = (value / reference - 1) * 100
  return `${percent >= 0 ? '+' : ''}${percent.toFixed(2)}%`
}
