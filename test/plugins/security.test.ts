import { PassThrough } from 'node:stream'
import { test } from 'tap'
import { loggerOptions } from '../../src/logging.js'
import { databaseOf, buildTestApp, post, registerUser } from '../helpers/app.js'

test('security headers come with every answer', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const response = await post(app, 'login', { email: 'x@example.com', password: 'whatever1' })
  t.equal(response.headers['x-content-type-options'], 'nosniff')
  t.match(response.headers['strict-transport-security'], /max-age=/)
  t.match(response.headers['content-security-policy'], /default-src 'self'/)
  t.equal(response.headers['x-powered-by'], undefined)

  // the same set, built once, on a success, a refusal and an unknown route alike
  const user = await registerUser(app)
  const answers = [
    await post(app, 'get-today-cards', { jwtToken: user.jwtToken }),
    await post(app, 'get-today-cards', { jwtToken: 'forged' }),
    await app.inject({ method: 'GET', url: '/nowhere' })
  ]
  t.same(answers.map((answer) => answer.statusCode), [200, 401, 404])
  for (const answer of answers) {
    t.equal(answer.headers['content-security-policy'], response.headers['content-security-policy'])
    t.equal(answer.headers['cross-origin-opener-policy'], 'same-origin')
    t.equal(answer.headers['x-frame-options'], 'SAMEORIGIN')
    t.equal(answer.headers['referrer-policy'], 'no-referrer')
  }
})

test('CORS: no origin is allowed unless configured', async (t) => {
  const closed = await buildTestApp(t, import.meta.filename)
  const preflight = { method: 'OPTIONS' as const, url: '/api/login', headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST' } }
  t.equal((await closed.inject(preflight)).headers['access-control-allow-origin'], undefined)

  const open = await buildTestApp(t, import.meta.filename, { corsOrigins: ['https://app.example.com'] })
  t.equal((await open.inject(preflight)).headers['access-control-allow-origin'], 'https://app.example.com')
  const stranger = await open.inject({ ...preflight, headers: { ...preflight.headers, origin: 'https://evil.example' } })
  t.equal(stranger.headers['access-control-allow-origin'], undefined)

  // the page of an allowed origin may read the Server-Timing header of an answer
  const answer = await open.inject({ method: 'GET', url: '/health', headers: { origin: 'https://app.example.com' } })
  t.equal(answer.headers['access-control-expose-headers'], 'Server-Timing')
  t.match(answer.headers['server-timing'], /^db;dur=/)
})

test('login and register are rate-limited per address, with Retry-After', async (t) => {
  const app = await buildTestApp(t, import.meta.filename, { attemptLimits: { perAddress: 3, perAccount: 100, windowMs: 60_000 } })
  const statuses: number[] = []
  let limited
  for (let attempt = 0; attempt < 5; attempt++) {
    const response = await post(app, 'login', { email: `someone${attempt}@example.com`, password: 'wrong password' })
    statuses.push(response.statusCode)
    if (response.statusCode === 429) limited = response
  }
  t.same(statuses, [401, 401, 401, 429, 429])
  t.ok(Number(limited?.headers['retry-after']) > 0, 'Retry-After says when to come back')
  t.type(limited?.json().error, 'string')
  // register shares the address's allowance
  t.equal((await post(app, 'register', { email: 'new@example.com', password: 'long enough pw' })).statusCode, 429)
  // another address is not affected
  const elsewhere = await app.inject({ method: 'POST', url: '/api/login', remoteAddress: '10.9.8.7', payload: { email: 'a@example.com', password: 'wrong password' } })
  t.equal(elsewhere.statusCode, 401)
})

test('login is limited per account, whatever the address, without locking the owner out', async (t) => {
  const app = await buildTestApp(t, import.meta.filename, { attemptLimits: { perAddress: 100, perAccount: 3, windowMs: 60_000 } })
  const attempt = async (email: string, address: string, password: string) => await app.inject({
    method: 'POST', url: '/api/login', remoteAddress: address, payload: { email: email.toUpperCase(), password }
  })
  const user = await registerUser(app) // from 127.0.0.1: the first of the account's three attempts
  t.equal((await attempt(user.email, '10.1.1.1', user.password)).statusCode, 200, 'the owner logs in from home')

  // guesses from other addresses use up the account's attempts
  t.equal((await attempt(user.email, '10.0.0.1', 'guess one')).statusCode, 401, 'the third attempt')
  t.equal((await attempt(user.email, '10.0.0.2', 'guess two')).statusCode, 429, 'a stranger is held back once the account has had its attempts')
  const stranger = await attempt(user.email, '10.0.0.3', user.password)
  t.equal(stranger.statusCode, 429, 'even with the right password, from an address the account does not know')
  t.ok(Number(stranger.headers['retry-after']) > 0)

  const home = await attempt(user.email, '10.1.1.1', user.password)
  t.equal(home.statusCode, 200, 'the owner, from an address the account logged in from, is not locked out')
  t.equal((await attempt(user.email, '127.0.0.1', user.password)).statusCode, 200, 'nor from the address that registered it')
  t.equal((await attempt(user.email, '10.1.1.1', 'a wrong password')).statusCode, 401, 'a known address still needs the password')
  t.equal((await post(app, 'login', { email: 'other@example.com', password: 'x'.repeat(9) })).statusCode, 401, 'other accounts are not affected')

  // the address is kept as a digest salted with the account, not as it is
  const stored = await databaseOf(app).collection<{ _id: string, knownAddresses: string[] }>('users').findOne({ _id: user.userID })
  t.equal(stored?.knownAddresses.length, 2)
  t.notOk(JSON.stringify(stored?.knownAddresses).includes('10.1.1.1'))
})

test('tokens and passwords never reach the log', async (t) => {
  const lines: string[] = []
  const stream = new PassThrough()
  stream.on('data', (chunk: Buffer) => lines.push(chunk.toString()))
  const app = await buildTestApp(t, import.meta.filename, { logger: loggerOptions('trace', false, stream) })

  const password = 'secret-password-123'
  const registered = await post(app, 'register', { email: 'logged@example.com', password })
  const { jwtToken } = registered.json()
  await post(app, 'login', { email: 'logged@example.com', password })
  await post(app, 'login', { email: 'logged@example.com', password: `${password}-wrong` })
  await post(app, 'get-today-cards', { jwtToken })
  await post(app, 'get-user', { jwtToken: `${jwtToken}tampered` })
  await app.inject({ method: 'POST', url: '/api/get-user', headers: { authorization: `Bearer ${jwtToken}`, 'content-type': 'application/json' }, payload: '{"jwtToken": ' })
  await new Promise((resolve) => setImmediate(resolve))

  const log = lines.join('')
  t.ok(log.length > 1000, 'the requests were logged')
  t.match(log, /request completed/)
  t.notOk(log.includes(password), 'no password in the log')
  t.notOk(log.includes(jwtToken), 'no token in the log')
  t.notOk(log.includes(jwtToken.split('.')[2]), 'not even a token signature')
})

test('API answers are never cached: tokens, profiles and errors carry Cache-Control: no-store', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const email = 'cache@example.com'
  const registered = await post(app, 'register', { email, password: 'long enough password' })
  t.equal(registered.statusCode, 201)
  t.equal(registered.headers['cache-control'], 'no-store', 'register')
  const login = await post(app, 'login', { email, password: 'long enough password' })
  t.equal(login.headers['cache-control'], 'no-store', 'login')
  t.equal((await post(app, 'get-user', { jwtToken: login.json().jwtToken })).headers['cache-control'], 'no-store', 'a profile')
  t.equal((await post(app, 'get-user', { jwtToken: 'nope' })).headers['cache-control'], 'no-store', 'an error')
})

test('an operation asked for with another method answers 405 with Allow; an unknown one 404', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const get = await app.inject({ method: 'GET', url: '/api/get-user' })
  t.equal(get.statusCode, 405)
  t.equal(get.headers.allow, 'POST')
  t.match(get.json().error, /\/api\/get-user takes POST, not GET, with a JSON body/)
  const put = await app.inject({ method: 'PUT', url: '/api/get-today-cards?x=1' })
  t.equal(put.statusCode, 405)
  t.equal(put.headers.allow, 'POST')
  const postHealth = await app.inject({ method: 'POST', url: '/health' })
  t.equal(postHealth.statusCode, 405)
  t.equal(postHealth.headers.allow, 'GET')
  const unknown = await app.inject({ method: 'GET', url: '/api/no-such-operation' })
  t.equal(unknown.statusCode, 404)
  t.match(unknown.json().error, /no operation GET \/api\/no-such-operation/)
})

test('a token sent in an Authorization header rather than the body: 400 that says where it goes', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const response = await app.inject({ method: 'POST', url: '/api/get-user', headers: { authorization: 'Bearer abc.def.ghi' }, payload: {} })
  t.equal(response.statusCode, 400)
  t.match(response.json().error, /missing the field "jwtToken": the token goes in the JSON body as "jwtToken", not in the Authorization header/)
  const withoutHeader = await app.inject({ method: 'POST', url: '/api/get-user', payload: {} })
  t.notMatch(withoutHeader.json().error, /Authorization/, 'no hint without the header')
})

test('requests under way are bounded, in all (503) and per user (429): the excess is turned away at once with Retry-After', async (t) => {
  const app = await buildTestApp(t, import.meta.filename, { loadShedding: { maxInFlight: 6, maxInFlightPerUser: 3 } })
  const [ann, bob, carl] = [await registerUser(app), await registerUser(app), await registerUser(app)]
  // a library large enough that reading it takes longer than checking the other requests' tokens
  await post(app, 'create-folder', { jwtToken: ann.jwtToken, path: ['Big'] })
  await post(app, 'create-flashcard', { jwtToken: ann.jwtToken, folder: ['Big'], flashcardName: 'Deck', cards: Array.from({ length: 1000 }, (_, i) => ({ front: `q${i}`, back: 'a' })) })
  const library = async (user: { jwtToken: string }) => await post(app, 'get-all-cards', { jwtToken: user.jwtToken })

  // inject hands every request to the app before any is answered: all of them are under way at once
  const annAlone = await Promise.all(Array.from({ length: 5 }, async () => await library(ann)))
  // (a request answered before the last ones are checked gives its place back: at least 3 are served)
  const annServed = annAlone.filter((response) => response.statusCode === 200).length
  t.ok(annServed >= 3 && annAlone.length - annServed >= 1, `one user: 3 at once, the rest turned away (${annAlone.map((response) => response.statusCode).join(', ')})`)
  const turnedAway = annAlone.find((response) => response.statusCode === 429)
  t.equal(turnedAway?.headers['retry-after'], '1')
  t.equal(turnedAway?.json().code, 'too_many_requests', 'a limit of one client is a 429 for that client, not a 503 for the service')

  const everyone = await Promise.all([ann, bob, carl].flatMap((user) => Array.from({ length: 3 }, async () => await library(user))))
  const served = everyone.filter((response) => response.statusCode === 200).length
  t.ok(served >= 6 && everyone.length - served >= 1, `in all: 6 at once, the rest turned away (${everyone.map((response) => response.statusCode).join(', ')})`)
  t.ok(everyone.every((response) => response.statusCode === 200 || (response.statusCode === 503 && response.json().code === 'service_overloaded')),
    'the service full: 503 service_overloaded')
  t.equal((await library(ann)).statusCode, 200, 'the places are given back once the answers are sent')
})
