import { test } from 'tap'
import { monitorEventLoopDelay, performance } from 'node:perf_hooks'
import { Refusal } from '../../src/domain/refusals.js'
import { RETENTIONS_COMPARED } from '../../src/domain/schedule-fit.js'
import { createFitter } from '../../src/fitting/fitter.js'
import { packLog, runFit, type FitJob } from '../../src/fitting/jobs.js'
import { syntheticLog } from '../helpers/synthetic-reviews.js'

const FORGETFUL = [0.1, 0.4, 0.9, 3.0, 7.5, 0.5, 1.5, 0.02, 1.2, 0.25, 0.9, 2.2, 0.1, 0.3, 1.9, 0.5, 2.0, 0.4, 0.2, 0.1, 0.45]
const log = syntheticLog({ parameters: FORGETFUL, reviews: 30_000, seed: 8 })

function job (): FitJob {
  return { type: 'fit', log: packLog(log).log, inUse: null, retentions: RETENTIONS_COMPARED, newCardsPerDay: 20, today: 20_000, withStates: false }
}

/**
 * How busy the event loop was while `work` ran: the share of the time it was
 * running code rather than waiting (which other processes taking the cores
 * cannot raise), and the longest it left a timer waiting (which they can).
 */
async function loopWhile (work: () => Promise<unknown>): Promise<{ busy: number, longestStallMs: number }> {
  const delay = monitorEventLoopDelay({ resolution: 5 })
  delay.enable()
  const before = performance.eventLoopUtilization()
  await work()
  const { utilization } = performance.eventLoopUtilization(before)
  delay.disable()
  return { busy: utilization, longestStallMs: delay.max / 1e6 }
}

test('a fit runs in the worker thread: the event loop stays free meanwhile, and the log moves there without a copy', async (t) => {
  const fitter = createFitter()
  t.teardown(fitter.close)
  const sent = job()
  let outcome: Awaited<ReturnType<typeof runFit>> | undefined
  const inWorker = await loopWhile(async () => { outcome = await fitter.run(sent) })
  t.equal(outcome?.type, 'fitted')
  t.equal(sent.log.card.length, 0, 'the typed arrays were moved to the worker')
  // the same fit on the event loop keeps it busy for much of its length
  const onLoop = await loopWhile(async () => await runFit(job()))
  t.ok(inWorker.busy < 0.1, `the event loop was busy ${(100 * inWorker.busy).toFixed(1)}% of a fit in the worker (its longest stall ${inWorker.longestStallMs.toFixed(0)} ms)`)
  t.ok(onLoop.busy > 3 * inWorker.busy, `against ${(100 * onLoop.busy).toFixed(1)}% when the fit runs on it (its longest stall ${onLoop.longestStallMs.toFixed(0)} ms)`)
})

test('one fit at a time; past the queue, a fit is refused at once with a 503 and a Retry-After', async (t) => {
  const fitter = createFitter({ maxWaiting: 1, retryAfterSeconds: 7 })
  t.teardown(fitter.close)
  const first = fitter.run(job())
  const second = fitter.run(job())
  t.equal(fitter.pending, 2)
  const third = await fitter.run(job()).then(() => null, (error: unknown) => error)
  t.ok(third instanceof Refusal)
  t.equal((third as Refusal).code, 'service_overloaded')
  t.equal((third as Refusal).retryAfterSeconds, 7)
  t.equal((await first).type, 'fitted')
  t.equal((await second).type, 'fitted')
  t.equal(fitter.pending, 0)
})

test('closing refuses the fits still waiting', async (t) => {
  const fitter = createFitter()
  const running = fitter.run(job()).then(() => 'done', (error: unknown) => error)
  const waiting = fitter.run(job()).then(() => 'done', (error: unknown) => error)
  await fitter.close()
  t.type(await waiting, Refusal)
  t.type(await running, Refusal)
  t.rejects(fitter.run(job()), Refusal, 'and any fit asked after')
})
