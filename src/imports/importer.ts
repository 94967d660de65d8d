// The service's side of the import worker: one worker thread, started when an import needs it and
// ended once it has been idle a while, so that sql.js's memory and the collection read go with it
// while the imports of a busy moment share one start. The service runs one import at a time.
import { Worker } from 'node:worker_threads'
import { ObjectId } from 'mongodb'
import type { ImportCounts } from '../repositories/imports.js'
import type { StagedImport, StageJob } from './stage.js'

/** How staging ended: its plan, or the code and sentence of its refusal (`internal_error` for a failure of the service). */
export type StageOutcome =
  | { ok: true, staged: StagedImport }
  | { ok: false, code: string, message: string }

interface Running { id: number, settle: (outcome: StageOutcome) => void, progress: (percent: number, counts: ImportCounts) => void }

interface WorkerMessage { id: number, type: string, percent?: number, counts?: ImportCounts, staged?: StagedImport, code?: string, message?: string, stack?: string }

export interface ImportWorker {
  /** Stages `job` in the worker; `progress` hears each step. A worker that dies is a failure of the job. */
  stage: (job: StageJob, progress: (percent: number, counts: ImportCounts) => void) => Promise<StageOutcome>
  /** ends the worker, failing the job it runs */
  close: () => Promise<void>
}

/** The most JavaScript heap an import's worker thread may hold, MiB. */
export const WORKER_HEAP_MIB = 512

export function importWorker (mongodbUrl: string, idleMs = 30_000): ImportWorker {
  let worker: Worker | null = null
  let running: Running | null = null
  let idle: NodeJS.Timeout | undefined
  let nextID = 0

  const settle = (outcome: StageOutcome): void => {
    const job = running
    running = null
    job?.settle(outcome)
    clearTimeout(idle)
    idle = setTimeout(() => { void end() }, idleMs)
    idle.unref()
  }

  const end = async (): Promise<void> => {
    const ending = worker
    worker = null
    clearTimeout(idle)
    await ending?.terminate()
  }

  const workerFor = (): Worker => {
    if (worker !== null) return worker
    // the worker is TypeScript, as the service is; tsx loads it there as it does here
    // the import's memory is bounded by design (docs/anki.md); the cap makes that bound hold: an
    // import that would need more fails (the worker stops) and the service goes on
    const started = new Worker(new URL('./worker.ts', import.meta.url), {
      execArgv: ['--import', 'tsx'],
      workerData: { mongodbUrl },
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MIB }
    })
    started.unref()
    started.on('message', (message: WorkerMessage) => {
      if (running === null || message.id !== running.id) return
      if (message.type === 'progress') {
        running.progress(message.percent ?? 0, message.counts as ImportCounts)
      } else if (message.type === 'staged') {
        const staged = message.staged as StagedImport
        staged.plan.media = staged.plan.media.map((file) => ({ ...file, fileId: new ObjectId(file.fileId as unknown as string) }))
        settle({ ok: true, staged })
      } else {
        settle({ ok: false, code: message.code ?? 'internal_error', message: message.code === 'internal_error' ? (message.stack ?? message.message ?? '') : (message.message ?? '') })
      }
    })
    const lost = (reason: string): void => {
      if (worker !== started) return
      worker = null
      if (running !== null) settle({ ok: false, code: 'internal_error', message: reason })
    }
    started.on('error', (error) => lost(error.stack ?? error.message))
    started.on('exit', (code) => lost(`the import worker stopped (exit code ${code})`))
    worker = started
    return started
  }

  return {
    stage: async (job, progress) => {
      if (running !== null) throw new Error('the import worker runs one import at a time')
      clearTimeout(idle)
      return await new Promise<StageOutcome>((resolve) => {
        const id = nextID++
        running = { id, settle: resolve, progress }
        workerFor().postMessage({ id, job })
      })
    },
    close: end
  }
}
