import { test } from 'tap'
import { databaseOf, buildTestApp, post, registerUser } from '../helpers/app.js'

test('accounts', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)

  await t.test('register answers 201 with an id of digits and a working token', async (t) => {
    const response = await post(app, 'register', { email: 'ann@example.com', password: 'correct horse' })
    t.equal(response.statusCode, 201)
    const body = response.json()
    t.match(body.userID, /^[0-9]{30,}$/)
    const profile = await post(app, 'get-user', { jwtToken: body.jwtToken })
    t.equal(profile.statusCode, 200)
    t.equal(profile.json().email, 'ann@example.com')
    t.equal(profile.json().timezone, 'UTC')
    t.equal(profile.json().dayStartHour, '4')
  })

  await t.test('the password is stored only as a salted slow hash', async (t) => {
    const user = await databaseOf(app).collection('users').findOne({ email: 'ann@example.com' })
    t.notOk(JSON.stringify(user).includes('correct horse'))
    t.match(user?.passwordHash, /^scrypt\$/)
  })

  await t.test('a taken email gives 409, whatever its case', async (t) => {
    for (const email of ['ann@example.com', 'ANN@Example.COM', '  ann@example.com ']) {
      const response = await post(app, 'register', { email, password: 'another password' })
      t.equal(response.statusCode, 409, email)
      t.match(response.json().error, /already exists/)
    }
    t.equal(await databaseOf(app).collection('users').countDocuments(), 1)
  })

  await t.test('login ignores the case of the email', async (t) => {
    const response = await post(app, 'login', { email: 'Ann@EXAMPLE.com', password: 'correct horse' })
    t.equal(response.statusCode, 200)
    t.match(response.json(), { userID: /^[0-9]+$/, jwtToken: /\./ })
  })

  await t.test('a wrong password and an unknown email give the same 401', async (t) => {
    const wrong = await post(app, 'login', { email: 'ann@example.com', password: 'wrong horse' })
    const unknown = await post(app, 'login', { email: 'nobody@example.com', password: 'correct horse' })
    t.equal(wrong.statusCode, 401)
    t.equal(unknown.statusCode, 401)
    t.same(wrong.json(), unknown.json())
  })

  await t.test('weak or malformed registrations give 400 and store nothing', async (t) => {
    const cases = [
      { email: 'bob@example.com', password: 'short' },
      { email: 'bob@example.com' },
      { email: 'not-an-email', password: 'long enough password' },
      { email: 'bob@example.com', password: 'long enough password', timezone: 'Mars/Olympus' },
      { email: 'bob@example.com', password: ['an array'] }
    ]
    for (const body of cases) {
      const response = await post(app, 'register', body)
      t.equal(response.statusCode, 400, JSON.stringify(body))
      t.type(response.json().error, 'string')
    }
    t.equal(await databaseOf(app).collection('users').countDocuments({ email: 'bob@example.com' }), 0)
  })

  await t.test('a body that is not JSON gives a 4xx, never a 5xx', async (t) => {
    const broken = await app.inject({ method: 'POST', url: '/api/login', headers: { 'content-type': 'application/json' }, payload: '{"email":' })
    t.equal(broken.statusCode, 400)
    const text = await app.inject({ method: 'POST', url: '/api/login', headers: { 'content-type': 'text/plain' }, payload: 'hello' })
    t.equal(text.statusCode, 415)
    t.match(text.json().error, /application\/json/)
    const list = await post(app, 'login', [1, 2])
    t.equal(list.statusCode, 400)
  })

  await t.test('an unknown operation gives 404', async (t) => {
    const response = await post(app, 'no-such-operation', {})
    t.equal(response.statusCode, 404)
    t.match(response.json().error, /no-such-operation/)
  })

  await t.test('a time zone given at registration is kept', async (t) => {
    const user = await registerUser(app, { timezone: 'Pacific/Kiritimati' })
    const profile = await post(app, 'get-user', { jwtToken: user.jwtToken })
    t.equal(profile.json().timezone, 'Pacific/Kiritimati')
  })
})
