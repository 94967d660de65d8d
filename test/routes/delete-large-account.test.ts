// Deleting an account with a year of history: more than one transaction can
// hold on the embedded database, where a deletion in one transaction answered
// 503 and deleted nothing. The answer comes first, the account is gone for
// every request from then on, and its documents go after.
import { test } from 'tap'
import { buildTestApp, databaseOf, expectOk, expectRefusal, post, registerUser, removalOver } from '../helpers/app.js'
import { fixture, importAnki } from '../helpers/anki-import.js'
import { documentsOf, fillHistory } from '../helpers/large-account.js'

test('a large account is deleted: gone for every request at the answer, every document of it removed after, nothing of others', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const leaving = await registerUser(app)
  const staying = await registerUser(app)
  await fillHistory(app, leaving, { cards: 5000, reviews: 100_000 })
  await fillHistory(app, staying, { cards: 500, reviews: 2000 })
  for (const user of [leaving, staying]) {
    await expectOk(app, 'create-goal', { jwtToken: user.jwtToken, type: 'Card', target: 5, end_date: '31/12/2099' }, 201)
    await importAnki(app, user.jwtToken, fixture('collection.apkg'))
  }
  const before = await documentsOf(databaseOf(app), leaving.userID)
  for (const collection of ['users', 'trees', 'cards', 'cardStates', 'reviews', 'activity', 'goals', 'imports', 'reviewHistories', 'media', 'searchPages']) {
    t.ok((before[collection] ?? 0) > 0, `${collection} holds documents of the user to begin with`)
  }
  const staysBefore = await documentsOf(databaseOf(app), staying.userID)

  const response = await post(app, 'delete-account', { jwtToken: leaving.jwtToken, password: leaving.password })
  t.equal(response.statusCode, 200)
  t.same(response.json(), { deleted: 'true' })

  await t.test('at the answer, while its documents are still being removed, the account is gone for every request', async (t) => {
    t.ok(((await documentsOf(databaseOf(app), leaving.userID)).reviews ?? 0) > 0, 'the answer came before the removal ended')
    for (const operation of ['get-user', 'get-today-cards', 'get-stats']) {
      await expectRefusal(t, app, operation, { jwtToken: leaving.jwtToken }, 401, 'invalid_token')
    }
    const goals = await post(app, 'update-goal-status', { jwtToken: leaving.jwtToken })
    t.equal(goals.statusCode, 401)
    t.same(goals.json(), {}, 'update-goal-status: the published interface\'s answer to a token that does not work')
    await expectRefusal(t, app, 'delete-account', { jwtToken: leaving.jwtToken, password: leaving.password }, 401, 'invalid_token', 'deleting it again')
    await expectRefusal(t, app, 'login', { email: leaving.email, password: leaving.password }, 401, 'wrong_credentials')
  })

  let again = { userID: '', jwtToken: '' }
  await t.test('its email registers again at once, as a new account', async (t) => {
    again = await expectOk<{ userID: string, jwtToken: string }>(app, 'register', { email: leaving.email, password: 'a brand new password' }, 201)
    t.not(again.userID, leaving.userID)
    await expectOk(app, 'create-folder', { jwtToken: again.jwtToken, path: ['Fresh'] }, 201)
  })

  await t.test('every collection ends with none of its documents; the other user keeps all of theirs', async (t) => {
    await removalOver(app, leaving.userID)
    const left = await documentsOf(databaseOf(app), leaving.userID)
    t.ok(Object.keys(left).length >= 10, `checked ${Object.keys(left).join(', ')}`)
    for (const [collection, count] of Object.entries(left)) t.equal(count, 0, `${collection} has nothing of the user`)
    t.same(await documentsOf(databaseOf(app), staying.userID), staysBefore, 'the other user keeps all of theirs')
    await expectOk(app, 'get-user', { jwtToken: staying.jwtToken })
    const fresh = await expectOk<{ email: string }>(app, 'get-user', { jwtToken: again.jwtToken })
    t.equal(fresh.email, leaving.email, 'the new account with the same email is untouched')
  })
})
