import { readFile } from 'node:fs/promises'
import { test } from 'tap'
import type { InjectOptions } from 'fastify'
import { REFUSAL_CODES, type RefusalCode } from '../src/domain/refusals.js'
import { codesOf, REFUSALS } from '../src/schemas/errors.js'
import { buildTestApp, post, registerUser } from './helpers/app.js'

test('docs/api.md lists every code, with the status the service answers it with, and no other', async (t) => {
  const docs = await readFile(new URL('../docs/api.md', import.meta.url), 'utf8')
  const listed = new Map([...docs.matchAll(/^\| `([a-z_]+)` \| (\d{3}) \|/gm)].map((row) => [row[1] as string, Number(row[2])]))
  t.same([...listed.keys()].sort(), [...REFUSAL_CODES].sort())
  for (const code of REFUSAL_CODES) t.equal(listed.get(code), REFUSALS[code].status, code)
})

test('the OpenAPI document gives each error status of each operation the codes of that status', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const document = (await app.inject({ method: 'GET', url: '/openapi.json' })).json<{ paths: Record<string, { post?: { responses: Record<string, unknown> } }> }>()
  let checked = 0
  for (const [path, operations] of Object.entries(document.paths)) {
    for (const [status, answer] of Object.entries(operations.post?.responses ?? {})) {
      if (Number(status) < 400) continue
      const schema = (answer as { content?: Record<string, { schema: { properties?: { code?: { enum?: string[] } }, required?: string[] } }> })
        .content?.['application/json']?.schema
      // update-goal-status answers {} for a bad token, as the published interface asks
      if (path === '/api/update-goal-status' && status === '401') continue
      t.same(schema?.properties?.code?.enum, codesOf(Number(status)), `${path} ${status}`)
      t.ok(schema?.required?.includes('code'), `${path} ${status}: code is required`)
      checked += 1
    }
  }
  t.ok(checked > 100, `${checked} error answers described`)
})

test('every kind of refusal answers {error, code}, the code listed and its status the one listed for it', async (t) => {
  const app = await buildTestApp(t, import.meta.filename, { loadShedding: { maxInFlight: 100_000, maxInFlightPerUser: 2 } })
  const user = await registerUser(app)
  const jwtToken = user.jwtToken
  const answers: Array<{ sent: string, status: number, body: Record<string, unknown> }> = []
  const send = async (sent: string, request: InjectOptions): Promise<void> => {
    const response = await app.inject(request)
    answers.push({ sent, status: response.statusCode, body: response.json() })
  }
  const api = (operation: string, payload: unknown, headers: Record<string, string> = {}): InjectOptions =>
    ({ method: 'POST', url: `/api/${operation}`, payload: payload as object, headers })

  await send('not JSON', { ...api('get-user', '{"jwtToken":'), headers: { 'content-type': 'application/json' } })
  await send('not UTF-8', { method: 'POST', url: '/api/get-user', payload: Buffer.from([0x7b, 0xff, 0x7d]), headers: { 'content-type': 'application/json' } })
  await send('a missing field', api('get-user', {}))
  await send('an unknown path', { method: 'POST', url: '/api/no-such-operation', payload: {} })
  await send('another method', { method: 'GET', url: '/api/get-user' })
  await send('text/plain', { method: 'POST', url: '/api/get-user', payload: 'hello', headers: { 'content-type': 'text/plain' } })
  await send('latin1', api('get-user', { jwtToken }, { 'content-type': 'application/json; charset=latin1' }))
  await send('gzip', api('get-user', { jwtToken }, { 'content-encoding': 'gzip' }))
  await send('a bad token', api('get-user', { jwtToken: 'not.a.token' }))
  await send('a wrong login', api('login', { email: user.email, password: 'not the password' }))
  await send('a taken email', api('register', { email: user.email, password: 'long enough password' }))
  await send('a bad name', api('create-folder', { jwtToken, path: ['a\u200bb'] }))
  await send('a bad time zone', api('update-settings', { jwtToken, timezone: 'Mars/Olympus' }))
  await send('nothing to change', api('update-settings', { jwtToken }))
  await send('an unknown folder', api('rename-folder', { jwtToken, folderID: '1'.repeat(39), name: 'x' }))
  await send('an unknown flashcard', api('get-flashcard', { jwtToken, flashcardID: '1'.repeat(39) }))
  await send('nothing to undo', api('undo-review', { jwtToken }))
  await send('an unknown goal', api('delete-goal', { jwtToken, goalID: '1'.repeat(39) }))
  await send('a folder made twice, first', api('create-folder', { jwtToken, path: ['Twice'] }))
  await send('a folder made twice', api('create-folder', { jwtToken, path: ['Twice'] }))
  await send('a look-alike', api('create-folder', { jwtToken, path: ['TWICE'] }))
  await send('bad import text', api('import-cards', { jwtToken, folder: ['Twice'], flashcardName: 'Imported', text: 'no separator here', termSeparator: '\t', cardSeparator: '\n' }))
  const burst = await Promise.all(Array.from({ length: 6 }, async () => await app.inject(api('get-all-cards', { jwtToken }))))
  for (const response of burst) answers.push({ sent: 'a burst of one user', status: response.statusCode, body: response.json() })

  const codes = new Set<string>()
  for (const { sent, status, body } of answers) {
    if (status < 400) continue
    const code = body.code as RefusalCode
    codes.add(code)
    t.ok(REFUSAL_CODES.includes(code), `${sent}: ${status} ${String(code)} is a listed code`)
    t.equal(status, REFUSALS[code]?.status, `${sent}: answered with the status listed for ${code}`)
    t.type(body.error, 'string', `${sent}: with a sentence`)
    t.notMatch(String(body.error), /\^|\$\/|\\\\u00/, `${sent}: the sentence holds no raw pattern`)
  }
  for (const expected of ['malformed_json', 'invalid_text', 'invalid_field', 'unknown_operation', 'method_not_allowed', 'unsupported_content_type',
    'unsupported_charset', 'unsupported_content_encoding', 'invalid_token', 'wrong_credentials', 'email_taken', 'invalid_name', 'invalid_value',
    'nothing_to_change', 'folder_not_found', 'flashcard_not_found', 'nothing_to_undo', 'goal_not_found', 'name_taken', 'name_too_similar',
    'invalid_import', 'too_many_requests']) {
    t.ok(codes.has(expected), `${expected} was answered`)
  }
})

test('a validation error is a sentence that says what to send instead, never a raw pattern', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app)
  const cases: Array<[string, Record<string, unknown>, RegExp]> = [
    ['create-folder', { path: ['ctrl\u0007char'] }, /body\.path\.0 must be text without control characters/],
    ['get-flashcard', { flashcardID: '12ab' }, /body\.flashcardID must be an id as the service gave it: 30 to 64 decimal digits/],
    ['register', { email: 'no-at-sign', password: 'long enough password' }, /body\.email must be an email address such as ada@example\.com/],
    ['review-card', { flashcardID: '1'.repeat(39), cardID: '1'.repeat(39), rating: 'perfect' }, /body\.rating must be one of "again", "hard", "good", "easy": send one of them/],
    ['update-settings', { reviewsPerDay: 100_000 }, /body\.reviewsPerDay is too large: send [0-9,]+ or less/]
  ]
  for (const [operation, body, message] of cases) {
    const response = await post(app, operation, { jwtToken: user.jwtToken, ...body })
    t.equal(response.statusCode, 400, operation)
    t.equal(response.json().code, 'invalid_field', operation)
    t.match(response.json().error, message, operation)
  }
})
