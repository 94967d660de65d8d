// The database survives what the service sends it: Anki imports and tree operations at their limits
// and far past them (decks thousands of levels deep, names of every kind, sides at and past their
// size), in random orders, against the embedded engine. No answer is a 5xx, nothing stored nests
// deeper than the guard allows, and the database process never stops: if it does, the test fails.
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import tap, { test } from 'tap'
import { writeAnkiPackage } from '../scripts/bench/anki-package.js'
import { buildApp } from '../src/app.js'
import { nestingDepth } from '../src/db/nesting-guard.js'
import { MAX_CARD_TEXT, MAX_DOCUMENT_NESTING } from '../src/domain/limits.js'
import { databaseOf, post, registerUser, TEST_SECRET } from './helpers/app.js'
import { postImport, importEnded } from './helpers/anki-import.js'
import { ownDatabase } from './helpers/database-process.js'

tap.setTimeout(900_000)

/** names a folder may have */
const plainName = fc.string({ unit: fc.constantFrom(...'abcdefXYZ 0123_-'), minLength: 1, maxLength: 10 }).map((text) => `n${text}`)
/** names of every kind: legal ones that look odd, and ones the rules refuse */
const anyName = fc.oneof(
  { weight: 4, arbitrary: fc.string({ minLength: 1, maxLength: 12 }) },
  { weight: 2, arbitrary: fc.constantFrom('__proto__', 'constructor', 'a.b', '$where', 'x/y', 'cards', 'flashcardID', 'Spanish', 'spanish', 'Ｓpanish', '', ' ', 'a\u0000b', 'a\u202eb', 'e\u0301', '👨‍👩‍👧') },
  { weight: 1, arbitrary: fc.integer({ min: 99, max: 102 }).map((length) => 'n'.repeat(length)) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 8 }) }
)
const name = fc.oneof({ weight: 3, arbitrary: plainName }, { weight: 1, arbitrary: anyName })
/** depths around the limit, and far past it */
const depth = fc.oneof(fc.integer({ min: 1, max: 24 }), fc.constantFrom(64, 200, 1000, 5000))
/** a path of plain names, one of them (now and then) of any kind */
const path: fc.Arbitrary<string[]> = depth.chain((levels) => fc.tuple(
  fc.array(plainName, { minLength: levels, maxLength: levels }),
  fc.option(fc.tuple(fc.nat({ max: levels - 1 }), anyName), { freq: 3 })
).map(([names, odd]) => odd === null ? names : names.map((plain, index) => index === odd[0] ? odd[1] : plain)))
const side = fc.oneof(fc.string({ maxLength: 20 }), fc.constantFrom(MAX_CARD_TEXT - 1, MAX_CARD_TEXT, MAX_CARD_TEXT + 1, 200_000).map((length) => 's'.repeat(length)))

const operation = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('create-folder' as const), path }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('create-flashcard' as const), folder: fc.nat(), name, front: side, back: side }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('move-folder' as const), folder: fc.nat(), into: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('import-anki' as const), decks: fc.array(path, { minLength: 1, maxLength: 3 }), into: fc.option(fc.nat()), front: side, back: side }) }
)

test('imports and tree operations at and past their limits never stop the database', async (t) => {
  const database = await ownDatabase(t, 'fuzz-database-survival')
  const app = await buildApp({
    mongodbUrl: database.url,
    jwtSecret: TEST_SECRET,
    attemptLimits: { perAddress: 100_000, perAccount: 100_000, windowMs: 60_000 },
    loadShedding: { maxInFlight: 100_000, maxInFlightPerUser: 100_000, maxUploads: 100_000, maxUploadsPerUser: 100_000 }
  })
  t.teardown(() => app.close())
  await app.ready()
  const work = await mkdtemp(join(tmpdir(), 'fuzz-database-survival-'))
  t.teardown(() => rm(work, { recursive: true, force: true }))
  let packages = 0
  const statuses = new Map<string, number>()
  const count = (what: string): void => { statuses.set(what, (statuses.get(what) ?? 0) + 1) }

  await fc.assert(fc.asyncProperty(fc.array(operation, { minLength: 2, maxLength: 6 }), async (operations) => {
    const user = await registerUser(app)
    const { jwtToken } = user
    const answered = (operation: string, status: number, body: string): void => {
      count(`${operation} ${status}`)
      if (status >= 500) throw new Error(`${operation}: ${status} ${body}`)
    }
    for (const step of operations) {
      const outline = (await post(app, 'get-library', { jwtToken })).json<{ folders: FolderOutline[] }>()
      const folders = flatten(outline.folders ?? [])
      if (step.kind === 'create-folder') {
        const answer = await post(app, 'create-folder', { jwtToken, path: step.path })
        answered(step.kind, answer.statusCode, answer.body)
      } else if (step.kind === 'create-flashcard') {
        const folder = folders[step.folder % Math.max(1, folders.length)]?.path ?? ['Cards']
        const answer = await post(app, 'create-flashcard', { jwtToken, folder, flashcardName: step.name, cards: [{ front: step.front === '' ? 'f' : step.front, back: step.back }] })
        answered(step.kind, answer.statusCode, answer.body)
      } else if (step.kind === 'move-folder') {
        const folder = folders[step.folder % Math.max(1, folders.length)]
        const into = folders[step.into % Math.max(1, folders.length)]
        if (folder === undefined || into === undefined) continue
        const answer = await post(app, 'move-folder', { jwtToken, folderID: folder.folderID, parentID: step.into % 5 === 0 ? '' : into.folderID })
        answered(step.kind, answer.statusCode, answer.body)
      } else {
        const file = join(work, `${packages++}.apkg`)
        await writeAnkiPackage(file, { cards: step.decks.length, revlog: step.decks.length, decks: step.decks, guidPrefix: `fuzz-${packages}`, fields: () => [step.front, step.back] })
        const into = step.into === null ? undefined : folders[step.into % Math.max(1, folders.length)]?.path
        const answer = await postImport(app, jwtToken, await readFile(file), into === undefined ? {} : { folder: into })
        answered(step.kind, answer.statusCode, answer.body)
        if (answer.statusCode === 202) {
          const status = await importEnded(app, jwtToken, answer.json<{ importID: string }>().importID)
          count(`import ${status.state}${status.code === undefined ? '' : ` ${status.code}`}`)
          if (status.code === 'internal_error') throw new Error(`import-anki failed in the service: ${JSON.stringify(status)}`)
        }
      }
      if (database.exits() > 0) throw new Error(`the database process stopped after ${step.kind}`)
    }
  }), { numRuns: 40, endOnFailure: true })

  const db = databaseOf(app)
  let deepest = 0
  for (const { name: collection } of await db.listCollections().toArray()) {
    for await (const document of db.collection(collection).find({})) deepest = Math.max(deepest, nestingDepth(document))
  }
  t.ok(deepest <= MAX_DOCUMENT_NESTING, `the deepest document stored: ${deepest} levels`)
  t.equal(database.exits(), 0, 'the database process never stopped')
  t.ok([...statuses.keys()].some((key) => key.startsWith('import failed too_deep')), `imports past the depth were refused: ${JSON.stringify(Object.fromEntries(statuses))}`)
})

interface FolderOutline { folderID: string, name: string, folders?: FolderOutline[] }

/** Every folder of the library's outline with its path of names. */
function flatten (folders: readonly FolderOutline[], above: string[] = []): Array<{ folderID: string, path: string[] }> {
  return folders.flatMap((folder) => [{ folderID: folder.folderID, path: [...above, folder.name] }, ...flatten(folder.folders ?? [], [...above, folder.name])])
}
