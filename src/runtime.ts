import { access } from 'node:fs/promises'
import { join } from 'node:path'
import type { Config } from './config.js'
import { ConfigError } from './config.js'
import { runningEmbeddedDatabase, startEmbeddedDatabase, type DatabaseProcessEvent, type DatabaseProcessState } from './db/embedded.js'
import { loadOrCreateSecret } from './secret.js'

/** The database the service uses on the embedded server. */
const EMBEDDED_DATABASE = 'flashcards'

export interface Runtime {
  mongodbUrl: string
  jwtSecret: string
  /** the state of the embedded database process; absent when the database is MONGODB_URL's */
  databaseProcess?: () => DatabaseProcessState
  /** stops what was started for this runtime (the embedded database) */
  stop: () => Promise<void>
}

export interface RuntimeLog {
  info: (message: string) => void
  error: (message: string) => void
  fatal: (message: string) => void
}

/** How the embedded database's supervision is told in the log. */
function describe (event: DatabaseProcessEvent): { level: keyof RuntimeLog, message: string } {
  switch (event.kind) {
    case 'exited':
      return { level: 'error', message: `the embedded database exited unexpectedly (code ${String(event.code)}, signal ${String(event.signal)}): requests get 503 until it is back; restarting it` }
    case 'restarted':
      return { level: 'info', message: `the embedded database is running again (restart attempt ${event.attempt})` }
    case 'restart-failed':
      return { level: 'error', message: `restart attempt ${event.attempt} of the embedded database failed: ${event.error.message}` }
    case 'gave-up':
      return { level: 'fatal', message: `the embedded database could not be restarted: ${event.attempts} attempts in a row failed; requests get 503 until the service is started again` }
  }
}

/**
 * The former embedded database kept its files in DATA_DIR/ferretdb. Starting
 * on an empty SecantusDB beside them would look to the user as if their data
 * were gone, so start-up stops and says what to do.
 */
async function refuseFormerDatabase (dataDir: string): Promise<void> {
  const former = join(dataDir, 'ferretdb')
  if (!await access(former).then(() => true, () => false)) return
  throw new ConfigError(`${former} holds data of the former embedded database (FerretDB), which this version no longer runs.\n` +
    'Its data is not carried over by itself. To keep it, export it with the previous version of the service (get-all-cards,\n' +
    'export-flashcard) and import it into this one; then, or to start afresh, move that folder away\n' +
    `(for example: mv ${former} ${former}.old) and start again.`)
}

/**
 * The database and token secret the configuration asks for: MONGODB_URL with
 * JWT_SECRET, or else the embedded SecantusDB in DATA_DIR with a kept secret.
 * Shared by the server and the scripts so that they see the same data.
 * `onDatabaseLost` is called when the embedded database has died and cannot
 * be started again: the caller decides what to do (the server exits).
 */
export async function openRuntime (config: Config, log: RuntimeLog, onDatabaseLost: () => void = () => {}): Promise<Runtime> {
  if (config.MONGODB_URL !== undefined) {
    if (config.JWT_SECRET === undefined) {
      throw new ConfigError('JWT_SECRET: required when MONGODB_URL is set (at least 32 characters), so that every instance signs tokens alike')
    }
    return { mongodbUrl: config.MONGODB_URL, jwtSecret: config.JWT_SECRET, stop: async () => {} }
  }
  await refuseFormerDatabase(config.DATA_DIR)
  const dataDir = join(config.DATA_DIR, 'secantus')
  log.info(`No MONGODB_URL: starting the embedded database (SecantusDB's secantusd-rs on WiredTiger) in ${dataDir}`)
  const jwtSecret = config.JWT_SECRET ?? await loadOrCreateSecret(config.DATA_DIR)
  const embedded = await startEmbeddedDatabase({
    dataDir,
    cacheSize: config.DATABASE_CACHE_SIZE,
    log: log.info,
    report: (event) => {
      const { level, message } = describe(event)
      log[level](message)
      if (event.kind === 'gave-up') onDatabaseLost()
    }
  })
  log.info(`the embedded database listens on ${embedded.url}`)
  return { mongodbUrl: `${embedded.url}/${EMBEDDED_DATABASE}`, jwtSecret, databaseProcess: embedded.state, stop: embedded.stop }
}

/** The database a script works on beside the service (npm run backup, npm run restore). */
export interface ToolDatabase {
  mongodbUrl: string
  /** where that is, in words for the script's messages */
  where: string
  /** stops what the script started (the embedded database, when no service ran it) */
  stop: () => Promise<void>
}

/**
 * The database of the configuration, reached as the service reaches it:
 * MONGODB_URL, or the embedded database in DATA_DIR. When a service runs
 * there, its database is reached at the address it keeps in DATA_DIR
 * (db/embedded.ts) while the service goes on; when none does, the
 * database is started for the script, and stopped by `stop`.
 */
export async function openToolDatabase (config: Config, log: (line: string) => void): Promise<ToolDatabase> {
  if (config.MONGODB_URL !== undefined) {
    return { mongodbUrl: config.MONGODB_URL, where: `the database of MONGODB_URL (${config.MONGODB_URL.replace(/\/\/[^@/]*@/, '//')})`, stop: async () => {} }
  }
  await refuseFormerDatabase(config.DATA_DIR)
  const dataDir = join(config.DATA_DIR, 'secantus')
  // longer than the supervision's restarts take before it gives up
  const running = await runningEmbeddedDatabase(dataDir, 10_000)
  if (running !== null) {
    return { mongodbUrl: `${running}/${EMBEDDED_DATABASE}`, where: `the embedded database of ${dataDir}, which a running service holds (${running})`, stop: async () => {} }
  }
  log(`No service runs on ${dataDir}: starting its embedded database for this`)
  const embedded = await startEmbeddedDatabase({ dataDir, cacheSize: config.DATABASE_CACHE_SIZE, log })
  return { mongodbUrl: `${embedded.url}/${EMBEDDED_DATABASE}`, where: `the embedded database of ${dataDir}`, stop: embedded.stop }
}
