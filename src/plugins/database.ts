import fp from 'fastify-plugin'
import { setTimeout as sleep } from 'node:timers/promises'
import { MongoClient, MongoError, MongoServerSelectionError, type Db } from 'mongodb'
import { ConfigError } from '../config.js'
import type { DatabaseProcessState } from '../db/embedded.js'
import { DATABASE_RETRY_AFTER_SECONDS, isDatabaseUnavailable } from './errors.js'
import { timedDatabase } from '../db/timed-calls.js'
import { ensureIndexes } from '../repositories/indexes.js'
import { DEFAULT_MIGRATION_OPTIONS, migrate } from '../repositories/migrations.js'
import { repositoriesOf, repositoryCaches, type RepositoryCaches, type Repositories } from '../repositories/index.js'
import { invalidToken, Refusal } from '../domain/refusals.js'

declare module 'fastify' {
  interface FastifyInstance {
    databaseClient: MongoClient
    repositories: Repositories
    /**
     * Runs `work` as one transaction, with repositories whose every call
     * belongs to it: all of its writes are stored, or none. Transient errors
     * (a write conflict with a concurrent request) run it again from the start.
     */
    transaction: <T>(work: (repositories: Repositories) => Promise<T>) => Promise<T>
    /**
     * A transaction that writes the user's data, starting with the account
     * (users.lockForWrite): two of one user conflict and run one after the
     * other. 401 when the account is gone.
     */
    userTransaction: <T>(userID: string, work: (repositories: Repositories) => Promise<T>) => Promise<T>
    /** the embedded database process's state, or null when the service runs none */
    databaseProcessState: () => DatabaseProcessState | null
    /** true when the database answers a ping within `timeoutMs` (default: the readiness timeout) */
    databaseIsReady: (timeoutMs?: number) => Promise<boolean>
  }
}

export interface DatabaseOptions {
  /** mongodb:// URL; its path names the database (default `flashcards`) */
  url: string
  timeouts?: Partial<DatabaseTimeouts>
  /** the driver's command events (the benchmark's explain listens to them); each costs a second decoding of every reply */
  monitorCommands?: boolean
  /** the embedded database process's state: while it is not running, requests get 503 at once */
  processState?: () => DatabaseProcessState
}

/**
 * How long the service waits on the database. An unreachable database must
 * turn into a quick 503 the client can retry, not a request that hangs until
 * the client gives up; the driver's own defaults wait 30 s or forever.
 */
export interface DatabaseTimeouts {
  /** an operation waits this long for a reachable server, then fails (503) */
  serverSelectionMs: number
  /** one attempt to open a connection */
  connectMs: number
  /** a socket waits this long for an answer: bounds an operation on a database that hangs without closing */
  socketMs: number
  /** /health waits this long for the database's answer to a ping */
  readinessMs: number
  /** start-up keeps trying to reach the database this long (it may be starting alongside the service) */
  startupMs: number
  /** a transaction that meets write conflicts is tried again until this long has passed */
  conflictRetryMs: number
  /** start-up waits this long for another instance's run of the migrations to finish, then fails */
  migrationWaitMs: number
}

export const DEFAULT_DATABASE_TIMEOUTS: DatabaseTimeouts = {
  // an operation of a failing request may wait this long several times (the driver's retry,
  // the request's clean-up), and the whole answer should still come within a second
  serverSelectionMs: 200,
  connectMs: 2000,
  socketMs: 10_000,
  readinessMs: 1000,
  startupMs: 30_000,
  conflictRetryMs: 10_000,
  migrationWaitMs: DEFAULT_MIGRATION_OPTIONS.waitMs
}

const DEFAULT_DATABASE = 'flashcards'

/** The database named in the URL's path (`mongodb://host/name?options`), or the default. */
export function databaseName (url: string): string {
  const path = /^mongodb(?:\+srv)?:\/\/[^/]*\/([^?]*)/.exec(url)?.[1]
  return path === undefined || path === '' ? DEFAULT_DATABASE : decodeURIComponent(path)
}

/**
 * Connects, trying again until `withinMs` has passed: the short server
 * selection time that makes an outage fail fast would otherwise make a
 * database still starting stop the service.
 */
async function connectWithin (client: MongoClient, withinMs: number, warn: (message: string) => void): Promise<void> {
  const deadline = Date.now() + withinMs
  for (;;) {
    try {
      await client.connect()
      return
    } catch (error) {
      if (!(error instanceof MongoServerSelectionError) || Date.now() >= deadline) throw error
      warn(`database not reachable yet (${error.message}); trying again`)
      await sleep(Math.min(1000, Math.max(0, deadline - Date.now())))
    }
  }
}

/**
 * Works around a hang in the driver (mongodb 7.9): when the server closes the
 * monitoring connection just as a heartbeat is written to it, the write waits
 * for a 'drain' that never comes, the heartbeat never ends, and the client
 * never sees the database come back; every request would answer 503 until the
 * service restarts. A heartbeat that runs past every time limit it has is taken
 * as stuck: the client is closed, which drops the stuck monitor, and connected
 * again, trying every second until the database answers. Returns a function
 * that stops watching and waits for a reconnection under way.
 */
function reconnectWhenMonitoringHangs (client: MongoClient, timeouts: DatabaseTimeouts, warn: (message: string) => void): () => Promise<void> {
  // a check connects (connectMs) and waits for its answer (connectMs); a streaming one also waits for news
  const limitMs = (awaited: boolean): number => 2 * timeouts.connectMs + 1000 + (awaited ? client.options.heartbeatFrequencyMS : 0)
  const running = new Map<string, { since: number, awaited: boolean }>()
  client.on('serverHeartbeatStarted', (event) => running.set(event.connectionId, { since: Date.now(), awaited: event.awaited }))
  client.on('serverHeartbeatSucceeded', (event) => running.delete(event.connectionId))
  client.on('serverHeartbeatFailed', (event) => running.delete(event.connectionId))

  let stopped = false
  let reconnecting: Promise<void> | null = null
  async function reconnect (): Promise<void> {
    await client.close().catch(() => {})
    while (!stopped) {
      try {
        await client.connect()
        return
      } catch {
        await sleep(1000)
      }
    }
  }
  const timer = setInterval(() => {
    if (reconnecting !== null) return
    const now = Date.now()
    const stuck = [...running.entries()].find(([, heartbeat]) => now - heartbeat.since > limitMs(heartbeat.awaited))
    if (stuck === undefined) return
    warn(`the database client's heartbeat to ${stuck[0]} has been running for ${now - stuck[1].since} ms; reconnecting`)
    running.clear()
    reconnecting = reconnect().finally(() => { reconnecting = null })
  }, 500)
  timer.unref()
  return async () => {
    stopped = true
    clearInterval(timer)
    await reconnecting
  }
}

/**
 * Transactions need a replica set (or a sharded cluster); a standalone
 * MongoDB refuses them at the first write, so the service refuses to start.
 */
async function checkTransactions (db: Db): Promise<void> {
  const hello = await db.admin().command({ hello: 1 })
  if (typeof hello.setName === 'string' || hello.msg === 'isdbgrid') return
  throw new ConfigError('MONGODB_URL: the server is a standalone MongoDB, which cannot run transactions; every write of this service\n' +
    'that changes several documents runs in one. Run MongoDB as a replica set (a single member is enough:\n' +
    'mongod --replSet rs0, then rs.initiate(); docker-compose.yml does this) and add ?replicaSet=rs0 to MONGODB_URL.')
}

/**
 * The driver's withTransaction tries a transaction again for up to two
 * minutes. A write conflict deserves a few more tries; a database that cannot
 * be reached deserves a quick 503, so that the client retries later instead
 * of waiting: once the time allowed for the last error's kind has passed,
 * the attempt stops before touching the database.
 */
export async function inTransaction<T> (client: MongoClient, db: Db, caches: RepositoryCaches, timeouts: DatabaseTimeouts, work: (repositories: Repositories) => Promise<T>): Promise<T> {
  const session = client.startSession()
  const startedAt = Date.now()
  let lastError: MongoError | null = null
  try {
    return await session.withTransaction(async () => {
      if (lastError !== null) {
        const allowedMs = isDatabaseUnavailable(lastError) ? timeouts.serverSelectionMs * 4 : timeouts.conflictRetryMs
        if (Date.now() - startedAt > allowedMs) {
          throw new Refusal('database_unavailable', 'the database is busy or unavailable; nothing was stored: retry shortly', DATABASE_RETRY_AFTER_SECONDS)
        }
      }
      try {
        return await work(repositoriesOf(db, session, caches))
      } catch (error) {
        if (error instanceof MongoError) lastError = error
        throw error
      }
    })
  } finally {
    await session.endSession()
  }
}

/**
 * Runs one user's transactions of this instance one after another. They
 * would conflict on the account anyway (userTransaction writes it first),
 * and a conflict runs the loser again from the start, after a wait: a burst
 * of one user's edits is served sooner in turn than by retries. Another
 * instance's transactions still conflict, and are run again as before.
 */
function userQueues () {
  const last = new Map<string, Promise<Error | null>>()
  return async <T>(userID: string, work: () => Promise<T>): Promise<T> => {
    const previous = last.get(userID) ?? Promise.resolve(null)
    // when the one before found the database unreachable, the ones waiting behind it fail
    // with it at once, rather than each waiting out the same failure in turn
    const mine = previous.then(async (failure) => {
      if (failure !== null && databaseAway(failure)) throw failure
      return await work()
    })
    const settled = mine.then(() => null, (error: unknown) => error instanceof Error ? error : new Error(String(error)))
    last.set(userID, settled)
    try {
      return await mine
    } finally {
      if (last.get(userID) === settled) last.delete(userID)
    }
  }
}

function databaseAway (error: Error): boolean {
  return isDatabaseUnavailable(error) || (error instanceof Refusal && error.code === 'database_unavailable')
}

export default fp<DatabaseOptions>(async function database (app, options) {
  const timeouts = { ...DEFAULT_DATABASE_TIMEOUTS, ...options.timeouts }
  const client = new MongoClient(options.url, {
    serverSelectionTimeoutMS: timeouts.serverSelectionMs,
    connectTimeoutMS: timeouts.connectMs,
    socketTimeoutMS: timeouts.socketMs,
    appName: 'flashcard-service',
    monitorCommands: options.monitorCommands ?? false,
    // every string stored came through json-body.ts, which refuses text that is not Unicode:
    // checking it again on every read is decoding time each card of a tree pays
    enableUtf8Validation: false
  })
  await connectWithin(client, timeouts.startupMs, (message) => app.log.warn(message))
  const stopWatching = reconnectWhenMonitoringHangs(client, timeouts, (message) => app.log.warn(message))
  app.addHook('onClose', async () => {
    await stopWatching()
    await client.close()
  })

  // every call is timed for the Server-Timing header (plugins/timing.ts)
  const db = timedDatabase(client.db(databaseName(options.url)))
  try {
    await checkTransactions(db)
    await ensureIndexes(db)
    await migrate(db, (message) => app.log.info(message), { waitMs: timeouts.migrationWaitMs })
  } catch (error) {
    // the app never becomes ready, so its onClose hooks would not run
    await stopWatching()
    await client.close()
    throw error
  }

  const caches = repositoryCaches()
  const oneAfterAnother = userQueues()
  app.decorate('databaseClient', client)
  app.decorate('repositories', repositoriesOf(db, undefined, caches))
  app.decorate('transaction', async <T>(work: (repositories: Repositories) => Promise<T>): Promise<T> => await inTransaction(client, db, caches, timeouts, work))
  app.decorate('userTransaction', async <T>(userID: string, work: (repositories: Repositories) => Promise<T>): Promise<T> =>
    await oneAfterAnother(userID, async () => await inTransaction(client, db, caches, timeouts, async (repositories) => {
      if (!await repositories.users.lockForWrite(userID)) throw invalidToken()
      return await work(repositories)
    })))

  const processState = options.processState
  if (processState !== undefined) {
    // the embedded database is known to be down: answer at once rather than wait for the driver to give up
    app.addHook('onRequest', async (request) => {
      if (request.url.startsWith('/api/') && processState() !== 'running') {
        throw new Refusal('database_unavailable', 'the database is restarting; nothing was stored: retry shortly', DATABASE_RETRY_AFTER_SECONDS)
      }
    })
  }
  app.decorate('databaseProcessState', () => processState?.() ?? null)
  app.decorate('databaseIsReady', async (timeoutMs = timeouts.readinessMs) => {
    if (processState !== undefined && processState() !== 'running') return false
    // the driver (7.x) has no per-operation time limit, so the ping races a timer
    const timer = new AbortController()
    const ping = db.command({ ping: 1 }).then(() => true, () => false)
    const late = sleep(timeoutMs, false, { signal: timer.signal }).catch(() => false)
    try {
      return await Promise.race([ping, late])
    } finally {
      timer.abort()
    }
  })
}, { name: 'database' })
