import { spawn } from 'node:child_process'
import { access, mkdir, rename, rm } from 'node:fs/promises'
import { constants } from 'node:fs'
import { homedir } from 'node:os'
import { dirname, join } from 'node:path'

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

/**
 * Returns the secantusd-rs binary, building it once with cargo from the
 * pinned crate. The crate declares a newer Rust than some machines have;
 * it builds with older ones, hence --ignore-rust-version. The build goes into
 * a folder of its own and is renamed into place whole, so a start racing
 * this one sees either no binary or a complete one.
 */
export async function ensureSecantus (log: (line: string) => void = () => {}): Promise<string> {
  const binary = secantusBinaryPath()
  if (await isExecutable(binary)) return binary

  try {
    await runLogged('cargo', ['--version'], () => {})
  } catch {
    throw new MissingCargoError()
  }

  const root = secantusRoot()
  const partial = `${root}.${process.pid}.partial`
  log(`building ${SECANTUS_CRATE} ${SECANTUS_VERSION} (secantusd-rs) once with cargo: about 6 minutes on 2 cores; it is cached in ${root}`)
  await mkdir(dirname(root), { recursive: true })
  await rm(partial, { recursive: true, force: true })
  try {
    await runLogged('cargo', [
      'install', SECANTUS_CRATE, '--version', SECANTUS_VERSION, '--ignore-rust-version', '--root', partial
    ], log)
    await rename(partial, root).catch(async (error: unknown) => {
      // another start finished first: its build is as good as this one
      if (!await isExecutable(binary)) throw error
    })
  } finally {
    await rm(partial, { recursive: true, force: true })
  }
  log(`${SECANTUS_CRATE} built: ${binary}`)
  return binary
}
