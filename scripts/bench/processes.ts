// The child processes the benchmark measures: the service and the ceiling app.
// Each runs in its own process so that the load generator (in the parent) does
// not share their event loop, and so that their memory can be read from /proc.
import { spawn, type ChildProcess } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { createInterface } from 'node:readline'
import { setTimeout as sleep } from 'node:timers/promises'

export interface ChildServer {
  pid: number
  /** http://127.0.0.1:port */
  origin: string
  stop: () => Promise<void>
  /** how the process ended, when it ended without being stopped (a crash, a signal from elsewhere); else null */
  unexpectedExit: () => string | null
}

function exitWatch (child: ChildProcess): { unexpectedExit: () => string | null, expect: () => void } {
  let expected = false
  let status: string | null = null
  child.once('exit', (code, signal) => {
    if (!expected) status = signal === null ? `exit code ${code}` : `signal ${signal}`
  })
  return { unexpectedExit: () => status, expect: () => { expected = true } }
}

/** A loopback port nobody listens on right now. */
export function freePort (): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port')))
    })
  })
}

function spawnTypeScript (root: string, script: string, args: string[], env: NodeJS.ProcessEnv, label: string, forwardStdout: boolean): ChildProcess {
  // node itself, not npm or a shell: the pid is then the process whose memory is read
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] })
  for (const stream of forwardStdout ? [child.stdout, child.stderr] : [child.stderr]) {
    if (stream !== null) createInterface({ input: stream }).on('line', (line) => console.error(`[${label}] ${logLine(line)}`))
  }
  return child
}

const LEVELS: Record<number, string> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' }

/** A pino JSON line in one short line (level, message, error); anything else as it came. */
function logLine (line: string): string {
  try {
    const entry = JSON.parse(line) as { level?: number, msg?: string, reqId?: string, err?: { type?: string, message?: string } }
    if (typeof entry.level !== 'number') return line
    const error = entry.err === undefined ? '' : `: ${entry.err.type ?? 'Error'}: ${entry.err.message ?? ''}`
    return `${LEVELS[entry.level] ?? entry.level} ${entry.msg ?? ''}${error}${entry.reqId === undefined ? '' : ` (request ${entry.reqId})`}`
  } catch {
    return line
  }
}

async function stopChild (child: ChildProcess, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  child.kill('SIGTERM')
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs)
  await exited
  clearTimeout(timer)
}

function guardExit (child: ChildProcess): () => void {
  // last resort: never leave a child running after the benchmark is gone
  const kill = (): void => { child.kill('SIGKILL') }
  process.once('exit', kill)
  return () => process.off('exit', kill)
}

/**
 * Starts the service (`src/server.ts`) on a free loopback port with the given
 * database and secret, and resolves once GET /health answers 200.
 */
export async function startService (root: string, settings: { mongodbUrl: string, jwtSecret: string, dataDir: string }, timeoutMs = 60_000): Promise<ChildServer> {
  const port = await freePort()
  const child = spawnTypeScript(root, 'src/server.ts', [], {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    MONGODB_URL: settings.mongodbUrl,
    JWT_SECRET: settings.jwtSecret,
    DATA_DIR: settings.dataDir,
    LOG_LEVEL: 'warn',
    // the embedded database scans whole collections (FerretDB 1.24 pushes down only _id):
    // with 100,000 cards one query takes seconds, which the service's default would cut off
    DATABASE_TIMEOUT_MS: process.env.DATABASE_TIMEOUT_MS ?? '120000'
  }, 'service', true)
  const unguard = guardExit(child)
  const watch = exitWatch(child)
  const stop = async (): Promise<void> => {
    watch.expect()
    // the service's own grace period is 10 s; past that it is stuck
    await stopChild(child, 12_000)
    unguard()
  }
  const origin = `http://127.0.0.1:${port}`
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      unguard()
      throw new Error(`the service exited (${child.exitCode ?? child.signalCode}) before answering /health`)
    }
    try {
      const response = await fetch(`${origin}/health`, { signal: AbortSignal.timeout(2000) })
      if (response.status === 200) return { pid: child.pid as number, origin, stop, unexpectedExit: watch.unexpectedExit }
    } catch {
      // not listening yet
    }
    await sleep(100)
  }
  await stop()
  throw new Error(`the service did not answer /health within ${timeoutMs} ms`)
}

/** Starts scripts/bench/ceiling-server.ts serving the responses in `responsesDir`. */
export async function startCeiling (root: string, responsesDir: string, timeoutMs = 30_000): Promise<ChildServer> {
  const child = spawnTypeScript(root, 'scripts/bench/ceiling-server.ts', [responsesDir], { ...process.env, PORT: '0' }, 'ceiling', false)
  const unguard = guardExit(child)
  const watch = exitWatch(child)
  const stop = async (): Promise<void> => {
    watch.expect()
    await stopChild(child, 5000)
    unguard()
  }
  try {
    const origin = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the ceiling app did not start within ${timeoutMs} ms`)), timeoutMs)
      child.once('exit', (code) => reject(new Error(`the ceiling app exited (${code}) before listening`)))
      // it prints its address as its first line on standard output
      child.stdout?.once('data', (chunk: Buffer) => {
        clearTimeout(timer)
        child.stdout?.resume()
        const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(chunk.toString())
        if (match?.[1] === undefined) reject(new Error(`unexpected output from the ceiling app: ${chunk.toString()}`))
        else resolve(match[1])
      })
    })
    return { pid: child.pid as number, origin, stop, unexpectedExit: watch.unexpectedExit }
  } catch (error) {
    await stop()
    throw error
  }
}

export interface Memory {
  /** resident set now, bytes */
  rss: number
  /** peak resident set since the process started (VmHWM), bytes */
  peak: number
}

/** Resident memory of a process from /proc (Linux); null elsewhere or once it is gone. */
export async function memoryOf (pid: number): Promise<Memory | null> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8')
    const kilobytes = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024
    return { rss: kilobytes('VmRSS'), peak: kilobytes('VmHWM') }
  } catch {
    return null
  }
}

/** The pid of this process's child running `command` (the embedded FerretDB), if any. */
export async function childPidNamed (command: string): Promise<number | null> {
  try {
    const children = await readFile(`/proc/${process.pid}/task/${process.pid}/children`, 'utf8')
    for (const pid of children.trim().split(/\s+/).filter((text) => text !== '').map(Number)) {
      const name = (await readFile(`/proc/${pid}/comm`, 'utf8')).trim()
      if (name === command) return pid
    }
  } catch {
    // not Linux, or no children file: the figure is left out
  }
  return null
}

// clock ticks per second of /proc/<pid>/stat's CPU times: 100 on every common Linux build
const TICKS_PER_SECOND = 100

async function cpuSeconds (pid: number): Promise<number> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8')
    // fields after the command name (which may hold spaces): state is field 3, utime 14, stime 15
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND
  } catch {
    return 0
  }
}

/**
 * Waits until the processes have used (almost) no CPU for half a second, up to
 * `maxMs`; resolves with the time waited. When a load run ends, the requests it
 * left in flight are still being worked on by the service and the database;
 * the next measurement must not start on top of them.
 */
export async function waitUntilIdle (pids: readonly number[], maxMs: number): Promise<number> {
  const started = Date.now()
  const windowMs = 500
  let before = 0
  for (const pid of pids) before += await cpuSeconds(pid)
  while (Date.now() - started < maxMs) {
    await sleep(windowMs)
    let now = 0
    for (const pid of pids) now += await cpuSeconds(pid)
    // idle: under 5% of one core over the window
    if (now - before < 0.05 * windowMs / 1000) return Date.now() - started
    before = now
  }
  return Date.now() - started
}
