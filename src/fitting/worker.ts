// The fitting worker thread: runs the jobs of jobs.ts one at a time, off the
// service's event loop. The FSRS optimizer's own work runs on a thread of
// libuv's pool; building the items, judging the parameters and simulating
// the workload are JavaScript, and would otherwise hold the event loop for
// seconds on a large log.
import { setPriority } from 'node:os'
import { parentPort } from 'node:worker_threads'
import { packedStatesBuffers, runFit, runStates, type Job } from './jobs.js'

if (parentPort === null) throw new Error('the fitting worker runs as a worker thread (fitting/fitter.ts starts it)')
const port = parentPort

// This thread gives way to every other: on a machine whose cores are all busy, the event
// loop serving other users' requests runs first, and a fit takes what is left. Only on
// Linux, where a thread has a priority of its own: elsewhere this would lower the whole service.
if (process.platform === 'linux') {
  try {
    setPriority(19)
  } catch {
    // refused: the fit still runs, at the usual priority
  }
}

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
