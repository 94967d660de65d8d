import fp from 'fastify-plugin'
import { setTimeout as sleep } from 'node:timers/promises'
import { MongoClient, MongoServerSelectionError, type Db } from 'mongodb'
import { timedDatabase } from '../db/timed-calls.js'
import { ensureIndexes } from '../repositories/indexes.js'
import { usersRepository, type UsersRepository } from '../repositories/users.js'
import { libraryRepository, type LibraryRepository } from '../repositories/library.js'
import { cardsRepository, type CardsRepository } from '../repositories/cards.js'
import { reviewsRepository, type ReviewsRepository } from '../repositories/reviews.js'
import { goalsRepository, type GoalsRepository } from '../repositories/goals.js'

declare module 'fastify' {
  interface FastifyInstance {
    db: Db
    databaseClient: MongoClient
    repositories: Repositories
    /** true when the database answers a ping within `timeoutMs` (default: the readiness timeout) */
    databaseIsReady: (timeoutMs?: number) => Promise<boolean>
  }
}

export interface Repositories {
  users: UsersRepository
  library: LibraryRepository
  cards: CardsRepository
  reviews: ReviewsRepository
  goals: GoalsRepository
}

export interface DatabaseOptions {
  /** mongodb:// URL; its path names the database (default `flashcards`) */
  url: string
  timeouts?: Partial<DatabaseTimeouts>
  /** the driver's command events (the benchmark's explain listens to them); each costs a second decoding of every reply */
  monitorCommands?: boolean
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
}

export const DEFAULT_DATABASE_TIMEOUTS: DatabaseTimeouts = {
  // an operation of a failing request may wait this long several times (the driver's retry,
  // the request's clean-up), and the whole answer should still come within a second
  serverSelectionMs: 200,
  connectMs: 2000,
  socketMs: 10_000,
  readinessMs: 1000,
  startupMs: 30_000
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
  await ensureIndexes(db)

  app.decorate('db', db)
  app.decorate('databaseClient', client)
  app.decorate('repositories', {
    users: usersRepository(db),
    library: libraryRepository(db),
    cards: cardsRepository(db),
    reviews: reviewsRepository(db),
    goals: goalsRepository(db)
  })
  app.decorate('databaseIsReady', async (timeoutMs = timeouts.readinessMs) => {
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
