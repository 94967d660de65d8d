// import-anki takes fair shares: an account has at most 2 imports arriving, waiting or running, on
// every instance of one database together (a third is refused 429 too_many_imports as soon as its
// token is read, its file left unread), and an instance takes the accounts in turn, so that one
// account's small import waits for the import under way, not for another account's queue.
import { request as httpRequest, type ClientRequest } from 'node:http'
import type { AddressInfo } from 'node:net'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import type { FastifyInstance } from 'fastify'
import tap, { test } from 'tap'
import { writeAnkiPackage } from '../../scripts/bench/anki-package.js'
import { buildTestApp, databaseOf, expectOk, registerUser, testDatabaseUrl } from '../helpers/app.js'
import { fixture, importEnded, LEARNER, postImport, type ImportStatus } from '../helpers/anki-import.js'
import { formBody } from '../helpers/media.js'

// every import starts a worker thread of its own: on a machine busy with other tests, a file of them takes minutes
tap.setTimeout(600_000)

/** A package whose import takes a while: long enough for the requests that follow it to arrive while it runs. */
let slowPackage: Buffer
tap.before(async () => {
  const directory = await mkdtemp(join(tmpdir(), 'anki-shares-'))
  const path = join(directory, 'slow.apkg')
  await writeAnkiPackage(path, { cards: 4000, revlog: 8000 })
  slowPackage = await readFile(path)
  await rm(directory, { recursive: true, force: true })
})

async function started (app: FastifyInstance, jwtToken: string, file: Buffer): Promise<string> {
  const answer = await postImport(app, jwtToken, file)
  if (answer.statusCode !== 202) throw new Error(`import-anki: expected 202, got ${answer.statusCode} ${answer.body}`)
  return answer.json<{ importID: string }>().importID
}

async function statusOf (app: FastifyInstance, jwtToken: string, importID: string): Promise<ImportStatus> {
  return await expectOk<ImportStatus>(app, 'get-import-status', { jwtToken, importID })
}

async function listening (app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' })
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
}

interface Answer { status: number, retryAfter: string | undefined, body: Record<string, unknown> }

/**
 * Sends import-anki's headers (with the whole form's length) and only the first `sentBytes` of
 * the form: the request, to cut off, and its answer, if one comes while the rest is never sent.
 */
function partialImport (origin: string, jwtToken: string, file: Buffer, sentBytes: number): { request: ClientRequest, answer: Promise<Answer> } {
  const { payload, headers } = formBody([
    { name: 'jwtToken', value: jwtToken },
    { name: 'file', file, filename: 'deck.apkg', type: 'application/octet-stream' }
  ])
  const request = httpRequest(`${origin}/api/import-anki`, { method: 'POST', headers: { ...headers, 'content-length': String(payload.length) } })
  const answer = new Promise<Answer>((resolve, reject) => {
    request.on('response', (response) => {
      const pieces: Buffer[] = []
      response.on('data', (piece: Buffer) => pieces.push(piece))
      response.on('end', () => {
        const retryAfter = response.headers['retry-after']
        resolve({ status: response.statusCode ?? 0, retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter, body: JSON.parse(Buffer.concat(pieces).toString()) as Record<string, unknown> })
      })
    })
    request.on('error', reject)
  })
  request.write(payload.subarray(0, sentBytes))
  return { request, answer }
}

test('a third import of an account while two are under way gets 429 too_many_imports before its file is read; another account is served', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const origin = await listening(app)
  const user = await registerUser(app, LEARNER)
  const first = await started(app, user.jwtToken, slowPackage)
  const second = await started(app, user.jwtToken, slowPackage)

  // the form's token and a first piece of the package, and nothing more: a file the service would have to wait for
  const file = Buffer.alloc(4 * 1024 * 1024, 7)
  const third = partialImport(origin, user.jwtToken, file, 64 * 1024)
  t.teardown(() => { third.request.destroy() })
  const answer = await Promise.race([third.answer, sleep(20_000).then(() => null)])
  if (answer === null) {
    t.fail('no answer while the file is not sent: the service waits for the file of an import it cannot take')
    return
  }
  t.equal(answer.status, 429, 'refused as a limit of this account')
  t.equal(answer.body.code, 'too_many_imports')
  t.match(answer.body.error, /2 imports/, `a sentence: ${String(answer.body.error)}`)
  t.ok(Number(answer.retryAfter) > 0, `with Retry-After: ${answer.retryAfter ?? 'none'}`)
  t.equal(await databaseOf(app).collection('imports').countDocuments({ userID: user.userID }), 2, 'nothing recorded of the third')

  const other = await registerUser(app, LEARNER)
  t.equal((await postImport(app, other.jwtToken, fixture('collection.apkg'))).statusCode, 202, 'another account\'s import is taken meanwhile')

  for (const importID of [first, second]) t.equal((await importEnded(app, user.jwtToken, importID)).state, 'done')
  t.equal((await postImport(app, user.jwtToken, fixture('collection.apkg'))).statusCode, 202, 'once they have ended, the account imports again')
})

test('two requests at once for an account\'s last place, on two instances of one database: exactly one is taken', async (t) => {
  const mongodbUrl = testDatabaseUrl(import.meta.filename)
  const one = await buildTestApp(t, import.meta.filename, { mongodbUrl })
  const two = await buildTestApp(t, import.meta.filename, { mongodbUrl })
  const user = await registerUser(one, LEARNER)
  const under = await started(one, user.jwtToken, slowPackage)

  const answers = await Promise.all([postImport(one, user.jwtToken, fixture('collection.apkg')), postImport(two, user.jwtToken, fixture('collection.apkg'))])
  t.same(answers.map((answer) => answer.statusCode).sort(), [202, 429], 'one taken, one refused')
  t.equal(answers.find((answer) => answer.statusCode === 429)?.json<{ code: string }>().code, 'too_many_imports')
  for (const app of [one, two]) {
    const again = await postImport(app, user.jwtToken, fixture('collection.apkg'))
    t.equal(again.statusCode, 429, 'and a third is refused on either instance')
  }
  t.not((await statusOf(one, user.jwtToken, under)).state, 'done', 'all of it while the first import was under way')

  // the same on one instance: its transactions of one account run one after the other
  const accepted = answers.find((answer) => answer.statusCode === 202)?.json<{ importID: string }>().importID as string
  const owner = answers[0]?.statusCode === 202 ? one : two
  for (const [app, importID] of [[one, under], [owner, accepted]] as const) await importEnded(app, user.jwtToken, importID)
  const again = await started(one, user.jwtToken, slowPackage)
  const both = await Promise.all([postImport(one, user.jwtToken, fixture('collection.apkg')), postImport(one, user.jwtToken, fixture('collection.apkg'))])
  t.same(both.map((answer) => answer.statusCode).sort(), [202, 429], 'one instance: one taken, one refused')
  t.not((await statusOf(one, user.jwtToken, again)).state, 'done', 'while the first import was under way')
})

test('accounts take turns: another account\'s small import runs before an account\'s second one', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const busy = await registerUser(app, LEARNER)
  const small = await registerUser(app, LEARNER)
  const busyFirst = await started(app, busy.jwtToken, slowPackage)
  const busySecond = await started(app, busy.jwtToken, slowPackage)
  const smallOne = await started(app, small.jwtToken, fixture('collection.apkg'))
  t.equal((await statusOf(app, busy.jwtToken, busyFirst)).state !== 'done', true, 'the small import arrived while the busy account\'s first ran')

  const smallEnd = await importEnded(app, small.jwtToken, smallOne)
  const secondThen = await statusOf(app, busy.jwtToken, busySecond)
  t.equal(smallEnd.state, 'done')
  t.not(secondThen.state, 'done', `when the small import is done, the busy account's second has not run (${secondThen.state}, ${secondThen.percent}%)`)
  t.equal((await importEnded(app, busy.jwtToken, busyFirst)).state, 'done')
  t.equal((await importEnded(app, busy.jwtToken, busySecond)).state, 'done', 'and it runs next')
})
