// `npm run soak`: the service as deployed (a child process on a loopback port,
// on the embedded SecantusDB) under simulated users for a fixed time, then a
// check of the database against every write the service acknowledged.
//
// Each simulated user works one request at a time (so at most SOAK_USERS
// requests are in flight, plus the deliberate duplicates): registers, logs in
// now and then, creates folders and flashcards, adds and edits cards, reads
// today's cards and reviews them with a reviewID (sometimes sending the same
// review twice at once, or again after its answer, as a client retrying would),
// undoes reviews, sets goals and reads its statistics.
//
// SOAK_SECONDS (default 180) and SOAK_USERS (default 20), or --seconds=N and
// --users=N. Loopback only; it stops by itself (a hard limit of the duration
// plus two minutes), stops the service and the database, and deletes its files.
// Exit code 0 when no request failed with a 5xx, no acknowledged write is
// missing, every user's XP is 10 per review in the log, the service stopped
// cleanly and its memory settled; 1 otherwise.
import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes, randomUUID } from 'node:crypto'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { createInterface } from 'node:readline'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { MongoClient } from 'mongodb'
import { startEmbeddedDatabase, type EmbeddedDatabase } from '../src/db/embedded.js'
import type { FolderNode } from '../src/domain/library-tree.js'
import { freePort } from './bench/processes.js'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')

function setting (name: string, flag: string, fallback: number): number {
  const text = process.argv.find((arg) => arg.startsWith(`--${flag}=`))?.slice(flag.length + 3) ?? process.env[name]
  if (text === undefined || text === '') return fallback
  const value = Number(text)
  if (!Number.isInteger(value) || value < 1) {
    console.error(`${name} (--${flag}) must be a whole number of at least 1, got ${JSON.stringify(text)}`)
    process.exit(2)
  }
  return value
}

const SECONDS = setting('SOAK_SECONDS', 'seconds', 180)
const USERS = setting('SOAK_USERS', 'users', 20)
const WARM_UP_SECONDS = Math.min(30, SECONDS / 2)
const XP_PER_REVIEW = 10
// the service allows 30 login/register attempts a minute from one address: stay under it
const AUTH_PER_MINUTE = 28

// ---- the service as a child process

interface Service {
  child: ChildProcess
  origin: string
  exited: Promise<number | null>
  /** log lines at warn level or above, by message */
  warnings: Map<string, number>
}

async function startService (mongodbUrl: string): Promise<Service> {
  const port = await freePort()
  // node itself, not npm: the pid is the process whose memory is read
  const child = spawn(process.execPath, [...(process.env.SOAK_PROF ? ['--cpu-prof', '--cpu-prof-dir=/tmp/prof'] : []), '--import', 'tsx', 'src/server.ts'], {
    cwd: root,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', MONGODB_URL: mongodbUrl, JWT_SECRET: randomBytes(32).toString('hex'), LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  const exited = new Promise<number | null>((resolvePromise) => child.once('exit', (code) => resolvePromise(code)))
  const warnings = new Map<string, number>()
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream }).on('line', (line) => {
      let message = line
      try {
        const entry = JSON.parse(line) as { msg?: string, err?: { type?: string, message?: string } }
        message = `${entry.msg ?? ''}${entry.err === undefined ? '' : `: ${entry.err.type ?? 'Error'}: ${entry.err.message ?? ''}`}`
      } catch {
        // not a log line: counted as it is
      }
      warnings.set(message, (warnings.get(message) ?? 0) + 1)
    })
  }
  const origin = `http://127.0.0.1:${port}`
  const deadline = Date.now() + 60_000
  while (Date.now() < deadline && child.exitCode === null) {
    const status = await fetch(`${origin}/health`, { signal: AbortSignal.timeout(2000) }).then((response) => response.status, () => 0)
    if (status === 200) return { child, origin, exited, warnings }
    await sleep(100)
  }
  child.kill('SIGKILL')
  throw new Error(`the service did not answer /health within a minute (exit code ${String(child.exitCode)}): ${[...warnings.keys()].join(' | ')}`)
}

/** Resident memory of a process (Linux /proc), bytes; null once it is gone. */
async function rssOf (pid: number): Promise<number | null> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => null)
  const kilobytes = status === null ? undefined : /^VmRSS:\s+(\d+) kB/m.exec(status)?.[1]
  return kilobytes === undefined ? null : Number(kilobytes) * 1024
}

// ---- requests and what they acknowledged

const statuses = new Map<string, number>()
const latencies: number[] = []
let requests = 0

interface Answer { status: number, body: Record<string, unknown> }

/** Requests turned away with 503 (overload, or the database restarting) that were sent again, as a client would. */
let turnedAway = 0
const MAX_ATTEMPTS = 20

/**
 * One request, sent again after its Retry-After (at most a second here) when
 * it is turned away with 503, as a client should: a 503 stores nothing, so
 * sending a write again is safe, and a write that had stored something
 * would now clash (409) and be counted. A network error or time-out comes
 * back as status 0 (and is counted by its cause).
 */
async function call (origin: string, operation: string, body: Record<string, unknown>): Promise<Answer> {
  for (let attempt = 1; ; attempt++) {
    const { answer, retryAfter } = await callOnce(origin, operation, body)
    if (answer.status !== 503 || attempt === MAX_ATTEMPTS) return answer
    turnedAway += 1
    await sleep(Math.min(1000, retryAfter * 1000) * (0.5 + Math.random() / 2))
  }
}

async function callOnce (origin: string, operation: string, body: Record<string, unknown>): Promise<{ answer: Answer, retryAfter: number }> {
  const started = performance.now()
  let retryAfter = 1
  requests += 1
  let answer: Answer
  let label: string
  try {
    const response = await fetch(`${origin}/api/${operation}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(30_000)
    })
    const text = await response.text()
    answer = { status: response.status, body: text === '' ? {} : JSON.parse(text) as Record<string, unknown> }
    label = String(response.status)
    retryAfter = Number(response.headers.get('retry-after') ?? 1) || 1
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name
    answer = { status: 0, body: {} }
    label = `network ${cause}`
  }
  latencies.push(performance.now() - started)
  statuses.set(`${operation} ${label}`, (statuses.get(`${operation} ${label}`) ?? 0) + 1)
  return { answer, retryAfter }
}

/** Every write the service acknowledged with a 2xx, to look for in the database at the end. */
interface Acknowledged {
  folders: string[]
  flashcards: string[]
  cards: Array<{ flashcardID: string, cardID: string }>
  /** card id -> the front its last acknowledged edit gave it */
  edits: Map<string, string>
  /** reviewIDs of reviews acknowledged and not undone since */
  reviews: Set<string>
  undone: number
  goals: string[]
}

const authCalls: number[] = []

/** Waits until a login or register keeps within the service's allowance of attempts per minute. */
async function authTurn (): Promise<void> {
  for (;;) {
    const now = Date.now()
    while (authCalls.length > 0 && (authCalls[0] ?? now) <= now - 61_000) authCalls.shift()
    if (authCalls.length < AUTH_PER_MINUTE) {
      authCalls.push(now)
      return
    }
    await sleep(500)
  }
}

const pick = <T>(items: readonly T[]): T | undefined => items[Math.floor(Math.random() * items.length)]

/** The [flashcardID, cardID] pairs of a tree of today's cards. */
function cardsInTree (tree: unknown, found: Array<{ flashcardID: string, cardID: string }> = []): Array<{ flashcardID: string, cardID: string }> {
  if (typeof tree !== 'object' || tree === null) return found
  const node = tree as Record<string, unknown>
  if (typeof node.flashcardID === 'string' && typeof node.cards === 'object' && node.cards !== null) {
    for (const cardID of Object.keys(node.cards)) found.push({ flashcardID: node.flashcardID, cardID })
    return found
  }
  for (const child of Object.values(node)) cardsInTree(child, found)
  return found
}

function endDate (daysAhead: number): string {
  const [year, month, day] = new Date(Date.now() + daysAhead * 86_400_000).toISOString().slice(0, 10).split('-')
  return `${day ?? ''}/${month ?? ''}/${year ?? ''}`
}

let answerMismatches = 0

/** One simulated user, working until `until`. */
async function simulateUser (origin: string, index: number, until: number): Promise<{ userID: string, acknowledged: Acknowledged }> {
  const acknowledged: Acknowledged = { folders: [], flashcards: [], cards: [], edits: new Map(), reviews: new Set(), undone: 0, goals: [] }
  const email = `soak-${index}-${randomBytes(3).toString('hex')}@example.com`
  const password = 'soak test password'
  await authTurn()
  const registered = await call(origin, 'register', { email, password, displayName: `Soak ${index}` })
  if (registered.status !== 201) throw new Error(`register: ${registered.status} ${JSON.stringify(registered.body)}`)
  const userID = registered.body.userID as string
  let jwtToken = registered.body.jwtToken as string
  const folders: string[][] = []
  let dueCards: Array<{ flashcardID: string, cardID: string }> = []
  let made = 0

  async function createFolder (): Promise<void> {
    const path = folders.length === 0 || Math.random() < 0.5 ? [`Soak ${index}`, `Folder ${made++}`] : [...(pick(folders) ?? []), `Sub ${made++}`].slice(0, 5)
    const answer = await call(origin, 'create-folder', { jwtToken, path })
    if (answer.status === 201) {
      acknowledged.folders.push(answer.body.folderID as string)
      folders.push(path)
    }
  }

  async function createFlashcard (): Promise<void> {
    const folder = pick(folders)
    if (folder === undefined) return await createFolder()
    const cards = Array.from({ length: 1 + Math.floor(Math.random() * 5) }, (_, i) => ({ front: `front ${made} ${i}`, back: `back ${made} ${i}` }))
    const answer = await call(origin, 'create-flashcard', { jwtToken, folder, flashcardName: `Set ${made++}`, description: 'soak', cards })
    if (answer.status === 201) {
      const flashcardID = answer.body.flashcardID as string
      acknowledged.flashcards.push(flashcardID)
      for (const cardID of answer.body.cardIDs as string[]) acknowledged.cards.push({ flashcardID, cardID })
    }
  }

  async function addCards (): Promise<void> {
    const flashcardID = pick(acknowledged.flashcards)
    if (flashcardID === undefined) return await createFlashcard()
    const cards = Array.from({ length: 1 + Math.floor(Math.random() * 3) }, (_, i) => ({ front: `added ${made} ${i}`, back: 'back' }))
    made += 1
    const answer = await call(origin, 'add-cards', { jwtToken, flashcardID, cards })
    if (answer.status === 201) {
      for (const cardID of answer.body.cardIDs as string[]) acknowledged.cards.push({ flashcardID, cardID })
    }
  }

  async function editCard (): Promise<void> {
    const card = pick(acknowledged.cards)
    if (card === undefined) return await createFlashcard()
    const front = `edited ${made++}`
    const answer = await call(origin, 'edit-card', { jwtToken, ...card, front })
    if (answer.status === 200) acknowledged.edits.set(card.cardID, front)
  }

  async function todayCards (): Promise<void> {
    const answer = await call(origin, 'get-today-cards', { jwtToken })
    if (answer.status === 200) dueCards = cardsInTree(answer.body)
  }

  /** A review, sent again (at once, or after its answer) the way a client retrying would. */
  async function review (): Promise<void> {
    const card = pick(dueCards) ?? pick(acknowledged.cards)
    if (card === undefined) return await createFlashcard()
    const body = { jwtToken, ...card, rating: pick(['again', 'hard', 'good', 'easy'] as const), reviewID: randomUUID() }
    const chance = Math.random()
    let answers: Answer[]
    if (chance < 0.1) {
      answers = await Promise.all([call(origin, 'review-card', body), call(origin, 'review-card', body)])
    } else {
      answers = [await call(origin, 'review-card', body)]
      // an answer lost on the way: the client cannot tell, and sends the same review again
      for (let retry = 0; retry < 2 && ((answers[0]?.status ?? 0) === 0 || (answers[0]?.status ?? 0) >= 500); retry++) {
        await sleep(200)
        answers = [await call(origin, 'review-card', body)]
      }
      if (chance < 0.15 && answers[0]?.status === 200) answers.push(await call(origin, 'review-card', body))
    }
    const accepted = answers.filter((answer) => answer.status === 200)
    if (accepted.length > 0) acknowledged.reviews.add(body.reviewID)
    if (new Set(accepted.map((answer) => JSON.stringify(answer.body))).size > 1) answerMismatches += 1
    dueCards = dueCards.filter((due) => due.cardID !== card.cardID)
  }

  async function undo (): Promise<void> {
    const answer = await call(origin, 'undo-review', { jwtToken })
    if (answer.status === 200) {
      acknowledged.reviews.delete(answer.body.undone_reviewID as string)
      acknowledged.undone += 1
    }
  }

  async function createGoal (): Promise<void> {
    const type = Math.random() < 0.5 ? 'Card' : 'XP'
    const answer = await call(origin, 'create-goal', { jwtToken, type, target: type === 'Card' ? 20 : 200, end_date: endDate(7) })
    if (answer.status === 201) acknowledged.goals.push(answer.body.goalID as string)
  }

  async function login (): Promise<void> {
    await authTurn()
    const answer = await call(origin, 'login', { email, password })
    if (answer.status === 200) jwtToken = answer.body.jwtToken as string
  }

  const operations: Array<[number, () => Promise<unknown>]> = [
    [6, createFolder],
    [10, createFlashcard],
    [5, addCards],
    [6, editCard],
    [18, todayCards],
    [35, review],
    [3, undo],
    [6, async () => await call(origin, 'update-goal-status', { jwtToken })],
    [2, createGoal],
    [6, async () => await call(origin, 'get-stats', { jwtToken })],
    [0.5, login]
  ]
  const total = operations.reduce((sum, [weight]) => sum + weight, 0)
  await createFolder()
  while (Date.now() < until) {
    let roll = Math.random() * total
    const [, operation] = operations.find(([weight]) => (roll -= weight) < 0) ?? operations[0] as [number, () => Promise<unknown>]
    await operation()
  }
  return { userID, acknowledged }
}

// ---- the check against the database

interface Findings { lost: Record<string, number>, xpMismatches: string[], unacknowledgedReviews: number }

async function checkDatabase (mongodbUrl: string, users: Array<{ userID: string, acknowledged: Acknowledged }>): Promise<Findings> {
  const client = new MongoClient(mongodbUrl)
  try {
    const db = client.db()
    const lost: Record<string, number> = { folders: 0, flashcards: 0, cards: 0, 'card edits': 0, reviews: 0, goals: 0 }
    const xpMismatches: string[] = []
    let unacknowledgedReviews = 0
    const idsIn = async (collection: string, userID: string, ids: readonly string[]): Promise<Set<string>> => new Set(
      (await db.collection<{ _id: string }>(collection).find({ userID, _id: { $in: [...ids] } }, { projection: { _id: 1 } }).toArray()).map((document) => document._id)
    )
    /** The ids of every folder and of every flashcard in the user's stored tree. */
    const treeIDs = async (userID: string): Promise<{ folders: Set<string>, flashcards: Set<string> }> => {
      const found = { folders: new Set<string>(), flashcards: new Set<string>() }
      const visit = (folders: readonly FolderNode[]): void => {
        for (const folder of folders) {
          found.folders.add(folder.id)
          for (const flashcard of folder.flashcards) found.flashcards.add(flashcard.id)
          visit(folder.folders)
        }
      }
      visit((await db.collection<{ _id: string, folders: FolderNode[] }>('trees').findOne({ _id: userID }))?.folders ?? [])
      return found
    }
    for (const { userID, acknowledged } of users) {
      const missing = (ids: readonly string[], found: Set<string>): number => ids.filter((id) => !found.has(id)).length
      const stored = await treeIDs(userID)
      lost.folders = (lost.folders ?? 0) + missing(acknowledged.folders, stored.folders)
      lost.flashcards = (lost.flashcards ?? 0) + missing(acknowledged.flashcards, stored.flashcards)
      const cardIDs = acknowledged.cards.map((card) => card.cardID)
      lost.cards = (lost.cards ?? 0) + missing(cardIDs, await idsIn('cards', userID, cardIDs))
      lost.goals = (lost.goals ?? 0) + missing(acknowledged.goals, await idsIn('goals', userID, acknowledged.goals))
      const fronts = new Map((await db.collection<{ _id: string, front: string }>('cards').find({ userID, _id: { $in: [...acknowledged.edits.keys()] } }).toArray()).map((card) => [card._id, card.front]))
      lost['card edits'] = (lost['card edits'] ?? 0) + [...acknowledged.edits].filter(([cardID, front]) => fronts.get(cardID) !== front).length

      const done = await db.collection<{ reviewID: string, xp: number }>('reviews').find({ userID }).toArray()
      const doneIDs = new Set(done.map((entry) => entry.reviewID))
      lost.reviews = (lost.reviews ?? 0) + [...acknowledged.reviews].filter((reviewID) => !doneIDs.has(reviewID)).length
      unacknowledgedReviews += [...doneIDs].filter((reviewID) => !acknowledged.reviews.has(reviewID)).length
      const account = await db.collection<{ _id: string, totalXp: number }>('users').findOne({ _id: userID })
      const expected = XP_PER_REVIEW * done.length
      if (account?.totalXp !== expected) xpMismatches.push(`${userID}: ${String(account?.totalXp)} XP for ${done.length} reviews`)
    }
    return { lost, xpMismatches, unacknowledgedReviews }
  } finally {
    await client.close()
  }
}

// ---- the run

function percentile (values: number[], share: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))] ?? 0
}

const megabytes = (bytes: number | null): string => bytes === null ? 'unknown' : `${(bytes / 1048576).toFixed(1)} MB`

async function main (): Promise<number> {
  const dataDir = await mkdtemp(join(tmpdir(), 'flashcard-soak-'))
  let database: EmbeddedDatabase | undefined
  let service: Service | undefined
  // a run that hangs somewhere is stopped and cleaned up rather than left running
  const hardLimit = setTimeout(() => {
    console.error(`soak: still running ${SECONDS + 120} s after the start; stopping`)
    service?.child.kill('SIGKILL')
    void database?.stop().finally(() => { void rm(dataDir, { recursive: true, force: true }).finally(() => process.exit(2)) })
  }, (SECONDS + 120) * 1000)
  hardLimit.unref()
  const interrupted = (): void => {
    service?.child.kill('SIGKILL')
    void database?.stop().finally(() => { void rm(dataDir, { recursive: true, force: true }).finally(() => process.exit(130)) })
  }
  process.once('SIGINT', interrupted)
  process.once('SIGTERM', interrupted)

  try {
    database = await startEmbeddedDatabase({ dataDir, log: (line) => console.error(line) })
    const mongodbUrl = `${database.url}/soak`
    service = await startService(mongodbUrl)
    const pid = service.child.pid as number
    console.error(`soak: ${USERS} users for ${SECONDS} s against the service at ${service.origin} (pid ${pid})`)
    const rss = { start: await rssOf(pid), warmedUp: null as number | null, end: null as number | null }

    const started = Date.now()
    const until = started + SECONDS * 1000
    const warmUp = sleep(WARM_UP_SECONDS * 1000).then(async () => { rss.warmedUp = await rssOf(pid) })
    const users = await Promise.all(Array.from({ length: USERS }, async (_, index) => await simulateUser((service as Service).origin, index, until)))
    await warmUp
    rss.end = await rssOf(pid)
    const elapsed = (Date.now() - started) / 1000

    service.child.kill('SIGTERM')
    const exitCode = await Promise.race([service.exited, sleep(15_000, 'still running' as const)])
    const findings = await checkDatabase(mongodbUrl, users)

    const byStatus = [...statuses].sort(([a], [b]) => a.localeCompare(b))
    const failed = byStatus.filter(([label]) => !/ 2\d\d$/.test(label))
    // a 503 sent again counts once its last attempt is in: a last attempt still turned away is a failure
    const serverErrors = byStatus.filter(([label]) => / 5\d\d$/.test(label)).reduce((sum, [, count]) => sum + count, 0) - turnedAway
    const networkErrors = byStatus.filter(([label]) => / network /.test(label)).reduce((sum, [, count]) => sum + count, 0)
    const lostWrites = Object.values(findings.lost).reduce((sum, count) => sum + count, 0)
    const growth = rss.warmedUp === null || rss.end === null ? null : (rss.end - rss.warmedUp) / rss.warmedUp
    const memorySettled = growth !== null && growth <= 0.2
    const acknowledgedCount = (key: 'folders' | 'flashcards' | 'cards' | 'goals'): number => users.reduce((sum, user) => sum + user.acknowledged[key].length, 0)

    console.log(`soak: ${USERS} users, ${elapsed.toFixed(0)} s, SecantusDB (embedded) on loopback`)
    console.log(`requests: ${requests} (${(requests / elapsed).toFixed(1)}/s); latency p50 ${percentile(latencies, 0.5).toFixed(0)} ms, p99 ${percentile(latencies, 0.99).toFixed(0)} ms, max ${percentile(latencies, 1).toFixed(0)} ms`)
    console.log(`answers other than 2xx, by operation and status: ${failed.length === 0 ? 'none' : ''}`)
    for (const [label, count] of failed) console.log(`  ${label}: ${count}`)
    console.log(`5xx: ${serverErrors}; network errors: ${networkErrors}; turned away with 503 and sent again: ${turnedAway} (${(100 * turnedAway / requests).toFixed(1)}% of requests)`)
    console.log(`acknowledged: ${acknowledgedCount('folders')} folders, ${acknowledgedCount('flashcards')} flashcards, ${acknowledgedCount('cards')} cards, ` +
      `${users.reduce((sum, user) => sum + user.acknowledged.edits.size, 0)} edited cards, ${users.reduce((sum, user) => sum + user.acknowledged.reviews.size, 0)} reviews standing ` +
      `(${users.reduce((sum, user) => sum + user.acknowledged.undone, 0)} more undone), ${acknowledgedCount('goals')} goals`)
    console.log(`lost writes: ${lostWrites}${lostWrites === 0 ? '' : ` (${Object.entries(findings.lost).filter(([, count]) => count > 0).map(([what, count]) => `${count} ${what}`).join(', ')})`}`)
    console.log(`XP = 10 x reviews in the log: ${findings.xpMismatches.length === 0 ? `yes, for all ${USERS} users` : `NO: ${findings.xpMismatches.join('; ')}`}`)
    console.log(`reviews in the log never acknowledged: ${findings.unacknowledgedReviews}; retried reviews answered differently: ${answerMismatches}`)
    console.log(`service RSS: start ${megabytes(rss.start)}, after warm-up (${WARM_UP_SECONDS} s) ${megabytes(rss.warmedUp)}, end ${megabytes(rss.end)}; ` +
      `end at most 20% above after warm-up: ${memorySettled ? 'yes' : 'NO'}${growth === null ? '' : ` (${growth >= 0 ? '+' : ''}${(growth * 100).toFixed(1)}%)`}`)
    const warnings = [...service.warnings].sort(([, a], [, b]) => b - a)
    console.log(`service log at warn or above: ${warnings.length === 0 ? 'nothing' : warnings.slice(0, 5).map(([message, count]) => `${count} x ${message}`).join('; ')}`)
    console.log(`service exit after SIGTERM: ${String(exitCode)}`)

    const passed = serverErrors === 0 && networkErrors === 0 && lostWrites === 0 && findings.xpMismatches.length === 0 && answerMismatches === 0 && memorySettled && exitCode === 0
    console.log(passed ? 'soak passed' : 'soak FAILED')
    return passed ? 0 : 1
  } finally {
    clearTimeout(hardLimit)
    if (service !== undefined && service.child.exitCode === null && service.child.signalCode === null) service.child.kill('SIGKILL')
    await database?.stop()
    await rm(dataDir, { recursive: true, force: true })
  }
}

main().then((code) => process.exit(code), (error: unknown) => {
  console.error(error)
  process.exit(1)
})
