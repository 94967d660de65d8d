// The fitting worker thread: runs the jobs of jobs.ts one at a time, off the
// service's event loop. The FSRS optimizer's own work runs on a thread of
// libuv's pool; building the items, judging the parameters and simulating
// the workload are JavaScript, and would otherwise hold the event loop for
// seconds on a large log.
import { parentPort } from 'node:worker_threads'
import { packedStatesBuffers, runFit, runStates, type Job } from './jobs.js'

if (parentPort === null) throw new Error('the fitting worker runs as a worker thread (fitting/fitter.ts starts it)')
const port = parentPort

port.on('message', (message: { id: number, job: Job }) => {
  const { id, job } = message
  const work = job.type === 'fit' ? runFit(job) : Promise.resolve(runStates(job))
  work.then((result) => {
    const states = 'card' in result ? result : result.type === 'fitted' ? result.states : undefined
    port.postMessage({ id, result }, states === undefined ? [] : packedStatesBuffers(states))
  }, (error: unknown) => {
    port.postMessage({ id, error: error instanceof Error ? error.message : String(error) })
  })
})
