import type { FastifyInstance } from 'fastify'
import { test } from 'tap'
import { newId } from '../../src/domain/ids.js'
import type { FolderNode } from '../../src/domain/library-tree.js'
import { buildTestApp, databaseOf, post, registerUser, type TestUser } from '../helpers/app.js'
import { storedNodes, storedState } from '../helpers/stored.js'

/** Calls an operation as the user; the answer's status and JSON body. */
async function call (app: FastifyInstance, user: TestUser, operation: string, body: Record<string, unknown>) {
  const response = await post(app, operation, { jwtToken: user.jwtToken, ...body })
  return { status: response.statusCode, body: response.json() }
}

async function ok (app: FastifyInstance, user: TestUser, operation: string, body: Record<string, unknown>) {
  const answer = await call(app, user, operation, body)
  if (answer.status >= 300) throw new Error(`${operation}: ${answer.status} ${JSON.stringify(answer.body)}`)
  return answer.body
}

test('a sibling whose name only looks different from one there is refused with 409 naming it, in every operation', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app)
  const { folderID: spanish } = await ok(app, user, 'create-folder', { path: ['Languages', 'Spanish'] })
  const { folderID: elsewhere } = await ok(app, user, 'create-folder', { path: ['Languages', 'Elsewhere'] })
  const languages = (await storedNodes(app)).find((node) => node.name === 'Languages')?._id
  await ok(app, user, 'create-flashcard', { folder: ['Languages'], flashcardName: 'Verbs', cards: [] })
  const { flashcardID: nouns } = await ok(app, user, 'create-flashcard', { folder: ['Languages'], flashcardName: 'Nouns', cards: [] })
  // the same names in another folder are free (the control case)
  const { folderID: otherSpanish } = await ok(app, user, 'create-folder', { path: ['Other', 'SPANISH'] })
  const { flashcardID: otherVerbs } = await ok(app, user, 'create-flashcard', { folder: ['Other'], flashcardName: 'VERBS', cards: [] })
  await ok(app, user, 'create-folder', { path: ['Straße'] })
  const before = await storedState(app)

  const attempts: Array<[string, string, Record<string, unknown>, RegExp]> = [
    ['another case', 'create-folder', { path: ['Languages', 'spanish'] }, /the folder "Spanish" already there/],
    ['full width', 'create-folder', { path: ['Languages', '\uff33\uff50\uff41\uff4e\uff49\uff53\uff48', 'Deeper'] }, /the folder "Spanish" already there/],
    ['a folder like a flashcard', 'create-folder', { path: ['Languages', 'verbs'] }, /the flashcard "Verbs" already there/],
    ['ß as ss', 'create-folder', { path: ['STRASSE'] }, /the folder "Straße" already there/],
    ['a flashcard like a folder', 'create-flashcard', { folder: ['Languages'], flashcardName: 'SPANISH', cards: [{ front: 'q', back: 'a' }] }, /the folder "Spanish" already there/],
    ['a flashcard like a flashcard', 'create-flashcard', { folder: ['Languages'], flashcardName: 'verbs', cards: [] }, /the flashcard "Verbs" already there/],
    ['an import', 'import-cards', { folder: ['Languages'], flashcardName: 'VERBS', text: 'q\ta' }, /the flashcard "Verbs" already there/],
    ['a folder renamed', 'rename-folder', { folderID: elsewhere, name: 'spanish' }, /the folder "Spanish" already there/],
    ['a flashcard renamed', 'rename-flashcard', { flashcardID: nouns, name: 'verbs' }, /the flashcard "Verbs" already there/],
    ['a folder moved', 'move-folder', { folderID: otherSpanish, parentID: languages }, /the folder "Spanish" already there/],
    ['a flashcard moved', 'move-flashcard-set', { flashcardID: otherVerbs, folderID: languages }, /the flashcard "Verbs" already there/]
  ]
  for (const [what, operation, body, named] of attempts) {
    const answer = await call(app, user, operation, body)
    t.equal(answer.status, 409, what)
    t.match(answer.body.error, named, what)
    t.match(answer.body.error, /compared regardless of case, width and invisible characters/, what)
  }
  t.equal(await storedState(app), before, 'nothing was stored')

  // a path names existing folders exactly as they are written
  t.equal((await call(app, user, 'create-flashcard', { folder: ['languages'], flashcardName: 'Deck', cards: [] })).status, 404, 'a path is matched exactly')
  t.equal((await call(app, user, 'create-flashcard', { folder: ['Languages', 'Spanish'], flashcardName: 'Deck', cards: [] })).status, 201)
  t.equal((await call(app, user, 'create-folder', { path: ['Languages', 'Spanish'] })).status, 409, 'the same name, exactly, is still "already exists"')

  await t.test('a rename to another spelling of its own name collides with nothing', async (t) => {
    t.same(await ok(app, user, 'rename-folder', { folderID: spanish, name: 'spanish' }), { folderID: spanish, path: ['Languages', 'spanish'] })
    t.same(await ok(app, user, 'rename-flashcard', { flashcardID: nouns, name: 'NOUNS' }), { flashcardID: nouns, flashcardName: 'NOUNS' })
    const stored = await storedNodes(app)
    t.equal(stored.find((node) => node._id === spanish)?.name, 'spanish', 'stored as written')
  })
})

test('siblings stored before the rule that already collide are kept, and can be renamed, moved and deleted', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app)
  await ok(app, user, 'create-folder', { path: ['First'] })
  const ids = { upper: newId(), lower: newId(), hidden: newId(), plain: newId(), target: newId(), verbs: newId(), verbsAgain: newId() }
  const folders: FolderNode[] = [
    {
      id: ids.upper,
      name: 'Spanish',
      folders: [],
      flashcards: [{ id: ids.verbs, name: 'Verbs', description: '' }, { id: ids.verbsAgain, name: 'verbs', description: '' }]
    },
    { id: ids.lower, name: 'spanish', folders: [], flashcards: [] },
    // a name the character rules now refuse, beside the one it looks like
    { id: ids.hidden, name: 'x\u200by', folders: [], flashcards: [] },
    { id: ids.plain, name: 'xy', folders: [], flashcards: [] },
    { id: ids.target, name: 'Target', folders: [], flashcards: [] }
  ]
  await databaseOf(app).collection<{ _id: string, folders: FolderNode[] }>('trees').updateOne({ _id: user.userID }, { $set: { folders } })
  await databaseOf(app).collection<{ _id: string }>('users').updateOne({ _id: user.userID }, { $set: { 'usage.nodes': 7 } })

  const library = await ok(app, user, 'get-library', {})
  t.same(library.folders.map((folder: { name: string }) => folder.name), ['Spanish', 'spanish', 'x\u200by', 'xy', 'Target'], 'every one is there')
  t.same(library.folders[0].flashcards.map((flashcard: { flashcardName: string }) => flashcard.flashcardName), ['Verbs', 'verbs'])

  const trees = databaseOf(app).collection<{ _id: string, version: number, folders: FolderNode[] }>('trees')
  const unchanged = await trees.findOne({ _id: user.userID })
  t.same(await ok(app, user, 'rename-folder', { folderID: ids.lower, name: 'spanish' }), { folderID: ids.lower, path: ['spanish'] }, 'a rename to its own name')
  t.same(await ok(app, user, 'rename-folder', { folderID: ids.hidden, name: 'x\u200by' }), { folderID: ids.hidden, path: ['x\u200by'] }, 'even a name the rules now refuse')
  t.same(await ok(app, user, 'rename-flashcard', { flashcardID: ids.verbsAgain, name: 'verbs' }), { flashcardID: ids.verbsAgain, flashcardName: 'verbs' })
  t.same(await trees.findOne({ _id: user.userID }), unchanged, 'renames to their own names change nothing, not even the version')

  const other = await call(app, user, 'rename-folder', { folderID: ids.lower, name: 'SPANISH' })
  t.equal(other.status, 409, 'a name that changes is compared with the others')
  t.match(other.body.error, /the folder "Spanish" already there/)

  // a path still finds each by its exact name
  t.equal((await call(app, user, 'create-flashcard', { folder: ['spanish'], flashcardName: 'Deck', cards: [] })).status, 201)
  t.equal((await call(app, user, 'create-flashcard', { folder: ['x\u200by'], flashcardName: 'Deck', cards: [] })).status, 201)

  t.same(await ok(app, user, 'move-folder', { folderID: ids.lower, parentID: ids.target }), { folderID: ids.lower, path: ['Target', 'spanish'] })
  const back = await call(app, user, 'move-folder', { folderID: ids.lower })
  t.equal(back.status, 409, 'moved back among the look-alikes, it collides')
  t.match(back.body.error, /the folder "Spanish" already there/)
  t.same(await ok(app, user, 'rename-folder', { folderID: ids.lower, name: 'Spanish' }), { folderID: ids.lower, path: ['Target', 'Spanish'] }, 'free where it is now')

  t.same(await ok(app, user, 'move-flashcard-set', { flashcardID: ids.verbsAgain, folderID: ids.target }), { flashcardID: ids.verbsAgain, folderID: ids.target, folder: ['Target'] })
  t.same(await ok(app, user, 'rename-folder', { folderID: ids.hidden, name: 'x-y' }), { folderID: ids.hidden, path: ['x-y'] })
  t.equal((await ok(app, user, 'delete-flashcard', { flashcardID: ids.verbs })).flashcardID, ids.verbs)
  t.equal((await ok(app, user, 'delete-folder', { folderID: ids.upper })).folderID, ids.upper)
  const left = await ok(app, user, 'get-library', {})
  t.same(left.folders.map((folder: { name: string }) => folder.name), ['x-y', 'xy', 'Target'], 'what is left')
  t.same(left.folders[2].folders.map((folder: { name: string }) => folder.name), ['Spanish'])
  t.same(left.folders[2].flashcards.map((flashcard: { flashcardName: string }) => flashcard.flashcardName), ['verbs'])
})

test('a message quotes a stored name with its invisible characters escaped, so that it reads as it is', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app)
  await ok(app, user, 'create-folder', { path: ['First'] })
  const folders: FolderNode[] = [{ id: newId(), name: 'Deck\u200b', folders: [], flashcards: [{ id: newId(), name: 'Verbs', description: '' }] }]
  await databaseOf(app).collection<{ _id: string, folders: FolderNode[] }>('trees').updateOne({ _id: user.userID }, { $set: { folders } })
  const alike = await call(app, user, 'create-folder', { path: ['deck'] })
  t.equal(alike.status, 409)
  t.match(alike.body.error, 'the folder "Deck\\u200b" already there', 'the sibling as stored, its zero-width space shown')
  t.notOk(alike.body.error.includes('\u200b'))
  const existing = await call(app, user, 'create-flashcard', { folder: ['Deck\u200b'], flashcardName: 'Verbs', cards: [] })
  t.equal(existing.status, 409)
  t.equal(existing.body.error, '"Deck\\u200b" / "Verbs" already exists: choose another name, or add cards to it with add-cards')
  t.equal(existing.body.code, 'name_taken')
})
