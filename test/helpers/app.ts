import { randomBytes } from 'node:crypto'
import { basename } from 'node:path'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import type { Db } from 'mongodb'
import { buildApp, type AppConfig } from '../../src/app.js'
import type { RefusalCode } from '../../src/domain/refusals.js'
import type { ErrorStatus } from '../../src/schemas/errors.js'

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
    loadShedding: { maxInFlight: 100_000, maxInFlightPerUser: 100_000, maxUploads: 100_000, maxUploadsPerUser: 100_000 },
    ...overrides
  })
  await app.ready()
  t.teardown(async () => {
    await databaseOf(app).dropDatabase().catch(() => {})
    await app.close()
  })
  return app
}

/** Waits until the removal of a deleted account's documents is over (its own document goes last), at most `withinMs`. */
export async function removalOver (app: FastifyInstance, userID: string, withinMs = 100_000): Promise<void> {
  const deadline = Date.now() + withinMs
  while (await databaseOf(app).collection('users').countDocuments({ _id: userID as never }) > 0) {
    if (Date.now() > deadline) throw new Error(`the removal of ${userID}'s documents did not end within ${withinMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

/** The app's database, as the URL names it: for tests that look at what is stored. */
export function databaseOf (app: FastifyInstance): Db {
  return app.databaseClient.db()
}

export async function post (app: FastifyInstance, operation: string, body: unknown): Promise<LightMyRequestResponse> {
  return await app.inject({ method: 'POST', url: `/api/${operation}`, payload: body as object })
}

/**
 * Posts an operation that must succeed with `status`; its parsed answer, typed
 * as the caller reads it. Any other answer fails the test with its status and body.
 */
export async function expectOk<T = unknown> (app: FastifyInstance, operation: string, body: unknown, status = 200): Promise<T> {
  const response = await post(app, operation, body)
  if (response.statusCode !== status) throw new Error(`${operation}: expected ${status}, got ${response.statusCode} ${response.body}`)
  return response.json<T>()
}

/** The checks of a tap test that expectRefusal makes. */
export interface Checks {
  equal: (found: unknown, wanted: unknown, message: string) => boolean
  strictSame: (found: unknown, wanted: unknown, message: string) => boolean
}

/** The refusal every error answer is: a sentence and a code, nothing else. */
export interface Refused { error: string, code: string }

/**
 * Posts an operation that must be refused with `status` and `code`, and
 * checks the error contract: the answer is exactly `{error, code}`, the error
 * a sentence. Two assertions, named by `what` (the body, when not given).
 */
export async function expectRefusal (t: Checks, app: FastifyInstance, operation: string, body: Record<string, unknown>,
  status: ErrorStatus, code: RefusalCode, what = describe(operation, body)): Promise<Refused> {
  const response = await post(app, operation, body)
  const answer = response.json<Refused>()
  t.equal(response.statusCode, status, `${what}: ${status}`)
  const sentence = typeof answer.error === 'string' && answer.error.length > 0 ? 'a sentence' : answer.error
  t.strictSame({ ...answer, error: sentence }, { error: 'a sentence', code }, `${what}: ${code}`)
  return answer
}

function describe (operation: string, body: Record<string, unknown>): string {
  const rest = Object.fromEntries(Object.entries(body).filter(([key]) => key !== 'jwtToken'))
  return `${operation} ${JSON.stringify(rest).slice(0, 100)}`
}

export interface TestUser { userID: string, jwtToken: string, email: string, password: string }

let userCounter = 0

export async function registerUser (app: FastifyInstance, fields: Record<string, unknown> = {}): Promise<TestUser> {
  userCounter += 1
  const email = `learner${userCounter}-${randomBytes(3).toString('hex')}@example.com`
  const password = 'correct horse battery'
  const registered = await expectOk<{ userID: string, jwtToken: string }>(app, 'register', { email, password, ...fields }, 201)
  return { ...registered, email, password, ...fields }
}

/** Creates the folders of `path` that are missing; the id of the last. */
export async function makeFolder (app: FastifyInstance, user: TestUser, path: string[]): Promise<string> {
  return (await expectOk<{ folderID: string }>(app, 'create-folder', { jwtToken: user.jwtToken, path }, 201)).folderID
}

export interface Deck { flashcardID: string, cardIDs: string[] }

/**
 * A flashcard `name` in `folder` (made if missing), with the cards given or
 * `cards` new ones ("<name> front <i>", "<name> back <i>"); its id and the card ids,
 * in the order given.
 */
export async function makeDeck (app: FastifyInstance, user: TestUser,
  { folder, name, cards, description }: { folder: string[], name: string, cards: number | Array<{ front: string, back: string }>, description?: string }): Promise<Deck> {
  const folderMade = await post(app, 'create-folder', { jwtToken: user.jwtToken, path: folder })
  if (folderMade.statusCode !== 201 && folderMade.json<Partial<Refused>>().code !== 'name_taken') {
    throw new Error(`create-folder: ${folderMade.statusCode} ${folderMade.body}`)
  }
  const texts = typeof cards === 'number'
    ? Array.from({ length: cards }, (_, index) => ({ front: `${name} front ${index}`, back: `${name} back ${index}` }))
    : cards
  return await expectOk<Deck>(app, 'create-flashcard', {
    jwtToken: user.jwtToken, folder, flashcardName: name, cards: texts, ...(description === undefined ? {} : { description })
  }, 201)
}

/**
 * A token with one character of its signature changed. Not the last one: its
 * two low bits are padding a decoder may ignore, so changing it may change
 * nothing.
 */
export function tamperedToken (token: string): string {
  const [head, payload, signature = ''] = token.split('.')
  const at = 10
  const changed = signature[at] === 'A' ? 'B' : 'A'
  return `${head ?? ''}.${payload ?? ''}.${signature.slice(0, at)}${changed}${signature.slice(at + 1)}`
}

/** A page of get-flashcard: the flashcard, this page's cards, and the cursor of the next while more follow. */
export interface FlashcardPage<Card> { flashcardID: string, flashcardName: string, folder: string[], cards: Card[], nextCursor?: string }

/** Every page of a flashcard's cards (get-flashcard), each nextCursor followed to the last page. */
export async function flashcardPages<Card = Record<string, unknown>> (app: FastifyInstance, jwtToken: string, flashcardID: string,
  body: Record<string, unknown> = {}): Promise<Array<FlashcardPage<Card>>> {
  const pages: Array<FlashcardPage<Card>> = []
  let cursor: string | undefined
  do {
    const page: FlashcardPage<Card> = await expectOk(app, 'get-flashcard', { jwtToken, flashcardID, ...body, ...(cursor === undefined ? {} : { cursor }) })
    pages.push(page)
    cursor = page.nextCursor
  } while (cursor !== undefined)
  return pages
}

/** Every card of a flashcard, in creation order, read page after page (get-flashcard). */
export async function everyCardOf<Card = Record<string, unknown>> (app: FastifyInstance, jwtToken: string, flashcardID: string): Promise<Card[]> {
  return (await flashcardPages<Card>(app, jwtToken, flashcardID)).flatMap((page) => page.cards)
}

/** A page of get-all-cards with content: true. */
export interface LibraryPage { library: Record<string, unknown>, nextCursor?: string }

/** Every page of get-all-cards with content: true, each nextCursor followed to the last page. */
export async function libraryPages (app: FastifyInstance, jwtToken: string): Promise<LibraryPage[]> {
  const pages: LibraryPage[] = []
  let cursor: string | undefined
  do {
    const page: LibraryPage = await expectOk(app, 'get-all-cards', { jwtToken, content: true, ...(cursor === undefined ? {} : { cursor }) })
    pages.push(page)
    cursor = page.nextCursor
  } while (cursor !== undefined)
  return pages
}
