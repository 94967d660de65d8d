// Every door that writes, driven at its limits and past them: what is stored at the limits nests
// far inside what the database accepts, what is past them is refused with the API's code, and the
// database process never stops. On a database of the test's own.
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import tap, { test } from 'tap'
import { writeAnkiPackage, type GeneratedPackage } from '../scripts/bench/anki-package.js'
import { buildApp } from '../src/app.js'
import { nestingDepth } from '../src/db/nesting-guard.js'
import { MAX_CARD_TEXT, MAX_DOCUMENT_NESTING, MAX_FOLDER_DEPTH } from '../src/domain/limits.js'
import { databaseOf, expectOk, post, registerUser, TEST_SECRET } from './helpers/app.js'
import { importAnki } from './helpers/anki-import.js'
import { ownDatabase } from './helpers/database-process.js'
import { exportedZip, importedZip } from './helpers/zip.js'

tap.setTimeout(600_000)

async function ankiPackage (t: { teardown: (fn: () => unknown) => void }, spec: GeneratedPackage): Promise<Buffer> {
  const folder = await mkdtemp(join(tmpdir(), 'deepest-documents-'))
  t.teardown(() => rm(folder, { recursive: true, force: true }))
  await writeAnkiPackage(join(folder, 'deck.apkg'), spec)
  return await readFile(join(folder, 'deck.apkg'))
}

const path = (levels: number, prefix = 'L'): string[] => Array.from({ length: levels }, (_, index) => `${prefix}${index + 1}`)

test('each write path at its limits stores documents far inside the nesting the database accepts; past its limits it is refused and the database stays up', async (t) => {
  const database = await ownDatabase(t, 'deepest-documents')
  const app = await buildApp({ mongodbUrl: database.url, jwtSecret: TEST_SECRET })
  t.teardown(() => app.close())
  await app.ready()
  const user = await registerUser(app, { timezone: 'Europe/Paris' })
  const jwtToken = user.jwtToken
  const deepest = path(MAX_FOLDER_DEPTH)

  // the API: folders as deep as they go, a flashcard at the bottom with its longest description and sides
  await expectOk(app, 'create-folder', { jwtToken, path: deepest }, 201)
  const deck = await expectOk<{ flashcardID: string, cardIDs: string[] }>(app, 'create-flashcard', {
    jwtToken,
    folder: deepest,
    flashcardName: 'Bottom',
    description: 'd'.repeat(MAX_CARD_TEXT),
    cards: [
      { front: 'f'.repeat(MAX_CARD_TEXT), back: 'b'.repeat(MAX_CARD_TEXT) },
      { front: '<ul><li><ol><li><b><i><u>deep</u></i></b></li></ol></li></ul>', back: '<table><tr><td><sub><sup>x</sup></sub></td></tr></table>', format: 'html' },
      { cloze: '{{c1::Paris}} is in {{c2::France}}', back: 'extra' }
    ]
  }, 201)
  t.equal((await post(app, 'create-folder', { jwtToken, path: path(MAX_FOLDER_DEPTH + 1) })).statusCode, 400, 'a folder one level deeper: refused')
  // a subtree moved under another as far as it may go, then one level past it
  const moved = await expectOk<{ folderID: string }>(app, 'create-folder', { jwtToken, path: path(MAX_FOLDER_DEPTH - 1, 'M') }, 201)
  const top = await expectOk<{ folderID: string }>(app, 'create-folder', { jwtToken, path: ['Top'] }, 201)
  const outline = await expectOk<{ folders: Array<{ folderID: string, name: string }> }>(app, 'get-library', { jwtToken })
  const movedTop = outline.folders.find((folder) => folder.name === 'M1')?.folderID as string
  t.ok(moved.folderID !== '' && movedTop !== undefined)
  await expectOk(app, 'move-folder', { jwtToken, folderID: movedTop, parentID: top.folderID })
  const under = await expectOk<{ folderID: string }>(app, 'create-folder', { jwtToken, path: ['Under'] }, 201)
  const past = await post(app, 'move-folder', { jwtToken, folderID: top.folderID, parentID: under.folderID })
  t.equal(past.json().code, 'too_deep', 'a move one level past the limit')

  // the file imports into the deepest folder
  await expectOk(app, 'import-cards', { jwtToken, folder: deepest, flashcardName: 'Text', text: 'hola\tolá\nadiós\tgoodbye', termSeparator: '\t', cardSeparator: '\n' }, 201)
  await importedZip(app, jwtToken, { folder: deepest, flashcardName: 'Zip', archive: await exportedZip(app, jwtToken, deck.flashcardID) })

  // Anki: a deck as deep as folders go, with history; one a thousand levels deep, and ten thousand
  const atLimit = await importAnki(app, jwtToken, await ankiPackage(t, { cards: 20, revlog: 200, decks: [path(MAX_FOLDER_DEPTH + 1, 'A')] }))
  t.equal(atLimit.state, 'done', JSON.stringify(atLimit))
  for (const levels of [1000, 10_000]) {
    const refused = await importAnki(app, jwtToken, await ankiPackage(t, { cards: 2, revlog: 2, decks: [path(levels, 'D')], guidPrefix: `deep-${levels}` }))
    t.equal(refused.code, 'too_deep', `a deck ${levels} levels deep: ${JSON.stringify(refused)}`)
  }

  // studying, goals and settings
  await expectOk(app, 'review-card', { jwtToken, flashcardID: deck.flashcardID, cardID: deck.cardIDs[0], rating: 'good' })
  await expectOk(app, 'create-goal', { jwtToken, type: 'Card', target: 5, end_date: '31/12/2099' }, 201)
  await expectOk(app, 'update-settings', { jwtToken, displayName: 'Deep', newCardsPerDay: 50 })

  // everything stored, collection by collection: its deepest document
  const db = databaseOf(app)
  const depths: Record<string, number> = {}
  for (const { name } of await db.listCollections().toArray()) {
    for await (const document of db.collection(name).find({})) depths[name] = Math.max(depths[name] ?? 0, nestingDepth(document))
  }
  const deepestStored = Math.max(...Object.values(depths))
  t.ok(deepestStored <= MAX_DOCUMENT_NESTING, `every document within ${MAX_DOCUMENT_NESTING} levels: ${JSON.stringify(depths)}`)
  t.ok((depths.trees ?? 0) >= 2 * MAX_FOLDER_DEPTH, `the trees reached their limit: ${depths.trees ?? 0} levels`)
  t.equal(database.exits(), 0, 'the database process never stopped')
})
