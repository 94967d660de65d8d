import { test } from 'tap'
import { spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import {
  buildTestApp, databaseOf, expectOk, expectRefusal, makeDeck, post, registerUser, testDatabaseUrl, type TestUser
} from '../helpers/app.js'
import { call, startServiceProcess, stopped } from '../helpers/service-process.js'

const ROOT = join(import.meta.dirname, '..', '..')

interface Run { code: number | null, stdout: string, stderr: string }

/** `npm run admin -- <args>` with these settings (MONGODB_URL, or DATA_DIR for the embedded database). */
async function admin (settings: Record<string, string>, ...args: string[]): Promise<Run> {
  const env: NodeJS.ProcessEnv = { ...process.env, ...settings }
  if (settings.MONGODB_URL === undefined) delete env.MONGODB_URL
  delete env.JWT_SECRET
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/admin.ts', ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString() })
  child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve))
  return { code, stdout, stderr }
}

/** How many documents of the user each collection holds. */
async function documentsOf (app: FastifyInstance, userID: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {}
  for (const { name } of await databaseOf(app).listCollections({}, { nameOnly: true }).toArray()) {
    const filter = name === 'users' || name === 'trees' ? { _id: userID as never } : { userID }
    counts[name] = await databaseOf(app).collection(name).countDocuments(filter)
  }
  return counts
}

/** Two instances of the service on one database, as behind a load balancer; and that database's URL. */
async function twoInstances (t: Parameters<typeof buildTestApp>[0]): Promise<{ one: FastifyInstance, other: FastifyInstance, url: string }> {
  const url = testDatabaseUrl(import.meta.filename)
  const one = await buildTestApp(t, import.meta.filename, { mongodbUrl: url })
  const other = await buildTestApp(t, import.meta.filename, { mongodbUrl: url })
  return { one, other, url }
}

test('find prints the account\'s id, email, creation date, card count, and whether it is disabled', async (t) => {
  const { one: app, url } = await twoInstances(t)
  const user = await registerUser(app)
  await makeDeck(app, user, { folder: ['Spanish'], name: 'Verbs', cards: 3 })
  await makeDeck(app, user, { folder: ['Spanish'], name: 'Nouns', cards: 2 })
  const profile = await expectOk<{ createdAt: string }>(app, 'get-user', { jwtToken: user.jwtToken })

  const found = await admin({ MONGODB_URL: url }, 'find', user.email.toUpperCase())
  t.equal(found.code, 0, found.stderr)
  t.match(found.stdout, new RegExp(`^userID +${user.userID}$`, 'm'))
  t.match(found.stdout, new RegExp(`^email +${user.email}$`, 'm'))
  t.match(found.stdout, new RegExp(`^created +${profile.createdAt}$`, 'm'))
  t.match(found.stdout, /^cards +5$/m)
  t.match(found.stdout, /^disabled +no$/m)

  const unknown = await admin({ MONGODB_URL: url }, 'find', 'nobody@example.com')
  t.equal(unknown.code, 1)
  t.match(unknown.stderr, 'no account with the email nobody@example.com')

  const wrong = await admin({ MONGODB_URL: url }, 'suspend', user.email)
  t.equal(wrong.code, 2, 'an unknown command: the usage, and nothing done')
  t.match(wrong.stderr, /usage: npm run admin -- <command> <email>/)
})

test('disable refuses the account\'s tokens at once on every instance, and its login with 403 account_disabled; enable lets it log in again', async (t) => {
  const { one, other, url } = await twoInstances(t)
  const user = await registerUser(one)
  const bystander = await registerUser(one)
  // the token verified on both instances beforehand: each remembers it as valid
  await expectOk(one, 'get-user', { jwtToken: user.jwtToken })
  await expectOk(other, 'get-user', { jwtToken: user.jwtToken })

  const disabled = await admin({ MONGODB_URL: url }, 'disable', user.email)
  t.equal(disabled.code, 0, disabled.stderr)
  t.match(disabled.stdout, /^disabled +yes, since \d{4}-\d\d-\d\dT/m)
  t.match(disabled.stdout, 'Disabled')

  for (const [name, app] of [['this instance', one], ['another instance', other]] as const) {
    await expectRefusal(t, app, 'get-user', { jwtToken: user.jwtToken }, 403, 'account_disabled', `get-user on ${name}`)
    await expectRefusal(t, app, 'get-today-cards', { jwtToken: user.jwtToken }, 403, 'account_disabled', `get-today-cards on ${name}`)
    const goals = await post(app, 'update-goal-status', { jwtToken: user.jwtToken })
    t.equal(goals.statusCode, 401, 'update-goal-status: the published interface\'s answer to a token that does not work')
    t.same(goals.json(), {})
  }
  await expectRefusal(t, other, 'login', { email: user.email, password: user.password }, 403, 'account_disabled', 'login with the right password')
  await expectRefusal(t, other, 'login', { email: user.email, password: 'not the password' }, 401, 'wrong_credentials',
    'login with a wrong password: nothing said of the account')
  await expectOk(other, 'get-user', { jwtToken: bystander.jwtToken })

  const again = await admin({ MONGODB_URL: url }, 'disable', user.email)
  t.equal(again.code, 0)
  t.match(again.stdout, 'disabled already')
  const found = await admin({ MONGODB_URL: url }, 'find', user.email)
  t.match(found.stdout, /^disabled +yes, since /m)

  const enabled = await admin({ MONGODB_URL: url }, 'enable', user.email)
  t.equal(enabled.code, 0, enabled.stderr)
  t.match(enabled.stdout, /^disabled +no$/m)
  const { jwtToken } = await expectOk<{ jwtToken: string }>(one, 'login', { email: user.email, password: user.password })
  await expectOk(other, 'get-user', { jwtToken })
  await expectRefusal(t, other, 'get-user', { jwtToken: user.jwtToken }, 401, 'invalid_token', 'a token from before it was disabled stays ended')

  const enabledAgain = await admin({ MONGODB_URL: url }, 'enable', user.email)
  t.equal(enabledAgain.code, 0)
  t.match(enabledAgain.stdout, 'It was not disabled')
})

test('delete removes every document of the user, and nothing of others', async (t) => {
  const { one: app, url } = await twoInstances(t)
  const leaving = await registerUser(app)
  const staying = await registerUser(app)
  for (const user of [leaving, staying] as TestUser[]) {
    const { flashcardID, cardIDs } = await makeDeck(app, user, { folder: ['Languages', 'Spanish'], name: 'Verbs', cards: 2 })
    await expectOk(app, 'review-card', { jwtToken: user.jwtToken, flashcardID, cardID: cardIDs[0], rating: 'good' })
    await expectOk(app, 'create-goal', { jwtToken: user.jwtToken, type: 'Card', target: 5, end_date: '31/12/2099' }, 201)
  }
  const before = await documentsOf(app, leaving.userID)
  for (const collection of ['users', 'trees', 'cards', 'cardStates', 'reviews', 'goals']) t.ok((before[collection] ?? 0) > 0, `${collection} holds documents of the user`)
  const staysBefore = await documentsOf(app, staying.userID)

  const deleted = await admin({ MONGODB_URL: url }, 'delete', leaving.email)
  t.equal(deleted.code, 0, deleted.stderr)
  t.match(deleted.stdout, new RegExp(`^userID +${leaving.userID}$`, 'm'))
  t.match(deleted.stdout, /^cards +2$/m)
  t.match(deleted.stdout, 'Deleted')

  for (const [collection, count] of Object.entries(await documentsOf(app, leaving.userID))) t.equal(count, 0, `${collection} has nothing of the user`)
  t.same(await documentsOf(app, staying.userID), staysBefore, 'the other user keeps all of theirs')
  await expectRefusal(t, app, 'get-user', { jwtToken: leaving.jwtToken }, 401, 'invalid_token')
  t.equal((await admin({ MONGODB_URL: url }, 'find', leaving.email)).code, 1, 'find knows it no more')
})

test('on the embedded database: the running service\'s own server, and one started for the command when the service is stopped', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'admin-test-'))
  t.teardown(() => rm(dataDir, { recursive: true, force: true }))
  const service = await startServiceProcess(dataDir, {})
  t.teardown(() => { service.process.kill('SIGKILL') })
  const email = 'operated@example.com'
  const password = 'correct horse battery'
  const { body } = await call(service.base, 'register', { email, password })
  const jwtToken = body.jwtToken as string

  const disabled = await admin({ DATA_DIR: dataDir }, 'disable', email)
  t.equal(disabled.code, 0, disabled.stderr)
  t.notMatch(disabled.stderr, 'starting the embedded database', 'it used the service\'s server')
  const refused = await call(service.base, 'get-user', { jwtToken })
  t.equal(refused.status, 403)
  t.equal(refused.body.code, 'account_disabled')
  t.equal((await fetch(`${service.base}/health`)).status, 200, 'the service still has its database')

  service.process.kill('SIGTERM')
  await stopped(service.process)
  const found = await admin({ DATA_DIR: dataDir }, 'find', email)
  t.equal(found.code, 0, found.stderr)
  t.match(found.stderr, 'starting its embedded database for this')
  t.match(found.stdout, /^disabled +yes, since /m)
})
