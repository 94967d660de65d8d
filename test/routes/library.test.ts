import { t, test } from 'tap'
import type { RefusalCode } from '../../src/domain/refusals.js'
import { buildTestApp, databaseOf, expectOk, expectRefusal, makeDeck, makeFolder, post, registerUser, type Deck, type TestUser } from '../helpers/app.js'
import { storedNodes } from '../helpers/stored.js'

type Tree = Record<string, unknown>

/** A member of a parsed JSON object, read as an own property (safe for a key such as "__proto__"). */
function own (object: unknown, key: string): unknown {
  return Object.getOwnPropertyDescriptor(object, key)?.value
}

const NOW = new Date('2026-05-04T12:00:00Z')
// one app for the file: each test acts as a user of its own
const app = await buildTestApp(t, import.meta.filename, { clock: () => NOW })

/** Folders and flashcards, and cards, of every user: what a refused request must leave as it was. */
async function counts (): Promise<{ nodes: number, cards: number }> {
  return {
    nodes: (await storedNodes(app)).length,
    cards: await databaseOf(app).collection('cards').countDocuments()
  }
}

/** How many folders and flashcards of the user's tree have this name. */
async function named (user: TestUser, name: string): Promise<number> {
  return (await storedNodes(app, { userID: user.userID })).filter((node) => node.name === name).length
}

test('hostile names round-trip untouched as keys of the tree', async (t) => {
  const user = await registerUser(app)
  const { jwtToken } = user
  const prototypeBefore = Object.getOwnPropertyNames(Object.prototype).sort()
  const toStringBefore = Object.prototype.toString
  const names = [
    '__proto__', 'constructor', 'toString', 'hasOwnProperty', 'a.b', '$where', 'x/y',
    '📚 Bücher 🇩🇪', '  spaced  ', 'n'.repeat(100), '🦊'.repeat(100)
  ]
  const created = new Map<string, { flashcardID: string, cardIDs: string[] }>()
  for (const name of names) {
    // the name three times over: a folder, a folder inside it, and a flashcard inside that
    const folder = await post(app, 'create-folder', { jwtToken, path: [name, name] })
    t.equal(folder.statusCode, 201, `create-folder ${name}`)
    t.strictSame(folder.json().path, [name, name])
    t.match(folder.json().folderID, /^\d{30,}$/)
    const flashcard = await post(app, 'create-flashcard', {
      jwtToken, folder: [name, name], flashcardName: name, cards: [{ front: `front of ${name}`, back: 'back' }]
    })
    t.equal(flashcard.statusCode, 201, `create-flashcard ${name}`)
    created.set(name, flashcard.json())
  }

  const tree = await expectOk<Tree>(app, 'get-today-cards', { jwtToken })
  t.strictSame(Object.keys(tree).sort(), [...names].sort(), 'every name is a top-level key, spelled as given')
  for (const name of names) {
    t.ok(Object.hasOwn(tree, name), `${name} is an own key of the tree`)
    const outer = own(tree, name)
    t.strictSame(Object.keys(outer as Tree), [name], `${name}: one folder inside`)
    const inner = own(outer, name)
    t.strictSame(Object.keys(inner as Tree), [name], `${name}: one flashcard inside that`)
    const flashcard = own(inner, name) as Tree
    const { flashcardID, cardIDs } = created.get(name) as { flashcardID: string, cardIDs: string[] }
    t.strictSame(Object.keys(flashcard).sort(), ['cards', 'flashcardID', 'flashcardName'])
    t.equal(flashcard.flashcardName, name)
    t.equal(flashcard.flashcardID, flashcardID)
    t.strictSame(Object.keys(flashcard.cards as Tree), cardIDs)
  }

  const stored = (await storedNodes(app, { userID: user.userID })).filter((node) => node.kind === 'flashcard')
  t.strictSame(stored.map((node) => node.name).sort(), [...names].sort(), 'stored as given')
  t.strictSame(Object.getOwnPropertyNames(Object.prototype).sort(), prototypeBefore, 'Object.prototype gained nothing')
  t.equal(Object.prototype.toString, toStringBefore)
  const plain: Record<string, unknown> = {}
  t.equal(plain.flashcardID, undefined)
  t.equal(plain.cards, undefined)
})

test('a name already taken by a sibling gives 409 and stores nothing', async (t) => {
  const user = await registerUser(app)
  const { jwtToken } = user
  await makeFolder(app, user, ['Clash', 'Inner'])
  await makeDeck(app, user, { folder: ['Clash'], name: 'Deck', cards: 1 })
  const before = await counts()

  const clashes: Record<string, [string, object, RefusalCode]> = {
    'folder vs folder at the top': ['create-folder', { path: ['Clash'] }, 'name_taken'],
    'create-folder of an existing nested path': ['create-folder', { path: ['Clash', 'Inner'] }, 'name_taken'],
    'folder vs flashcard': ['create-folder', { path: ['Clash', 'Deck'] }, 'not_a_folder'],
    'a folder path through a flashcard': ['create-folder', { path: ['Clash', 'Deck', 'Below'] }, 'not_a_folder'],
    'flashcard vs folder': ['create-flashcard', { folder: ['Clash'], flashcardName: 'Inner', cards: [{ front: 'f', back: 'b' }] }, 'name_taken'],
    'flashcard vs flashcard': ['create-flashcard', { folder: ['Clash'], flashcardName: 'Deck', cards: [{ front: 'f', back: 'b' }] }, 'name_taken']
  }
  for (const [what, [operation, body, code]] of Object.entries(clashes)) {
    await expectRefusal(t, app, operation, { jwtToken, ...body }, 409, code, what)
  }
  t.strictSame(await counts(), before)

  // the same names in another parent, or of another user, are free (the control case)
  t.equal((await post(app, 'create-folder', { jwtToken, path: ['Elsewhere', 'Inner'] })).statusCode, 201)
  t.equal((await post(app, 'create-flashcard', { jwtToken, folder: ['Elsewhere'], flashcardName: 'Deck', cards: [] })).statusCode, 201)
  t.equal((await post(app, 'create-folder', { jwtToken, path: ['Clash', 'Inner', 'Clash'] })).statusCode, 201)
  const other = await registerUser(app)
  t.equal((await post(app, 'create-folder', { jwtToken: other.jwtToken, path: ['Clash', 'Inner'] })).statusCode, 201)
})

test('the reserved names cards, flashcardID and flashcardName give 400', async (t) => {
  const user = await registerUser(app)
  const { jwtToken } = user
  await makeFolder(app, user, ['Holder'])
  const before = await counts()
  for (const reserved of ['cards', 'flashcardID', 'flashcardName']) {
    const attempts: Record<string, [string, object]> = {
      'a top-level folder': ['create-folder', { path: [reserved] }],
      'a nested folder': ['create-folder', { path: ['Fresh parent', reserved] }],
      'a folder in an existing folder': ['create-folder', { path: ['Holder', reserved] }],
      'a flashcard': ['create-flashcard', { folder: ['Holder'], flashcardName: reserved, cards: [{ front: 'f', back: 'b' }] }]
    }
    for (const [what, [operation, body]] of Object.entries(attempts)) {
      const { error } = await expectRefusal(t, app, operation, { jwtToken, ...body }, 400, 'invalid_name', `${reserved} as ${what}`)
      t.match(error, reserved)
    }
  }
  t.strictSame(await counts(), before, 'not even the parent "Fresh parent" was created')

  // only the exact names are reserved (the control case)
  t.equal((await post(app, 'create-folder', { jwtToken, path: ['Holder', 'Cards'] })).statusCode, 201)
  t.equal((await post(app, 'create-flashcard', { jwtToken, folder: ['Holder'], flashcardName: 'flashcardid', cards: [] })).statusCode, 201)
})

test('control characters, empty names and names over 100 characters give 400', async (t) => {
  const user = await registerUser(app)
  const { jwtToken } = user
  await makeFolder(app, user, ['Strict'])
  const before = await counts()
  const badNames = {
    empty: '',
    tab: 'tab\there',
    newline: 'new\nline',
    'carriage return': 'cr\r',
    nul: 'nul\u0000',
    escape: 'esc\u001b[31m',
    delete: 'del\u007f',
    'C1 control (NEL)': 'nel\u0085',
    '101 letters': 'n'.repeat(101),
    '101 emoji': '🦊'.repeat(101)
  }
  for (const [what, name] of Object.entries(badNames)) {
    await expectRefusal(t, app, 'create-folder', { jwtToken, path: ['Strict', name] }, 400, 'invalid_field', `folder: ${what}`)
    await expectRefusal(t, app, 'create-folder', { jwtToken, path: [name] }, 400, 'invalid_field', `top-level folder: ${what}`)
    await expectRefusal(t, app, 'create-flashcard', { jwtToken, folder: ['Strict'], flashcardName: name, cards: [{ front: 'f', back: 'b' }] }, 400, 'invalid_field', `flashcard: ${what}`)
  }
  t.strictSame(await counts(), before)
})

test('create-flashcard into a folder that does not exist gives 404 and stores nothing', async (t) => {
  const user = await registerUser(app)
  const { jwtToken } = user
  await expectRefusal(t, app, 'create-flashcard', { jwtToken, folder: ['Real'], flashcardName: 'A set', cards: [] }, 404, 'folder_not_found',
    'the folder is not created on the way')
  await makeFolder(app, user, ['Real'])
  t.equal((await post(app, 'create-flashcard', { jwtToken, folder: ['Real'], flashcardName: 'A set', cards: [] })).statusCode, 201, 'once it is made')
  const before = await counts()
  const other = await registerUser(app)
  await makeFolder(app, other, ['Only theirs'])
  const afterOther = await counts()

  const missing = {
    'an unknown top-level folder': ['Nowhere'],
    'an unknown subfolder': ['Real', 'Nowhere'],
    'a flashcard, not a folder': ['Real', 'A set'],
    "another user's folder": ['Only theirs']
  }
  for (const [what, folder] of Object.entries(missing)) {
    await expectRefusal(t, app, 'create-flashcard', { jwtToken, folder, flashcardName: 'Lost', cards: [{ front: 'f', back: 'b' }] }, 404, 'folder_not_found', what)
  }
  t.strictSame(await counts(), afterOther)
  t.equal(afterOther.nodes, before.nodes + 1)
})

test('malformed bodies give 400 and store nothing', async (t) => {
  const user = await registerUser(app)
  const { jwtToken } = user
  await makeFolder(app, user, ['Body checks'])
  const before = await counts()
  const card = { front: 'f', back: 'b' }
  const folderBodies = [
    {},
    { path: 'Body checks' },
    { path: [] },
    { path: null },
    { path: [['nested array']] },
    { path: [{ name: 'object' }] },
    { path: Array.from({ length: 21 }, (_, i) => `level ${i}`) }
  ]
  for (const body of folderBodies) await expectRefusal(t, app, 'create-folder', { jwtToken, ...body }, 400, 'invalid_field')
  const flashcardBodies = [
    { folder: ['Body checks'], flashcardName: 'No cards field' },
    { folder: ['Body checks'], cards: [card] },
    { flashcardName: 'No folder', cards: [card] },
    { folder: 'Body checks', flashcardName: 'Folder as text', cards: [card] },
    { folder: ['Body checks'], flashcardName: ['a list'], cards: [card] },
    { folder: ['Body checks'], flashcardName: 'Cards as text', cards: 'front,back' },
    { folder: ['Body checks'], flashcardName: 'Empty front', cards: [card, { front: '', back: 'b' }] },
    { folder: ['Body checks'], flashcardName: 'No back', cards: [card, { front: 'f' }] },
    { folder: ['Body checks'], flashcardName: 'A card of null', cards: [card, null] },
    { folder: ['Body checks'], flashcardName: 'Huge front', cards: [{ front: 'x'.repeat(10_001), back: 'b' }] },
    { folder: ['Body checks'], flashcardName: 'Too many', cards: Array.from({ length: 1001 }, () => card) },
    { folder: ['Body checks'], flashcardName: 'Description object', description: { a: 1 }, cards: [card] }
  ]
  for (const body of flashcardBodies) await expectRefusal(t, app, 'create-flashcard', { jwtToken, ...body }, 400, 'invalid_field')
  for (const operation of ['create-folder', 'create-flashcard']) {
    const notJson = await app.inject({ method: 'POST', url: `/api/${operation}`, headers: { 'content-type': 'application/json' }, payload: '{"jwtToken":' })
    t.equal(notJson.statusCode, 400, `${operation}: a body that is not JSON`)
    t.equal(notJson.json().code, 'malformed_json', `${operation}: a body that is not JSON is malformed JSON`)
    const list = await post(app, operation, [jwtToken])
    t.equal(list.statusCode, 400, `${operation}: a list for a body`)
    t.equal(list.json().code, 'invalid_field', `${operation}: a list for a body is a malformed body`)
  }
  t.strictSame(await counts(), before)
})

test('an invalid token gives 401 and stores nothing', async (t) => {
  const user = await registerUser(app)
  const { jwtToken } = user
  await makeFolder(app, user, ['Real'])
  const before = await counts()
  await expectRefusal(t, app, 'create-folder', { jwtToken: 'not.a.token', path: ['Sneaky'] }, 401, 'invalid_token')
  await expectRefusal(t, app, 'create-flashcard', { jwtToken: `${jwtToken}x`, folder: ['Real'], flashcardName: 'Sneaky', cards: [] }, 401, 'invalid_token')
  t.strictSame(await counts(), before)
})

test('concurrent create-folder calls with one name: one 201, the others 409', async (t) => {
  const user = await registerUser(app)
  const { jwtToken } = user
  const two = await Promise.all([1, 2].map(() => post(app, 'create-folder', { jwtToken, path: ['Race'] })))
  t.strictSame(two.map((response) => response.statusCode).sort(), [201, 409])
  t.equal(await named(user, 'Race'), 1)

  const ten = await Promise.all(Array.from({ length: 10 }, () => post(app, 'create-folder', { jwtToken, path: ['Race many', 'Nested'] })))
  t.strictSame(ten.map((response) => response.statusCode).sort(), [201, ...Array(9).fill(409)])
  t.equal(await named(user, 'Race many'), 1)
  t.equal(await named(user, 'Nested'), 1)

  const flashcards = await Promise.all([1, 2, 3].map((n) => post(app, 'create-flashcard', {
    jwtToken, folder: ['Race'], flashcardName: 'Same set', cards: [{ front: `from request ${n}`, back: 'b' }]
  })))
  t.strictSame(flashcards.map((response) => response.statusCode).sort(), [201, 409, 409])
  const winner = flashcards.find((response) => response.statusCode === 201)?.json<Deck>()
  t.equal(await databaseOf(app).collection('cards').countDocuments({ flashcardID: winner?.flashcardID }), 1)
  t.equal(await named(user, 'Same set'), 1)
  const tree = await expectOk<Tree>(app, 'get-today-cards', { jwtToken })
  t.strictSame(Object.keys(((tree.Race as Tree)['Same set'] as Tree).cards as Tree), winner?.cardIDs)
})
