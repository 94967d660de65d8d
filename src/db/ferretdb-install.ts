import { execFile } from 'node:child_process'
import { access, chmod, cp, mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises'
import { constants } from 'node:fs'
import { homedir, tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'

const run = promisify(execFile)

export const FERRETDB_MODULE = 'github.com/FerretDB/FerretDB'
export const FERRETDB_VERSION = 'v1.24.2'

/** Where the built binary is cached, outside the work tree so fresh clones reuse it. */
export function ferretdbBinaryPath (env: NodeJS.ProcessEnv = process.env): string {
  const cacheRoot = env.XDG_CACHE_HOME ?? join(homedir(), '.cache')
  return join(cacheRoot, 'flashcard-service', `ferretdb-${FERRETDB_VERSION}`, 'ferretdb')
}

async function exists (path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK)
    return true
  } catch {
    return false
  }
}

export class MissingGoError extends Error {
  override name = 'MissingGoError'
  constructor () {
    super('The embedded database (FerretDB) is built from source with Go, and `go` was not found.\n' +
      'Install Go 1.21 or newer (Debian: `apt-get install golang`, or see go.dev/doc/install),\n' +
      'or set MONGODB_URL to use a MongoDB server of your own instead.')
  }
}

/**
 * Returns the FerretDB binary, building it once through the Go module proxy.
 *
 * `go install …@v1.24.2` is not used: it also asks the proxy for the module's
 * version list (to report deprecation), which a proxy restricted to exact
 * versions refuses. `go mod download` of the exact version works everywhere;
 * the source is copied out of the read-only module cache so that the version
 * file FerretDB embeds can be written, then built.
 */
export async function ensureFerretdb (log: (line: string) => void = () => {}): Promise<string> {
  const binary = ferretdbBinaryPath()
  if (await exists(binary)) return binary

  try {
    await run('go', ['version'])
  } catch {
    throw new MissingGoError()
  }

  log(`building FerretDB ${FERRETDB_VERSION} once (about a minute); it is cached in ${binary}`)
  const { stdout } = await run('go', ['mod', 'download', '-json', `${FERRETDB_MODULE}@${FERRETDB_VERSION}`], {
    maxBuffer: 16 * 1024 * 1024
  })
  const moduleDir = (JSON.parse(stdout) as { Dir: string }).Dir
  const workDir = await mkdtemp(join(tmpdir(), 'ferretdb-build-'))
  try {
    const sourceDir = join(workDir, 'src')
    await cp(moduleDir, sourceDir, { recursive: true })
    await run('chmod', ['-R', 'u+w', sourceDir])
    await writeFile(join(sourceDir, 'build', 'version', 'version.txt'), `${FERRETDB_VERSION}\n`)
    // built beside its final place, so that the rename below stays on one file system
    await mkdir(dirname(binary), { recursive: true })
    const built = `${binary}.${process.pid}.partial`
    await run('go', ['build', '-trimpath', '-o', built, './cmd/ferretdb'], {
      cwd: sourceDir,
      maxBuffer: 16 * 1024 * 1024,
      env: { ...process.env, CGO_ENABLED: '0', GOFLAGS: '-mod=mod' }
    })
    await chmod(built, 0o755)
    // rename is atomic: a concurrent start sees either no binary or a whole one
    await rename(built, binary)
  } finally {
    await rm(workDir, { recursive: true, force: true })
  }
  log('FerretDB built')
  return binary
}
