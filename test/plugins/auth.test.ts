import { createHmac } from 'node:crypto'
import { test } from 'tap'
import { TOKEN_AUDIENCE, TOKEN_ISSUER } from '../../src/plugins/auth.js'
import { databaseOf, buildTestApp, post, registerUser, tamperedToken, TEST_SECRET } from '../helpers/app.js'

function base64url (value: object | string): string {
  return Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url')
}

/** A token built by hand, so every field can be wrong on purpose. */
function craftToken (header: object, payload: object, secret: string | null = TEST_SECRET): string {
  const unsigned = `${base64url(header)}.${base64url(payload)}`
  const signature = secret === null ? '' : createHmac('sha256', secret).update(unsigned).digest('base64url')
  return `${unsigned}.${signature}`
}

const now = (): number => Math.floor(Date.now() / 1000)

test('tokens', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app)
  const validClaims = { sub: user.userID, iss: TOKEN_ISSUER, aud: TOKEN_AUDIENCE, iat: now(), exp: now() + 3600 }
  const hs256 = { alg: 'HS256', typ: 'JWT' }

  await t.test('a hand-made token with the right claims is accepted (the control case)', async (t) => {
    const response = await post(app, 'get-user', { jwtToken: craftToken(hs256, validClaims) })
    t.equal(response.statusCode, 200)
    t.equal(response.json().userID, user.userID)
  })

  const [head, payload, signature] = user.jwtToken.split('.') as [string, string, string]
  const tamperedPayload = base64url({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), sub: '1'.repeat(39) })
  const cases: Record<string, unknown> = {
    expired: craftToken(hs256, { ...validClaims, iat: now() - 7200, exp: now() - 3600 }),
    'not yet valid': craftToken(hs256, { ...validClaims, nbf: now() + 3600 }),
    'wrong secret': craftToken(hs256, validClaims, 'another-secret-that-is-long-enough-0123456789'),
    'alg none': craftToken({ alg: 'none', typ: 'JWT' }, validClaims, null),
    'alg HS512 with the same secret': `${base64url({ alg: 'HS512', typ: 'JWT' })}.${base64url(validClaims)}.${createHmac('sha512', TEST_SECRET).update(`${base64url({ alg: 'HS512', typ: 'JWT' })}.${base64url(validClaims)}`).digest('base64url')}`,
    'tampered payload': `${head}.${tamperedPayload}.${signature}`,
    'tampered signature': tamperedToken(`${head}.${payload}.${signature}`),
    'wrong audience': craftToken(hs256, { ...validClaims, aud: 'someone-else' }),
    'wrong issuer': craftToken(hs256, { ...validClaims, iss: 'someone-else' }),
    'no expiry': craftToken(hs256, { sub: user.userID, iss: TOKEN_ISSUER, aud: TOKEN_AUDIENCE }),
    'no issue time': craftToken(hs256, { ...validClaims, iat: undefined }),
    'issued in the future (past the clock skew)': craftToken(hs256, { ...validClaims, iat: now() + 600, exp: now() + 7200 }),
    'of another token generation': craftToken(hs256, { ...validClaims, gen: 1 }),
    'no subject': craftToken(hs256, { ...validClaims, sub: undefined }),
    'a number as subject': craftToken(hs256, { ...validClaims, sub: 42 }),
    garbage: 'not.a.token',
    empty: '',
    'not a string': 12345,
    missing: undefined
  }

  for (const [name, jwtToken] of Object.entries(cases)) {
    await t.test(`${name}: 401`, async (t) => {
      const response = await post(app, 'get-user', jwtToken === undefined ? {} : { jwtToken })
      if (name === 'missing' || name === 'not a string') {
        t.equal(response.statusCode, 400, 'a missing or mistyped field is a malformed body')
        return
      }
      t.equal(response.statusCode, 401)
      t.same(response.json(), { error: 'invalid or expired token', code: 'invalid_token' })
    })
  }

  await t.test('a token in a header only does not authenticate', async (t) => {
    const response = await app.inject({
      method: 'POST',
      url: '/api/get-user',
      headers: { authorization: `Bearer ${user.jwtToken}` },
      payload: { jwtToken: 'x' }
    })
    t.equal(response.statusCode, 401)
  })

  await t.test('the token of a user deleted after issue gives 401', async (t) => {
    const doomed = await registerUser(app)
    t.equal((await post(app, 'get-user', { jwtToken: doomed.jwtToken })).statusCode, 200)
    await databaseOf(app).collection('users').deleteOne({ _id: doomed.userID as never })
    const response = await post(app, 'get-user', { jwtToken: doomed.jwtToken })
    t.equal(response.statusCode, 401)
  })

  await t.test('a token remembered after its first use still expires, and its altered copies still fail', async (t) => {
    const exp = now() + 2
    const brief = craftToken(hs256, { ...validClaims, exp })
    t.equal((await post(app, 'get-user', { jwtToken: brief })).statusCode, 200)
    t.equal((await post(app, 'get-user', { jwtToken: brief })).statusCode, 200, 'the second use, from memory')
    const [briefHead, briefPayload, briefSignature] = brief.split('.') as [string, string, string]
    const altered = {
      signature: tamperedToken(`${briefHead}.${briefPayload}.${briefSignature}`),
      payload: `${briefHead}.${base64url({ ...validClaims, exp, sub: '1'.repeat(39) })}.${briefSignature}`,
      'trailing space': `${brief} `
    }
    for (const [what, jwtToken] of Object.entries(altered)) {
      t.equal((await post(app, 'get-user', { jwtToken })).statusCode, 401, `altered ${what}`)
    }
    await new Promise((resolve) => setTimeout(resolve, exp * 1000 + 50 - Date.now()))
    const late = await post(app, 'get-user', { jwtToken: brief })
    t.equal(late.statusCode, 401)
    t.same(late.json(), { error: 'invalid or expired token', code: 'invalid_token' })
  })

  await t.test('issued tokens carry expiry, issuer and audience', async (t) => {
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString())
    t.equal(claims.iss, TOKEN_ISSUER)
    t.equal(claims.aud, TOKEN_AUDIENCE)
    t.equal(claims.sub, user.userID)
    t.ok(claims.exp > now() && claims.exp <= now() + 8 * 24 * 3600)
    t.same(JSON.parse(Buffer.from(head, 'base64url').toString()).alg, 'HS256')
  })
})
