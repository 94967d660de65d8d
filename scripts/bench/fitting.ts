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

export const FITTING_REVIEWS = 100_000
const PASSWORD = 'bench-fitting-password'
const FIT_USER = 'bench-fit@example.com'
/** the other users: each with a deck of new cards, 20 of them today's */
const PEERS = ['bench-fit-peer-1@example.com', 'bench-fit-peer-2@example.com']
const PEER_CARDS = 100
/** a learner who forgets faster than FSRS's average one: their fitted parameters are adopted */
const LEARNER = [0.1, 0.4, 0.9, 3.0, 7.5, 0.5, 1.5, 0.02, 1.2, 0.25, 0.9, 2.2, 0.1, 0.3, 1.9, 0.5, 2.0, 0.4, 0.2, 0.1, 0.45]

async function register (app: FastifyInstance, email: string): Promise<{ userID: string, jwtToken: string }> {
  const registered = await app.inject({ method: 'POST', url: '/api/register', payload: { email, password: PASSWORD } })
  if (registered.statusCode !== 201) throw new Error(`register: ${registered.statusCode} ${registered.body}`)
  return registered.json()
}

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
  const { userID } = await register(app, FIT_USER)
  const log = learnerLog()
  const documents = reviewDocuments(userID, log)
  for (let start = 0; start < documents.length; start += 5000) await db.collection<ReviewDocument>('reviews').insertMany(documents.slice(start, start + 5000))
  for (const email of PEERS) {
    const { jwtToken } = await register(app, email)
    await app.inject({ method: 'POST', url: '/api/create-folder', payload: { jwtToken, path: ['Deck'] } })
    const cards = Array.from({ length: PEER_CARDS }, (_, index) => ({ front: `front ${index}`, back: `back ${index}` }))
    const created = await app.inject({ method: 'POST', url: '/api/create-flashcard', payload: { jwtToken, folder: ['Deck'], flashcardName: 'Deck', cards } })
    if (created.statusCode !== 201) throw new Error(`create-flashcard: ${created.statusCode} ${created.body}`)
  }
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

async function login (origin: string, email: string): Promise<string> {
  const { status, text } = await post(`${origin}/api/login`, JSON.stringify({ email, password: PASSWORD }))
  if (status !== 200) throw new Error(`login of ${email}: ${status} ${text}`)
  return (JSON.parse(text) as { jwtToken: string }).jwtToken
}

/** How often each other user opens their cards: people studying, not a load test that would take the machine from the fit */
const PEER_EVERY_MS = 50

/** Each peer sends get-today-cards every PEER_EVERY_MS (or as soon as its last answer came, if later) until `until` settles; every latency. */
async function peersUntil (origin: string, tokens: readonly string[], until: Promise<unknown>): Promise<number[]> {
  let done = false
  until.then(() => { done = true }, () => { done = true })
  const samples: number[] = []
  await Promise.all(tokens.map(async (jwtToken) => {
    const body = JSON.stringify({ jwtToken })
    while (!done) {
      const started = performance.now()
      const { status, text } = await post(`${origin}/api/get-today-cards`, body)
      if (status !== 200) throw new Error(`get-today-cards: ${status} ${text.slice(0, 200)}`)
      const elapsed = performance.now() - started
      samples.push(elapsed)
      if (elapsed < PEER_EVERY_MS) await new Promise((resolve) => setTimeout(resolve, PEER_EVERY_MS - elapsed))
    }
  }))
  return samples
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
  const token = await login(origin, FIT_USER)
  const peers = await Promise.all(PEERS.map(async (email) => await login(origin, email)))
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
