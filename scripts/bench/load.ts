// Load (autocannon, fixed duration and connections) and the per-request view
// (sequential requests, each one's Server-Timing header read).
import autocannon from 'autocannon'

export interface LoadSettings {
  durationSeconds: number
  warmupSeconds: number
  connections: number
}

export interface LoadResult {
  /** 2xx answers per second */
  requestsPerSecond: number
  /** latency of 2xx answers, whole ms */
  p50: number
  p99: number
  /** every answer, whatever its status */
  requests: number
  /** answers that were not 2xx, connection errors, timeouts: any of them makes the figures suspect */
  non2xx: number
  errors: number
  timeouts: number
  statusCodes: string
}

/** A request body: the same every time, or made afresh for each request. */
export type BodySource = string | (() => string)

let running: autocannon.Instance | null = null

/** Stops the load in progress (Ctrl-C): its promise then settles with what was measured. */
export function stopLoad (): void {
  running?.stop()
}

function attack (url: string, body: BodySource, connections: number, durationSeconds: number): Promise<autocannon.Result> {
  const options: autocannon.Options = {
    url,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    connections,
    duration: durationSeconds,
    timeout: 30,
    // an error answered fast must not pass for a fast answer
    excludeErrorStats: true
  }
  if (typeof body === 'string') {
    options.body = body
  } else {
    // setupRequest runs before every request: each gets its own body
    options.requests = [{ method: 'POST', setupRequest: (request) => ({ ...request, body: body() }) }]
  }
  return new Promise((resolve, reject) => {
    running = autocannon(options, (error, result) => {
      running = null
      if (error !== null && error !== undefined) reject(error)
      else resolve(result)
    })
  })
}

export interface MeasureHooks {
  /** after each run: wait for the work a run left in flight, so the next one starts on a quiet server */
  settle?: () => Promise<void>
  afterWarmup?: () => Promise<void>
}

/** A short run whose figures are thrown away (JIT, connection pools, caches), then the measured one. */
export async function measure (url: string, body: BodySource, settings: LoadSettings, hooks: MeasureHooks = {}): Promise<LoadResult> {
  if (settings.warmupSeconds > 0) {
    await attack(url, body, settings.connections, settings.warmupSeconds)
    await hooks.settle?.()
  }
  await hooks.afterWarmup?.()
  const result = await attack(url, body, settings.connections, settings.durationSeconds)
  await hooks.settle?.()
  const statusCodes = Object.entries(result.statusCodeStats ?? {})
    .map(([code, stats]) => `${code}x${stats.count ?? 0}`).join(' ')
  return {
    // successful answers only: autocannon's own requests.average counts errors too
    requestsPerSecond: result['2xx'] / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    statusCodes
  }
}

export interface TimingSample {
  databaseMs: number
  roundTrips: number
  appMs: number
  totalMs: number
  /** as the client saw it: request sent to last byte read */
  clientMs: number
}

const SERVER_TIMING = /db;dur=([\d.]+);desc="(\d+) calls", app;dur=([\d.]+), total;dur=([\d.]+)/

export function parseServerTiming (header: string | null): Omit<TimingSample, 'clientMs'> | null {
  const match = header === null ? null : SERVER_TIMING.exec(header)
  if (match === null) return null
  return { databaseMs: Number(match[1]), roundTrips: Number(match[2]), appMs: Number(match[3]), totalMs: Number(match[4]) }
}

// generous: on the embedded database one request can take tens of seconds
const REQUEST_TIMEOUT_MS = 180_000

export async function post (url: string, body: string): Promise<Response> {
  return await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS)
  })
}

export interface Sampled {
  samples: TimingSample[]
  /** the first answer's body, as the ceiling app will serve it */
  firstResponse: Buffer | undefined
  /** why sampling stopped early: no answer, an error status, or an answer `check` refused */
  failure: string | undefined
}

function reasonOf (error: unknown): string {
  if (!(error instanceof Error)) return String(error)
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : ''
  return `${error.message}${cause}`
}

/**
 * At least one and up to `count` requests one after another (no contention,
 * so each header shows the request's own cost), starting no new one after
 * `timeLimitMs` so that a slow database cannot stretch the run. `check` sees
 * every answer's body and returns what is wrong with it, if anything. The
 * first failure ends the sampling and is reported, not thrown: one operation
 * that cannot be measured should not cost the figures of the others.
 */
export interface SampleCount {
  /** requests to send */
  count: number
  /** stop after this long... */
  timeLimitMs: number
  /** ...but not before this many */
  atLeast: number
}

export async function sampleTimings (url: string, body: BodySource, { count, timeLimitMs, atLeast }: SampleCount, check?: (response: Buffer) => string | null): Promise<Sampled> {
  const samples: TimingSample[] = []
  let firstResponse: Buffer | undefined
  const deadline = Date.now() + timeLimitMs
  for (let n = 0; n < Math.max(1, count) && (n < Math.max(1, atLeast) || Date.now() < deadline); n++) {
    const started = performance.now()
    let response: Response
    let bytes: Buffer
    try {
      response = await post(url, typeof body === 'string' ? body : body())
      bytes = Buffer.from(await response.arrayBuffer())
    } catch (error) {
      return { samples, firstResponse, failure: `no answer after ${((performance.now() - started) / 1000).toFixed(1)} s (${reasonOf(error)})` }
    }
    const clientMs = performance.now() - started
    if (response.status !== 200) return { samples, firstResponse, failure: `answered ${response.status}: ${bytes.toString().slice(0, 300)}` }
    const problem = check?.(bytes) ?? null
    if (problem !== null) return { samples, firstResponse, failure: problem }
    firstResponse ??= bytes
    const timing = parseServerTiming(response.headers.get('server-timing'))
    if (timing === null) return { samples, firstResponse, failure: 'answered without a readable Server-Timing header' }
    samples.push({ ...timing, clientMs })
  }
  return { samples, firstResponse, failure: undefined }
}

export function median (values: readonly number[]): number {
  if (values.length === 0) return NaN
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle] as number : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2
}
