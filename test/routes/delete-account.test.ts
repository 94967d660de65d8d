import { test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { databaseOf, buildTestApp, expectOk, makeDeck, post, registerUser, removalOver, type TestUser } from '../helpers/app.js'
import { fixture, importAnki } from '../helpers/anki-import.js'

/** Documents of the user in every collection: folders, a flashcard, cards, reviews, a goal, an Anki import with its review histories, the account. */
async function fillAccount (app: FastifyInstance, user: TestUser): Promise<void> {
  const { flashcardID, cardIDs } = await makeDeck(app, user, {
    folder: ['Languages', 'Spanish'], name: 'Verbs', cards: [{ front: 'ser', back: 'to be' }, { front: 'tener', back: 'to have' }]
  })
  await expectOk(app, 'review-card', { jwtToken: user.jwtToken, flashcardID, cardID: cardIDs[0], rating: 'good' })
  await expectOk(app, 'create-goal', { jwtToken: user.jwtToken, type: 'Card', target: 5, end_date: '31/12/2099' }, 201)
  await importAnki(app, user.jwtToken, fixture('collection.apkg'))
}

/** How many documents of the user each collection holds. */
async function documentsOf (app: FastifyInstance, userID: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {}
  for (const { name } of await databaseOf(app).listCollections({}, { nameOnly: true }).toArray()) {
    const filter = name === 'users' ? { _id: userID as never } : { userID }
    counts[name] = await databaseOf(app).collection(name).countDocuments(filter)
  }
  return counts
}

test('delete-account', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const leaving = await registerUser(app, { password: 'the leaving one\'s password' })
  const staying = await registerUser(app)
  await fillAccount(app, leaving)
  await fillAccount(app, staying)
  const staysBefore = await documentsOf(app, staying.userID)

  await t.test('every collection holds documents of both users to begin with', async (t) => {
    const counts = await documentsOf(app, leaving.userID)
    for (const collection of ['users', 'trees', 'cards', 'cardStates', 'reviews', 'goals', 'imports', 'reviewHistories', 'media']) {
      t.ok((counts[collection] ?? 0) > 0, `${collection} has documents of the user`)
      t.equal(staysBefore[collection], counts[collection], `${collection}: the other user has as many`)
    }
  })

  await t.test('a wrong password gives 401 and deletes nothing', async (t) => {
    const before = await documentsOf(app, leaving.userID)
    const response = await post(app, 'delete-account', { jwtToken: leaving.jwtToken, password: 'not the password' })
    t.equal(response.statusCode, 401)
    t.same(response.json(), { error: 'wrong password: send the account\'s current password', code: 'wrong_password' })
    t.same(await documentsOf(app, leaving.userID), before)
    t.equal((await post(app, 'get-user', { jwtToken: leaving.jwtToken })).statusCode, 200, 'the token still works')
  })

  await t.test('a missing password is a malformed body: 400, nothing deleted', async (t) => {
    const response = await post(app, 'delete-account', { jwtToken: leaving.jwtToken })
    t.equal(response.statusCode, 400)
    t.match(response.json().error, /password/)
    t.equal((await documentsOf(app, leaving.userID)).users, 1)
  })

  await t.test('the password must be that of the token\'s account', async (t) => {
    const response = await post(app, 'delete-account', { jwtToken: staying.jwtToken, password: leaving.password })
    t.equal(response.statusCode, 401)
    t.same(await documentsOf(app, staying.userID), staysBefore)
  })

  await t.test('the right password deletes every document of the user and nothing else', async (t) => {
    const response = await post(app, 'delete-account', { jwtToken: leaving.jwtToken, password: leaving.password })
    t.equal(response.statusCode, 200)
    t.same(response.json(), { deleted: 'true' })

    // the documents go after the answer
    await removalOver(app, leaving.userID)
    const left = await documentsOf(app, leaving.userID)
    t.ok(Object.keys(left).length >= 5, `checked ${Object.keys(left).join(', ')}`)
    for (const [collection, count] of Object.entries(left)) t.equal(count, 0, `${collection} has nothing of the user`)
    t.same(await documentsOf(app, staying.userID), staysBefore, 'the other user keeps all of theirs')
    t.equal((await post(app, 'get-user', { jwtToken: staying.jwtToken })).statusCode, 200)
  })

  await t.test('afterwards the old token and the old password open nothing', async (t) => {
    for (const operation of ['get-user', 'get-today-cards', 'get-stats']) {
      const response = await post(app, operation, { jwtToken: leaving.jwtToken })
      t.equal(response.statusCode, 401, operation)
      t.same(response.json(), { error: 'invalid or expired token', code: 'invalid_token' })
    }
    const again = await post(app, 'delete-account', { jwtToken: leaving.jwtToken, password: leaving.password })
    t.equal(again.statusCode, 401)
    const login = await post(app, 'login', { email: leaving.email, password: leaving.password })
    t.equal(login.statusCode, 401)
  })

  await t.test('the email can be registered again, as a new account', async (t) => {
    const response = await post(app, 'register', { email: leaving.email, password: 'a brand new password' })
    t.equal(response.statusCode, 201)
    t.not(response.json().userID, leaving.userID)
  })
})

test('the collections an account deletion clears include trees before any tree exists', async (t) => {
  // a tree saved by a concurrent first edit, after the list was read, must still be cleared
  const app = await buildTestApp(t, import.meta.filename)
  t.equal((await databaseOf(app).listCollections({ name: 'trees' }).toArray()).length, 0, 'no tree has been saved yet')
  t.ok((await app.repositories.userData.collections()).includes('trees'))
})
