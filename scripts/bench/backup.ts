// Backup and restore at the benchmark's size: `npm run backup` on the service
// running on the bench data while a learner reviews and another reads today's
// cards, then `npm run restore` into a new data folder. Each script runs as npm
// runs it (node on the script, its own process), its memory and that of the
// database it uses read from /proc while it runs.
import { stat } from 'node:fs/promises'
import { setTimeout as sleep } from 'node:timers/promises'
import { childPidNamed, residentMemory, spawnTypeScript } from './processes.js'
import { post } from './load.js'

export interface ScriptFigures {
  code: number | null
  seconds: number
  /** the last line it printed on standard output */
  said: string
  /** the script's own process, its highest VmRSS seen */
  peakBytes: number
  /** the database it used (the running service's, or the one it started), its VmRSS before and its highest while the script ran */
  databaseBefore: number | null
  databasePeak: number | null
}

/** How often memory is read while a script runs. */
const SAMPLE_EVERY_MS = 100

/**
 * Runs `npm run <script> -- <file>` as npm does, with `env` over this process's
 * environment. The database's memory is read from `databasePid` (a running
 * service's), or else from the secantusd-rs the script starts, once it has.
 */
export async function runScript (root: string, script: 'backup' | 'restore', file: string, env: NodeJS.ProcessEnv, databasePid: number | null): Promise<ScriptFigures> {
  const started = performance.now()
  const child = spawnTypeScript(root, `scripts/${script}.ts`, [file], { ...process.env, ...env }, script, false)
  let said = ''
  child.stdout?.on('data', (chunk: Buffer) => { said += chunk.toString() })
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  let running = true
  void exited.then(() => { running = false })
  const databaseBefore = databasePid === null ? null : await residentMemory(databasePid)
  let peakBytes = 0
  let databasePeak = databaseBefore
  let database = databasePid
  while (running) {
    peakBytes = Math.max(peakBytes, await residentMemory(child.pid as number) ?? 0)
    database ??= await childPidNamed(child.pid as number, 'secantusd-rs')
    if (database !== null) databasePeak = Math.max(databasePeak ?? 0, await residentMemory(database) ?? 0)
    await Promise.race([sleep(SAMPLE_EVERY_MS), exited])
  }
  const code = await exited
  return { code, seconds: (performance.now() - started) / 1000, said: said.trim().split('\n').pop() ?? '', peakBytes, databaseBefore, databasePeak }
}

export interface Traffic {
  /** get-today-cards of the 100-card user, one after another: milliseconds each */
  todayMs: number[]
  /** review-card of the 10k-card user's cards due long after today: how many were acknowledged */
  reviews: number
  failures: string[]
}

/**
 * Requests going on until `stop`: one learner reading today's cards and
 * another reviewing, each one request after another, so that the backup is
 * measured as it runs beside the service's own work.
 */
export function keepTraffic (origin: string, todayBody: string, reviewBody: () => string): { stop: () => Promise<Traffic> } {
  const traffic: Traffic = { todayMs: [], reviews: 0, failures: [] }
  let stopping = false
  const loop = async (work: () => Promise<void>): Promise<void> => {
    while (!stopping) {
      try {
        await work()
      } catch (error) {
        traffic.failures.push((error as Error).message)
      }
      await sleep(20)
    }
  }
  const running = Promise.all([
    loop(async () => {
      const started = performance.now()
      const { status, text } = await post(`${origin}/api/get-today-cards`, todayBody)
      if (status !== 200) throw new Error(`get-today-cards answered ${status}: ${text.slice(0, 200)}`)
      traffic.todayMs.push(performance.now() - started)
    }),
    loop(async () => {
      const { status, text } = await post(`${origin}/api/review-card`, reviewBody())
      if (status !== 200) throw new Error(`review-card answered ${status}: ${text.slice(0, 200)}`)
      traffic.reviews += 1
    })
  ])
  return {
    stop: async () => {
      stopping = true
      await running
      return traffic
    }
  }
}

export async function sizeOf (file: string): Promise<number> {
  return (await stat(file)).size
}
