// The service's side of the fitting worker: one worker thread, started when
// first needed and kept, running one job at a time; the others wait their turn
// in a short queue. One at a time because a fit already keeps a small machine's
// cores busy (two optimizer calls at once, jobs.ts): two fits would only take
// turns on them, and each finish later. A job past the queue's length is
// refused at once (503), rather than left waiting on the client's patience.
import { Worker } from 'node:worker_threads'
import { Refusal } from '../domain/refusals.js'
import { packedLogBuffers, type Job, type JobResult } from './jobs.js'

export interface FitterOptions {
  /** jobs that may wait while one runs */
  maxWaiting: number
  /** the Retry-After of a job refused because the queue is full (s) */
  retryAfterSeconds: number
}

export const DEFAULT_FITTER_OPTIONS: FitterOptions = { maxWaiting: 8, retryAfterSeconds: 10 }

export interface Fitter {
  /** runs `job` in the worker when its turn comes; its typed arrays are moved there, not copied */
  run: <J extends Job>(job: J) => Promise<JobResult<J>>
  /** starts the worker if it is not running, so that the first fit does not wait for it to load */
  warm: () => void
  /** jobs running or waiting */
  readonly pending: number
  /** jobs waiting for the one running */
  readonly waiting: number
  /** ends the worker; jobs still waiting are refused */
  close: () => Promise<void>
}

interface Queued { job: Job, resolve: (result: unknown) => void, reject: (error: Error) => void }

export function createFitter (options: Partial<FitterOptions> = {}): Fitter {
  const { maxWaiting, retryAfterSeconds } = { ...DEFAULT_FITTER_OPTIONS, ...options }
  const waiting: Queued[] = []
  let running: Queued | null = null
  let worker: Worker | null = null
  let nextID = 0
  let closed = false

  const workerFor = (): Worker => {
    if (worker !== null) return worker
    // the worker is TypeScript, as the service is; tsx loads it there as it does here
    const started = new Worker(new URL('./worker.ts', import.meta.url), { execArgv: ['--import', 'tsx'] })
    // an idle worker must not keep the process alive
    started.unref()
    started.on('message', (message: { id: number, result?: unknown, error?: string }) => {
      const job = running
      running = null
      if (message.error !== undefined) job?.reject(new Error(`fitting failed: ${message.error}`))
      else job?.resolve(message.result)
      next()
    })
    const lost = (error: Error): void => {
      if (worker !== started) return
      worker = null
      const job = running
      running = null
      job?.reject(error)
      next()
    }
    started.on('error', lost)
    started.on('exit', (code) => lost(new Error(`the fitting worker stopped (exit code ${code})`)))
    worker = started
    return started
  }

  const next = (): void => {
    if (running !== null || closed) return
    const job = waiting.shift()
    if (job === undefined) return
    running = job
    const id = nextID++
    try {
      workerFor().postMessage({ id, job: job.job }, packedLogBuffers(job.job.log))
    } catch (error) {
      running = null
      job.reject(error instanceof Error ? error : new Error(String(error)))
      next()
    }
  }

  return {
    run: async <J extends Job>(job: J): Promise<JobResult<J>> => {
      if (closed) throw new Refusal('service_overloaded', 'the service is shutting down: try again in a moment', retryAfterSeconds)
      if (waiting.length >= maxWaiting) {
        throw new Refusal('service_overloaded', `${waiting.length + 1} fits of parameters are under way or waiting on this server: try again in a few seconds`, retryAfterSeconds)
      }
      return await new Promise<JobResult<J>>((resolve, reject) => {
        waiting.push({ job, resolve: resolve as (result: unknown) => void, reject })
        next()
      })
    },
    warm: () => {
      if (!closed) workerFor()
    },
    get pending () {
      return waiting.length + (running === null ? 0 : 1)
    },
    get waiting () {
      return waiting.length
    },
    close: async () => {
      closed = true
      for (const job of waiting.splice(0)) job.reject(new Refusal('service_overloaded', 'the service is shutting down: try again in a moment', retryAfterSeconds))
      const ending = worker
      worker = null
      running?.reject(new Refusal('service_overloaded', 'the service is shutting down: try again in a moment', retryAfterSeconds))
      running = null
      await ending?.terminate()
    }
  }
}
