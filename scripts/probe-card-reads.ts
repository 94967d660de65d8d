// What reading cards costs, in process: get-flashcard of a 100-card flashcard
// and get-all-cards of a 10,000-card library (100 flashcards of 100 cards, the
// text of the bench's cards), each through app.inject, 10 to warm up and then
// SAMPLES timed one after another. `PROBE_CARDS=html` makes every card
// formatted (HTML with bold, a ruby reading and, with PROBE_MEDIA=1, an image
// of the user's media); `PROBE_CARDS=cloze` makes them cloze notes of two
// deletions (5,000 notes, 10,000 cards). get-all-cards is timed as it was, and
// with content: true, every page of it, each nextCursor followed (PROBE_CONTENT=0
// leaves that out, for a version that does not have it). Starts the embedded database unless
// MONGODB_URL names one. Besides the time to the answer, it counts the CPU time
// each request takes in this process and in the embedded database's: on a
// machine shared with other work the times swing with the load, the CPU time
// much less. For comparing one version of the code with another on this
// machine; npm run bench gives the figures of record.
import { readFile } from 'node:fs/promises'
import { buildApp } from '../src/app.js'
import { probeDatabase } from './bench/common.js'

const SAMPLES = Number(process.env.PROBE_SAMPLES ?? 30)
const kind = process.env.PROBE_CARDS ?? 'text'
const withMedia = process.env.PROBE_MEDIA === '1'
const MEDIA_ID = '123456789012345678901234567890123456789'

const database = await probeDatabase(`probe_card_reads_${Date.now()}`)
const app = await buildApp({
  mongodbUrl: database.url,
  jwtSecret: 'probe-secret-that-is-long-enough-for-hs256-0123456789',
  attemptLimits: { perAddress: 100_000, perAccount: 100_000, windowMs: 60_000 },
  loadShedding: { maxInFlight: 100_000, maxInFlightPerUser: 100_000 },
  // a resolver that knows every id, as the media signer will for the user's own media
  mediaUrl: (_userID: string, mediaID: string) => `/media/${mediaID}?expires=1&signature=abc`
})
await app.ready()

async function call (operation: string, body: object): Promise<{ statusCode: number, body: string }> {
  const response = await app.inject({ method: 'POST', url: `/api/${operation}`, payload: body })
  if (response.statusCode >= 300) throw new Error(`${operation}: ${response.statusCode} ${response.body}`)
  return response
}

function cardsOf (flashcard: string): object[] {
  const image = withMedia ? `<img src="media:${MEDIA_ID}" alt="a picture">` : ''
  if (kind === 'cloze') {
    return Array.from({ length: 50 }, (_, n) => ({
      cloze: `{{c1::${flashcard}}}, term ${n + 1}: what it {{c2::means}}, in the words a learner would write${image}`,
      format: 'html'
    }))
  }
  return Array.from({ length: 100 }, (_, n) => kind === 'html'
    ? {
        front: `<b>${flashcard}</b>, term <ruby>${n + 1}<rt>reading</rt></ruby>${image}`,
        back: `What term ${n + 1} of <i>${flashcard}</i> means, in the words a learner would write on the back of a card`,
        format: 'html'
      }
    : { front: `${flashcard}, term ${n + 1}`, back: `What term ${n + 1} of ${flashcard} means, in the words a learner would write on the back of a card` })
}

const { jwtToken } = JSON.parse((await call('register', { email: 'probe@example.com', password: 'probe password' })).body) as { jwtToken: string }
let someFlashcard = ''
for (let f = 0; f < 100; f++) {
  const folder = [`Subject ${f % 4}`, `Topic ${f % 40}`]
  await call('create-folder', { jwtToken, path: folder }).catch(() => {})
  const created = JSON.parse((await call('create-flashcard', { jwtToken, folder, flashcardName: `Deck ${f}`, cards: cardsOf(`Deck ${f}`) })).body) as { flashcardID: string }
  someFlashcard = created.flashcardID
}

/** CPU milliseconds (user and system) the embedded database has used so far; 0 with MONGODB_URL. */
async function databaseCpu (): Promise<number> {
  const pid = database.pid()
  if (pid === undefined) return 0
  const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]?.split(' ') ?? []
  // utime and stime, fields 14 and 15 of stat, in clock ticks (100 a second on Linux)
  return (Number(fields[11]) + Number(fields[12])) * 10
}

function median (values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? NaN
}

/** Reads every page of get-all-cards with content (each nextCursor followed); the bytes of all the pages. */
async function everyLibraryPage (): Promise<number> {
  let bytes = 0
  let cursor: string | undefined
  do {
    const { body } = await call('get-all-cards', { jwtToken, content: true, ...(cursor === undefined ? {} : { cursor }) })
    bytes += body.length
    cursor = (JSON.parse(body) as { nextCursor?: string }).nextCursor
  } while (cursor !== undefined)
  return bytes
}

async function timed (label: string, read: () => Promise<number>): Promise<void> {
  for (let i = 0; i < 10; i++) await read()
  const times: number[] = []
  let bytes = 0
  const cpuBefore = process.cpuUsage()
  const databaseBefore = await databaseCpu()
  for (let i = 0; i < SAMPLES; i++) {
    const start = performance.now()
    bytes = await read()
    times.push(performance.now() - start)
  }
  const cpu = process.cpuUsage(cpuBefore)
  const serviceCpu = (cpu.user + cpu.system) / 1000 / SAMPLES
  const databaseCpuEach = (await databaseCpu() - databaseBefore) / SAMPLES
  const p90 = [...times].sort((a, b) => a - b)[Math.floor(times.length * 0.9)] ?? NaN
  console.log(`${label}: median ${median(times).toFixed(1)} ms, p90 ${p90.toFixed(1)} ms, ${(bytes / 1024).toFixed(0)} KiB; ` +
    `CPU per request: service ${serviceCpu.toFixed(1)} ms, database ${databaseCpuEach.toFixed(1)} ms`)
}

console.log(`cards: ${kind}${withMedia ? ' with an image each' : ''}; ${SAMPLES} samples`)
const bytesOf = async (operation: string, body: object) => (await call(operation, body)).body.length
await timed('get-flashcard (100 cards)', async () => await bytesOf('get-flashcard', { jwtToken, flashcardID: someFlashcard }))
await timed('get-all-cards (10,000 cards)', async () => await bytesOf('get-all-cards', { jwtToken }))
if (process.env.PROBE_CONTENT !== '0') await timed('get-all-cards with content: true (10,000 cards, every page)', everyLibraryPage)

await app.databaseClient.db().dropDatabase()
await app.close()
await database.stop()
