import { randomBytes } from 'node:crypto'
import { basename } from 'node:path'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import type { Db } from 'mongodb'
import { buildApp, type AppConfig } from '../../src/app.js'

export const TEST_SECRET = 'test-secret-that-is-long-enough-for-hs256-0123456789'

/** The URL of the run's database server, with a database of this test file's own. */
export function testDatabaseUrl (testFile: string): string {
  const server = process.env.MONGODB_URL
  if (server === undefined || server === '') {
    throw new Error('MONGODB_URL is not set: run the tests with `npm test`, which starts the embedded database')
  }
  const name = `test_${basename(testFile).replace(/\W+/g, '_').slice(0, 30)}_${randomBytes(4).toString('hex')}`
  const match = /^(mongodb(?:\+srv)?:\/\/[^/?]*)\/?([^?]*)(\?.*)?$/.exec(server)
  if (match === null) throw new Error(`MONGODB_URL is not a mongodb:// URL: ${server}`)
  return `${match[1] ?? ''}/${name}${match[3] ?? ''}`
}

interface Teardown { teardown: (fn: () => unknown) => void }

/** A fresh app on its own database, dropped when the test ends. */
export async function buildTestApp (t: Teardown, testFile: string, overrides: Partial<AppConfig> = {}): Promise<FastifyInstance> {
  const app = await buildApp({
    mongodbUrl: testDatabaseUrl(testFile),
    jwtSecret: TEST_SECRET,
    // tests register many users from one address; the limit itself has its own test
    attemptLimits: { perAddress: 100_000, perAccount: 100_000, windowMs: 60_000 },
    // tests send dozens of one user's requests at once; the limits have their own test
    loadShedding: { maxInFlight: 100_000, maxInFlightPerUser: 100_000 },
    ...overrides
  })
  await app.ready()
  t.teardown(async () => {
    await databaseOf(app).dropDatabase().catch(() => {})
    await app.close()
  })
  return app
}

/** The app's database, as the URL names it: for tests that look at what is stored. */
export function databaseOf (app: FastifyInstance): Db {
  return app.databaseClient.db()
}

export async function post (app: FastifyInstance, operation: string, body: unknown): Promise<LightMyRequestResponse> {
  return await app.inject({ method: 'POST', url: `/api/${operation}`, payload: body as object })
}

export interface TestUser { userID: string, jwtToken: string, email: string, password: string }

let userCounter = 0

export async function registerUser (app: FastifyInstance, fields: Record<string, unknown> = {}): Promise<TestUser> {
  userCounter += 1
  const email = `learner${userCounter}-${randomBytes(3).toString('hex')}@example.com`
  const password = 'correct horse battery'
  const response = await post(app, 'register', { email, password, ...fields })
  if (response.statusCode !== 201) throw new Error(`register failed: ${response.statusCode} ${response.body}`)
  return { ...(response.json() as { userID: string, jwtToken: string }), email, password, ...fields }
}

/** A flashcard of `count` cards in a folder of its own, named `name`; its id and the card ids. */
export async function flashcardOf (app: FastifyInstance, user: TestUser, name: string, count: number): Promise<{ flashcardID: string, cardIDs: string[] }> {
  await post(app, 'create-folder', { jwtToken: user.jwtToken, path: [name] })
  const cards = Array.from({ length: count }, (_, index) => ({ front: `${name} ${index}`, back: `back ${index}` }))
  const response = await post(app, 'create-flashcard', { jwtToken: user.jwtToken, folder: [name], flashcardName: name, cards })
  if (response.statusCode !== 201) throw new Error(`create-flashcard failed: ${response.statusCode} ${response.body}`)
  return response.json()
}
