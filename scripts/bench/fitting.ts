// Fitting a user's FSRS parameters (optimize-schedule) on a log of 100,000
// reviews, through HTTP against the service, and what it does to everyone
// else meanwhile: other users' get-today-cards, each user opening their cards
// 20 times a second while each fit runs, against the same without a fit.
import type { FastifyInstance } from 'fastify'
import type { Db } from 'mongodb'
import type { ReviewDocument } from '../../src/repositories/reviews.js'
import { RETENTIONS_COMPARED } from '../../src/domain/schedule-fit.js'
import { packLog, runFit } from '../../src/fitting/jobs.js'
import { reviewDocuments } from '../../test/helpers/review-history.js'
import { syntheticLog } from '../../test/helpers/synthetic-reviews.js'
import { percentile, post } from './load.js'
import { login, peersUntil, register, seedPeers } from './peers.js'

export const FITTING_REVIEWS = 100_000
const PASSWORD = 'bench-fitting-password'
const FIT_USER = 'bench-fit@example.com'
/** the other users: each with a deck of new cards, 20 of them today's */
const PEERS = ['bench-fit-peer-1@example.com', 'bench-fit-peer-2@example.com']
/** a learner who forgets faster than FSRS's average one: their fitted parameters are adopted */
const LEARNER = [0.1, 0.4, 0.9, 3.0, 7.5, 0.5, 1.5, 0.02, 1.2, 0.25, 0.9, 2.2, 0.1, 0.3, 1.9, 0.5, 2.0, 0.4, 0.2, 0.1, 0.45]

function learnerLog () {
  return syntheticLog({ parameters: LEARNER, reviews: FITTING_REVIEWS, newCardsPerDay: 30, seed: 2026 })
}

/**
 * The fit itself, on the same log already in memory: what the worker does
 * (items, the optimizer on the whole log and the five splits, the workload),
 * without reading the log from the database. Milliseconds, one per run.
 */
export async function timeFitAlone (runs: number): Promise<{ times: number[], cpu: number[] }> {
  const log = learnerLog()
  const today = Math.max(...log.map((entry) => entry.day)) + 1
  const times: number[] = []
  const cpu: number[] = []
  for (let run = 0; run < runs; run++) {
    const packed = packLog(log).log
    const used = process.cpuUsage()
    const started = performance.now()
    const outcome = await runFit({ type: 'fit', log: packed, inUse: null, retentions: RETENTIONS_COMPARED, newCardsPerDay: 20, today, withStates: false })
    times.push(performance.now() - started)
    const { user, system } = process.cpuUsage(used)
    cpu.push((user + system) / 1e6)
    if (outcome.type !== 'fitted') throw new Error('not fitted')
  }
  return { times, cpu }
}

/** The user of 100,000 reviews (a synthetic learner's year and more) and the peers, through the app and straight into the log. */
export async function seedFitting (app: FastifyInstance, db: Db): Promise<void> {
  const { userID } = await register(app, FIT_USER, PASSWORD)
  const log = learnerLog()
  const documents = reviewDocuments(userID, log)
  for (let start = 0; start < documents.length; start += 5000) await db.collection<ReviewDocument>('reviews').insertMany(documents.slice(start, start + 5000))
  await seedPeers(app, PEERS, PASSWORD)
}

export interface FittingFigures {
  /** the fit alone, in the benchmark's process, on the log in memory */
  alone: number[]
  /** the CPU seconds the benchmark's process used for those, all its threads */
  aloneCpu: number[]
  /** the CPU seconds the service and its database used for the first fit, when nothing else ran */
  firstCpu: number | null
  /** the first fit, which starts the worker thread */
  first: number
  /** each later fit, end to end */
  fits: number[]
  /** the others' get-today-cards while no fit runs, and while the fits run */
  peersAlone: number[]
  peersDuringFits: number[]
  items: number
  reviews: number
  adopted: boolean
}

async function timedFit (origin: string, jwtToken: string): Promise<{ ms: number, answer: { items: string, reviews: string, adopted: string } }> {
  const started = performance.now()
  const { status, text } = await post(`${origin}/api/optimize-schedule`, JSON.stringify({ jwtToken }))
  const ms = performance.now() - started
  if (status !== 200) throw new Error(`optimize-schedule: ${status} ${text.slice(0, 300)}`)
  return { ms, answer: JSON.parse(text) }
}

/** `fits` fits after a first one, the peers reading their cards throughout, and as long again with no fit. */
export async function measureFitting (origin: string, fits: number, cpuOfService: () => Promise<number | null>): Promise<Omit<FittingFigures, 'alone' | 'aloneCpu'>> {
  const token = await login(origin, FIT_USER, PASSWORD)
  const peers = await Promise.all(PEERS.map(async (email) => await login(origin, email, PASSWORD)))
  // the peers' first reads set their queues' starts; not what is measured
  await peersUntil(origin, peers, new Promise((resolve) => setTimeout(resolve, 500)))
  const cpuBefore = await cpuOfService()
  const first = await timedFit(origin, token)
  const cpuAfter = await cpuOfService()
  const times: number[] = []
  const during: number[] = []
  for (let n = 0; n < fits; n++) {
    const fit = timedFit(origin, token)
    during.push(...await peersUntil(origin, peers, fit))
    times.push((await fit).ms)
  }
  const alone = await peersUntil(origin, peers, new Promise((resolve) => setTimeout(resolve, times.reduce((sum, ms) => sum + ms, 0))))
  return {
    first: first.ms,
    firstCpu: cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore,
    fits: times,
    peersAlone: alone,
    peersDuringFits: during,
    items: Number(first.answer.items),
    reviews: Number(first.answer.reviews),
    adopted: first.answer.adopted === 'true'
  }
}

export function p99 (samples: readonly number[]): number {
  return percentile(samples, 0.99)
}
