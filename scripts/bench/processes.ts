// The processes the benchmark measures: the service (with the database it
// starts) and the ceiling app. Each runs apart from the load generator, so
// that they do not share its event loop, and their memory is read from /proc.
import { spawn, type ChildProcess } from 'node:child_process'
import { readdir, readFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { createInterface } from 'node:readline'
import { setTimeout as sleep } from 'node:timers/promises'
import { stopProcess } from '../../src/db/stop-process.js'

export interface ChildServer {
  pid: number
  /** http://127.0.0.1:port */
  origin: string
  stop: () => Promise<void>
}

export interface Service extends ChildServer {
  /** from spawning the process to GET /health answering 200 */
  startupMs: number
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

const LEVELS: Record<number, string> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' }

/** A pino JSON line in one short line (level, message, error); anything else as it came. */
function logLine (line: string): string {
  try {
    const entry = JSON.parse(line) as { level?: number, msg?: string, err?: { type?: string, message?: string } }
    if (typeof entry.level !== 'number') return line
    const error = entry.err === undefined ? '' : `: ${entry.err.type ?? 'Error'}: ${entry.err.message ?? ''}`
    return `${LEVELS[entry.level] ?? entry.level} ${entry.msg ?? ''}${error}`
  } catch {
    return line
  }
}

export function spawnTypeScript (root: string, script: string, args: string[], env: NodeJS.ProcessEnv, label: string, forwardStdout: boolean): ChildProcess {
  // node itself, not npm or a shell: the pid is then the process whose memory is read
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] })
  for (const stream of forwardStdout ? [child.stdout, child.stderr] : [child.stderr]) {
    if (stream !== null) createInterface({ input: stream }).on('line', (line) => console.error(`  [${label}] ${logLine(line)}`))
  }
  // last resort: never leave a child running after the benchmark is gone
  const kill = (): void => { child.kill('SIGKILL') }
  process.once('exit', kill)
  child.once('exit', () => process.off('exit', kill))
  return child
}

/**
 * Starts the service as `npm start` does (`src/server.ts`) on a free loopback
 * port, with `env` added to this process's environment (DATA_DIR, or
 * MONGODB_URL and JWT_SECRET), and resolves once GET /health answers 200.
 */
export async function startService (root: string, env: NodeJS.ProcessEnv, label: string, timeoutMs = 120_000): Promise<Service> {
  const port = await freePort()
  const started = performance.now()
  const child = spawnTypeScript(root, 'src/server.ts', [], { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' }, label, true)
  // the service's own grace period is 10 s; past that it is stuck
  const stop = (): Promise<void> => stopProcess(child, 15_000)
  const origin = `http://127.0.0.1:${port}`
  while (performance.now() - started < timeoutMs) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`the service exited (${child.exitCode ?? child.signalCode}) before answering /health`)
    }
    try {
      const response = await fetch(`${origin}/health`, { signal: AbortSignal.timeout(2000) })
      if (response.status === 200) return { pid: child.pid as number, origin, stop, startupMs: performance.now() - started }
    } catch {
      // not listening yet
    }
    await sleep(25)
  }
  await stop()
  throw new Error(`the service did not answer /health within ${timeoutMs / 1000} s`)
}

/** Starts scripts/bench/ceiling-server.ts serving the answers in `responsesDir`. */
export async function startCeiling (root: string, responsesDir: string, timeoutMs = 30_000): Promise<ChildServer> {
  const child = spawnTypeScript(root, 'scripts/bench/ceiling-server.ts', [responsesDir], { ...process.env, PORT: '0' }, 'ceiling', false)
  const stop = (): Promise<void> => stopProcess(child, 5000)
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
    return { pid: child.pid as number, origin, stop }
  } catch (error) {
    await stop()
    throw error
  }
}

/** Resident memory of a process in bytes (VmRSS in /proc, Linux); null once it is gone. */
export async function residentMemory (pid: number): Promise<number | null> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8')
    const kilobytes = /^VmRSS:\s+(\d+) kB/m.exec(status)?.[1]
    return kilobytes === undefined ? null : Number(kilobytes) * 1024
  } catch {
    return null
  }
}

/** CPU time a process has used, user and system, in seconds (utime and stime in /proc, Linux, at 100 ticks a second); null once it is gone. */
export async function cpuSeconds (pid: number): Promise<number | null> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8')
    // the fields after the command name, which is in parentheses and may hold spaces
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(fields[11]) + Number(fields[12])) / 100
  } catch {
    return null
  }
}

/** The pid of a child of `parent` whose command is `command` (the service's secantusd-rs), if any. */
export async function childPidNamed (parent: number, command: string): Promise<number | null> {
  try {
    // a child is listed under the thread that started it
    for (const thread of await readdir(`/proc/${parent}/task`)) {
      const children = await readFile(`/proc/${parent}/task/${thread}/children`, 'utf8')
      for (const pid of children.trim().split(/\s+/).filter((text) => text !== '').map(Number)) {
        if ((await readFile(`/proc/${pid}/comm`, 'utf8')).trim() === command) return pid
      }
    }
  } catch {
    // not Linux, or the process is gone
  }
  return null
}
