import { spawn, type ChildProcess } from 'node:child_process'
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { ensureSecantus } from './secantus-install.js'
import { stopProcess } from './stop-process.js'

/** What the supervised database process is doing; anything but running answers requests with 503. */
export type DatabaseProcessState = 'running' | 'restarting' | 'failed' | 'stopped'

export interface EmbeddedDatabase {
  /** mongodb:// address of the running server, without a database name */
  url: string
  state: () => DatabaseProcessState
  /** the process id of the server now running, if one is */
  pid: () => number | undefined
  stop: () => Promise<void>
}

export interface EmbeddedDatabaseOptions {
  /** WiredTiger's files live here */
  dataDir: string
  /** WiredTiger's cache, unit-suffixed ('256M', '1G') */
  cacheSize?: string
  /** loopback port to listen on; 0 (the default) lets the system pick a free one, kept across restarts */
  port?: number
  /** progress and the database's own warnings */
  log?: (line: string) => void
  /**
   * the database process died, could not be started again, or came back; after 'gave-up' it is
   * not started again, and what to do (the server exits) is the caller's choice
   */
  report?: (event: DatabaseProcessEvent) => void
  startTimeoutMs?: number
  restart?: Partial<RestartPolicy>
}

export type DatabaseProcessEvent =
  | { kind: 'exited', code: number | null, signal: string | null }
  | { kind: 'restarted', attempt: number }
  | { kind: 'restart-failed', attempt: number, error: Error }
  | { kind: 'gave-up', attempts: number }

export interface RestartPolicy {
  /**
   * restart attempts that fail in a row (the server never comes up listening) before giving up;
   * a restart that succeeds resets the count, so a server that can be started is always started again
   */
  attempts: number
  /** the wait before a restart; it doubles with each further restart, up to `maxDelayMs` */
  firstDelayMs: number
  maxDelayMs: number
  /** a server that has run this long is taken as healthy again: its next restart waits `firstDelayMs` */
  stableMs: number
}

export const DEFAULT_RESTART: RestartPolicy = { attempts: 5, firstDelayMs: 100, maxDelayMs: 3000, stableMs: 30_000 }
export const DEFAULT_CACHE_SIZE = '512M'

const LISTENING = /secantusd-rs listening on (127\.0\.0\.1:\d+)/
const PID_FILE = 'secantusd.pid'
/** the mongodb:// address of the server running on the folder, beside its pid: what a script (npm run backup, admin) reaches it by */
const ADDRESS_FILE = 'secantusd.address'

/**
 * Starts SecantusDB's secantusd-rs (the MongoDB wire protocol over WiredTiger)
 * on `dataDir`, on a loopback port, durable on every commit, and keeps it
 * running: if the process dies it is started again on the same folder and
 * port, so the driver's connection string stays valid and the service
 * recovers by itself, as often as it dies. Only when the server cannot be
 * started again, attempt after attempt, does it give up. It advertises a single-node replica set, so sessions
 * and transactions work.
 */
export async function startEmbeddedDatabase (options: EmbeddedDatabaseOptions): Promise<EmbeddedDatabase> {
  const log = options.log ?? (() => {})
  const report = options.report ?? (() => {})
  const policy = { ...DEFAULT_RESTART, ...options.restart }
  const binary = await ensureSecantus(log)
  const dataDir = resolve(options.dataDir)
  await mkdir(dataDir, { recursive: true })
  await stopLeftover(dataDir, log)
  // an explicit configuration of its own: no secantusd.toml found elsewhere (the working
  // folder, the home folder, /etc) changes how this server runs
  const configFile = join(dataDir, 'secantusd.toml')
  await writeFile(configFile, '# flashcard-service passes every setting on the command line (src/db/embedded.ts)\n')

  const launch = async (port: number): Promise<{ child: ChildProcess, address: string }> => {
    const child = spawn(binary, [
      '--config', configFile,
      '--host', '127.0.0.1',
      '--port', String(port),
      '--storage-path', dataDir,
      '--cache-size', options.cacheSize ?? DEFAULT_CACHE_SIZE,
      // without it an acknowledged write can be lost when the process is killed
      '--sync-on-commit',
      '--log-level', 'WARNING'
    ], { stdio: ['ignore', 'pipe', 'pipe'] })
    const address = await waitForAddress(child, options.startTimeoutMs ?? 60_000, log)
    await writeFile(join(dataDir, PID_FILE), String(child.pid))
    await writeFile(join(dataDir, ADDRESS_FILE), `mongodb://${address}\n`)
    return { child, address }
  }

  let state: DatabaseProcessState = 'running'
  let stopping = false
  const stopped = new AbortController()
  let restarting: Promise<void> = Promise.resolve()
  const first = await launch(options.port ?? 0)
  const address = first.address
  let child = first.child
  const port = Number(address.split(':')[1])
  let startedAt = Date.now()
  // grows with each restart, and goes back to the first once the server has run for stableMs
  let nextDelayMs = policy.firstDelayMs

  // last resort: never leave the database running after this process is gone
  const killOnExit = (): void => { child.kill('SIGKILL') }
  process.once('exit', killOnExit)

  const supervise = (running: ChildProcess): void => {
    running.once('exit', (code, signal) => {
      if (stopping) return
      state = 'restarting'
      report({ kind: 'exited', code, signal })
      if (Date.now() - startedAt >= policy.stableMs) nextDelayMs = policy.firstDelayMs
      restarting = restart()
    })
  }

  const restart = async (): Promise<void> => {
    for (let attempt = 1; attempt <= policy.attempts; attempt++) {
      // stop() cuts the wait short
      await sleep(nextDelayMs, undefined, { signal: stopped.signal }).catch(() => {})
      nextDelayMs = Math.min(policy.maxDelayMs, nextDelayMs * 2)
      if (stopping) return
      try {
        const launched = await launch(port)
        // stop() came while this server was starting, and waits for it to be stopped too
        if (stopping) {
          await stopProcess(launched.child)
          return
        }
        child = launched.child
        startedAt = Date.now()
        state = 'running'
        supervise(child)
        report({ kind: 'restarted', attempt })
        return
      } catch (error) {
        report({ kind: 'restart-failed', attempt, error: error as Error })
      }
    }
    if (stopping) return
    state = 'failed'
    report({ kind: 'gave-up', attempts: policy.attempts })
  }

  supervise(child)
  return {
    url: `mongodb://${address}`,
    state: () => state,
    pid: () => state === 'running' ? child.pid : undefined,
    stop: async () => {
      stopping = true
      state = 'stopped'
      stopped.abort()
      await restarting
      await stopProcess(child)
      await rm(join(dataDir, PID_FILE), { force: true })
      await rm(join(dataDir, ADDRESS_FILE), { force: true })
      process.off('exit', killOnExit)
    }
  }
}

function waitForAddress (child: ChildProcess, timeoutMs: number, log: (line: string) => void): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    let output = ''
    const timer = setTimeout(() => fail(new Error(`secantusd-rs did not start within ${timeoutMs} ms:\n${output.trim()}`)), timeoutMs)
    const onData = (chunk: Buffer): void => {
      output = (output + chunk.toString()).slice(-8192)
      const match = LISTENING.exec(output)
      if (match?.[1] !== undefined) {
        clearTimeout(timer)
        child.off('exit', onExit)
        child.stdout?.off('data', onData)
        child.stderr?.off('data', onData)
        // from now on its warnings go to the log, and the pipes are always drained
        const forward = (data: Buffer): void => {
          for (const line of data.toString().split('\n')) if (line.trim() !== '') log(`secantusd-rs: ${line.trimEnd()}`)
        }
        child.stdout?.on('data', forward)
        child.stderr?.on('data', forward)
        resolvePromise(match[1])
      }
    }
    const onExit = (code: number | null, signal: string | null): void => {
      fail(new Error(`secantusd-rs exited (code ${String(code)}, signal ${String(signal)}) before listening:\n${output.trim()}`))
    }
    function fail (error: Error): void {
      clearTimeout(timer)
      child.kill('SIGKILL')
      reject(error)
    }
    child.stdout?.on('data', onData)
    child.stderr?.on('data', onData)
    child.once('exit', onExit)
    child.once('error', fail)
  })
}

/** The pid of the server running on `dataDir`, if one is: the pid file's, while /proc shows it serving that folder. */
async function serverOf (dataDir: string): Promise<number | null> {
  const pid = Number(await readFile(join(dataDir, PID_FILE), 'utf8').catch(() => ''))
  if (!Number.isInteger(pid) || pid <= 0) return null
  return await isServerOf(pid, dataDir) ? pid : null
}

/**
 * The address of the server running on `dataDir` now, started by another
 * process (the service): null when none runs there. Its process is checked,
 * as stopLeftover checks it, so that an address left by a server that is gone
 * is not taken for one. An address with no server may be that of a server its
 * service is starting again (supervision): it is waited for up to `waitMs`,
 * since a second server started on the folder meanwhile would make those
 * restarts fail, and the service give up. A server whose address was not
 * written (started by an earlier version) is an error, for the same reason.
 */
export async function runningEmbeddedDatabase (dataDir: string, waitMs = 0): Promise<string | null> {
  const folder = resolve(dataDir)
  const started = Date.now()
  for (;;) {
    const address = (await readFile(join(folder, ADDRESS_FILE), 'utf8').catch(() => '')).trim()
    const pid = await serverOf(folder)
    if (pid !== null && address.startsWith('mongodb://')) return address
    if (pid !== null) {
      throw new Error(`secantusd-rs ${pid} serves ${folder}, but where it listens is not written beside it: ` +
        'stop the service that runs it (or start it again with this version), then run this again')
    }
    if (!address.startsWith('mongodb://') || Date.now() - started >= waitMs) return null
    await sleep(250)
  }
}

/** Whether process `pid` is a secantusd-rs whose storage is `dataDir` (and not a folder whose name starts alike). */
async function isServerOf (pid: number, dataDir: string): Promise<boolean> {
  const args = (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).split('\0')
  return (args[0] ?? '').endsWith('secantusd-rs') && args.includes(dataDir)
}

/**
 * A server left running on this folder by a service that was killed outright
 * still holds WiredTiger's lock, and a new one could not open the files: it
 * is stopped first, if it is still the database of this folder.
 */
async function stopLeftover (dataDir: string, log: (line: string) => void): Promise<void> {
  const pid = await serverOf(dataDir)
  if (pid === null) return
  log(`stopping secantusd-rs ${pid}, left running on ${dataDir} by an earlier start`)
  process.kill(pid, 'SIGTERM')
  for (let waited = 0; waited < 10_000; waited += 100) {
    await sleep(100)
    if (!await readFile(`/proc/${pid}/cmdline`, 'utf8').then(() => true, () => false)) return
  }
  process.kill(pid, 'SIGKILL')
  await sleep(200)
}

