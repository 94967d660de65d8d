import { spawn, type ChildProcess } from 'node:child_process'
import { mkdir } from 'node:fs/promises'
import { resolve } from 'node:path'
import { ensureFerretdb } from './ferretdb-install.js'

export interface EmbeddedDatabase {
  /** mongodb:// address of the running server, without a database name */
  url: string
  stop: () => Promise<void>
}

export interface EmbeddedDatabaseOptions {
  /** the SQLite files and FerretDB's state live here */
  dataDir: string
  log?: (line: string) => void
  startTimeoutMs?: number
  /** loopback port to listen on; 0 (the default) lets the system pick a free one */
  port?: number
}

const LISTENING = /Listening on TCP (127\.0\.0\.1:\d+)/

/**
 * Starts FerretDB (a MongoDB wire-protocol server) on SQLite files under
 * `dataDir`, on a loopback port (the one asked for, or one the system picks),
 * and resolves once it listens. Started again on the same folder and port, it
 * serves the same data at the same address, as a restarted server would.
 */
export async function startEmbeddedDatabase (options: EmbeddedDatabaseOptions): Promise<EmbeddedDatabase> {
  const log = options.log ?? (() => {})
  const binary = await ensureFerretdb(log)
  const dataDir = resolve(options.dataDir)
  await mkdir(dataDir, { recursive: true })

  const child = spawn(binary, [
    '--handler=sqlite',
    `--sqlite-url=file:${dataDir}/`,
    `--state-dir=${dataDir}`,
    `--listen-addr=127.0.0.1:${options.port ?? 0}`,
    '--debug-addr=-',
    '--telemetry=disable',
    '--log-level=info', // the "Listening on" line that reveals the port is at info level
    '--log-format=console'
  ], {
    stdio: ['ignore', 'pipe', 'pipe'],
    // FerretDB decodes every stored document it scans (on SQLite it filters only _id in
    // the database) and spends much of that in Go's collector: collecting at 5x the live
    // heap rather than 2x made a 122,000-document scan 30-40% faster, for a peak of 151 MB
    // instead of 92 MB over a whole `npm run bench`. GOGC set in the environment wins.
    env: { ...process.env, GOGC: process.env.GOGC ?? '400' }
  })

  // last resort: never leave the database running after this process is gone
  const killOnExit = (): void => { child.kill('SIGKILL') }
  process.once('exit', killOnExit)
  const address = await waitForAddress(child, options.startTimeoutMs ?? 30_000)
  return {
    url: `mongodb://${address}`,
    stop: async () => {
      await stopProcess(child)
      process.off('exit', killOnExit)
    }
  }
}

function waitForAddress (child: ChildProcess, timeoutMs: number): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    let output = ''
    const timer = setTimeout(() => fail(new Error(`FerretDB did not start within ${timeoutMs} ms`)), timeoutMs)
    const onData = (chunk: Buffer): void => {
      output = (output + chunk.toString()).slice(-8192)
      const match = LISTENING.exec(output)
      if (match?.[1] !== undefined) {
        clearTimeout(timer)
        child.off('exit', onExit)
        // keep draining the pipes so a chatty server never blocks on a full pipe
        child.stdout?.resume()
        child.stderr?.resume()
        resolvePromise(match[1])
      }
    }
    const onExit = (code: number | null): void => {
      fail(new Error(`FerretDB exited with code ${String(code)} before listening:\n${output.trim()}`))
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

async function stopProcess (child: ChildProcess, graceMs = 5000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise<void>((resolvePromise) => child.once('exit', () => resolvePromise()))
  child.kill('SIGTERM')
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs)
  await exited
  clearTimeout(timer)
}
