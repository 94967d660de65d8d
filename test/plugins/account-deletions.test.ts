// The removal of a deleted account's documents outlives the instance that
// began it: cut off midway (the app closed, or killed with its hold still on),
// it is finished by another instance on the same database; and two instances
// that take it from each other as they go leave the same outcome.
import { test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { MongoClient, type Db } from 'mongodb'
import { buildApp, type AppConfig } from '../../src/app.js'
import {
  buildTestApp, databaseOf, expectOk, expectRefusal, post, registerUser, removalOver, TEST_SECRET, testDatabaseUrl, type Checks, type TestUser
} from '../helpers/app.js'
import { documentsOf, fillHistory } from '../helpers/large-account.js'

/** An instance on `url` that the test closes itself, as a service stopping midway. */
async function instanceOn (url: string, overrides: Partial<AppConfig> = {}): Promise<FastifyInstance> {
  const app = await buildApp({
    mongodbUrl: url,
    jwtSecret: TEST_SECRET,
    attemptLimits: { perAddress: 100_000, perAccount: 100_000, windowMs: 60_000 },
    ...overrides
  })
  await app.ready()
  return app
}

/** The database of `url`, reached by a client of the test's own, whichever instances run. */
async function databaseAt (t: { teardown: (fn: () => unknown) => void }, url: string): Promise<Db> {
  const client = new MongoClient(url)
  await client.connect()
  t.teardown(async () => { await client.close() })
  return client.db()
}

interface DeletedAccount { _id: string, email: string, deletingSince?: Date, removalHolder?: string, removalUntil?: Date }

async function twoUsers (app: FastifyInstance, reviews = 60_000): Promise<{ leaving: TestUser, staying: TestUser }> {
  const leaving = await registerUser(app)
  const staying = await registerUser(app)
  await fillHistory(app, leaving, { cards: 3000, reviews })
  await fillHistory(app, staying, { cards: 300, reviews: 1000 })
  return { leaving, staying }
}

async function expectNothingLeft (t: Pick<Checks, 'equal'> & { ok: (found: unknown, message: string) => boolean }, app: FastifyInstance, userID: string): Promise<void> {
  const left = await documentsOf(databaseOf(app), userID)
  t.ok(Object.keys(left).length >= 5, `checked ${Object.keys(left).join(', ')}`)
  for (const [collection, count] of Object.entries(left)) t.equal(count, 0, `${collection} has nothing of the user`)
}

test('a deletion cut off midway (the app closed right after its answer) is finished by another instance started later on the same database', async (t) => {
  const url = testDatabaseUrl(import.meta.filename)
  const first = await instanceOn(url)
  const { leaving, staying } = await twoUsers(first)
  const staysBefore = await documentsOf(databaseOf(first), staying.userID)

  await expectOk(first, 'delete-account', { jwtToken: leaving.jwtToken, password: leaving.password })
  await first.close()

  const db = await databaseAt(t, url)
  const account = await db.collection<DeletedAccount>('users').findOne({ _id: leaving.userID })
  t.ok(account?.deletingSince instanceof Date, 'what the first instance left: the account, marked as being deleted')
  t.not(account?.email, leaving.email, 'its email free')
  t.ok(await db.collection('reviews').countDocuments({ userID: leaving.userID }) > 0, 'and some of its documents')

  const later = await buildTestApp(t, import.meta.filename, { mongodbUrl: url })
  await expectRefusal(t, later, 'get-user', { jwtToken: leaving.jwtToken }, 401, 'invalid_token', 'its token, on the later instance')
  await removalOver(later, leaving.userID)
  await expectNothingLeft(t, later, leaving.userID)
  t.same(await documentsOf(databaseOf(later), staying.userID), staysBefore, 'the other user keeps all of theirs')
  await expectOk(later, 'get-user', { jwtToken: staying.jwtToken })
})

test('a removal still held by an instance killed midway is taken over once its hold runs out, not before', async (t) => {
  const url = testDatabaseUrl(import.meta.filename)
  const first = await instanceOn(url)
  const { leaving } = await twoUsers(first)
  await expectOk(first, 'delete-account', { jwtToken: leaving.jwtToken, password: leaving.password })
  await first.close()
  // what a killed instance leaves: its hold, which it no longer renews
  const db = await databaseAt(t, url)
  const users = db.collection<DeletedAccount>('users')
  const heldUntil = new Date(Date.now() + 1500)
  await users.updateOne({ _id: leaving.userID }, { $set: { removalHolder: 'an instance killed midway', removalUntil: heldUntil } })
  const before = await documentsOf(db, leaving.userID)

  const later = await buildTestApp(t, import.meta.filename, { mongodbUrl: url, deletions: { leaseMs: 400 } })
  t.same(await documentsOf(databaseOf(later), leaving.userID), before, 'nothing removed while the killed instance\'s hold lasts')
  t.equal((await users.findOne({ _id: leaving.userID }))?.removalHolder, 'an instance killed midway')
  await removalOver(later, leaving.userID)
  t.ok(Date.now() >= heldUntil.getTime(), 'taken over once the hold ran out')
  await expectNothingLeft(t, later, leaving.userID)
})

test('two instances that take a removal from each other as they go (holds shorter than their steps) leave nothing, and nothing of others', async (t) => {
  const url = testDatabaseUrl(import.meta.filename)
  const deletions = { leaseMs: 30 }
  const one = await buildTestApp(t, import.meta.filename, { mongodbUrl: url, deletions })
  const other = await buildTestApp(t, import.meta.filename, { mongodbUrl: url, deletions })
  const { leaving, staying } = await twoUsers(one, 20_000)
  const staysBefore = await documentsOf(databaseOf(one), staying.userID)
  const holders = new Set<string>()
  const watching = setInterval(() => {
    void databaseOf(one).collection<DeletedAccount>('users').findOne({ _id: leaving.userID })
      .then((account) => { if (account?.removalHolder !== undefined) holders.add(account.removalHolder) }, () => {})
  }, 20)
  t.teardown(() => { clearInterval(watching) })

  const answer = await post(one, 'delete-account', { jwtToken: leaving.jwtToken, password: leaving.password })
  t.equal(answer.statusCode, 200)
  await removalOver(other, leaving.userID)
  clearInterval(watching)
  t.ok(holders.size >= 2, `held in turn by ${holders.size} instances`)
  await expectNothingLeft(t, other, leaving.userID)
  t.same(await documentsOf(databaseOf(other), staying.userID), staysBefore, 'the other user keeps all of theirs')
})
