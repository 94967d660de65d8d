import { t, test } from 'tap'
import {
  buildTestApp, databaseOf, expectOk, expectRefusal, makeDeck, makeFolder, post, registerUser, type Deck, type TestUser
} from '../helpers/app.js'
import { storedCard as storedWhole, storedNodes, type StoredNode } from '../helpers/stored.js'

type Tree = Record<string, unknown>
interface CardView { cardID: string, front: string, back: string, review_status: string, last_review: string, due: string }
interface FlashcardView { flashcardID: string, flashcardName: string, description: string, folder: string[], cards: CardView[] }

const NOW = new Date('2026-05-04T12:00:00Z')
const UNKNOWN_ID = '1'.repeat(39)

// one app for the file: each test acts as a user of its own, so that none sees another's folders
const app = await buildTestApp(t, import.meta.filename, { clock: () => NOW })
// someone else, whose folders and flashcards must stay out of each user's reach; each test makes its own of them
const other = await registerUser(app)

/** A member of a parsed JSON object, read as an own property (safe for a key such as "__proto__"). */
function own (object: unknown, key: string): unknown {
  return Object.getOwnPropertyDescriptor(object, key)?.value
}

function allStrings (value: unknown): boolean {
  if (typeof value === 'string') return true
  if (Array.isArray(value)) return value.every(allStrings)
  if (typeof value === 'object' && value !== null) return Object.values(value).every(allStrings)
  return false
}

/** A folder or flashcard as stored in its owner's tree, with where it hangs; null when there is none. */
async function node (id: string): Promise<StoredNode | null> {
  return (await storedNodes(app)).find((found) => found._id === id) ?? null
}

async function ancestorOf (id: string, depth: number): Promise<string> {
  return (await node(id))?.ancestors[depth] ?? ''
}

/**
 * What is wrong with a user's stored tree (nothing, when all is well): an
 * id held in two places, or a count of folders and flashcards that differs
 * from what the account's quota has counted.
 */
async function treeProblems (user: TestUser): Promise<string[]> {
  const nodes = await storedNodes(app, { userID: user.userID })
  const problems = nodes.filter((found, index) => nodes.findIndex((other) => other._id === found._id) !== index).map((found) => `${found.name} twice`)
  const account = await databaseOf(app).collection<{ _id: string, usage?: { nodes?: number } }>('users').findOne({ _id: user.userID })
  if ((account?.usage?.nodes ?? 0) !== nodes.length) problems.push(`usage counts ${account?.usage?.nodes ?? 0} folders and flashcards, the tree holds ${nodes.length}`)
  return problems
}

async function storedCard (id: string): Promise<Record<string, unknown>> {
  const stored = await storedWhole(app, id)
  if (stored === null) throw new Error(`no card ${id}`)
  return { ...stored }
}

/** A stored card without its text: what edit-card must leave alone. */
function withoutText (stored: Record<string, unknown>): Record<string, unknown> {
  const rest = { ...stored }
  delete rest.front
  delete rest.back
  return rest
}

/** Every stored document a library operation may touch, to compare before and after one that must change nothing. */
async function snapshot () {
  return {
    trees: await databaseOf(app).collection('trees').find().sort({ _id: 1 }).toArray(),
    nodes: await storedNodes(app),
    cards: await databaseOf(app).collection('cards').find().sort({ _id: 1 }).toArray(),
    cardStates: await databaseOf(app).collection('cardStates').find().sort({ _id: 1 }).toArray(),
    reviews: await databaseOf(app).collection('reviews').find().sort({ _id: 1 }).toArray()
  }
}

async function count (collection: string, user: TestUser): Promise<number> {
  return await databaseOf(app).collection(collection).countDocuments({ userID: user.userID })
}

async function allCards (user: TestUser): Promise<Tree> {
  return await expectOk<Tree>(app, 'get-all-cards', { jwtToken: user.jwtToken })
}

test('rename-folder renames a folder in place, its contents coming along', async (t) => {
  const user = await registerUser(app)
  const { jwtToken } = user
  const innerID = await makeFolder(app, user, ['Rename', 'Inner'])
  await makeDeck(app, user, { folder: ['Rename', 'Inner'], name: 'Deck', cards: 1 })
  await makeDeck(app, user, { folder: ['Rename'], name: 'Sibling deck', cards: 0 })
  await makeFolder(app, user, ['Rename', 'Sibling'])

  t.strictSame(await expectOk(app, 'rename-folder', { jwtToken, folderID: innerID, name: 'Renamed' }), { folderID: innerID, path: ['Rename', 'Renamed'] })
  t.equal((await node(innerID))?.name, 'Renamed')
  const tree = await allCards(user)
  t.strictSame(Object.keys(tree.Rename as Tree).sort(), ['Renamed', 'Sibling', 'Sibling deck'])
  t.ok(own(own(tree.Rename, 'Renamed'), 'Deck'), 'the contents came along')
  t.equal((await post(app, 'rename-folder', { jwtToken, folderID: innerID, name: 'Renamed' })).statusCode, 200, 'its own name again')
})

test('rename-folder refuses a sibling\'s name, a bad name and an id not of a folder of the user, and changes nothing', async (t) => {
  const user = await registerUser(app)
  const { jwtToken } = user
  const innerID = await makeFolder(app, user, ['Rename', 'Inner'])
  const topID = await ancestorOf(innerID, 0)
  await makeDeck(app, user, { folder: ['Rename'], name: 'Sibling deck', cards: 0 })
  await makeFolder(app, user, ['Rename', 'Sibling'])
  const { flashcardID } = await makeDeck(app, user, { folder: ['Rename'], name: 'Not a folder', cards: 0 })
  const before = await snapshot()

  await expectRefusal(t, app, 'rename-folder', { jwtToken, folderID: innerID, name: 'Sibling' }, 409, 'name_taken', 'onto a sibling folder')
  await expectRefusal(t, app, 'rename-folder', { jwtToken, folderID: innerID, name: 'Sibling deck' }, 409, 'name_taken', 'onto a sibling flashcard')
  for (const name of ['cards', 'flashcardID', 'flashcardName']) {
    await expectRefusal(t, app, 'rename-folder', { jwtToken, folderID: innerID, name }, 400, 'invalid_name', `to the reserved ${JSON.stringify(name)}`)
  }
  for (const name of ['', 'tab\there', 'n'.repeat(101)]) {
    await expectRefusal(t, app, 'rename-folder', { jwtToken, folderID: innerID, name }, 400, 'invalid_field', `to ${JSON.stringify(name)}`)
  }
  await expectRefusal(t, app, 'rename-folder', { jwtToken, folderID: innerID }, 400, 'invalid_field')
  await expectRefusal(t, app, 'rename-folder', { jwtToken, name: 'No id' }, 400, 'invalid_field')
  await expectRefusal(t, app, 'rename-folder', { jwtToken, folderID: 'not-an-id', name: 'x' }, 400, 'invalid_field')
  await expectRefusal(t, app, 'rename-folder', { jwtToken, folderID: UNKNOWN_ID, name: 'x' }, 404, 'folder_not_found')
  await expectRefusal(t, app, 'rename-folder', { jwtToken, folderID: flashcardID, name: 'x' }, 404, 'folder_not_found', 'a flashcard id')
  await expectRefusal(t, app, 'rename-folder', { jwtToken: other.jwtToken, folderID: topID, name: 'Theirs now' }, 404, 'folder_not_found', "another user's folder")
  t.strictSame(await snapshot(), before, 'nothing changed')
})

test('move-folder moves the folder with its whole subtree; the old parent is left as it was', async (t) => {
  const user = await registerUser(app)
  const { jwtToken } = user
  const aID = await makeFolder(app, user, ['A'])
  const bID = await makeFolder(app, user, ['A', 'B'])
  const cID = await makeFolder(app, user, ['A', 'B', 'C'])
  const dID = await makeFolder(app, user, ['A', 'B', 'C', 'D'])
  const deepDeck = await makeDeck(app, user, { folder: ['A', 'B', 'C', 'D'], name: 'Deep deck', cards: 2 })
  const bDeck = await makeDeck(app, user, { folder: ['A', 'B'], name: 'B deck', cards: 1 })
  const hereID = await makeFolder(app, user, ['Target', 'Inside', 'Here'])
  const cardsBefore = (await snapshot()).cards

  t.strictSame(await expectOk(app, 'move-folder', { jwtToken, folderID: bID, parentID: hereID }), { folderID: bID, path: ['Target', 'Inside', 'Here', 'B'] })
  const above = [await ancestorOf(hereID, 0), await ancestorOf(hereID, 1), hereID]
  t.match(await node(bID), { parentID: hereID, ancestors: above })
  t.match(await node(cID), { parentID: bID, ancestors: [...above, bID] })
  t.match(await node(dID), { parentID: cID, ancestors: [...above, bID, cID] })
  t.match(await node(deepDeck.flashcardID), { parentID: dID, ancestors: [...above, bID, cID, dID] })
  t.match(await node(bDeck.flashcardID), { parentID: bID, ancestors: [...above, bID] })
  t.strictSame((await node(aID))?.ancestors, [], 'the old parent is untouched')
  t.strictSame((await snapshot()).cards, cardsBefore, 'cards are untouched')

  const tree = await allCards(user)
  t.strictSame(tree.A, {}, 'the old parent is left empty')
  const b = own(own(own(own(tree, 'Target'), 'Inside'), 'Here'), 'B') as Tree
  t.strictSame(Object.keys(b).sort(), ['B deck', 'C'])
  const fetched = await expectOk<FlashcardView>(app, 'get-flashcard', { jwtToken, flashcardID: deepDeck.flashcardID })
  t.strictSame(fetched.folder, ['Target', 'Inside', 'Here', 'B', 'C', 'D'])
  t.equal((await post(app, 'create-flashcard', { jwtToken, folder: ['Target', 'Inside', 'Here', 'B', 'C'], flashcardName: 'By path', cards: [] })).statusCode, 201,
    'the new path names the moved folders')

  // deleting the old parent leaves the moved subtree alone
  t.equal((await post(app, 'delete-folder', { jwtToken, folderID: aID })).statusCode, 200)
  t.ok(await node(dID))
  t.strictSame(await treeProblems(user), [])
})

test('move-folder to the top level, with parentID "" or without it; back down; and to where it is, which does nothing', async (t) => {
  const user = await registerUser(app)
  const { jwtToken } = user
  const bID = await makeFolder(app, user, ['B'])
  const cID = await makeFolder(app, user, ['B', 'C'])
  const dID = await makeFolder(app, user, ['B', 'C', 'D'])
  const deepDeck = await makeDeck(app, user, { folder: ['B', 'C', 'D'], name: 'Deep deck', cards: 2 })

  const toTop = await expectOk<{ path: string[] }>(app, 'move-folder', { jwtToken, folderID: cID, parentID: '' })
  t.strictSame(toTop.path, ['C'])
  t.match(await node(cID), { parentID: '', ancestors: [] })
  t.match(await node(dID), { parentID: cID, ancestors: [cID] })
  t.match(await node(deepDeck.flashcardID), { ancestors: [cID, dID] })

  t.equal((await post(app, 'move-folder', { jwtToken, folderID: cID, parentID: bID })).statusCode, 200, 'back down')
  t.match(await node(dID), { ancestors: [bID, cID] })
  t.equal((await post(app, 'move-folder', { jwtToken, folderID: cID })).statusCode, 200, 'parentID omitted: the top level')
  t.match(await node(cID), { parentID: '', ancestors: [] })
  t.equal((await post(app, 'move-folder', { jwtToken, folderID: cID, parentID: '' })).statusCode, 200, 'already there: nothing to do')
  t.match(await node(dID), { ancestors: [cID] })
  t.strictSame(await treeProblems(user), [])
})

test('concurrent moves of two folders into each other never make a loop', async (t) => {
  const user = await registerUser(app)
  const { jwtToken } = user
  for (let round = 0; round < 5; round++) {
    const xID = await makeFolder(app, user, [`Loop x ${round}`])
    const yID = await makeFolder(app, user, [`Loop y ${round}`])
    await makeDeck(app, user, { folder: [`Loop x ${round}`], name: 'In x', cards: 1 })
    const statuses = (await Promise.all([
      post(app, 'move-folder', { jwtToken, folderID: xID, parentID: yID }),
      post(app, 'move-folder', { jwtToken, folderID: yID, parentID: xID })
    ])).map((response) => response.statusCode)
    t.ok(statuses.filter((status) => status === 200).length <= 1, `round ${round}: at most one move wins (${statuses.join(', ')})`)
    t.ok(statuses.every((status) => [200, 400, 409].includes(status)), `round ${round}: the other is refused (${statuses.join(', ')})`)
    const x = await node(xID)
    const y = await node(yID)
    t.ok(x?.parentID === '' || y?.parentID === '', `round ${round}: one of them is still at the top`)
    t.ok(JSON.stringify(await allCards(user)).includes('In x'), `round ${round}: nothing is hidden in a loop`)
  }
  t.strictSame(await treeProblems(user), [])
})

test('a rename and a move of one folder at once: both changes are kept', async (t) => {
  const user = await registerUser(app)
  const { jwtToken } = user
  const folderID = await makeFolder(app, user, ['Busy', 'Folder'])
  const destinationID = await makeFolder(app, user, ['Busy destination'])
  const [renamed, moved] = await Promise.all([
    post(app, 'rename-folder', { jwtToken, folderID, name: 'Busy folder renamed' }),
    post(app, 'move-folder', { jwtToken, folderID, parentID: destinationID })
  ])
  t.equal(renamed.statusCode, 200)
  t.equal(moved.statusCode, 200)
  t.match(await node(folderID), { name: 'Busy folder renamed', parentID: destinationID, ancestors: [destinationID] }, 'both changes are kept')
})

test('move-folder refuses its own subtree, clashes, unknown and foreign ids, and changes nothing', async (t) => {
  const user = await registerUser(app)
  const { jwtToken } = user
  const rootID = await makeFolder(app, user, ['Root'])
  const childID = await makeFolder(app, user, ['Root', 'Child'])
  const grandchildID = await makeFolder(app, user, ['Root', 'Child', 'Grandchild'])
  const clashParentID = await ancestorOf(await makeFolder(app, user, ['Clash parent', 'Child']), 0)
  const { flashcardID } = await makeDeck(app, user, { folder: ['Root'], name: 'A deck', cards: 1 })
  await makeFolder(app, user, ['Child'])
  const theirsID = await makeFolder(app, other, ['Theirs'])
  const before = await snapshot()

  await expectRefusal(t, app, 'move-folder', { jwtToken, folderID: rootID, parentID: rootID }, 400, 'invalid_move', 'into itself')
  await expectRefusal(t, app, 'move-folder', { jwtToken, folderID: rootID, parentID: childID }, 400, 'invalid_move', 'into its child')
  await expectRefusal(t, app, 'move-folder', { jwtToken, folderID: rootID, parentID: grandchildID }, 400, 'invalid_move', 'into its grandchild')
  await expectRefusal(t, app, 'move-folder', { jwtToken, folderID: childID, parentID: grandchildID }, 400, 'invalid_move', 'a subfolder into its own child')
  await expectRefusal(t, app, 'move-folder', { jwtToken, folderID: rootID, parentID: 'top' }, 400, 'invalid_field')
  await expectRefusal(t, app, 'move-folder', { jwtToken, folderID: rootID, parentID: ['x'] }, 400, 'invalid_field')
  await expectRefusal(t, app, 'move-folder', { jwtToken, parentID: childID }, 400, 'invalid_field')
  await expectRefusal(t, app, 'move-folder', { jwtToken, folderID: childID, parentID: clashParentID }, 409, 'name_taken', 'onto a folder of the same name')
  await expectRefusal(t, app, 'move-folder', { jwtToken, folderID: childID, parentID: '' }, 409, 'name_taken', 'to the top, where "Child" exists')
  await expectRefusal(t, app, 'move-folder', { jwtToken, folderID: UNKNOWN_ID, parentID: '' }, 404, 'folder_not_found')
  await expectRefusal(t, app, 'move-folder', { jwtToken, folderID: childID, parentID: UNKNOWN_ID }, 404, 'folder_not_found')
  await expectRefusal(t, app, 'move-folder', { jwtToken, folderID: childID, parentID: flashcardID }, 404, 'folder_not_found', 'into a flashcard')
  await expectRefusal(t, app, 'move-folder', { jwtToken, folderID: flashcardID, parentID: '' }, 404, 'folder_not_found', 'a flashcard')
  await expectRefusal(t, app, 'move-folder', { jwtToken, folderID: childID, parentID: theirsID }, 404, 'folder_not_found', "into another user's folder")
  await expectRefusal(t, app, 'move-folder', { jwtToken, folderID: theirsID, parentID: rootID }, 404, 'folder_not_found', "another user's folder")
  await expectRefusal(t, app, 'move-folder', { jwtToken: other.jwtToken, folderID: childID, parentID: '' }, 404, 'folder_not_found', 'by another user')
  t.strictSame(await snapshot(), before, 'nothing changed')
})

test('move-folder keeps every folder within 20 levels', async (t) => {
  const user = await registerUser(app)
  const { jwtToken } = user
  const deep = Array.from({ length: 15 }, (_, i) => `deep ${i}`)
  const high = Array.from({ length: 6 }, (_, i) => `high ${i}`)
  const deepTop = await ancestorOf(await makeFolder(app, user, deep), 0)
  const highBottom = await makeFolder(app, user, high)
  const highParent = await ancestorOf(highBottom, 4)
  const before = await snapshot()
  await expectRefusal(t, app, 'move-folder', { jwtToken, folderID: deepTop, parentID: highBottom }, 400, 'too_deep', '6 + 15 levels')
  t.strictSame(await snapshot(), before)
  t.equal((await post(app, 'move-folder', { jwtToken, folderID: deepTop, parentID: highParent })).statusCode, 200, '5 + 15 levels')
  t.strictSame(await treeProblems(user), [])
})

test('delete-folder removes the whole subtree with its cards, and the review log stays', async (t) => {
  const user = await registerUser(app)
  const { jwtToken } = user
  const topID = await ancestorOf(await makeFolder(app, user, ['Gone', 'Sub', 'Subsub']), 0)
  await makeFolder(app, user, ['Gone', 'Empty'])
  const decks = [
    await makeDeck(app, user, { folder: ['Gone'], name: 'Top deck', cards: 3 }),
    await makeDeck(app, user, { folder: ['Gone', 'Sub'], name: 'Sub deck', cards: 2 }),
    await makeDeck(app, user, { folder: ['Gone', 'Sub', 'Subsub'], name: 'Deep deck', cards: 4 })
  ]
  const kept = await makeDeck(app, user, { folder: ['Kept'], name: 'Kept deck', cards: 2 })
  const theirs = await makeDeck(app, other, { folder: ['Their gone'], name: 'Their deck', cards: 2 })
  for (const { flashcardID, cardIDs } of [...decks, kept]) {
    await expectOk(app, 'review-card', { jwtToken, flashcardID, cardID: cardIDs[0], rating: 'good' })
  }
  const counts = { nodes: (await storedNodes(app, { userID: user.userID })).length, cards: await count('cards', user), reviews: await count('reviews', user) }
  const before = await snapshot()

  await expectRefusal(t, app, 'delete-folder', { jwtToken: other.jwtToken, folderID: topID }, 404, 'folder_not_found', "another user's folder")
  await expectRefusal(t, app, 'delete-folder', { jwtToken, folderID: UNKNOWN_ID }, 404, 'folder_not_found')
  await expectRefusal(t, app, 'delete-folder', { jwtToken, folderID: decks[0]?.flashcardID }, 404, 'folder_not_found', 'a flashcard')
  await expectRefusal(t, app, 'delete-folder', { jwtToken, folderID: '12' }, 400, 'invalid_field')
  await expectRefusal(t, app, 'delete-folder', { jwtToken }, 400, 'invalid_field')
  t.strictSame(await snapshot(), before, 'refusals change nothing')

  t.strictSame(await expectOk(app, 'delete-folder', { jwtToken, folderID: topID }), { folderID: topID, folders: '4', flashcards: '3', cards: '9' })
  t.equal((await storedNodes(app, { userID: user.userID })).length, counts.nodes - 7, 'four folders and three flashcards')
  t.strictSame(await treeProblems(user), [])
  t.equal(await count('cards', user), counts.cards - 9)
  t.equal(await count('cardStates', user), counts.cards - 9, 'their states with them')
  t.equal(await count('reviews', user), counts.reviews, 'the review log stays')
  t.strictSame((await storedNodes(app, { userID: user.userID })).filter((found) => found._id === topID || found.ancestors.includes(topID)), [])
  const cards = databaseOf(app).collection('cards')
  t.equal(await cards.countDocuments({ flashcardID: { $in: decks.map((deck) => deck.flashcardID) } }), 0)
  t.equal(await cards.countDocuments({ flashcardID: kept.flashcardID }), 2, 'other flashcards keep their cards')
  t.equal(await cards.countDocuments({ flashcardID: theirs.flashcardID }), 2)
  t.equal(await databaseOf(app).collection('reviews').countDocuments({ flashcardID: { $in: decks.map((deck) => deck.flashcardID) } }), 3,
    'the reviews of the deleted cards are kept')
  t.notOk(own(await allCards(user), 'Gone'))
  await expectRefusal(t, app, 'delete-folder', { jwtToken, folderID: topID }, 404, 'folder_not_found', 'twice')
})

test('get-flashcard answers its name, description, folder and cards, in creation order, every value a string', async (t) => {
  const user = await registerUser(app)
  const { jwtToken } = user
  const { flashcardID, cardIDs } = await makeDeck(app, user, {
    folder: ['Languages', 'Spanish'], name: 'Verbs', description: 'common verbs', cards: [{ front: 'ser', back: 'to be' }, { front: 'tener', back: '' }]
  })
  await expectOk(app, 'review-card', { jwtToken, flashcardID, cardID: cardIDs[1], rating: 'good' })

  const flashcard = await expectOk<FlashcardView>(app, 'get-flashcard', { jwtToken, flashcardID })
  t.ok(allStrings(flashcard), 'every value a string')
  t.strictSame(Object.keys(flashcard).sort(), ['cards', 'description', 'flashcardID', 'flashcardName', 'folder'])
  t.match(flashcard, { flashcardID, flashcardName: 'Verbs', description: 'common verbs', folder: ['Languages', 'Spanish'] })
  t.strictSame(flashcard.cards.map((card) => card.cardID), cardIDs, 'in creation order')
  t.strictSame(flashcard.cards[0], {
    cardID: cardIDs[0], front: 'ser', back: 'to be', format: 'text', frontHtml: 'ser', backHtml: 'to be', noteID: cardIDs[0], ord: '0', review_status: '0.0', last_review: '04/05/2026', due: NOW.toISOString(),
    suspended: 'false', flag: '0'
  }, 'its content, schedule and standing')
  t.match(flashcard.cards[1], { cardID: cardIDs[1], front: 'tener', back: '', review_status: /^0\.[1-9]$/, last_review: '04/05/2026' })
  t.ok(Date.parse(flashcard.cards[1]?.due ?? '') > NOW.getTime())

  await expectRefusal(t, app, 'get-flashcard', { jwtToken: other.jwtToken, flashcardID }, 404, 'flashcard_not_found', "another user's flashcard")
  await expectRefusal(t, app, 'get-flashcard', { jwtToken, flashcardID: UNKNOWN_ID }, 404, 'flashcard_not_found')
  const folderID = (await node(flashcardID))?.parentID
  await expectRefusal(t, app, 'get-flashcard', { jwtToken, flashcardID: folderID }, 404, 'flashcard_not_found', 'a folder')
  await expectRefusal(t, app, 'get-flashcard', { jwtToken, flashcardID: 42 }, 400, 'invalid_field')
  await expectRefusal(t, app, 'get-flashcard', { jwtToken }, 400, 'invalid_field')
})

test('rename-flashcard renames it; a sibling\'s name, a bad name or an id not of a flashcard of the user is refused and changes nothing', async (t) => {
  const user = await registerUser(app)
  const { jwtToken } = user
  const fromID = await makeFolder(app, user, ['Shelf', 'From'])
  const deck = await makeDeck(app, user, { folder: ['Shelf', 'From'], name: 'Deck', cards: 2 })
  await makeDeck(app, user, { folder: ['Shelf', 'From'], name: 'Other deck', cards: 0 })
  await makeFolder(app, user, ['Shelf', 'From', 'A folder'])
  const theirDeck = await makeDeck(app, other, { folder: ['Their shelf'], name: 'Their deck', cards: 1 })

  t.strictSame(await expectOk(app, 'rename-flashcard', { jwtToken, flashcardID: deck.flashcardID, name: '__proto__' }), { flashcardID: deck.flashcardID, flashcardName: '__proto__' })
  t.equal((await node(deck.flashcardID))?.name, '__proto__')
  t.equal((await expectOk<FlashcardView>(app, 'get-flashcard', { jwtToken, flashcardID: deck.flashcardID })).flashcardName, '__proto__')

  const before = await snapshot()
  await expectRefusal(t, app, 'rename-flashcard', { jwtToken, flashcardID: deck.flashcardID, name: 'Other deck' }, 409, 'name_taken', 'onto a sibling flashcard')
  await expectRefusal(t, app, 'rename-flashcard', { jwtToken, flashcardID: deck.flashcardID, name: 'A folder' }, 409, 'name_taken', 'onto a sibling folder')
  await expectRefusal(t, app, 'rename-flashcard', { jwtToken, flashcardID: deck.flashcardID, name: 'flashcardName' }, 400, 'invalid_name')
  await expectRefusal(t, app, 'rename-flashcard', { jwtToken, flashcardID: deck.flashcardID, name: 'new\nline' }, 400, 'invalid_field')
  await expectRefusal(t, app, 'rename-flashcard', { jwtToken, flashcardID: deck.flashcardID }, 400, 'invalid_field')
  await expectRefusal(t, app, 'rename-flashcard', { jwtToken, flashcardID: UNKNOWN_ID, name: 'x' }, 404, 'flashcard_not_found')
  await expectRefusal(t, app, 'rename-flashcard', { jwtToken, flashcardID: fromID, name: 'x' }, 404, 'flashcard_not_found', 'a folder')
  await expectRefusal(t, app, 'rename-flashcard', { jwtToken, flashcardID: theirDeck.flashcardID, name: 'Mine' }, 404, 'flashcard_not_found', "another user's flashcard")
  await expectRefusal(t, app, 'rename-flashcard', { jwtToken: other.jwtToken, flashcardID: deck.flashcardID, name: 'Theirs' }, 404, 'flashcard_not_found', 'by another user')
  t.strictSame(await snapshot(), before, 'nothing changed')
})

test('move-flashcard-set refuses a clash and an id not of the user\'s, does nothing into its own folder, and changes nothing', async (t) => {
  const user = await registerUser(app)
  const { jwtToken } = user
  const fromID = await makeFolder(app, user, ['Cabinet', 'From'])
  const toID = await makeFolder(app, user, ['Cabinet', 'To', 'Deeper'])
  const toParentID = await ancestorOf(toID, 1)
  const deck = await makeDeck(app, user, { folder: ['Cabinet', 'From'], name: 'Deck', cards: 2 })
  await makeDeck(app, user, { folder: ['Cabinet', 'To', 'Deeper'], name: 'Deck', cards: 0 })
  await makeFolder(app, user, ['Cabinet', 'To', 'Deck'])
  const theirFolderID = await makeFolder(app, other, ['Their cabinet'])
  const theirDeck = await makeDeck(app, other, { folder: ['Their cabinet'], name: 'Their deck', cards: 1 })
  const before = await snapshot()

  const { flashcardID } = deck
  await expectRefusal(t, app, 'move-flashcard-set', { jwtToken, flashcardID, folderID: toID }, 409, 'name_taken', 'onto a flashcard of its name')
  await expectRefusal(t, app, 'move-flashcard-set', { jwtToken, flashcardID, folderID: toParentID }, 409, 'name_taken', 'onto a folder of its name')
  await expectRefusal(t, app, 'move-flashcard-set', { jwtToken, flashcardID, folderID: UNKNOWN_ID }, 404, 'folder_not_found')
  await expectRefusal(t, app, 'move-flashcard-set', { jwtToken, flashcardID: UNKNOWN_ID, folderID: toID }, 404, 'flashcard_not_found')
  await expectRefusal(t, app, 'move-flashcard-set', { jwtToken, flashcardID, folderID: theirFolderID }, 404, 'folder_not_found', "into another user's folder")
  await expectRefusal(t, app, 'move-flashcard-set', { jwtToken, flashcardID: theirDeck.flashcardID, folderID: toID }, 404, 'flashcard_not_found', "another user's flashcard")
  await expectRefusal(t, app, 'move-flashcard-set', { jwtToken, flashcardID, folderID: theirDeck.flashcardID }, 404, 'folder_not_found', 'into a flashcard')
  await expectRefusal(t, app, 'move-flashcard-set', { jwtToken, flashcardID: fromID, folderID: toID }, 404, 'flashcard_not_found', 'a folder')
  await expectRefusal(t, app, 'move-flashcard-set', { jwtToken, flashcardID }, 400, 'invalid_field')
  await expectRefusal(t, app, 'move-flashcard-set', { jwtToken, flashcardID, folderID: '' }, 400, 'invalid_field')
  t.equal((await post(app, 'move-flashcard-set', { jwtToken, flashcardID, folderID: fromID })).statusCode, 200, 'into the folder it is in: nothing to do')
  t.strictSame(await snapshot(), before, 'nothing changed')
})

test('move-flashcard-set moves a flashcard with its cards untouched', async (t) => {
  const user = await registerUser(app)
  const { jwtToken } = user
  const fromID = await makeFolder(app, user, ['Cabinet', 'From'])
  const cabinetID = await ancestorOf(fromID, 0)
  const deck = await makeDeck(app, user, { folder: ['Cabinet', 'From'], name: 'Deck', cards: 2 })
  const before = await snapshot()

  t.strictSame(await expectOk(app, 'move-flashcard-set', { jwtToken, flashcardID: deck.flashcardID, folderID: cabinetID }),
    { flashcardID: deck.flashcardID, folderID: cabinetID, folder: ['Cabinet'] })
  t.match(await node(deck.flashcardID), { parentID: cabinetID, ancestors: [cabinetID] })
  t.strictSame((await snapshot()).cards, before.cards, 'the cards come along untouched')
  const tree = await allCards(user)
  t.strictSame(Object.keys(own(own(tree, 'Cabinet'), 'Deck') as Tree).sort(), ['cards', 'flashcardID', 'flashcardName'])
  t.strictSame(Object.keys((own(own(own(tree, 'Cabinet'), 'Deck'), 'cards')) as Tree), deck.cardIDs)
  t.strictSame(own(own(tree, 'Cabinet'), 'From'), {})
})

test('delete-flashcard removes it with its cards; the review log stays', async (t) => {
  const user = await registerUser(app)
  const { jwtToken } = user
  const deck = await makeDeck(app, user, { folder: ['Bin'], name: 'Doomed', cards: 3 })
  const neighbour = await makeDeck(app, user, { folder: ['Bin'], name: 'Neighbour', cards: 1 })
  const theirs = await makeDeck(app, other, { folder: ['Their bin'], name: 'Still theirs', cards: 1 })
  await expectOk(app, 'review-card', { jwtToken, flashcardID: deck.flashcardID, cardID: deck.cardIDs[2], rating: 'easy' })
  const before = await snapshot()
  await expectRefusal(t, app, 'delete-flashcard', { jwtToken, flashcardID: theirs.flashcardID }, 404, 'flashcard_not_found', "another user's flashcard")
  await expectRefusal(t, app, 'delete-flashcard', { jwtToken: other.jwtToken, flashcardID: deck.flashcardID }, 404, 'flashcard_not_found', 'by another user')
  await expectRefusal(t, app, 'delete-flashcard', { jwtToken, flashcardID: UNKNOWN_ID }, 404, 'flashcard_not_found')
  const binID = (await node(deck.flashcardID))?.parentID
  await expectRefusal(t, app, 'delete-flashcard', { jwtToken, flashcardID: binID }, 404, 'flashcard_not_found', 'a folder')
  await expectRefusal(t, app, 'delete-flashcard', { jwtToken, flashcardID: null }, 400, 'invalid_field')
  t.strictSame(await snapshot(), before)

  t.strictSame(await expectOk(app, 'delete-flashcard', { jwtToken, flashcardID: deck.flashcardID }), { flashcardID: deck.flashcardID, cards: '3' })
  t.equal(await node(deck.flashcardID), null)
  t.equal(await databaseOf(app).collection('cards').countDocuments({ flashcardID: deck.flashcardID }), 0)
  t.equal(await databaseOf(app).collection('cardStates').countDocuments({ flashcardID: deck.flashcardID }), 0)
  t.equal(await databaseOf(app).collection('cards').countDocuments({ flashcardID: neighbour.flashcardID }), 1)
  t.strictSame((await snapshot()).reviews, before.reviews, 'the review log stays')
  t.strictSame(Object.keys(own(await allCards(user), 'Bin') as Tree), ['Neighbour'])
  await expectRefusal(t, app, 'delete-flashcard', { jwtToken, flashcardID: deck.flashcardID }, 404, 'flashcard_not_found', 'twice')
})

test('add-cards appends new cards to a flashcard; a bad list or an id not of the user\'s is refused and changes nothing', async (t) => {
  const user = await registerUser(app)
  const { jwtToken } = user
  const deck = await makeDeck(app, user, { folder: ['Growing'], name: 'Deck', cards: 1 })
  const theirs = await makeDeck(app, other, { folder: ['Their garden'], name: 'Their growing deck', cards: 0 })

  const answer = await expectOk<{ cardIDs: string[] }>(app, 'add-cards', { jwtToken, flashcardID: deck.flashcardID, cards: [{ front: 'new 1', back: 'b' }, { front: 'new 2', back: '' }] }, 201)
  const { cardIDs } = answer
  t.strictSame(Object.keys(answer), ['cardIDs'])
  t.equal(cardIDs.length, 2)
  t.ok(cardIDs.every((id) => /^\d{30,}$/.test(id)))
  const fetched = await expectOk<FlashcardView>(app, 'get-flashcard', { jwtToken, flashcardID: deck.flashcardID })
  t.strictSame(fetched.cards.map((card) => card.cardID), [...deck.cardIDs, ...cardIDs], 'after the cards there were')
  t.match(fetched.cards[2], { front: 'new 2', back: '', review_status: '0.0', last_review: '04/05/2026' })

  const before = await snapshot()
  const card = { front: 'f', back: 'b' }
  const { flashcardID } = deck
  await expectRefusal(t, app, 'add-cards', { jwtToken, flashcardID, cards: [] }, 400, 'invalid_field')
  await expectRefusal(t, app, 'add-cards', { jwtToken, flashcardID }, 400, 'invalid_field')
  await expectRefusal(t, app, 'add-cards', { jwtToken, flashcardID, cards: 'f\tb' }, 400, 'invalid_field')
  await expectRefusal(t, app, 'add-cards', { jwtToken, flashcardID, cards: [card, { front: '', back: 'b' }] }, 400, 'invalid_field')
  await expectRefusal(t, app, 'add-cards', { jwtToken, flashcardID, cards: [card, { front: 'f' }] }, 400, 'invalid_field')
  await expectRefusal(t, app, 'add-cards', { jwtToken, flashcardID, cards: [card, null] }, 400, 'invalid_field')
  await expectRefusal(t, app, 'add-cards', { jwtToken, flashcardID, cards: Array.from({ length: 1001 }, () => card) }, 400, 'invalid_field', 'add-cards of 1001 cards')
  await expectRefusal(t, app, 'add-cards', { jwtToken, cards: [card] }, 400, 'invalid_field')
  await expectRefusal(t, app, 'add-cards', { jwtToken, flashcardID: UNKNOWN_ID, cards: [card] }, 404, 'flashcard_not_found')
  await expectRefusal(t, app, 'add-cards', { jwtToken, flashcardID: theirs.flashcardID, cards: [card] }, 404, 'flashcard_not_found', "another user's flashcard")
  await expectRefusal(t, app, 'add-cards', { jwtToken: other.jwtToken, flashcardID, cards: [card] }, 404, 'flashcard_not_found', 'by another user')
  t.strictSame(await snapshot(), before)
})

test('edit-card changes the text and keeps the schedule', async (t) => {
  const user = await registerUser(app)
  const { jwtToken } = user
  const deck = await makeDeck(app, user, { folder: ['Editing'], name: 'Deck', cards: 2 })
  const [cardID] = deck.cardIDs as [string]
  await expectOk(app, 'review-card', { jwtToken, flashcardID: deck.flashcardID, cardID, rating: 'good' })
  const reviewed = await storedCard(cardID)
  t.equal(reviewed.reps, 1, 'reviewed once')

  const answer = await expectOk<CardView>(app, 'edit-card', { jwtToken, flashcardID: deck.flashcardID, cardID, front: 'new front' })
  t.ok(allStrings(answer))
  t.match(answer, { cardID, front: 'new front', back: 'Deck back 0', review_status: /^0\.[1-9]$/, last_review: '04/05/2026' })
  t.equal(answer.due, (reviewed.due as Date).toISOString())
  const edited = await storedCard(cardID)
  t.equal(edited.front, 'new front')
  t.equal(edited.back, 'Deck back 0', 'the back is kept')
  const { modified, ...rest } = withoutText(edited)
  t.strictSame(rest, withoutText(reviewed), 'schedule, version and the rest are kept')
  t.same(modified, NOW, 'and the card says when its text was changed (an export and an import compare it)')

  t.match(await expectOk(app, 'edit-card', { jwtToken, flashcardID: deck.flashcardID, cardID, back: '' }), { front: 'new front', back: '' })
  t.match(await expectOk(app, 'edit-card', { jwtToken, flashcardID: deck.flashcardID, cardID, front: '$where', back: '__proto__' }), { front: '$where', back: '__proto__' })
  const next = await post(app, 'review-card', { jwtToken, flashcardID: deck.flashcardID, cardID, rating: 'good' })
  t.equal(next.statusCode, 200, 'the card reviews on from where it was')
  t.equal((await storedCard(cardID)).reps, 2)
})

test('edit-card refuses an edit of nothing, a bad text and a card not in that flashcard of the user, and changes nothing', async (t) => {
  const user = await registerUser(app)
  const { jwtToken } = user
  const deck = await makeDeck(app, user, { folder: ['Editing'], name: 'Deck', cards: 2 })
  const otherDeck = await makeDeck(app, user, { folder: ['Editing'], name: 'Other deck', cards: 1 })
  const [cardID] = deck.cardIDs as [string]
  const { flashcardID } = deck
  await expectOk(app, 'review-card', { jwtToken, flashcardID, cardID, rating: 'good' })

  const before = await snapshot()
  await expectRefusal(t, app, 'edit-card', { jwtToken, flashcardID, cardID }, 400, 'nothing_to_change', 'neither front nor back')
  await expectRefusal(t, app, 'edit-card', { jwtToken, flashcardID, cardID, front: '' }, 400, 'invalid_field')
  await expectRefusal(t, app, 'edit-card', { jwtToken, flashcardID, cardID, back: 'x'.repeat(10_001) }, 400, 'invalid_field', 'a back of 10,001 characters')
  await expectRefusal(t, app, 'edit-card', { jwtToken, flashcardID, front: 'x' }, 400, 'invalid_field')
  await expectRefusal(t, app, 'edit-card', { jwtToken, flashcardID: otherDeck.flashcardID, cardID, front: 'x' }, 404, 'card_not_found', 'a card of another flashcard')
  await expectRefusal(t, app, 'edit-card', { jwtToken, flashcardID, cardID: UNKNOWN_ID, front: 'x' }, 404, 'card_not_found')
  await expectRefusal(t, app, 'edit-card', { jwtToken: other.jwtToken, flashcardID, cardID, front: 'x' }, 404, 'card_not_found', "another user's card")
  t.strictSame(await snapshot(), before)
})

test('delete-card removes one card; the review log stays', async (t) => {
  const user = await registerUser(app)
  const { jwtToken } = user
  const deck = await makeDeck(app, user, { folder: ['Trimming'], name: 'Deck', cards: 3 })
  const otherDeck = await makeDeck(app, user, { folder: ['Trimming'], name: 'Other deck', cards: 1 })
  const [first, second, third] = deck.cardIDs as [string, string, string]
  const { flashcardID } = deck
  await expectOk(app, 'review-card', { jwtToken, flashcardID, cardID: second, rating: 'again' })

  const before = await snapshot()
  await expectRefusal(t, app, 'delete-card', { jwtToken, flashcardID: otherDeck.flashcardID, cardID: second }, 404, 'card_not_found', 'a card of another flashcard')
  await expectRefusal(t, app, 'delete-card', { jwtToken, flashcardID, cardID: UNKNOWN_ID }, 404, 'card_not_found')
  await expectRefusal(t, app, 'delete-card', { jwtToken: other.jwtToken, flashcardID, cardID: second }, 404, 'card_not_found', "another user's card")
  await expectRefusal(t, app, 'delete-card', { jwtToken, flashcardID }, 400, 'invalid_field')
  await expectRefusal(t, app, 'delete-card', { jwtToken, flashcardID, cardID: `${second}x` }, 400, 'invalid_field')
  t.strictSame(await snapshot(), before)

  t.strictSame(await expectOk(app, 'delete-card', { jwtToken, flashcardID, cardID: second }), { flashcardID, cardID: second })
  t.strictSame((await expectOk<FlashcardView>(app, 'get-flashcard', { jwtToken, flashcardID })).cards.map((card) => card.cardID), [first, third])
  t.strictSame((await snapshot()).reviews, before.reviews, 'the review log stays')
  await expectRefusal(t, app, 'delete-card', { jwtToken, flashcardID, cardID: second }, 404, 'card_not_found', 'twice')
})

test('get-all-cards: every folder, flashcard and card, hostile names untouched', async (t) => {
  const user = await registerUser(app)
  t.strictSame(await allCards(user), {}, 'an empty library')
  const prototypeBefore = Object.getOwnPropertyNames(Object.prototype).sort()
  const names = ['__proto__', 'constructor', 'toString', 'a.b', '$where', 'x/y', '📚 Bücher 🇩🇪', '7']
  const made = new Map<string, Deck>()
  for (const name of names) {
    await makeFolder(app, user, [name, name, 'empty'])
    made.set(name, await makeDeck(app, user, { folder: [name, name], name, cards: 2 }))
  }
  // more cards than one day's new-card allowance, some reviewed and no longer due today
  const big = await makeDeck(app, user, { folder: ['Empty top'], name: 'Big', cards: 30 })
  await expectOk(app, 'review-card', { jwtToken: user.jwtToken, flashcardID: big.flashcardID, cardID: big.cardIDs[0], rating: 'easy' })
  const noCards = await makeDeck(app, user, { folder: ['Empty top'], name: 'No cards', cards: 0 })
  await makeFolder(app, other, ['Empty top', 'Mine too'])

  const tree = await allCards(user)
  t.strictSame(Object.keys(tree).sort(), [...names, 'Empty top'].sort())
  for (const name of names) {
    const outer = own(tree, name)
    t.strictSame(Object.keys(outer as Tree), [name], `${name}: one folder inside`)
    const inner = own(outer, name) as Tree
    t.strictSame(Object.keys(inner).sort(), [name, 'empty'].sort())
    t.strictSame(own(inner, 'empty'), {}, 'an empty folder is {}')
    const flashcard = own(inner, name) as Tree
    const { flashcardID, cardIDs } = made.get(name) as Deck
    t.strictSame(Object.keys(flashcard).sort(), ['cards', 'flashcardID', 'flashcardName'])
    t.equal(flashcard.flashcardName, name)
    t.equal(flashcard.flashcardID, flashcardID)
    t.strictSame(Object.keys(flashcard.cards as Tree), cardIDs)
  }
  const top = own(tree, 'Empty top') as Tree
  t.strictSame(Object.keys(top).sort(), ['Big', 'No cards'], "another user's folder of the same name adds nothing")
  t.strictSame(own(top, 'No cards'), { cards: {}, flashcardID: noCards.flashcardID, flashcardName: 'No cards' })
  const bigCards = (own(top, 'Big') as { cards: Record<string, { review_status: string, last_review: string }> }).cards
  t.strictSame(Object.keys(bigCards), big.cardIDs, 'all 30 cards, in creation order')
  t.match(bigCards[big.cardIDs[0] as string], { review_status: /^[1-9]\d*\.0$/, last_review: '04/05/2026' })
  t.strictSame(bigCards[big.cardIDs[1] as string], { review_status: '0.0', last_review: '04/05/2026' })
  t.ok(allStrings(tree), 'every value a string')
  t.strictSame(Object.getOwnPropertyNames(Object.prototype).sort(), prototypeBefore, 'Object.prototype gained nothing')
})

test('an invalid token gives 401 on every operation and changes nothing; no token at all is a malformed body', async (t) => {
  const [user, doomed] = await Promise.all([registerUser(app), registerUser(app)])
  await databaseOf(app).collection<{ _id: string }>('users').deleteOne({ _id: doomed.userID })
  const deck = await makeDeck(app, user, { folder: ['Editing'], name: 'Token deck', cards: 1 })
  const folderID = (await node(deck.flashcardID))?.parentID ?? ''
  const [cardID] = deck.cardIDs
  const bodies: Record<string, Record<string, unknown>> = {
    'rename-folder': { folderID, name: 'x' },
    'move-folder': { folderID, parentID: '' },
    'delete-folder': { folderID },
    'get-flashcard': { flashcardID: deck.flashcardID },
    'rename-flashcard': { flashcardID: deck.flashcardID, name: 'x' },
    'move-flashcard-set': { flashcardID: deck.flashcardID, folderID },
    'delete-flashcard': { flashcardID: deck.flashcardID },
    'add-cards': { flashcardID: deck.flashcardID, cards: [{ front: 'f', back: 'b' }] },
    'edit-card': { flashcardID: deck.flashcardID, cardID, front: 'x' },
    'delete-card': { flashcardID: deck.flashcardID, cardID },
    'get-all-cards': {}
  }
  const before = await snapshot()
  for (const [operation, body] of Object.entries(bodies)) {
    for (const jwtToken of ['not.a.token', `${user.jwtToken}x`, '', doomed.jwtToken]) {
      const response = await post(app, operation, { ...body, jwtToken })
      t.equal(response.statusCode, 401, `${operation} with ${JSON.stringify(jwtToken.slice(0, 12))}`)
      t.strictSame(response.json(), { error: 'invalid or expired token', code: 'invalid_token' })
    }
    await expectRefusal(t, app, operation, body, 400, 'invalid_field', `${operation} without the jwtToken field: a malformed body`)
  }
  t.strictSame(await snapshot(), before)
})
