import { MongoClient } from 'mongodb'
import { test } from 'tap'
import { buildApp } from '../src/app.js'
import { newId } from '../src/domain/ids.js'
import { hashPassword } from '../src/domain/passwords.js'
import { migrate } from '../src/repositories/migrations.js'
import type { FolderNode } from '../src/domain/library-tree.js'
import { buildTestApp, databaseOf, post, registerUser, TEST_SECRET, testDatabaseUrl } from './helpers/app.js'
import { databaseOfItsOwn } from './helpers/old-data.js'

/** The library as an earlier version stored it: one record per folder and flashcard, linked to its parent. */
function oldLibrary (userID: string) {
  const ids = { languages: newId(), spanish: newId(), empty: newId(), verbs: newId(), proto: newId(), numbers: newId() }
  const at = new Date('2026-01-01T00:00:00Z')
  const node = (_id: string, kind: 'folder' | 'flashcard', parentID: string, name: string, ancestors: string[], description?: string) =>
    ({ _id, userID, kind, parentID, name, ancestors, createdAt: at, ...(description === undefined ? {} : { description }) })
  return {
    ids,
    nodes: [
      node(ids.languages, 'folder', '', 'Languages', []),
      node(ids.spanish, 'folder', ids.languages, 'Spanish', [ids.languages]),
      node(ids.empty, 'folder', '', 'Empty', []),
      node(ids.verbs, 'flashcard', ids.spanish, 'Verbs', [ids.languages, ids.spanish], 'the irregular ones'),
      node(ids.proto, 'flashcard', ids.languages, '__proto__', [ids.languages]),
      node(ids.numbers, 'flashcard', ids.spanish, '2024', [ids.languages, ids.spanish])
    ]
  }
}

test('a library stored one record per folder and flashcard becomes one tree per user at start-up, once', async (t) => {
  const url = testDatabaseUrl(import.meta.filename)
  const client = await MongoClient.connect(url)
  t.teardown(async () => { await client.close() })
  const db = client.db()
  await db.dropDatabase()

  const userID = newId()
  const email = 'old-library@example.com'
  const password = 'an old account password'
  await db.collection<Record<string, unknown> & { _id: string }>('users').insertOne({
    _id: userID, email, passwordHash: await hashPassword(password), displayName: 'old', timezone: 'UTC', dayStartHour: 4,
    newCardsPerDay: 20, reviewsPerDay: 200, desiredRetention: 0.9, totalXp: 0, createdAt: new Date('2026-01-01T00:00:00Z')
  })
  const other = newId()
  const mine = oldLibrary(userID)
  const theirs = oldLibrary(other)
  await db.collection('library').insertMany([...mine.nodes, ...theirs.nodes] as never[])
  const card = { _id: newId(), userID, flashcardID: mine.ids.verbs, front: 'ser', back: 'to be', state: 0, due: new Date('2026-01-01T00:00:00Z'), stability: 0, difficulty: 0, elapsedDays: 0, scheduledDays: 0, learningSteps: 0, reps: 0, lapses: 0, lastReview: null, isNew: true, createdOrder: 1, createdAt: new Date('2026-01-01T12:00:00Z'), version: 0, lastReviewID: null }
  await db.collection('cards').insertOne(card as never)

  const app = await buildApp({ mongodbUrl: url, jwtSecret: TEST_SECRET, loadShedding: { maxInFlight: 1000, maxInFlightPerUser: 1000 } })
  await app.ready()
  t.teardown(async () => {
    await databaseOf(app).dropDatabase().catch(() => {})
    await app.close()
  })

  t.notOk((await db.listCollections({ name: 'library' }).toArray()).length > 0, 'the old collection is gone once every record has its place')
  const trees = await db.collection('trees').find({}).sort({ _id: 1 }).toArray()
  t.equal(trees.length, 2, 'one tree per user')
  const tree = trees.find((stored) => stored._id === userID as never)
  t.same(tree, {
    _id: userID,
    userID,
    version: 1,
    folders: [
      { id: mine.ids.empty, name: 'Empty', folders: [], flashcards: [] },
      {
        id: mine.ids.languages,
        name: 'Languages',
        folders: [{
          id: mine.ids.spanish,
          name: 'Spanish',
          folders: [],
          flashcards: [
            { id: mine.ids.numbers, name: '2024', description: '' },
            { id: mine.ids.verbs, name: 'Verbs', description: 'the irregular ones' }
          ]
        }],
        flashcards: [{ id: mine.ids.proto, name: '__proto__', description: '' }]
      }
    ]
  }, 'names and descriptions kept, every folder in its place')

  // the migrated account works through the API
  const login = await post(app, 'login', { email, password })
  t.equal(login.statusCode, 200)
  const jwtToken = login.json().jwtToken as string
  const all = JSON.parse((await post(app, 'get-all-cards', { jwtToken })).body)
  t.same(Object.keys(all), ['Empty', 'Languages'])
  t.ok(Object.hasOwn(all.Languages, '__proto__'), 'a flashcard named __proto__ is a plain member')
  t.same(all.Languages.Spanish.Verbs.cards, { [card._id]: { last_review: '01/01/2026', review_status: '0.0' } })
  const flashcard = (await post(app, 'get-flashcard', { jwtToken, flashcardID: mine.ids.verbs })).json()
  t.match(flashcard, { flashcardName: 'Verbs', description: 'the irregular ones', folder: ['Languages', 'Spanish'] })
  t.equal((await post(app, 'create-flashcard', { jwtToken, folder: ['Languages', 'Spanish'], flashcardName: 'Nouns', cards: [] })).statusCode, 201, 'and can be edited')

  // run again (as after a crash before it was recorded): nothing changes, nothing doubles
  const before = await db.collection('trees').find({}).sort({ _id: 1 }).toArray()
  await db.collection('migrations').deleteOne({ _id: 'library-to-trees' as never })
  await migrate(db, () => {})
  t.same(await db.collection('trees').find({}).sort({ _id: 1 }).toArray(), before, 'a second run changes nothing')
})

test('records that lost their place go under a folder "Recovered", counted in the usage; the old collection goes', async (t) => {
  const { db } = await databaseOfItsOwn(t, import.meta.filename)
  const userID = newId()
  await db.collection<{ _id: string, usage: { nodes: number, cards: number, goals: number } }>('users').insertOne({ _id: userID, usage: { nodes: 7, cards: 0, goals: 0 } })
  const { nodes } = oldLibrary(userID)
  const orphan = { ...nodes[3], _id: newId(), name: 'Lost', parentID: newId() }
  await db.collection('library').insertMany([...nodes, orphan] as never[])
  const logged: string[] = []
  await migrate(db, (message) => logged.push(message))

  t.equal((await db.listCollections({ name: 'library' }).toArray()).length, 0, 'every record has a place: the old collection is gone')
  t.match(logged.join('\n'), /1 folders or flashcards had lost their place.*"Recovered"/)
  const tree = await db.collection<{ _id: string, folders: FolderNode[] }>('trees').findOne({ _id: userID })
  const recovered = tree?.folders.find((folder) => folder.name === 'Recovered')
  t.strictSame(recovered?.flashcards.map((flashcard) => [flashcard.id, flashcard.name]), [[orphan._id, 'Lost']], 'the orphan is kept where the user sees it')
  t.equal(tree?.folders.length, 3, 'beside the two folders it had')
  const account = await db.collection<{ _id: string, usage: { nodes: number } }>('users').findOne({ _id: userID })
  t.equal(account?.usage.nodes, 8, 'the usage counts the folder that took it in')
})

test('a run again never overwrites a tree the service edited since', async (t) => {
  const { db } = await databaseOfItsOwn(t, import.meta.filename)
  const userID = newId()
  const { nodes } = oldLibrary(userID)
  await db.collection('library').insertMany(nodes as never[])
  await migrate(db, () => {})
  const trees = db.collection<{ _id: string, version: number, folders: FolderNode[] }>('trees')
  // the service edits the tree; then the migration runs again (two instances starting together,
  // or its record removed by hand) while the old records are back
  await trees.updateOne({ _id: userID }, { $set: { version: 2 }, $push: { folders: { id: newId(), name: 'Made since', folders: [], flashcards: [] } } })
  const edited = await trees.findOne({ _id: userID })
  await db.collection('library').insertMany(nodes as never[])
  await db.collection('migrations').deleteOne({ _id: 'library-to-trees' as never })
  await migrate(db, () => {})
  t.strictSame(await trees.findOne({ _id: userID }), edited, 'the edited tree stands')
})

test('a library too large for one document is left in the old collection, and the others are migrated', async (t) => {
  const { db } = await databaseOfItsOwn(t, import.meta.filename)
  const [large, usual] = [newId(), newId()]
  const top = newId()
  const description = 'd'.repeat(9000)
  await db.collection('library').insertMany([
    { _id: top, userID: large, kind: 'folder', parentID: '', name: 'Everything', ancestors: [] },
    ...Array.from({ length: 1900 }, (_, index) => ({ _id: newId(), userID: large, kind: 'flashcard', parentID: top, name: `deck ${index}`, ancestors: [top], description })),
    ...oldLibrary(usual).nodes
  ] as never[])
  const logged: string[] = []
  await migrate(db, (message) => logged.push(message))

  t.equal(await db.collection('library').countDocuments({ userID: large }), 1901, "the large library's records are all kept")
  t.equal(await db.collection('trees').countDocuments({ _id: large as never }), 0)
  t.equal(await db.collection('trees').countDocuments({ _id: usual as never }), 1, 'the other user has a tree')
  t.match(logged.join('\n'), /of 1 users .* too large for one document/)
})

test('a tree past the size limit (as a migration may leave it) can still shrink, but not grow', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app)
  await post(app, 'create-folder', { jwtToken: user.jwtToken, path: ['Big'] })
  const trees = databaseOf(app).collection<{ _id: string, folders: FolderNode[] }>('trees')
  const tree = await trees.findOne({ _id: user.userID })
  const decks = Array.from({ length: 12 }, (_, index) => ({ id: newId(), name: `deck ${index}`, description: 'd'.repeat(900 * 1024) }))
  tree?.folders[0]?.flashcards.push(...decks)
  await trees.updateOne({ _id: user.userID }, { $set: { folders: tree?.folders } })

  const grown = await post(app, 'create-folder', { jwtToken: user.jwtToken, path: ['Big', 'More'] })
  t.equal(grown.statusCode, 409, 'an edit that makes it larger is refused')
  t.match(grown.json(), { error: /more than 8 MiB/ })
  const shrunk = await post(app, 'delete-flashcard', { jwtToken: user.jwtToken, flashcardID: decks[0]?.id })
  t.equal(shrunk.statusCode, 200, 'a deletion that leaves it still past the limit is taken')
  t.equal((await post(app, 'rename-flashcard', { jwtToken: user.jwtToken, flashcardID: decks[1]?.id, name: 'd1' })).statusCode, 200, 'so is a shorter name')
})
