import type { AddressInfo } from 'node:net'
import type { FastifyInstance } from 'fastify'
import { test } from 'tap'
import { newId } from '../src/domain/ids.js'
import type { FolderNode } from '../src/domain/library-tree.js'
import { MAX_CARD_TEXT, MAX_CARDS_PER_REQUEST, MAX_CHILDREN, MAX_FOLDER_DEPTH } from '../src/domain/limits.js'
import { databaseOf, buildTestApp, post, registerUser } from './helpers/app.js'
import { storedNodes, storedState } from './helpers/stored.js'

const MIB = 1024 * 1024

/** Puts empty folders straight into a user's stored tree (in `parentID`, or at the top for ''): a thousand requests would only slow the test. */
async function addFoldersDirectly (app: FastifyInstance, userID: string, parentID: string, names: string[]): Promise<void> {
  const trees = databaseOf(app).collection<{ _id: string, folders: FolderNode[] }>('trees')
  const tree = await trees.findOne({ _id: userID })
  if (tree === null) throw new Error('the user has no tree yet')
  const find = (folders: FolderNode[]): FolderNode | undefined => {
    for (const folder of folders) {
      if (folder.id === parentID) return folder
      const below = find(folder.folders)
      if (below !== undefined) return below
    }
    return undefined
  }
  const siblings = parentID === '' ? tree.folders : find(tree.folders)?.folders
  if (siblings === undefined) throw new Error(`no folder ${parentID}`)
  siblings.push(...names.map((name) => ({ id: newId(), name, folders: [], flashcards: [] })))
  await trees.updateOne({ _id: userID }, { $set: { folders: tree.folders } })
}

async function folderIDNamed (app: FastifyInstance, userID: string, name: string): Promise<string | undefined> {
  return (await storedNodes(app, { userID })).find((node) => node.kind === 'folder' && node.name === name)?._id
}

function cards (count: number, front = 'front', back = 'back'): Array<{ front: string, back: string }> {
  return Array.from({ length: count }, (_, index) => ({ front: `${front} ${index}`, back }))
}

test('request body size: at most 1 MiB, then 413 with the error contract', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const { jwtToken } = await registerUser(app)
  t.equal((await post(app, 'create-folder', { jwtToken, path: ['Big'] })).statusCode, 201)
  const card = { front: 'f'.repeat(6000), back: 'b' }

  const fits = await post(app, 'create-flashcard', { jwtToken, folder: ['Big'], flashcardName: 'fits', cards: Array(160).fill(card) })
  t.equal(fits.statusCode, 201, 'just under 1 MiB is taken')

  const before = await storedState(app)
  const payload = JSON.stringify({ jwtToken, folder: ['Big'], flashcardName: 'too big', cards: Array(180).fill(card) })
  t.ok(payload.length > MIB)
  const tooBig = await app.inject({ method: 'POST', url: '/api/create-flashcard', headers: { 'content-type': 'application/json' }, payload })
  t.equal(tooBig.statusCode, 413)
  t.match(tooBig.json(), { error: /larger than 1 MiB.*fewer cards/, code: 'body_too_large' })
  t.strictSame(Object.keys(tooBig.json()), ['error', 'code'])
  t.equal(await storedState(app), before, 'nothing stored')
})

test('card text: a front of 1 and a back of 0 to MAX_CARD_TEXT characters, wherever text comes in', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const { jwtToken } = await registerUser(app)
  await post(app, 'create-folder', { jwtToken, path: ['Words'] })
  const longest = 'x'.repeat(MAX_CARD_TEXT)
  const created = await post(app, 'create-flashcard', {
    jwtToken, folder: ['Words'], flashcardName: 'longest', cards: [{ front: longest, back: longest }, { front: '🦊'.repeat(MAX_CARD_TEXT), back: '' }]
  })
  t.equal(created.statusCode, 201, 'the longest texts are taken; characters are counted, not UTF-16 units')
  const { flashcardID, cardIDs: [cardID] } = created.json() as { flashcardID: string, cardIDs: string[] }

  const before = await storedState(app)
  const tooLong = `${longest}x`
  const refused: Array<[string, Record<string, unknown>, RegExp]> = [
    ['create-flashcard', { folder: ['Words'], flashcardName: 'long', cards: [{ front: tooLong, back: '' }] }, /front is too long: send at most 10,000 characters/],
    ['create-flashcard', { folder: ['Words'], flashcardName: 'long', cards: [], description: tooLong }, /description is too long: send at most 10,000 characters/],
    ['add-cards', { flashcardID, cards: [{ front: 'a', back: tooLong }] }, /back is too long: send at most 10,000 characters/],
    ['edit-card', { flashcardID, cardID, front: tooLong }, /front is too long: send at most 10,000 characters/],
    ['import-cards', { folder: ['Words'], flashcardName: 'long', text: `a\tb\n${tooLong}\tc` }, /line 2.*at most 10000/],
    ['create-flashcard', { folder: ['Words'], flashcardName: 'empty', cards: [{ front: '', back: 'b' }] }, /front is empty: send at least one character/]
  ]
  for (const [operation, body, message] of refused) {
    const response = await post(app, operation, { jwtToken, ...body })
    t.equal(response.statusCode, 400, operation)
    t.match(response.json(), { error: message }, operation)
  }
  t.equal(await storedState(app), before, 'nothing stored')
})

test('cards per request: at most MAX_CARDS_PER_REQUEST', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const { jwtToken } = await registerUser(app)
  await post(app, 'create-folder', { jwtToken, path: ['Many'] })
  const most = await post(app, 'create-flashcard', { jwtToken, folder: ['Many'], flashcardName: 'most', cards: cards(MAX_CARDS_PER_REQUEST) })
  t.equal(most.statusCode, 201)
  t.equal(most.json().cardIDs.length, MAX_CARDS_PER_REQUEST)

  const before = await storedState(app)
  const oneTooMany = cards(MAX_CARDS_PER_REQUEST + 1)
  const refused: Array<[string, Record<string, unknown>, RegExp]> = [
    ['create-flashcard', { folder: ['Many'], flashcardName: 'more', cards: oneTooMany }, /cards has too many items: send at most 1,000/],
    ['add-cards', { flashcardID: most.json().flashcardID, cards: oneTooMany }, /cards has too many items: send at most 1,000/],
    ['import-cards', { folder: ['Many'], flashcardName: 'more', text: oneTooMany.map((card) => `${card.front}\t${card.back}`).join('\n') }, /at most 1000 cards/]
  ]
  for (const [operation, body, message] of refused) {
    const response = await post(app, operation, { jwtToken, ...body })
    t.equal(response.statusCode, 400, operation)
    t.match(response.json(), { error: message }, operation)
  }
  t.equal(await storedState(app), before, 'nothing stored')
})

test('folder depth: at most MAX_FOLDER_DEPTH levels, by path or by a move', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const { jwtToken, userID } = await registerUser(app)
  const deepest = Array.from({ length: MAX_FOLDER_DEPTH }, (_, level) => `level ${level + 1}`)
  const created = await post(app, 'create-folder', { jwtToken, path: deepest })
  t.equal(created.statusCode, 201)
  const branch = await post(app, 'create-folder', { jwtToken, path: ['Branch'] })
  t.equal((await post(app, 'create-folder', { jwtToken, path: ['Branch', 'Twig'] })).statusCode, 201)

  const before = await storedState(app)
  const tooDeep = await post(app, 'create-folder', { jwtToken, path: [...deepest, 'one more'] })
  t.equal(tooDeep.statusCode, 400)
  t.match(tooDeep.json(), { error: /path has too many items: send at most 20/ })
  const flashcard = await post(app, 'create-flashcard', { jwtToken, folder: [...deepest, 'one more'], flashcardName: 'x', cards: [] })
  t.equal(flashcard.statusCode, 400)

  // Branch/Twig is two levels: under level 19 it would reach level 21
  const target = await folderIDNamed(app, userID, 'level 19')
  const move = await post(app, 'move-folder', { jwtToken, folderID: branch.json().folderID, parentID: target })
  t.equal(move.statusCode, 400)
  t.match(move.json(), { error: /21 levels deep; at most 20/ })
  t.equal(await storedState(app), before, 'nothing stored')
})

test('names per parent: at most MAX_CHILDREN folders and flashcards in a folder, and as many top-level folders', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app)
  const { jwtToken, userID } = user
  const full = (await post(app, 'create-folder', { jwtToken, path: ['Full'] })).json().folderID as string
  // all but one place taken directly in the database
  await addFoldersDirectly(app, userID, full, Array.from({ length: MAX_CHILDREN - 1 }, (_, index) => `sub ${index}`))
  const last = await post(app, 'create-flashcard', { jwtToken, folder: ['Full'], flashcardName: 'the last place', cards: cards(1) })
  t.equal(last.statusCode, 201, 'the thousandth member is taken')

  const elsewhere = (await post(app, 'create-folder', { jwtToken, path: ['Elsewhere', 'Movable'] })).json().folderID as string
  const movable = (await post(app, 'create-flashcard', { jwtToken, folder: ['Elsewhere'], flashcardName: 'movable deck', cards: [] })).json().flashcardID as string

  const before = await storedState(app)
  const refused: Array<[string, Record<string, unknown>]> = [
    ['create-folder', { path: ['Full', 'one more'] }],
    ['create-folder', { path: ['Full', 'one more', 'and its child'] }],
    ['create-flashcard', { folder: ['Full'], flashcardName: 'one more', cards: cards(2) }],
    ['import-cards', { folder: ['Full'], flashcardName: 'one more', text: 'a\tb' }],
    ['move-folder', { folderID: elsewhere, parentID: full }],
    ['move-flashcard-set', { flashcardID: movable, folderID: full }]
  ]
  for (const [operation, body] of refused) {
    const response = await post(app, operation, { jwtToken, ...body })
    t.equal(response.statusCode, 409, operation)
    t.match(response.json(), { error: /already holds 1000 folders and flashcards, the most one folder may hold/ }, operation)
  }
  t.equal(await storedState(app), before, 'nothing stored')

  t.equal((await post(app, 'create-folder', { jwtToken, path: ['Full', 'sub 7', 'inside'] })).statusCode, 201, 'the folders inside still take members')
  t.equal((await post(app, 'rename-flashcard', { jwtToken, flashcardID: last.json().flashcardID, name: 'renamed' })).statusCode, 200, 'a rename in place takes no new place')
  t.equal((await post(app, 'delete-flashcard', { jwtToken, flashcardID: last.json().flashcardID })).statusCode, 200)
  t.equal((await post(app, 'move-flashcard-set', { jwtToken, flashcardID: movable, folderID: full })).statusCode, 200, 'a freed place can be taken again')

  await t.test('top-level folders', async (t) => {
    const other = await registerUser(app)
    const top = (await post(app, 'create-folder', { jwtToken: other.jwtToken, path: ['Top', 'Inner'] })).json() as { folderID: string }
    await addFoldersDirectly(app, other.userID, '', Array.from({ length: MAX_CHILDREN - 1 }, (_, index) => `top ${index}`))
    const state = await storedState(app)
    const created = await post(app, 'create-folder', { jwtToken: other.jwtToken, path: ['One more top'] })
    t.equal(created.statusCode, 409)
    t.match(created.json(), { error: /already 1000 top-level folders, the most allowed/ })
    const inner = await folderIDNamed(app, other.userID, 'Inner')
    const moved = await post(app, 'move-folder', { jwtToken: other.jwtToken, folderID: inner, parentID: '' })
    t.equal(moved.statusCode, 409)
    t.equal(await storedState(app), state, 'nothing stored')
    t.equal((await post(app, 'create-folder', { jwtToken: other.jwtToken, path: ['Top', 'Second'] })).statusCode, 201, 'below the top level there is room')
    t.ok(top.folderID)
    // the first user's library is its own
    t.equal((await post(app, 'create-folder', { jwtToken, path: ['Another top'] })).statusCode, 201)
  })
})

test('deeply nested or huge JSON is answered 4xx at once, and the service stays responsive', async (t) => {
  // load shedding off: on a busy machine it could answer 503 for others' load; this is about these bodies
  const app = await buildTestApp(t, import.meta.filename, { loadShedding: { maxEventLoopUtilization: 1, maxEventLoopDelayMs: 60_000 } })
  const { jwtToken } = await registerUser(app)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
  const before = await storedState(app)

  const depth = Math.floor((MIB - 200) / 2)
  const nested = (prefix: string, suffix: string) => `${prefix}${'['.repeat(depth - prefix.length)}${']'.repeat(depth - prefix.length)}${suffix}`
  const flat = (size: number) => `{${Array.from({ length: Math.floor(size / 12) }, (_, index) => `"k${index}":0`).join(',')}}`
  const bodies: Array<[string, string, string, number]> = [
    ['nested arrays', 'get-user', nested('', ''), 400],
    ['nested arrays as a field', 'create-folder', nested(`{"jwtToken":"${jwtToken}","path":`, '}'), 400],
    // the mention of __proto__ makes the parser walk the whole body looking for it
    ['nested objects with __proto__ in them', 'get-user', `{"x":${'[{"a":'.repeat(MIB / 16)}{"__proto__":1}${'}]'.repeat(MIB / 16)}}`, 400],
    ['nested token of any type', 'update-goal-status', nested('{"jwtToken":', '}'), 401],
    ['a huge flat object', 'create-folder', flat(MIB - 100), 400],
    ['a huge flat array of names', 'create-folder', `{"jwtToken":"${jwtToken}","path":[${Array(MIB / 8).fill('"name"').join(',')}]}`, 400]
  ]
  for (const [what, operation, body, status] of bodies) {
    t.ok(body.length <= MIB, `${what}: within the body limit (${body.length} bytes)`)
    const started = performance.now()
    const [answer, health] = await Promise.all([
      fetch(`${origin}/api/${operation}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body }),
      (async () => {
        // asked while the big body is still being read and parsed
        await new Promise((resolve) => setTimeout(resolve, 5))
        return await fetch(`${origin}/health`)
      })()
    ])
    const elapsed = performance.now() - started
    t.equal(answer.status, status, `${what}: ${status}`)
    const json = await answer.json() as Record<string, unknown>
    if (status === 400) t.type(json.error, 'string', `${what}: the error contract`)
    t.equal(health.status, 200, `${what}: /health answers meanwhile`)
    t.ok(elapsed < 3000, `${what}: answered in ${elapsed.toFixed(0)} ms`)
  }
  t.equal(await storedState(app), before, 'nothing stored')
})
