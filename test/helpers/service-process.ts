// The service as `npm start` runs it, in a child process on the embedded database: for the tests
// that kill it (SIGKILL, its database with it) and start it again on the same data.
import { spawn, type ChildProcess } from 'node:child_process'
import { join } from 'node:path'

export interface RunningService { process: ChildProcess, base: string, databaseUrl: string }

/**
 * Starts the service on the embedded database in `dataDir`, with `settings` (environment
 * variables of docs/configuration.md) over the defaults; resolves once it listens and says where its
 * database is.
 */
export async function startServiceProcess (dataDir: string, settings: Record<string, string>): Promise<RunningService> {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...settings }
  delete env.MONGODB_URL
  delete env.JWT_SECRET
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], { cwd: join(import.meta.dirname, '..', '..'), env, stdio: ['ignore', 'pipe', 'pipe'] })
  let log = ''
  child.stderr?.on('data', (chunk: Buffer) => { log += chunk.toString() })
  return await new Promise<RunningService>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      log += chunk.toString()
      const base = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(log)?.[1]
      const databaseUrl = /the embedded database listens on (mongodb:\/\/127\.0\.0\.1:\d+)/.exec(log)?.[1]
      if (base !== undefined && databaseUrl !== undefined) resolve({ process: child, base, databaseUrl })
    })
    child.once('exit', (code) => reject(new Error(`the service exited (${String(code)}) before listening:\n${log}`)))
  })
}

/** Resolves once `child` has exited (at once if it has). */
export function stopped (child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((resolve) => child.once('exit', () => resolve()))
}

/** An operation through HTTP: its status and JSON answer. */
export async function call (base: string, operation: string, body: object): Promise<{ status: number, body: Record<string, unknown> }> {
  const response = await fetch(`${base}/api/${operation}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal: AbortSignal.timeout(10_000) })
  return { status: response.status, body: await response.json() as Record<string, unknown> }
}
