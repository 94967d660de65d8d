// Requests as a client makes them: one after another for latencies, many at
// once (autocannon) for throughput. Both go through HTTP on the loopback.
import autocannon from 'autocannon'

/** A fixed body, or one made for each request (each review its own card and reviewID). */
export type BodySource = string | (() => string)

// a request that takes longer has gone wrong; the run goes on without it
const REQUEST_TIMEOUT_MS = 60_000

/** The value below which `share` of the values lie (nearest rank): 0.5 the median, 0.9 the p90. */
export function percentile (values: readonly number[], share: number): number {
  if (values.length === 0) return NaN
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(share * sorted.length) - 1))] as number
}

export async function post (url: string, body: string): Promise<{ status: number, text: string, serverTiming: string | null }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS)
  })
  return { status: response.status, text: await response.text(), serverTiming: response.headers.get('server-timing') }
}

/** The database's part of an answer's time, as its Server-Timing header gives it (`db;dur=…;desc="N calls"`), or null. */
export function databaseTiming (header: string | null): { ms: number, calls: number } | null {
  const found = header?.match(/(?:^|,)\s*db;dur=([\d.]+);desc="(\d+) calls"/)
  return found === null || found === undefined ? null : { ms: Number(found[1]), calls: Number(found[2]) }
}

export interface Timed {
  /** milliseconds from sending the request to reading the last byte of the answer, one per measured request */
  samples: number[]
  /** the database's part of each measured request, as the service's Server-Timing header says */
  database?: Array<{ ms: number, calls: number }>
  /** the first answer, for the ceiling to serve */
  firstAnswer: string
}

export interface Target {
  url: string
  body: BodySource
  /** what is wrong with an answer (200 already checked), or null */
  check: (text: string) => string | null
}

/**
 * `warmup` requests whose times are dropped (connections, JIT, caches), then
 * `count` measured ones, one after another. With several targets, they take
 * turns request by request, so that what else the machine does meanwhile
 * weighs on each alike. Throws at the first answer that is not 2xx or fails
 * its check.
 */
export async function timeInTurns (targets: readonly Target[], count: number, warmup: number): Promise<Timed[]> {
  const timed = targets.map((): Timed => ({ samples: [], firstAnswer: '' }))
  for (let n = 0; n < warmup + count; n++) {
    for (const [k, { url, body, check }] of targets.entries()) {
      const started = performance.now()
      const { status, text, serverTiming } = await post(url, typeof body === 'string' ? body : body())
      const elapsed = performance.now() - started
      if (status < 200 || status >= 300) throw new Error(`answered ${status}: ${text.slice(0, 300)}`)
      const problem = check(text)
      if (problem !== null) throw new Error(problem)
      const into = timed[k] as Timed
      if (n === 0) into.firstAnswer = text
      if (n >= warmup) {
        into.samples.push(elapsed)
        const database = databaseTiming(serverTiming)
        if (database !== null) (into.database ??= []).push(database)
      }
    }
  }
  return timed
}

export interface LoadResult {
  /** successful answers per second */
  requestsPerSecond: number
  p50: number
  p90: number
  p99: number
  requests: number
  /** answers by HTTP status */
  statuses: Record<string, number>
  /** answers other than 200 by status, errors and timeouts, when there were any */
  problems: string | null
}

let running: autocannon.Instance | null = null

/** Stops a load run under way (the benchmark is being stopped). */
export function stopLoad (): void {
  running?.stop()
}

/** A load run's requests: a POST of a JSON body (the API), or a GET (a media file). */
export type LoadRequest = string | { method: 'GET', headers?: Record<string, string> }

function attack (url: string, request: LoadRequest, connections: number, seconds: number): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    running = autocannon({
      url,
      ...(typeof request === 'string'
        ? { method: 'POST', headers: { 'content-type': 'application/json' }, body: request }
        : { method: 'GET', headers: request.headers ?? {} }),
      connections,
      duration: seconds,
      timeout: 30
    }, (error, result) => {
      running = null
      if (error !== null && error !== undefined) reject(error)
      else resolve(result)
    })
  })
}

/** `connections` clients each sending the next request as soon as the last is answered, for `seconds` after a warm-up of `warmupSeconds`. */
export async function loadRun (url: string, request: LoadRequest, connections: number, seconds: number, warmupSeconds: number): Promise<LoadResult> {
  if (warmupSeconds > 0) await attack(url, request, connections, warmupSeconds)
  const result = await attack(url, request, connections, seconds)
  const statuses = Object.entries(result.statusCodeStats ?? {})
    .filter(([code]) => code !== '200')
    .map(([code, stats]) => `${(stats.count ?? 0).toLocaleString('en')} answered ${code}`)
  if (result.errors > 0) statuses.push(`${result.errors.toLocaleString('en')} errors`)
  if (result.timeouts > 0) statuses.push(`${result.timeouts.toLocaleString('en')} timeouts`)
  return {
    // successful answers only: autocannon's own average counts errors too
    requestsPerSecond: result['2xx'] / result.duration,
    p50: result.latency.p50,
    p90: result.latency.p90,
    p99: result.latency.p99,
    requests: result.requests.total,
    statuses: Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, stats]) => [code, stats.count ?? 0])),
    problems: statuses.length === 0 ? null : statuses.join(', ')
  }
}
