// `npm run fuzz`: every operation fuzzed from its schema by Schemathesis.
//
// Starts the embedded database and the service (as a child process, on a free
// loopback port; scripts/fuzz/service.ts), seeds an account with folders, flashcards, cards and goals,
// and lets Schemathesis generate valid and invalid bodies from /openapi.json
// for FUZZ_MAX_TIME seconds (default 120). The hooks in scripts/fuzz/hooks.py
// put the seeded account's token and ids into most bodies, so the fuzzer gets
// past authentication into the handlers and the database.
//
// The run fails when any answer is a 5xx or breaks its documented schema,
// status or content type. Schemathesis is installed into .tools/fuzz-venv
// the first time (Python 3 needed).
//
// FUZZ_MAX_TIME (s), FUZZ_WORKERS (default 4), FUZZ_SEED (to replay a run),
// FUZZ_REAL_SHARE (percent of bodies with the real token, default 75) and
// FUZZ_CHECKS (Schemathesis checks, comma-separated; e.g. negative_data_rejection)
// tune a run; FUZZ_KEEP=1 keeps its answers, report and service log for a post-mortem.
import { spawn, spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { stopProcess } from '../src/db/stop-process.js'
import { startEmbeddedDatabase } from '../src/db/embedded.js'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const SCHEMATHESIS_VERSION = '4.32.5'
/**
 * Installed with it, pinned: anyio 4.15 builds its lazy imports with compile() at import time, which
 * Python 3.11.7 (this machine's) can fail ("AST constructor recursion depth mismatch") when Schemathesis first
 * imports it deep inside Hypothesis's generation; 4.14.2 imports plainly.
 */
const PINNED = ['anyio==4.14.2']
const VENV = join(root, '.tools', 'fuzz-venv')
const SCHEMATHESIS = join(VENV, 'bin', 'schemathesis')
const HOOKS = join(root, 'scripts', 'fuzz', 'hooks.py')
// the fuzz run's own throwaway account: a fixed secret, never used elsewhere
const JWT_SECRET = 'fuzzing-only-secret-never-used-elsewhere-0123456789'
const CHECKS = process.env.FUZZ_CHECKS?.split(',') ?? ['not_a_server_error', 'response_schema_conformance', 'status_code_conformance', 'content_type_conformance']

function setting (name: string, fallback: number): number {
  const text = process.env[name]
  if (text === undefined || text === '') return fallback
  if (!/^[0-9]+$/.test(text)) {
    console.error(`${name} must be a whole number, got ${JSON.stringify(text)}`)
    process.exit(2)
  }
  return Number(text)
}

const maxTime = Math.max(1, setting('FUZZ_MAX_TIME', 120))
const workers = Math.min(64, Math.max(1, setting('FUZZ_WORKERS', 4)))
const seed = process.env.FUZZ_SEED === undefined || process.env.FUZZ_SEED === '' ? undefined : setting('FUZZ_SEED', 0)
const realShare = Math.min(100, setting('FUZZ_REAL_SHARE', 75))

// ---- clean-up of what this run started, on success, failure and Ctrl-C alike

const cleanups: Array<() => Promise<unknown>> = []
async function cleanUp (): Promise<void> {
  for (const step of cleanups.splice(0).reverse()) await step().catch(() => {})
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => { void cleanUp().then(() => process.exit(130)) })
}

// ---- Schemathesis in a virtual environment of its own

function run (command: string, args: string[]): { status: number | null, output: string } {
  const result = spawnSync(command, args, { encoding: 'utf8' })
  return { status: result.error === undefined ? result.status : null, output: `${result.stdout ?? ''}${result.stderr ?? ''}` }
}

function ensureSchemathesis (): void {
  if (existsSync(SCHEMATHESIS) && run(SCHEMATHESIS, ['--version']).output.includes(SCHEMATHESIS_VERSION) &&
    PINNED.every((pin) => run(join(VENV, 'bin', 'pip'), ['freeze', '--disable-pip-version-check']).output.split('\n').includes(pin))) return
  const python = ['python3', 'python'].find((candidate) => /Python 3\.(9|[1-9][0-9])/.test(run(candidate, ['--version']).output))
  if (python === undefined) {
    throw new Error('The fuzzer (Schemathesis) needs Python 3.9 or newer with venv: install python3 and python3-venv ' +
      '(e.g. `apt-get install python3 python3-venv`) and run `npm run fuzz` again')
  }
  console.error(`== installing schemathesis ${SCHEMATHESIS_VERSION} into ${VENV} (once)`)
  const steps: Array<[string, string[]]> = [
    [python, ['-m', 'venv', '--clear', VENV]],
    [join(VENV, 'bin', 'pip'), ['install', '--quiet', '--disable-pip-version-check', `schemathesis==${SCHEMATHESIS_VERSION}`, ...PINNED]]
  ]
  for (const [command, args] of steps) {
    const result = run(command, args)
    if (result.status !== 0) throw new Error(`\`${command} ${args.join(' ')}\` failed:\n${result.output.trim()}`)
  }
}

// ---- the service under test

function freePort (): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => typeof address === 'object' && address !== null ? resolvePort(address.port) : reject(new Error('no port')))
    })
  })
}

interface Service {
  origin: string
  /** stops the service; its JSON log lines, also kept in `logFile` */
  stop: () => Promise<string>
}

/** The service on a free port; resolves once /health answers 200. */
async function startService (mongodbUrl: string, logFile: string): Promise<Service> {
  const port = await freePort()
  const log: Buffer[] = []
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/fuzz/service.ts'], {
    cwd: root,
    env: { ...process.env, PORT: String(port), MONGODB_URL: mongodbUrl, JWT_SECRET, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  child.stdout.on('data', (chunk: Buffer) => log.push(chunk))
  child.stderr.on('data', (chunk: Buffer) => log.push(chunk))
  const kill = (): void => { child.kill('SIGKILL') }
  process.once('exit', kill)
  const stop = async (): Promise<string> => {
    await stopProcess(child, 12_000)
    process.off('exit', kill)
    await writeFile(logFile, Buffer.concat(log))
    return Buffer.concat(log).toString()
  }
  cleanups.push(stop)
  const origin = `http://127.0.0.1:${port}`
  const deadline = Date.now() + 60_000
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the service exited (${child.exitCode}) before answering /health:\n${Buffer.concat(log).toString()}`)
    try {
      if ((await fetch(`${origin}/health`, { signal: AbortSignal.timeout(2000) })).status === 200) return { origin, stop }
    } catch {
      // not listening yet
    }
    await sleep(100)
  }
  throw new Error('the service did not answer /health within 60 s')
}

// ---- the seeded account whose token and ids the hooks put into bodies

interface FuzzData {
  token: string
  folders: string[]
  folderPaths: string[][]
  flashcards: Array<{ id: string, cards: string[] }>
  spareFlashcard: string
  goals: string[]
  endDate: string
}

async function seedAccount (origin: string): Promise<FuzzData> {
  const call = async (operation: string, body: object): Promise<Record<string, unknown>> => {
    const response = await fetch(`${origin}/api/${operation}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body)
    })
    const answer = await response.json() as Record<string, unknown>
    if (response.status >= 300) throw new Error(`seeding: ${operation} answered ${response.status} ${JSON.stringify(answer)}`)
    return answer
  }
  const { jwtToken: token } = await call('register', { email: 'fuzz@example.com', password: 'fuzzing password' }) as { jwtToken: string }
  const folderPaths = [['Languages'], ['Languages', 'Spanish'], ['Languages', 'Spanish', 'Verbs'], ['Science'], ['Science', 'Chemistry']]
  const folders: string[] = []
  for (const path of folderPaths) folders.push((await call('create-folder', { jwtToken: token, path }) as { folderID: string }).folderID)
  const flashcards: FuzzData['flashcards'] = []
  for (const [index, path] of folderPaths.entries()) {
    const cards = Array.from({ length: 3 }, (_, card) => ({ front: `front ${index}.${card}`, back: `back ${index}.${card}` }))
    const { flashcardID, cardIDs } = await call('create-flashcard', { jwtToken: token, folder: path, flashcardName: `Deck ${index}`, cards }) as { flashcardID: string, cardIDs: string[] }
    flashcards.push({ id: flashcardID, cards: cardIDs })
  }
  const first = flashcards[0] as { id: string, cards: string[] }
  await call('review-card', { jwtToken: token, flashcardID: first.id, cardID: first.cards[0], rating: 'good' })
  const { flashcardID: spareFlashcard } = await call('create-flashcard', { jwtToken: token, folder: ['Science'], flashcardName: 'Spare', cards: [] }) as { flashcardID: string }
  const endDate = new Date(Date.now() + 30 * 864e5).toLocaleDateString('en-GB', { timeZone: 'UTC' })
  const goals: string[] = []
  for (const type of ['Card', 'XP']) {
    goals.push((await call('create-goal', { jwtToken: token, type, target: 20, end_date: endDate }) as { goalID: string }).goalID)
  }
  return { token, folders, folderPaths, flashcards, spareFlashcard, goals, endDate }
}

// ---- the run

interface Answer { operation: string, status: number, real: boolean, body?: unknown, response?: string }

interface JsonReport {
  test_cases?: { generated: number, with_failures: number, unique_failures: number, errored: number }
  operations?: { total: number, tested: number, errored: number } | null
  failures?: Array<{ code: string, title: string, count: number, operations: string[] }>
  errors?: Array<{ title: string, count: number }>
  stop_reason?: string
}

async function main (): Promise<number> {
  ensureSchemathesis()
  const work = await mkdtemp(join(tmpdir(), 'flashcard-fuzz-'))
  if (process.env.FUZZ_KEEP === '1') console.error(`== keeping the run's files (answers, report, service log) in ${work}`)
  else cleanups.push(() => rm(work, { recursive: true, force: true }))
  // always a fresh embedded database: the fuzzer writes thousands of documents of no use to anyone
  const database = await startEmbeddedDatabase({ dataDir: join(work, 'secantus'), log: (line) => console.error(line) })
  cleanups.push(() => database.stop())
  const logFile = join(work, 'service.log')
  const service = await startService(`${database.url}/fuzz`, logFile)
  const { origin } = service
  const data = await seedAccount(origin)

  const record = join(work, 'answers.ndjson')
  const reportPath = join(work, 'report.json')
  await writeFile(record, '')
  const args = [
    'run', `${origin}/openapi.json`,
    '--checks', CHECKS.join(','),
    '--phases', 'examples,coverage,fuzzing',
    '--max-time', String(maxTime),
    '--workers', String(workers),
    '--continue-on-failure',
    '--request-timeout', '15',
    '--suppress-health-check', 'all',
    '--generation-database', 'none',
    '--report', 'json',
    '--report-json-path', reportPath,
    '--no-color',
    ...(seed === undefined ? [] : ['--seed', String(seed)])
  ]
  console.error(`== schemathesis ${args.join(' ')}`)
  const fuzzer = spawn(SCHEMATHESIS, args, {
    // Schemathesis keeps a cache of crashes in its working directory: each run starts afresh
    cwd: work,
    env: {
      ...process.env,
      SCHEMATHESIS_HOOKS: HOOKS,
      FUZZ_DATA: JSON.stringify(data),
      FUZZ_ORIGIN: origin,
      FUZZ_RECORD: record,
      FUZZ_REAL_SHARE: String(realShare)
    },
    stdio: ['ignore', 'inherit', 'inherit']
  })
  // Schemathesis keeps to --max-time; this only stops a run that hangs
  const hardStop = setTimeout(() => fuzzer.kill('SIGKILL'), (maxTime + 180) * 1000)
  const fuzzerCode = await new Promise<number>((resolveCode) => fuzzer.once('exit', (code) => resolveCode(code ?? 1)))
  clearTimeout(hardStop)

  const answers = (await readFile(record, 'utf8')).split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as Answer)
  const report: JsonReport = existsSync(reportPath) ? JSON.parse(await readFile(reportPath, 'utf8')) as JsonReport : {}
  // what the service logged as errors (level 50 and up): the 5xx it answered, with their causes
  const serviceErrors = (await service.stop()).split('\n').filter((line) => /"level":(50|60)/.test(line))
  await cleanUp()
  return summarise(answers, report, fuzzerCode, serviceErrors)
}

function summarise (answers: Answer[], report: JsonReport, fuzzerCode: number, serviceErrors: string[]): number {
  const byStatus = new Map<number, number>()
  for (const { status } of answers) byStatus.set(status, (byStatus.get(status) ?? 0) + 1)
  // the coverage phase also tries other methods (PUT, TRACE, ...) on each path; those answer 404
  const documented = answers.filter((answer) => /^(POST \/api\/|GET \/health$)/.test(answer.operation))
  const operations = new Set(documented.map((answer) => answer.operation))
  const deep = answers.filter((answer) => answer.real && answer.status < 400).length
  const serverErrors = answers.filter((answer) => answer.status >= 500)
  const failures = report.failures ?? []
  const countOf = (codes: string[]): number => failures.filter((failure) => codes.includes(failure.code)).reduce((sum, failure) => sum + failure.count, 0)
  // Schemathesis' failure codes: the answer breaks its schema, is not JSON, or cannot be read
  const schemaViolations = countOf(['ST108', 'ST109', 'ST110'])
  const errors = (report.errors ?? []).reduce((sum, error) => sum + error.count, 0)

  console.log('\n== fuzz summary')
  console.log(`requests: ${answers.length}, ${documented.length} of them to ${operations.size} operations ` +
    `(${report.operations?.tested ?? '?'} tested of ${report.operations?.total ?? '?'}), the rest with other methods; ` +
    `test cases: ${report.test_cases?.generated ?? '?'}; stop: ${report.stop_reason ?? '?'}`)
  console.log(`answers by status: ${[...byStatus].sort(([a], [b]) => a - b).map(([status, count]) => `${status}: ${count}`).join(', ')}`)
  console.log(`authenticated requests with the real token that succeeded (2xx): ${deep}`)
  for (const failure of failures) console.log(`failure ${failure.code}: ${failure.title} (${failure.count}) in ${failure.operations.join(', ')}`)
  for (const answer of serverErrors.slice(0, 10)) {
    console.log(`5xx: ${answer.operation} ${answer.status} body=${JSON.stringify(answer.body).slice(0, 500)} answer=${answer.response ?? ''}`)
  }
  for (const line of serviceErrors.slice(0, 5)) console.log(`service log: ${line.slice(0, 1000)}`)
  console.log(`5xx answers: ${serverErrors.length}; schema-violating answers: ${schemaViolations}; ` +
    `other check failures: ${failures.reduce((sum, failure) => sum + failure.count, 0) - schemaViolations - countOf(['ST101', 'ST102'])}; ` +
    `errors logged by the service: ${serviceErrors.length}; fuzzer errors: ${errors}; schemathesis exit code: ${fuzzerCode}`)
  const passed = fuzzerCode === 0 && serverErrors.length === 0 && serviceErrors.length === 0 && failures.length === 0 && errors === 0 && answers.length > 0
  console.log(passed ? 'fuzz: passed' : 'fuzz: FAILED')
  return passed ? 0 : 1
}

main().then((code) => process.exit(code), async (error: unknown) => {
  console.error(error instanceof Error ? error.message : error)
  await cleanUp()
  process.exit(1)
})
