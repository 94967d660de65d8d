// The service's side of the import worker: one worker thread per import, started for it and ended
// after, so that sql.js's memory and the collection read go with it.
import { Worker } from 'node:worker_threads'
import { ObjectId } from 'mongodb'
import type { ImportCounts } from '../repositories/imports.js'
import type { StagedImport, StageJob } from './stage.js'

/** How staging ended: its plan, or the code and sentence of its refusal (`internal_error` for a failure of the service). */
export type StageOutcome =
  | { ok: true, staged: StagedImport }
  | { ok: false, code: string, message: string }

/** Stages `job` in a worker thread; `progress` hears each step. A worker that dies is a failure. */
export function stageInWorker (job: StageJob, mongodbUrl: string, progress: (percent: number, counts: ImportCounts) => void): { outcome: Promise<StageOutcome>, stop: () => Promise<void> } {
  // the worker is TypeScript, as the service is; tsx loads it there as it does here
  const worker = new Worker(new URL('./worker.ts', import.meta.url), { execArgv: ['--import', 'tsx'], workerData: { job, mongodbUrl } })
  const outcome = new Promise<StageOutcome>((resolve) => {
    let settled = false
    const settle = (result: StageOutcome): void => {
      if (settled) return
      settled = true
      resolve(result)
    }
    worker.on('message', (message: { type: string, percent?: number, counts?: ImportCounts, staged?: StagedImport, code?: string, message?: string, stack?: string }) => {
      if (message.type === 'progress') progress(message.percent ?? 0, message.counts as ImportCounts)
      else if (message.type === 'staged') {
        const staged = message.staged as StagedImport
        staged.plan.media = staged.plan.media.map((file) => ({ ...file, fileId: new ObjectId(file.fileId as unknown as string) }))
        settle({ ok: true, staged })
      }
      else settle({ ok: false, code: message.code ?? 'internal_error', message: message.code === 'internal_error' ? (message.stack ?? message.message ?? '') : (message.message ?? '') })
    })
    worker.on('error', (error) => settle({ ok: false, code: 'internal_error', message: error.stack ?? error.message }))
    worker.on('exit', (code) => settle({ ok: false, code: 'internal_error', message: `the import worker stopped (exit code ${code})` }))
  })
  return { outcome, stop: async () => { await worker.terminate() } }
}
