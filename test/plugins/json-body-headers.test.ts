import { gzipSync } from 'node:zlib'
import type { FastifyInstance } from 'fastify'
import { test } from 'tap'
import { buildTestApp } from '../helpers/app.js'
import { storedState } from '../helpers/stored.js'

let counter = 0

/** A register request with the headers given; its body is valid UTF-8 JSON whatever they say. */
async function register (app: FastifyInstance, headers: Record<string, string>, payload?: string | Buffer) {
  counter += 1
  const body = payload ?? JSON.stringify({ email: `headers${counter}@example.com`, password: 'long enough password', displayName: 'Café' })
  return await app.inject({ method: 'POST', url: '/api/register', headers: { 'content-type': 'application/json', ...headers }, payload: body })
}

test('a body declared in a charset other than UTF-8 is answered 415, before it is read, and nothing is stored', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const before = await storedState(app)
  for (const contentType of [
    'application/json; charset=latin1', // the UTF-8 bytes of "Café" would be read as a latin-1 client never meant them
    'application/json; charset=ISO-8859-1',
    'application/json;charset="windows-1252"',
    'application/json; CHARSET=utf-16',
    'application/json; charset=us-ascii',
    'application/json; charset=',
    'application/json; charset=utf-8; charset=latin1'
  ]) {
    const response = await register(app, { 'content-type': contentType })
    t.equal(response.statusCode, 415, contentType)
    t.match(response.json(), { error: /reads JSON as UTF-8 only: encode it as UTF-8 and send Content-Type: application\/json/ }, contentType)
    t.equal(response.headers['cache-control'], 'no-store', 'with the headers of every API answer')
    t.equal(response.headers['x-content-type-options'], 'nosniff')
  }
  t.match((await register(app, { 'content-type': 'application/json; charset=latin1' })).json().error, /charset "latin1"/, 'the message names the charset sent')
  const tooLarge = await register(app, { 'content-type': 'application/json; charset=latin1' }, 'x'.repeat(2 * 1024 * 1024))
  t.equal(tooLarge.statusCode, 415, 'a body over the size limit is not even read (it would be 413)')
  t.equal(await storedState(app), before, 'no account was created')
})

test('a compressed body (Content-Encoding other than identity) is answered 415, before it is read, and nothing is stored', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const before = await storedState(app)
  const plain = JSON.stringify({ email: 'gzip@example.com', password: 'long enough password' })
  for (const [encoding, payload] of [
    ['gzip', plain], // the trial's case: a plain body under a gzip header
    ['gzip', gzipSync(plain)],
    ['deflate', plain],
    ['br', plain],
    ['GZIP', plain],
    ['identity, gzip', plain],
    ['x-unknown', plain]
  ] as const) {
    const response = await register(app, { 'content-encoding': encoding }, payload)
    t.equal(response.statusCode, 415, encoding)
    t.match(response.json(), { error: /takes uncompressed bodies only: send the JSON as it is, without a Content-Encoding header/ }, encoding)
    t.equal(response.headers['cache-control'], 'no-store')
  }
  const malformed = await register(app, { 'content-encoding': 'gzip' }, '{"not json')
  t.equal(malformed.statusCode, 415, 'refused before the body is parsed (malformed JSON would be 400)')
  t.equal(await storedState(app), before, 'no account was created')
})

test('a UTF-8 body still works, declared or not, and identity is no encoding', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const accepted: Array<Record<string, string>> = [
    { 'content-type': 'application/json' },
    { 'content-type': 'application/json; charset=utf-8' },
    { 'content-type': 'application/json; charset=UTF-8' },
    { 'content-type': 'application/json;charset="utf-8"' },
    { 'content-type': 'application/json; charset=utf8' },
    { 'content-encoding': 'identity' },
    { 'content-type': 'application/json; charset=utf-8', 'content-encoding': 'Identity' }
  ]
  for (const headers of accepted) {
    const response = await register(app, headers)
    t.equal(response.statusCode, 201, JSON.stringify(headers))
  }
  const login = await app.inject({
    method: 'POST',
    url: '/api/login',
    headers: { 'content-type': 'application/json; charset=utf-8' },
    payload: JSON.stringify({ email: `headers${counter}@example.com`, password: 'long enough password' })
  })
  t.equal(login.statusCode, 200)
  const profile = await app.inject({
    method: 'POST',
    url: '/api/get-user',
    headers: { 'content-type': 'application/json; charset=utf-8' },
    payload: JSON.stringify({ jwtToken: login.json().jwtToken })
  })
  t.equal(profile.json().displayName, 'Café', 'the text is read as the UTF-8 it is')
  t.equal((await app.inject({ method: 'GET', url: '/health', headers: { 'content-encoding': 'gzip' } })).statusCode, 200, 'only API requests are checked')
})
