import { test } from 'tap'
import { buildTestApp, post, registerUser } from '../helpers/app.js'

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
