import { test } from 'tap'
import { buildTestApp, databaseOf, post, registerUser } from '../helpers/app.js'

test('logging out everywhere and changing the password end every earlier token at once', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)

  await t.test('logout-everywhere: every token issued before stops working; a new login works', async (t) => {
    const user = await registerUser(app)
    const phone = (await post(app, 'login', { email: user.email, password: user.password })).json().jwtToken as string
    const laptop = (await post(app, 'login', { email: user.email, password: user.password })).json().jwtToken as string
    t.equal((await post(app, 'get-user', { jwtToken: phone })).statusCode, 200, 'the phone is logged in (and its token remembered)')

    const response = await post(app, 'logout-everywhere', { jwtToken: laptop })
    t.equal(response.statusCode, 200)
    t.same(response.json(), { loggedOut: 'true' })
    for (const [device, jwtToken] of [['the first token', user.jwtToken], ['the phone', phone], ['the laptop', laptop]]) {
      t.equal((await post(app, 'get-user', { jwtToken })).statusCode, 401, `${device} is logged out`)
    }
    t.same((await post(app, 'update-goal-status', { jwtToken: phone })).json(), {}, 'update-goal-status answers {} as for any invalid token')

    const again = (await post(app, 'login', { email: user.email, password: user.password })).json().jwtToken as string
    t.equal((await post(app, 'get-user', { jwtToken: again })).statusCode, 200, 'a login after it gives a working token')
  })

  await t.test('change-password: the old password stops, the old tokens stop, the answer carries a working token', async (t) => {
    const user = await registerUser(app)
    const other = (await post(app, 'login', { email: user.email, password: user.password })).json().jwtToken as string

    const wrong = await post(app, 'change-password', { jwtToken: user.jwtToken, password: 'not the password', newPassword: 'a brand new password' })
    t.equal(wrong.statusCode, 401, 'the current password is asked for')
    t.equal((await post(app, 'get-user', { jwtToken: other })).statusCode, 200, 'and a refusal changes nothing')

    const changed = await post(app, 'change-password', { jwtToken: user.jwtToken, password: user.password, newPassword: 'a brand new password' })
    t.equal(changed.statusCode, 200)
    t.equal((await post(app, 'get-user', { jwtToken: changed.json().jwtToken })).statusCode, 200, 'the new token works')
    t.equal((await post(app, 'get-user', { jwtToken: other })).statusCode, 401, 'another device is logged out')
    t.equal((await post(app, 'get-user', { jwtToken: user.jwtToken })).statusCode, 401, 'and so is this token')
    t.equal((await post(app, 'login', { email: user.email, password: user.password })).statusCode, 401, 'the old password no longer logs in')
    t.equal((await post(app, 'login', { email: user.email, password: 'a brand new password' })).statusCode, 200, 'the new one does')
  })
})

test('two password changes at once with one token: the first is kept whole, the second answers 409 and changes nothing', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app)
  let token = user.jwtToken
  let password = user.password
  // several rounds, each a real race: both requests are authenticated before either writes (a password check takes a while)
  for (let round = 1; round <= 4; round++) {
    const candidates = [`new password ${round} left`, `new password ${round} right`]
    const answers = await Promise.all(candidates.map(async (newPassword) =>
      await post(app, 'change-password', { jwtToken: token, password, newPassword })))
    t.same(answers.map((answer) => answer.statusCode).sort(), [200, 409], `round ${round}: one is kept, the other refused`)
    const kept = answers.findIndex((answer) => answer.statusCode === 200)
    const refused = answers[1 - kept]
    t.match(refused?.json(), { error: 'the password was changed by another request meanwhile, and this change was not made: log in again with the new password' })
    const [keptPassword, lostPassword] = kept === 0 ? candidates : [...candidates].reverse()
    const keptToken = answers[kept]?.json().jwtToken as string
    t.equal((await post(app, 'get-user', { jwtToken: keptToken })).statusCode, 200, 'the token the first change answered works')
    t.equal((await post(app, 'login', { email: user.email, password: lostPassword })).statusCode, 401, 'the refused password was not set')
    t.equal((await post(app, 'login', { email: user.email, password: keptPassword })).statusCode, 200, 'the kept one logs in')
    t.equal((await post(app, 'get-user', { jwtToken: token })).statusCode, 401, 'the token both were sent with is ended')
    token = keptToken
    password = keptPassword as string
  }
})

test('a change of password by a request that read the account before another change is refused with 409, and stores nothing', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app)
  const users = databaseOf(app).collection<{ _id: string }>('users')
  // both requests read the account (as authentication does) before either writes: made certain by reading it once for both
  const account = await app.repositories.users.findById(user.userID)
  if (account === null) throw new Error('no account')
  const first = await app.services.accounts.changePassword(account, user.password, 'the first new password')
  t.equal(first.generation, 1)
  const afterFirst = await users.findOne({ _id: user.userID })
  await t.rejects(app.services.accounts.changePassword(account, user.password, 'the second new password'),
    { code: 'changed_meanwhile', message: /the password was changed by another request meanwhile/ })
  t.same(await users.findOne({ _id: user.userID }), afterFirst, 'the account is as the first change left it')
  t.equal((await post(app, 'login', { email: user.email, password: 'the first new password' })).statusCode, 200)
  t.equal((await post(app, 'login', { email: user.email, password: 'the second new password' })).statusCode, 401)
})

test('logout-everywhere after another request ended its token\'s generation changes nothing more and hands out nothing', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app)
  const users = databaseOf(app).collection<{ _id: string, tokenGeneration?: number }>('users')
  const account = await app.repositories.users.findById(user.userID)
  if (account === null) throw new Error('no account')

  await app.services.accounts.logoutEverywhere(account)
  await app.services.accounts.logoutEverywhere(account)
  t.equal((await users.findOne({ _id: user.userID }))?.tokenGeneration, 1, 'two logouts from one generation start one new generation')
  const login = (await post(app, 'login', { email: user.email, password: user.password })).json().jwtToken as string
  t.equal((await post(app, 'get-user', { jwtToken: login })).statusCode, 200, 'a token of the new generation works')

  // a password change and a logout sent with one token at once: the change came first, and its token is kept
  const current = await app.repositories.users.findById(user.userID)
  if (current === null) throw new Error('no account')
  const changed = await post(app, 'change-password', { jwtToken: login, password: user.password, newPassword: 'changed meanwhile' })
  t.equal(changed.statusCode, 200)
  await app.services.accounts.logoutEverywhere(current)
  t.equal((await users.findOne({ _id: user.userID }))?.tokenGeneration, 2)
  t.equal((await post(app, 'get-user', { jwtToken: changed.json().jwtToken })).statusCode, 200, 'the token the change handed out still works')

  // the other way round: the logout came first, and the change is refused
  const stale = await app.repositories.users.findById(user.userID)
  if (stale === null) throw new Error('no account')
  await app.services.accounts.logoutEverywhere(stale)
  await t.rejects(app.services.accounts.changePassword(stale, 'changed meanwhile', 'never set'),
    { code: 'changed_meanwhile', message: 'every session was logged out by another request meanwhile, and the password was not changed: log in again and change it then' })
  t.equal((await post(app, 'login', { email: user.email, password: 'changed meanwhile' })).statusCode, 200, 'the password is unchanged')
})
