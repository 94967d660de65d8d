import { test } from 'tap'
import { newId } from '../../src/domain/ids.js'
import type { FolderNode } from '../../src/domain/library-tree.js'
import { buildTestApp, databaseOf, expectOk, expectRefusal, makeDeck, makeFolder, post, registerUser } from '../helpers/app.js'
import { storedNodes, storedState } from '../helpers/stored.js'

interface Library { folders: Array<{ name: string, folders: Array<{ name: string }>, flashcards: Array<{ flashcardName: string }> }> }

const SIMILAR = /compared regardless of case, width and invisible characters/

test('a sibling whose name only looks different from one there is refused with 409 naming it, in every operation', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app)
  const { jwtToken } = user
  const spanish = await makeFolder(app, user, ['Languages', 'Spanish'])
  const elsewhere = await makeFolder(app, user, ['Languages', 'Elsewhere'])
  const languages = (await storedNodes(app)).find((node) => node.name === 'Languages')?._id
  await makeDeck(app, user, { folder: ['Languages'], name: 'Verbs', cards: 0 })
  const { flashcardID: nouns } = await makeDeck(app, user, { folder: ['Languages'], name: 'Nouns', cards: 0 })
  // the same names in another folder are free (the control case)
  const otherSpanish = await makeFolder(app, user, ['Other', 'SPANISH'])
  const { flashcardID: otherVerbs } = await makeDeck(app, user, { folder: ['Other'], name: 'VERBS', cards: 0 })
  await makeFolder(app, user, ['Straße'])
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
    const { error } = await expectRefusal(t, app, operation, { jwtToken, ...body }, 409, 'name_too_similar', what)
    t.match(error, named, what)
    t.match(error, SIMILAR, what)
  }
  t.equal(await storedState(app), before, 'nothing was stored')

  // a path names existing folders exactly as they are written
  await expectRefusal(t, app, 'create-flashcard', { jwtToken, folder: ['languages'], flashcardName: 'Deck', cards: [] }, 404, 'folder_not_found', 'a path is matched exactly')
  t.equal((await post(app, 'create-flashcard', { jwtToken, folder: ['Languages', 'Spanish'], flashcardName: 'Deck', cards: [] })).statusCode, 201)
  await expectRefusal(t, app, 'create-folder', { jwtToken, path: ['Languages', 'Spanish'] }, 409, 'name_taken', 'the same name, exactly, is still "already exists"')

  await t.test('a rename to another spelling of its own name collides with nothing', async (t) => {
    t.same(await expectOk(app, 'rename-folder', { jwtToken, folderID: spanish, name: 'spanish' }), { folderID: spanish, path: ['Languages', 'spanish'] })
    t.same(await expectOk(app, 'rename-flashcard', { jwtToken, flashcardID: nouns, name: 'NOUNS' }), { flashcardID: nouns, flashcardName: 'NOUNS' })
    const stored = await storedNodes(app)
    t.equal(stored.find((node) => node._id === spanish)?.name, 'spanish', 'stored as written')
  })
})

test('siblings stored before the rule that already collide are kept, and can be renamed, moved and deleted', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app)
  const { jwtToken } = user
  await makeFolder(app, user, ['First'])
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

  const library = await expectOk<Library>(app, 'get-library', { jwtToken })
  t.same(library.folders.map((folder) => folder.name), ['Spanish', 'spanish', 'x\u200by', 'xy', 'Target'], 'every one is there')
  t.same(library.folders[0]?.flashcards.map((flashcard) => flashcard.flashcardName), ['Verbs', 'verbs'])

  const trees = databaseOf(app).collection<{ _id: string, version: number, folders: FolderNode[] }>('trees')
  const unchanged = await trees.findOne({ _id: user.userID })
  t.same(await expectOk(app, 'rename-folder', { jwtToken, folderID: ids.lower, name: 'spanish' }), { folderID: ids.lower, path: ['spanish'] }, 'a rename to its own name')
  t.same(await expectOk(app, 'rename-folder', { jwtToken, folderID: ids.hidden, name: 'x\u200by' }), { folderID: ids.hidden, path: ['x\u200by'] }, 'even a name the rules now refuse')
  t.same(await expectOk(app, 'rename-flashcard', { jwtToken, flashcardID: ids.verbsAgain, name: 'verbs' }), { flashcardID: ids.verbsAgain, flashcardName: 'verbs' })
  t.same(await trees.findOne({ _id: user.userID }), unchanged, 'renames to their own names change nothing, not even the version')

  const other = await expectRefusal(t, app, 'rename-folder', { jwtToken, folderID: ids.lower, name: 'SPANISH' }, 409, 'name_too_similar',
    'a name that changes is compared with the others')
  t.match(other.error, /the folder "Spanish" already there/)

  // a path still finds each by its exact name
  t.equal((await post(app, 'create-flashcard', { jwtToken, folder: ['spanish'], flashcardName: 'Deck', cards: [] })).statusCode, 201)
  t.equal((await post(app, 'create-flashcard', { jwtToken, folder: ['x\u200by'], flashcardName: 'Deck', cards: [] })).statusCode, 201)

  t.same(await expectOk(app, 'move-folder', { jwtToken, folderID: ids.lower, parentID: ids.target }), { folderID: ids.lower, path: ['Target', 'spanish'] })
  const back = await expectRefusal(t, app, 'move-folder', { jwtToken, folderID: ids.lower }, 409, 'name_too_similar', 'moved back among the look-alikes, it collides')
  t.match(back.error, /the folder "Spanish" already there/)
  t.same(await expectOk(app, 'rename-folder', { jwtToken, folderID: ids.lower, name: 'Spanish' }), { folderID: ids.lower, path: ['Target', 'Spanish'] }, 'free where it is now')

  t.same(await expectOk(app, 'move-flashcard-set', { jwtToken, flashcardID: ids.verbsAgain, folderID: ids.target }), { flashcardID: ids.verbsAgain, folderID: ids.target, folder: ['Target'] })
  t.same(await expectOk(app, 'rename-folder', { jwtToken, folderID: ids.hidden, name: 'x-y' }), { folderID: ids.hidden, path: ['x-y'] })
  t.equal((await expectOk<{ flashcardID: string }>(app, 'delete-flashcard', { jwtToken, flashcardID: ids.verbs })).flashcardID, ids.verbs)
  t.equal((await expectOk<{ folderID: string }>(app, 'delete-folder', { jwtToken, folderID: ids.upper })).folderID, ids.upper)
  const left = await expectOk<Library>(app, 'get-library', { jwtToken })
  t.same(left.folders.map((folder) => folder.name), ['x-y', 'xy', 'Target'], 'what is left')
  t.same(left.folders[2]?.folders.map((folder) => folder.name), ['Spanish'])
  t.same(left.folders[2]?.flashcards.map((flashcard) => flashcard.flashcardName), ['verbs'])
})

test('a message quotes a stored name with its invisible characters escaped, so that it reads as it is', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app)
  const { jwtToken } = user
  await makeFolder(app, user, ['First'])
  const folders: FolderNode[] = [{ id: newId(), name: 'Deck\u200b', folders: [], flashcards: [{ id: newId(), name: 'Verbs', description: '' }] }]
  await databaseOf(app).collection<{ _id: string, folders: FolderNode[] }>('trees').updateOne({ _id: user.userID }, { $set: { folders } })
  const alike = await expectRefusal(t, app, 'create-folder', { jwtToken, path: ['deck'] }, 409, 'name_too_similar')
  t.match(alike.error, 'the folder "Deck\\u200b" already there', 'the sibling as stored, its zero-width space shown')
  t.notOk(alike.error.includes('\u200b'))
  const existing = await expectRefusal(t, app, 'create-flashcard', { jwtToken, folder: ['Deck\u200b'], flashcardName: 'Verbs', cards: [] }, 409, 'name_taken')
  t.equal(existing.error, '"Deck\\u200b" / "Verbs" already exists: choose another name, or add cards to it with add-cards')
})
