import { AsyncLocalStorage } from 'node:async_hooks'
import { performance } from 'node:perf_hooks'
import { AbstractCursor, AggregationCursor, Collection, FindCursor, type Db, type Document } from 'mongodb'

/** Where one request's time went so far: database calls against the rest. */
export interface RequestTiming {
  startedAt: number
  /** wall time with at least one database call running: overlapping calls count once */
  databaseMs: number
  /** database calls made; each is one round trip unless a cursor reads past its first batch */
  calls: number
  running: number
  busySince: number
  /** told of each database call once it settles (the metrics' latency of database calls, plugins/metrics.ts) */
  onCall?: (call: DatabaseCall) => void
}

/** One database call of a request, as metrics count it: names from the code, never from the data. */
export interface DatabaseCall {
  /** the collection called, or `(database)` for a command of the database itself */
  collection: string
  /** the method called (`findOne`, `updateOne`...); a cursor's reads are its kind's (`find`, `aggregate`) */
  operation: string
  seconds: number
}

const requests = new AsyncLocalStorage<RequestTiming>()

/** Runs `work` (a request) with a fresh timing that database calls made inside it add to. */
export function timeRequest (work: () => void): void {
  requests.run({ startedAt: performance.now(), databaseMs: 0, calls: 0, running: 0, busySince: 0 }, work)
}

export function requestTiming (): RequestTiming | undefined {
  return requests.getStore()
}

function isPromise (value: unknown): value is Promise<unknown> {
  return value instanceof Promise
}

/**
 * Calls `method` on `target`; when it returns a promise (a call that goes to
 * the database), the time until it settles counts for the current request.
 * The call ends when its documents are in hand: the driver's encoding and
 * decoding belong to it.
 */
function timedCall (target: object, key: PropertyKey, method: (...args: unknown[]) => unknown, args: unknown[]): unknown {
  const timing = requests.getStore()
  if (timing === undefined) return method.apply(target, args)
  const startedAt = performance.now()
  const result = method.apply(target, args)
  if (!isPromise(result)) return result
  timing.calls += 1
  if (timing.running++ === 0) timing.busySince = startedAt
  return result.finally(() => {
    const endedAt = performance.now()
    if (--timing.running === 0) timing.databaseMs += endedAt - timing.busySince
    timing.onCall?.({ ...callSite(target, key), seconds: (endedAt - startedAt) / 1000 })
  })
}

/** The collection and operation of a call, for metrics: their names are the code's, so their number is bounded. */
function callSite (target: object, key: PropertyKey): { collection: string, operation: string } {
  if (target instanceof Collection) return { collection: target.collectionName, operation: String(key) }
  if (target instanceof AbstractCursor) {
    const operation = target instanceof FindCursor ? 'find' : target instanceof AggregationCursor ? 'aggregate' : 'cursor'
    return { collection: target.namespace.collection ?? '(database)', operation }
  }
  return { collection: '(database)', operation: String(key) }
}

/**
 * `target` with its methods timed; what they return that `wrap` recognises
 * (a cursor, a collection) is timed in turn, and chained calls that return
 * `target` itself keep returning the timed one.
 */
function timed<T extends object> (target: T, wrap: (value: unknown) => unknown): T {
  const methods = new Map<PropertyKey, (...args: unknown[]) => unknown>()
  const proxy: T = new Proxy(target, {
    get (object, key) {
      const value: unknown = Reflect.get(object, key, object)
      if (typeof value !== 'function') return value
      let method = methods.get(key)
      if (method === undefined) {
        method = (...args: unknown[]) => {
          const result = timedCall(object, key, value as (...args: unknown[]) => unknown, args)
          return result === object ? proxy : wrap(result)
        }
        methods.set(key, method)
      }
      return method
    }
  })
  return proxy
}

function timedCursor (value: unknown): unknown {
  return value instanceof AbstractCursor ? timed(value, timedCursor) : value
}

function timedCollection<T extends Document> (collection: Collection<T>): Collection<T> {
  return timed(collection, timedCursor)
}

/**
 * `db` with every call its collections make timed for the request that made
 * it: the `db` part of the Server-Timing header (plugins/timing.ts). This
 * replaces the driver's command monitoring, which decodes every reply a
 * second time to hand it to its listeners.
 */
export function timedDatabase (db: Db): Db {
  return timed(db, (value) => value instanceof Collection ? timedCollection(value) : timedCursor(value))
}
