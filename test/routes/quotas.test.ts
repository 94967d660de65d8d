import { test } from 'tap'
import { storedNodes, storedState } from '../helpers/stored.js'
import { databaseOf, buildTestApp, post, registerUser } from '../helpers/app.js'
import { migrate } from '../../src/repositories/migrations.js'
import { newId } from '../../src/domain/ids.js'
import { MAX_TREE_BYTES } from '../../src/domain/limits.js'

test('an account holds at most its quotas of cards, folders and flashcards, and goals: 409 past them, nothing stored', async (t) => {
  const app = await buildTestApp(t, import.meta.filename, { quotas: { cards: 5, nodes: 3, goals: 2 } })
  const user = await registerUser(app)
  const jwtToken = user.jwtToken
  const usage = async (): Promise<unknown> => (await databaseOf(app).collection<{ _id: string, usage?: unknown }>('users').findOne({ _id: user.userID }))?.usage
  const cards = (count: number) => Array.from({ length: count }, (_, i) => ({ front: `q${i}`, back: 'a' }))

  t.equal((await post(app, 'create-folder', { jwtToken, path: ['A', 'B'] })).statusCode, 201, 'two folders')
  const deck = await post(app, 'create-flashcard', { jwtToken, folder: ['A'], flashcardName: 'Deck', cards: cards(4) })
  t.equal(deck.statusCode, 201, 'a flashcard: three of three folders and flashcards, four of five cards')
  t.same(await usage(), { nodes: 3, cards: 4 })

  let before = await storedState(app)
  const folder = await post(app, 'create-folder', { jwtToken, path: ['C'] })
  t.equal(folder.statusCode, 409)
  t.match(folder.json().error, /at most 3 folders and flashcards/)
  t.equal((await post(app, 'import-cards', { jwtToken, folder: ['A', 'B'], flashcardName: 'More', text: 'x\ty' })).statusCode, 409)
  const added = await post(app, 'add-cards', { jwtToken, flashcardID: deck.json().flashcardID, cards: cards(2) })
  t.equal(added.statusCode, 409)
  t.match(added.json().error, /at most 5 cards/)
  t.equal(await storedState(app), before, 'nothing stored by a request past a quota')

  t.equal((await post(app, 'add-cards', { jwtToken, flashcardID: deck.json().flashcardID, cards: cards(1) })).statusCode, 201, 'up to the quota')
  t.equal((await post(app, 'delete-card', { jwtToken, flashcardID: deck.json().flashcardID, cardID: deck.json().cardIDs[0] })).statusCode, 200)
  t.same(await usage(), { nodes: 3, cards: 4 }, 'a deletion gives its room back')

  const tree = (await post(app, 'get-all-cards', { jwtToken })).json()
  t.ok(tree.A.Deck !== undefined)
  const folders = (await storedNodes(app, { userID: user.userID })).filter((node) => node.name === 'A')
  t.equal((await post(app, 'delete-folder', { jwtToken, folderID: folders[0]?._id })).statusCode, 200)
  t.same(await usage(), { nodes: 0, cards: 0 }, 'a folder deleted with its contents frees all of it')

  const endDate = '31/12/2099'
  t.equal((await post(app, 'create-goal', { jwtToken, type: 'XP', target: 10, end_date: endDate })).statusCode, 201)
  const second = await post(app, 'create-goal', { jwtToken, type: 'Card', target: 10, end_date: endDate })
  t.equal(second.statusCode, 201)
  before = await storedState(app)
  const third = await post(app, 'create-goal', { jwtToken, type: 'XP', target: 10, end_date: endDate })
  t.equal(third.statusCode, 409)
  t.match(third.json().error, /at most 2 goals/)
  t.equal(await storedState(app), before)
  t.equal((await post(app, 'delete-goal', { jwtToken, goalID: second.json().goalID })).statusCode, 200)
  t.equal((await post(app, 'create-goal', { jwtToken, type: 'XP', target: 10, end_date: endDate })).statusCode, 201, 'room again after a deletion')
})

test('usage of data stored before quotas existed is counted once at start-up', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app)
  await post(app, 'create-folder', { jwtToken: user.jwtToken, path: ['Old'] })
  await post(app, 'create-flashcard', { jwtToken: user.jwtToken, folder: ['Old'], flashcardName: 'Deck', cards: [{ front: 'a', back: 'b' }, { front: 'c', back: 'd' }] })
  const users = databaseOf(app).collection<{ _id: string, usage?: unknown }>('users')
  await users.updateOne({ _id: user.userID }, { $unset: { usage: '' } })
  await databaseOf(app).collection('migrations').deleteOne({ _id: 'usage-from-data' as never })
  await migrate(databaseOf(app), () => {})
  t.same((await users.findOne({ _id: user.userID }))?.usage, { cards: 2, nodes: 2, goals: 0 })
})

test('the folder tree is one document per user, kept under MAX_TREE_BYTES: 409 past it, nothing stored', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app)
  const jwtToken = user.jwtToken
  t.equal((await post(app, 'create-folder', { jwtToken, path: ['Notes'] })).statusCode, 201)
  // a tree just under the limit, written directly: a few hundred long descriptions through the API would only slow the test
  const trees = databaseOf(app).collection<{ _id: string, version: number, folders: Array<{ flashcards: unknown[] }> }>('trees')
  const stored = await trees.findOne({ _id: user.userID })
  const folder = stored?.folders[0]
  if (stored === null || folder === undefined) throw new Error('no tree stored for the user')
  folder.flashcards.push({ id: newId(), name: 'Long', description: 'x'.repeat(MAX_TREE_BYTES - 1000) })
  await trees.updateOne({ _id: user.userID }, { $set: { folders: stored.folders } })

  const before = await storedState(app)
  const tooMuch = await post(app, 'create-flashcard', { jwtToken, folder: ['Notes'], flashcardName: 'One more', description: 'y'.repeat(2000), cards: [{ front: 'a', back: 'b' }] })
  t.equal(tooMuch.statusCode, 409)
  t.match(tooMuch.json().error, /more than 8 MiB/)
  t.equal(await storedState(app), before, 'neither the flashcard nor its cards stored')
  t.equal((await post(app, 'create-flashcard', { jwtToken, folder: ['Notes'], flashcardName: 'Short', cards: [] })).statusCode, 201, 'what still fits is stored')
})
