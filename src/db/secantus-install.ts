import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { access, link, mkdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises'
import { constants } from 'node:fs'
import { homedir, hostname } from 'node:os'
import { dirname, join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'

export const SECANTUS_CRATE = 'secantus-mdb'
export const SECANTUS_VERSION = '0.5.3-beta.196'
const BINARY = 'secantusd-rs'

/** The folder cargo installs into, outside the work tree so that fresh clones reuse it. */
export function secantusRoot (env: NodeJS.ProcessEnv = process.env): string {
  const cacheRoot = env.XDG_CACHE_HOME ?? join(homedir(), '.cache')
  return join(cacheRoot, 'flashcard-service', `${SECANTUS_CRATE}-${SECANTUS_VERSION}`)
}

export function secantusBinaryPath (env: NodeJS.ProcessEnv = process.env): string {
  return join(secantusRoot(env), 'bin', BINARY)
}

async function isExecutable (path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK)
    return true
  } catch {
    return false
  }
}

export class MissingCargoError extends Error {
  override name = 'MissingCargoError'
  constructor () {
    super('The embedded database (SecantusDB\'s secantusd-rs) is built from source with Rust, and `cargo` was not found.\n' +
      'Install Rust with cargo (rustup.rs; a C compiler and CMake are needed too: `apt-get install build-essential cmake`),\n' +
      'or set MONGODB_URL (with JWT_SECRET) to use a MongoDB replica set of your own instead.')
  }
}

/** Runs a command, handing each line it prints to `log`; rejects with its last lines when it fails. */
function runLogged (command: string, args: string[], log: (line: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] })
    let tail = ''
    const onData = (chunk: Buffer): void => {
      const text = chunk.toString()
      tail = (tail + text).slice(-4000)
      for (const line of text.split('\n')) if (line.trim() !== '') log(line.trimEnd())
    }
    child.stdout.on('data', onData)
    child.stderr.on('data', onData)
    child.once('error', reject)
    child.once('exit', (code) => {
      if (code === 0) resolve()
      else reject(new Error(`${command} ${args.join(' ')} failed with exit code ${String(code)}:\n${tail}`))
    })
  })
}

/** Builds the binary into the folder given: its `bin/secantusd-rs`. */
export type SecantusBuilder = (into: string, log: (line: string) => void) => Promise<void>

/** `cargo install` of the pinned crate: what builds the binary unless a test gives a builder of its own. */
export const cargoBuild: SecantusBuilder = async (into, log) => {
  try {
    await runLogged('cargo', ['--version'], () => {})
  } catch {
    throw new MissingCargoError()
  }
  log(`building ${SECANTUS_CRATE} ${SECANTUS_VERSION} (secantusd-rs) once with cargo: about 6 minutes on 2 cores`)
  await runLogged('cargo', ['install', SECANTUS_CRATE, '--version', SECANTUS_VERSION, '--ignore-rust-version', '--root', into], log)
}

export interface SecantusBuildOptions {
  /** the folder the binary is cached in (its bin/secantusd-rs); secantusRoot() by default */
  root?: string
  /** what builds it; cargo by default */
  build?: SecantusBuilder
  /** how often a start waiting for another's build looks again (ms) */
  pollMs?: number
  /** how often the build under way touches its lock (ms) */
  heartbeatMs?: number
  /** a lock untouched for this long (ms) is taken for one a build left when it died */
  staleMs?: number
}

const DEFAULT_BUILD_OPTIONS = { pollMs: 1000, heartbeatMs: 10_000, staleMs: 60_000 }

/** What a build's lock file says of the build that holds it. */
interface LockHolder { pid: number, host: string, startedAt: string }

/** The lock as found: its holder, its text (to remove only that lock), and when it was last touched. */
interface FoundLock { holder: LockHolder, text: string, touchedAt: number }

function isAlive (pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // a process of another user's is alive too
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** The lock at `path`, or null when there is none (or it went while it was read). */
async function readLock (path: string): Promise<FoundLock | null> {
  try {
    const [text, stats] = await Promise.all([readFile(path, 'utf8'), stat(path)])
    let parsed: Partial<LockHolder> = {}
    try {
      parsed = JSON.parse(text) as Partial<LockHolder>
    } catch {
      // not one this code wrote (locks are written whole): judged by its age alone
    }
    const holder = { pid: Number(parsed.pid ?? 0), host: String(parsed.host ?? ''), startedAt: String(parsed.startedAt ?? stats.mtime.toISOString()) }
    return { holder, text, touchedAt: stats.mtimeMs }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw error
  }
}

/** Why a lock is one a build left behind when it died, or null while its build may still run. */
function abandonment (lock: FoundLock, staleMs: number): string | null {
  const { pid, host } = lock.holder
  if (host === hostname() && Number.isInteger(pid) && pid > 0 && !isAlive(pid)) return `its process ${pid} is no longer running`
  const untouchedMs = Date.now() - lock.touchedAt
  if (untouchedMs > staleMs) return `it has not been touched for ${Math.round(untouchedMs / 1000)} seconds`
  return null
}

/**
 * Takes the lock at `path` if it is free: its text when this process holds it now, null when
 * another does. Written whole beside it and linked into place, which fails if a lock is there: no
 * start ever reads a lock half written.
 */
async function takeLock (path: string): Promise<{ text: string } | null> {
  const text = JSON.stringify({ pid: process.pid, host: hostname(), startedAt: new Date().toISOString() })
  const written = `${path}.${process.pid}.${randomBytes(4).toString('hex')}`
  await writeFile(written, text)
  try {
    await link(written, path)
    return { text }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return null
    throw error
  } finally {
    await rm(written, { force: true })
  }
}

/** Removes the lock at `path` if it is still the one read as `text`: never a lock another start has taken since. */
async function removeLock (path: string, text: string): Promise<void> {
  if ((await readFile(path, 'utf8').catch(() => null)) === text) await rm(path, { force: true })
}

/**
 * Returns the secantusd-rs binary, building it once per machine. The crate declares a newer Rust
 * than some machines have; it builds with older ones, hence --ignore-rust-version.
 *
 * One build at a time: the build holds a lock file beside the cache folder, and a start that finds
 * it held (a second `npm start`, `npm test`, `npm run install-database`) says so and waits, then
 * uses the binary that build made; two builds side by side would each take the machine's cores
 * and both finish far later. The build touches its lock every few seconds; a lock whose process is
 * gone (on this machine), or that nobody touched for a while (a build stopped, a lock on a shared
 * disk), is taken over. Should two builds still run at once, each builds into a folder of its own
 * that is renamed into place whole, so a start sees either no binary or a complete one.
 */
export async function ensureSecantus (log: (line: string) => void = () => {}, options: SecantusBuildOptions = {}): Promise<string> {
  const { pollMs, heartbeatMs, staleMs } = { ...DEFAULT_BUILD_OPTIONS, ...options }
  const build = options.build ?? cargoBuild
  const root = options.root ?? secantusRoot()
  const binary = join(root, 'bin', BINARY)
  if (await isExecutable(binary)) return binary

  await mkdir(dirname(root), { recursive: true })
  const lockPath = `${root}.lock`
  let waitingFor: string | null = null
  for (;;) {
    const held = await takeLock(lockPath)
    if (held !== null) {
      try {
        // a build that ended while this start waited for the lock
        if (await isExecutable(binary)) return binary
        return await buildHoldingLock(root, binary, build, log, () => utimes(lockPath, new Date(), new Date()), heartbeatMs)
      } finally {
        await removeLock(lockPath, held.text)
      }
    }
    const lock = await readLock(lockPath)
    if (lock === null) continue
    const abandoned = abandonment(lock, staleMs)
    if (abandoned !== null) {
      log(`taking over the build of the database started at ${lock.holder.startedAt} by process ${lock.holder.pid}: ${abandoned}`)
      await removeLock(lockPath, lock.text)
      if (lock.holder.host === hostname() && lock.holder.pid > 0) await rm(`${root}.${lock.holder.pid}.partial`, { recursive: true, force: true })
      continue
    }
    if (waitingFor !== lock.text) {
      waitingFor = lock.text
      log(`waiting for another build of the database, started at ${lock.holder.startedAt} by process ${lock.holder.pid}; this start goes on once it is built`)
    }
    await sleep(pollMs)
    if (await isExecutable(binary)) {
      log(`the other build is done: ${binary}`)
      return binary
    }
  }
}

/** Builds into a folder of this process's own and renames it into place, touching the lock meanwhile. */
async function buildHoldingLock (root: string, binary: string, build: SecantusBuilder, log: (line: string) => void,
  touchLock: () => Promise<void>, heartbeatMs: number): Promise<string> {
  const partial = `${root}.${process.pid}.partial`
  const heartbeat = setInterval(() => { touchLock().catch(() => {}) }, heartbeatMs)
  heartbeat.unref()
  await rm(partial, { recursive: true, force: true })
  try {
    await build(partial, log)
    await rename(partial, root).catch(async (error: unknown) => {
      // another build finished first (one that took this one for abandoned): its binary is as good
      if (!await isExecutable(binary)) throw error
    })
  } finally {
    clearInterval(heartbeat)
    await rm(partial, { recursive: true, force: true })
  }
  log(`${SECANTUS_CRATE} built: ${binary}`)
  return binary
}
