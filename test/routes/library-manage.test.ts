import { test } from 'tap'
import { databaseOf, buildTestApp, post, registerUser, type TestUser } from '../helpers/app.js'
import { storedNodes, type StoredNode } from '../helpers/stored.js'

type Tree = Record<string, unknown>
interface Created { flashcardID: string, cardIDs: string[] }
type Subtest = Parameters<Parameters<typeof test>[0]>[0]

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

const UNKNOWN_ID = '1'.repeat(39)

test('managing folders, flashcards and cards', async (t) => {
  const current = new Date('2026-05-04T12:00:00Z')
  const app = await buildTestApp(t, import.meta.filename, { clock: () => current })
  const user = await registerUser(app)
  const other = await registerUser(app)

  function call (operation: string, body: Record<string, unknown>, who: TestUser = user) {
    return post(app, operation, { jwtToken: who.jwtToken, ...body })
  }

  async function ok (operation: string, body: Record<string, unknown>, who: TestUser = user) {
    const response = await call(operation, body, who)
    if (response.statusCode >= 300) throw new Error(`${operation}: ${response.statusCode} ${response.body}`)
    return response.json()
  }

  /** Creates the folders of `path`; the id of the last. */
  async function makeFolder (path: string[], who: TestUser = user): Promise<string> {
    return (await ok('create-folder', { path }, who)).folderID
  }

  async function makeFlashcard (folder: string[], flashcardName: string, count: number, who: TestUser = user): Promise<Created> {
    const cards = Array.from({ length: count }, (_, i) => ({ front: `${flashcardName} front ${i}`, back: `${flashcardName} back ${i}` }))
    return await ok('create-flashcard', { folder, flashcardName, cards }, who)
  }

  /** A folder or flashcard as stored in its owner's tree, with where it hangs; null when there is none. */
  async function node (id: string): Promise<StoredNode | null> {
    return (await storedNodes(app)).find((found) => found._id === id) ?? null
  }

  /**
   * What is wrong with a user's stored tree (nothing, when all is well): an
   * id held in two places, or a count of folders and flashcards that differs
   * from what the account's quota has counted.
   */
  async function treeProblems (userID = user.userID): Promise<string[]> {
    const nodes = await storedNodes(app, { userID })
    const problems = nodes.filter((found, index) => nodes.findIndex((other) => other._id === found._id) !== index).map((found) => `${found.name} twice`)
    const account = await databaseOf(app).collection<{ _id: string, usage?: { nodes?: number } }>('users').findOne({ _id: userID })
    if ((account?.usage?.nodes ?? 0) !== nodes.length) problems.push(`usage counts ${account?.usage?.nodes ?? 0} folders and flashcards, the tree holds ${nodes.length}`)
    return problems
  }

  async function ancestorOf (id: string, depth: number): Promise<string> {
    return (await node(id))?.ancestors[depth] ?? ''
  }

  async function storedCard (id: string): Promise<Record<string, unknown>> {
    const stored = await databaseOf(app).collection<{ _id: string }>('cards').findOne({ _id: id })
    if (stored === null) throw new Error(`no card ${id}`)
    return stored
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
      reviews: await databaseOf(app).collection('reviews').find().sort({ _id: 1 }).toArray()
    }
  }

  async function count (collection: string, userID = user.userID): Promise<number> {
    return await databaseOf(app).collection(collection).countDocuments({ userID })
  }

  async function nodeCount (userID = user.userID): Promise<number> {
    return (await storedNodes(app, { userID })).length
  }

  async function allCards (who: TestUser = user): Promise<Tree> {
    const response = await call('get-all-cards', {}, who)
    if (response.statusCode !== 200) throw new Error(`get-all-cards: ${response.statusCode} ${response.body}`)
    return JSON.parse(response.body) as Tree
  }

  async function refused (t: Subtest, status: number, operation: string, body: Record<string, unknown>, who: TestUser = user, what = '') {
    const response = await call(operation, body, who)
    t.equal(response.statusCode, status, `${operation} ${what || JSON.stringify(body).slice(0, 100)}`)
    t.type(response.json().error, 'string')
  }

  await t.test('rename-folder', async (t) => {
    const innerID = await makeFolder(['Rename', 'Inner'])
    const topID = await ancestorOf(innerID, 0)
    await makeFlashcard(['Rename', 'Inner'], 'Deck', 1)
    await makeFlashcard(['Rename'], 'Sibling deck', 0)
    await makeFolder(['Rename', 'Sibling'])

    const renamed = await call('rename-folder', { folderID: innerID, name: 'Renamed' })
    t.equal(renamed.statusCode, 200)
    t.strictSame(renamed.json(), { folderID: innerID, path: ['Rename', 'Renamed'] })
    t.equal((await node(innerID))?.name, 'Renamed')
    const tree = await allCards()
    t.strictSame(Object.keys(tree.Rename as Tree).sort(), ['Renamed', 'Sibling', 'Sibling deck'])
    t.ok(own(own(tree.Rename, 'Renamed'), 'Deck'), 'the contents came along')
    t.equal((await call('rename-folder', { folderID: innerID, name: 'Renamed' })).statusCode, 200, 'its own name again')

    const before = await snapshot()
    await refused(t, 409, 'rename-folder', { folderID: innerID, name: 'Sibling' }, user, 'onto a sibling folder')
    await refused(t, 409, 'rename-folder', { folderID: innerID, name: 'Sibling deck' }, user, 'onto a sibling flashcard')
    for (const name of ['cards', 'flashcardID', 'flashcardName', '', 'tab\there', 'n'.repeat(101)]) {
      await refused(t, 400, 'rename-folder', { folderID: innerID, name }, user, `to ${JSON.stringify(name)}`)
    }
    await refused(t, 400, 'rename-folder', { folderID: innerID })
    await refused(t, 400, 'rename-folder', { name: 'No id' })
    await refused(t, 400, 'rename-folder', { folderID: 'not-an-id', name: 'x' })
    await refused(t, 404, 'rename-folder', { folderID: UNKNOWN_ID, name: 'x' })
    const { flashcardID } = await makeFlashcard(['Rename'], 'Not a folder', 0)
    const withFlashcard = await snapshot()
    await refused(t, 404, 'rename-folder', { folderID: flashcardID, name: 'x' }, user, 'a flashcard id')
    await refused(t, 404, 'rename-folder', { folderID: topID, name: 'Theirs now' }, other, "another user's folder")
    t.strictSame(await snapshot(), withFlashcard, 'nothing changed')
    t.equal(before.nodes.length + 1, withFlashcard.nodes.length)
  })

  await t.test('move-folder moves the folder with its whole subtree', async (t) => {
    const aID = await makeFolder(['A'])
    const bID = await makeFolder(['A', 'B'])
    const cID = await makeFolder(['A', 'B', 'C'])
    const dID = await makeFolder(['A', 'B', 'C', 'D'])
    const deepDeck = await makeFlashcard(['A', 'B', 'C', 'D'], 'Deep deck', 2)
    const bDeck = await makeFlashcard(['A', 'B'], 'B deck', 1)
    const hereID = await makeFolder(['Target', 'Inside', 'Here'])
    const cardsBefore = (await snapshot()).cards

    const response = await call('move-folder', { folderID: bID, parentID: hereID })
    t.equal(response.statusCode, 200)
    t.strictSame(response.json(), { folderID: bID, path: ['Target', 'Inside', 'Here', 'B'] })
    const above = [await ancestorOf(hereID, 0), await ancestorOf(hereID, 1), hereID]
    t.match(await node(bID), { parentID: hereID, ancestors: above })
    t.match(await node(cID), { parentID: bID, ancestors: [...above, bID] })
    t.match(await node(dID), { parentID: cID, ancestors: [...above, bID, cID] })
    t.match(await node(deepDeck.flashcardID), { parentID: dID, ancestors: [...above, bID, cID, dID] })
    t.match(await node(bDeck.flashcardID), { parentID: bID, ancestors: [...above, bID] })
    t.strictSame((await node(aID))?.ancestors, [], 'the old parent is untouched')
    t.strictSame((await snapshot()).cards, cardsBefore, 'cards are untouched')

    const tree = await allCards()
    t.strictSame(tree.A, {}, 'the old parent is left empty')
    const b = own(own(own(own(tree, 'Target'), 'Inside'), 'Here'), 'B') as Tree
    t.strictSame(Object.keys(b).sort(), ['B deck', 'C'])
    const fetched = await ok('get-flashcard', { flashcardID: deepDeck.flashcardID })
    t.strictSame(fetched.folder, ['Target', 'Inside', 'Here', 'B', 'C', 'D'])
    t.equal((await call('create-flashcard', { folder: ['Target', 'Inside', 'Here', 'B', 'C'], flashcardName: 'By path', cards: [] })).statusCode, 201,
      'the new path names the moved folders')

    // deleting the old parent leaves the moved subtree alone
    t.equal((await call('delete-folder', { folderID: aID })).statusCode, 200)
    t.ok(await node(dID))

    const toTop = await call('move-folder', { folderID: cID, parentID: '' })
    t.equal(toTop.statusCode, 200)
    t.strictSame(toTop.json().path, ['C'])
    t.match(await node(cID), { parentID: '', ancestors: [] })
    t.match(await node(dID), { parentID: cID, ancestors: [cID] })
    t.match(await node(deepDeck.flashcardID), { ancestors: [cID, dID] })

    const back = await call('move-folder', { folderID: cID, parentID: bID })
    t.equal(back.statusCode, 200)
    t.match(await node(dID), { ancestors: [...above, bID, cID] })
    const omitted = await call('move-folder', { folderID: cID })
    t.equal(omitted.statusCode, 200, 'parentID omitted: the top level')
    t.match(await node(cID), { parentID: '', ancestors: [] })
    const again = await call('move-folder', { folderID: cID, parentID: '' })
    t.equal(again.statusCode, 200, 'already there: nothing to do')
    t.match(await node(dID), { ancestors: [cID] })
    t.strictSame(await treeProblems(), [])
  })

  await t.test('concurrent moves never make a loop, and a concurrent rename is not lost', async (t) => {
    for (let round = 0; round < 5; round++) {
      const xID = await makeFolder([`Loop x ${round}`])
      const yID = await makeFolder([`Loop y ${round}`])
      await makeFlashcard([`Loop x ${round}`], 'In x', 1)
      const statuses = (await Promise.all([
        call('move-folder', { folderID: xID, parentID: yID }),
        call('move-folder', { folderID: yID, parentID: xID })
      ])).map((response) => response.statusCode)
      t.ok(statuses.filter((status) => status === 200).length <= 1, `round ${round}: at most one move wins (${statuses.join(', ')})`)
      t.ok(statuses.every((status) => [200, 400, 409].includes(status)), `round ${round}: the other is refused (${statuses.join(', ')})`)
      const x = await node(xID)
      const y = await node(yID)
      t.ok(x?.parentID === '' || y?.parentID === '', `round ${round}: one of them is still at the top`)
      t.ok(JSON.stringify(await allCards()).includes('In x'), `round ${round}: nothing is hidden in a loop`)
    }
    t.strictSame(await treeProblems(), [])

    const folderID = await makeFolder(['Busy', 'Folder'])
    const destinationID = await makeFolder(['Busy destination'])
    const [renamed, moved] = await Promise.all([
      call('rename-folder', { folderID, name: 'Busy folder renamed' }),
      call('move-folder', { folderID, parentID: destinationID })
    ])
    t.equal(renamed.statusCode, 200)
    t.equal(moved.statusCode, 200)
    t.match(await node(folderID), { name: 'Busy folder renamed', parentID: destinationID, ancestors: [destinationID] }, 'both changes are kept')
  })

  await t.test('move-folder refuses its own subtree, clashes, unknown and foreign ids, and changes nothing', async (t) => {
    const rootID = await makeFolder(['Root'])
    const childID = await makeFolder(['Root', 'Child'])
    const grandchildID = await makeFolder(['Root', 'Child', 'Grandchild'])
    const clashParentID = await ancestorOf(await makeFolder(['Clash parent', 'Child']), 0)
    const { flashcardID } = await makeFlashcard(['Root'], 'A deck', 1)
    await makeFolder(['Child'])
    const theirsID = await makeFolder(['Theirs'], other)
    const before = await snapshot()

    await refused(t, 400, 'move-folder', { folderID: rootID, parentID: rootID }, user, 'into itself')
    await refused(t, 400, 'move-folder', { folderID: rootID, parentID: childID }, user, 'into its child')
    await refused(t, 400, 'move-folder', { folderID: rootID, parentID: grandchildID }, user, 'into its grandchild')
    await refused(t, 400, 'move-folder', { folderID: childID, parentID: grandchildID }, user, 'a subfolder into its own child')
    await refused(t, 400, 'move-folder', { folderID: rootID, parentID: 'top' })
    await refused(t, 400, 'move-folder', { folderID: rootID, parentID: ['x'] })
    await refused(t, 400, 'move-folder', { parentID: childID })
    await refused(t, 409, 'move-folder', { folderID: childID, parentID: clashParentID }, user, 'onto a folder of the same name')
    await refused(t, 409, 'move-folder', { folderID: childID, parentID: '' }, user, 'to the top, where "Child" exists')
    await refused(t, 404, 'move-folder', { folderID: UNKNOWN_ID, parentID: '' })
    await refused(t, 404, 'move-folder', { folderID: childID, parentID: UNKNOWN_ID })
    await refused(t, 404, 'move-folder', { folderID: childID, parentID: flashcardID }, user, 'into a flashcard')
    await refused(t, 404, 'move-folder', { folderID: flashcardID, parentID: '' }, user, 'a flashcard')
    await refused(t, 404, 'move-folder', { folderID: childID, parentID: theirsID }, user, "into another user's folder")
    await refused(t, 404, 'move-folder', { folderID: theirsID, parentID: rootID }, user, "another user's folder")
    await refused(t, 404, 'move-folder', { folderID: childID, parentID: '' }, other, 'by another user')
    t.strictSame(await snapshot(), before, 'nothing changed')
  })

  await t.test('move-folder keeps every folder within 20 levels', async (t) => {
    const deep = Array.from({ length: 15 }, (_, i) => `deep ${i}`)
    const high = Array.from({ length: 6 }, (_, i) => `high ${i}`)
    const deepTop = await ancestorOf(await makeFolder(deep), 0)
    const highBottom = await makeFolder(high)
    const highParent = await ancestorOf(highBottom, 4)
    const before = await snapshot()
    await refused(t, 400, 'move-folder', { folderID: deepTop, parentID: highBottom }, user, '6 + 15 levels')
    t.strictSame(await snapshot(), before)
    t.equal((await call('move-folder', { folderID: deepTop, parentID: highParent })).statusCode, 200, '5 + 15 levels')
    t.strictSame(await treeProblems(), [])
  })

  await t.test('delete-folder removes the whole subtree with its cards, and the review log stays', async (t) => {
    const topID = await ancestorOf(await makeFolder(['Gone', 'Sub', 'Subsub']), 0)
    await makeFolder(['Gone', 'Empty'])
    const decks = [
      await makeFlashcard(['Gone'], 'Top deck', 3),
      await makeFlashcard(['Gone', 'Sub'], 'Sub deck', 2),
      await makeFlashcard(['Gone', 'Sub', 'Subsub'], 'Deep deck', 4)
    ]
    const kept = await makeFlashcard(['Rename'], 'Kept deck', 2)
    await makeFolder(['Their gone'], other)
    const theirs = await makeFlashcard(['Their gone'], 'Their deck', 2, other)
    for (const { flashcardID, cardIDs } of [...decks, kept]) {
      t.equal((await call('review-card', { flashcardID, cardID: cardIDs[0], rating: 'good' })).statusCode, 200)
    }
    const counts = { nodes: await nodeCount(), cards: await count('cards'), reviews: await count('reviews') }
    const otherBefore = await snapshot()

    await refused(t, 404, 'delete-folder', { folderID: topID }, other, "another user's folder")
    await refused(t, 404, 'delete-folder', { folderID: UNKNOWN_ID })
    await refused(t, 404, 'delete-folder', { folderID: decks[0]?.flashcardID }, user, 'a flashcard')
    await refused(t, 400, 'delete-folder', { folderID: '12' })
    await refused(t, 400, 'delete-folder', {})
    t.strictSame(await snapshot(), otherBefore, 'refusals change nothing')

    const response = await call('delete-folder', { folderID: topID })
    t.equal(response.statusCode, 200)
    t.strictSame(response.json(), { folderID: topID, folders: '4', flashcards: '3', cards: '9' })
    t.equal(await nodeCount(), counts.nodes - 7, 'four folders and three flashcards')
    t.strictSame(await treeProblems(), [])
    t.equal(await count('cards'), counts.cards - 9)
    t.equal(await count('reviews'), counts.reviews, 'the review log stays')
    t.strictSame((await storedNodes(app, { userID: user.userID })).filter((found) => found._id === topID || found.ancestors.includes(topID)), [])
    t.equal(await databaseOf(app).collection('cards').countDocuments({ flashcardID: { $in: decks.map((deck) => deck.flashcardID) } }), 0)
    t.equal(await databaseOf(app).collection('cards').countDocuments({ flashcardID: kept.flashcardID }), 2, 'other flashcards keep their cards')
    t.equal(await databaseOf(app).collection('cards').countDocuments({ flashcardID: theirs.flashcardID }), 2)
    t.equal(await databaseOf(app).collection('reviews').countDocuments({ flashcardID: { $in: decks.map((deck) => deck.flashcardID) } }), 3,
      'the reviews of the deleted cards are kept')
    t.notOk(own(await allCards(), 'Gone'))
    await refused(t, 404, 'delete-folder', { folderID: topID }, user, 'twice')
  })

  await t.test('get-flashcard', async (t) => {
    await makeFolder(['Languages', 'Spanish'])
    const response = await call('create-flashcard', {
      folder: ['Languages', 'Spanish'],
      flashcardName: 'Verbs',
      description: 'common verbs',
      cards: [{ front: 'ser', back: 'to be' }, { front: 'tener', back: '' }]
    })
    const { flashcardID, cardIDs } = response.json() as Created
    t.equal((await call('review-card', { flashcardID, cardID: cardIDs[1], rating: 'good' })).statusCode, 200)

    const fetched = await call('get-flashcard', { flashcardID })
    t.equal(fetched.statusCode, 200)
    const flashcard = fetched.json()
    t.ok(allStrings(flashcard), 'every value a string')
    t.strictSame(Object.keys(flashcard).sort(), ['cards', 'description', 'flashcardID', 'flashcardName', 'folder'])
    t.match(flashcard, { flashcardID, flashcardName: 'Verbs', description: 'common verbs', folder: ['Languages', 'Spanish'] })
    t.strictSame(flashcard.cards.map((card: { cardID: string }) => card.cardID), cardIDs, 'in creation order')
    t.strictSame(flashcard.cards[0], {
      cardID: cardIDs[0], front: 'ser', back: 'to be', format: 'text', frontHtml: 'ser', backHtml: 'to be', review_status: '0.0', last_review: '04/05/2026', due: current.toISOString()
    })
    t.match(flashcard.cards[1], { cardID: cardIDs[1], front: 'tener', back: '', review_status: /^0\.[1-9]$/, last_review: '04/05/2026' })
    t.ok(Date.parse(flashcard.cards[1].due) > current.getTime())

    await refused(t, 404, 'get-flashcard', { flashcardID }, other, "another user's flashcard")
    await refused(t, 404, 'get-flashcard', { flashcardID: UNKNOWN_ID })
    const folderID = (await node(flashcardID))?.parentID
    await refused(t, 404, 'get-flashcard', { flashcardID: folderID }, user, 'a folder')
    await refused(t, 400, 'get-flashcard', { flashcardID: 42 })
    await refused(t, 400, 'get-flashcard', {})
  })

  await t.test('rename-flashcard', async (t) => {
    const fromID = await makeFolder(['Shelf', 'From'])
    const deck = await makeFlashcard(['Shelf', 'From'], 'Deck', 2)
    await makeFlashcard(['Shelf', 'From'], 'Other deck', 0)
    await makeFolder(['Shelf', 'From', 'A folder'])
    await makeFolder(['Their shelf'], other)
    const theirDeck = await makeFlashcard(['Their shelf'], 'Their deck', 1, other)

    const renamed = await call('rename-flashcard', { flashcardID: deck.flashcardID, name: '__proto__' })
    t.equal(renamed.statusCode, 200)
    t.strictSame(renamed.json(), { flashcardID: deck.flashcardID, flashcardName: '__proto__' })
    t.equal((await node(deck.flashcardID))?.name, '__proto__')
    t.equal((await ok('get-flashcard', { flashcardID: deck.flashcardID })).flashcardName, '__proto__')

    const before = await snapshot()
    await refused(t, 409, 'rename-flashcard', { flashcardID: deck.flashcardID, name: 'Other deck' }, user, 'onto a sibling flashcard')
    await refused(t, 409, 'rename-flashcard', { flashcardID: deck.flashcardID, name: 'A folder' }, user, 'onto a sibling folder')
    await refused(t, 400, 'rename-flashcard', { flashcardID: deck.flashcardID, name: 'flashcardName' })
    await refused(t, 400, 'rename-flashcard', { flashcardID: deck.flashcardID, name: 'new\nline' })
    await refused(t, 400, 'rename-flashcard', { flashcardID: deck.flashcardID })
    await refused(t, 404, 'rename-flashcard', { flashcardID: UNKNOWN_ID, name: 'x' })
    await refused(t, 404, 'rename-flashcard', { flashcardID: fromID, name: 'x' }, user, 'a folder')
    await refused(t, 404, 'rename-flashcard', { flashcardID: theirDeck.flashcardID, name: 'Mine' }, user, "another user's flashcard")
    await refused(t, 404, 'rename-flashcard', { flashcardID: deck.flashcardID, name: 'Theirs' }, other, 'by another user')
    t.strictSame(await snapshot(), before, 'nothing changed')
  })

  await t.test('move-flashcard-set', async (t) => {
    const fromID = await makeFolder(['Cabinet', 'From'])
    const toID = await makeFolder(['Cabinet', 'To', 'Deeper'])
    const cabinetID = await ancestorOf(fromID, 0)
    const toParentID = await ancestorOf(toID, 1)
    const deck = await makeFlashcard(['Cabinet', 'From'], 'Deck', 2)
    await makeFlashcard(['Cabinet', 'To', 'Deeper'], 'Deck', 0)
    await makeFolder(['Cabinet', 'To', 'Deck'])
    const theirFolderID = await makeFolder(['Their cabinet'], other)
    const theirDeck = await makeFlashcard(['Their cabinet'], 'Their deck', 1, other)
    const before = await snapshot()

    await refused(t, 409, 'move-flashcard-set', { flashcardID: deck.flashcardID, folderID: toID }, user, 'onto a flashcard of its name')
    await refused(t, 409, 'move-flashcard-set', { flashcardID: deck.flashcardID, folderID: toParentID }, user, 'onto a folder of its name')
    await refused(t, 404, 'move-flashcard-set', { flashcardID: deck.flashcardID, folderID: UNKNOWN_ID })
    await refused(t, 404, 'move-flashcard-set', { flashcardID: UNKNOWN_ID, folderID: toID })
    await refused(t, 404, 'move-flashcard-set', { flashcardID: deck.flashcardID, folderID: theirFolderID }, user, "into another user's folder")
    await refused(t, 404, 'move-flashcard-set', { flashcardID: theirDeck.flashcardID, folderID: toID }, user, "another user's flashcard")
    await refused(t, 404, 'move-flashcard-set', { flashcardID: deck.flashcardID, folderID: theirDeck.flashcardID }, user, 'into a flashcard')
    await refused(t, 404, 'move-flashcard-set', { flashcardID: fromID, folderID: toID }, user, 'a folder')
    await refused(t, 400, 'move-flashcard-set', { flashcardID: deck.flashcardID })
    await refused(t, 400, 'move-flashcard-set', { flashcardID: deck.flashcardID, folderID: '' })
    const same = await call('move-flashcard-set', { flashcardID: deck.flashcardID, folderID: fromID })
    t.equal(same.statusCode, 200, 'into the folder it is in: nothing to do')
    t.strictSame(await snapshot(), before, 'nothing changed')

    const moved = await call('move-flashcard-set', { flashcardID: deck.flashcardID, folderID: cabinetID })
    t.equal(moved.statusCode, 200)
    t.strictSame(moved.json(), { flashcardID: deck.flashcardID, folderID: cabinetID, folder: ['Cabinet'] })
    t.match(await node(deck.flashcardID), { parentID: cabinetID, ancestors: [cabinetID] })
    t.strictSame((await snapshot()).cards, before.cards, 'the cards come along untouched')
    const tree = await allCards()
    t.strictSame(Object.keys(own(own(tree, 'Cabinet'), 'Deck') as Tree).sort(), ['cards', 'flashcardID', 'flashcardName'])
    t.strictSame(Object.keys((own(own(own(tree, 'Cabinet'), 'Deck'), 'cards')) as Tree), deck.cardIDs)
    t.strictSame(own(own(tree, 'Cabinet'), 'From'), {})
  })

  await t.test('delete-flashcard removes it with its cards; the review log stays', async (t) => {
    await makeFolder(['Bin'])
    const deck = await makeFlashcard(['Bin'], 'Doomed', 3)
    const neighbour = await makeFlashcard(['Bin'], 'Neighbour', 1)
    await makeFolder(['Their bin'], other)
    const theirs = await makeFlashcard(['Their bin'], 'Still theirs', 1, other)
    t.equal((await call('review-card', { flashcardID: deck.flashcardID, cardID: deck.cardIDs[2], rating: 'easy' })).statusCode, 200)
    const before = await snapshot()
    await refused(t, 404, 'delete-flashcard', { flashcardID: theirs.flashcardID }, user, "another user's flashcard")
    await refused(t, 404, 'delete-flashcard', { flashcardID: deck.flashcardID }, other, 'by another user')
    await refused(t, 404, 'delete-flashcard', { flashcardID: UNKNOWN_ID })
    const binID = (await node(deck.flashcardID))?.parentID
    await refused(t, 404, 'delete-flashcard', { flashcardID: binID }, user, 'a folder')
    await refused(t, 400, 'delete-flashcard', { flashcardID: null })
    t.strictSame(await snapshot(), before)

    const response = await call('delete-flashcard', { flashcardID: deck.flashcardID })
    t.equal(response.statusCode, 200)
    t.strictSame(response.json(), { flashcardID: deck.flashcardID, cards: '3' })
    t.equal(await node(deck.flashcardID), null)
    t.equal(await databaseOf(app).collection('cards').countDocuments({ flashcardID: deck.flashcardID }), 0)
    t.equal(await databaseOf(app).collection('cards').countDocuments({ flashcardID: neighbour.flashcardID }), 1)
    t.strictSame((await snapshot()).reviews, before.reviews, 'the review log stays')
    t.strictSame(Object.keys(own(await allCards(), 'Bin') as Tree), ['Neighbour'])
    await refused(t, 404, 'delete-flashcard', { flashcardID: deck.flashcardID }, user, 'twice')
  })

  await t.test('add-cards', async (t) => {
    await makeFolder(['Growing'])
    const deck = await makeFlashcard(['Growing'], 'Deck', 1)
    await makeFolder(['Their garden'], other)
    const theirs = await makeFlashcard(['Their garden'], 'Their growing deck', 0, other)

    const response = await call('add-cards', { flashcardID: deck.flashcardID, cards: [{ front: 'new 1', back: 'b' }, { front: 'new 2', back: '' }] })
    t.equal(response.statusCode, 201)
    const { cardIDs } = response.json()
    t.strictSame(Object.keys(response.json()), ['cardIDs'])
    t.equal(cardIDs.length, 2)
    t.ok(cardIDs.every((id: string) => /^\d{30,}$/.test(id)))
    const fetched = await ok('get-flashcard', { flashcardID: deck.flashcardID })
    t.strictSame(fetched.cards.map((card: { cardID: string }) => card.cardID), [...deck.cardIDs, ...cardIDs], 'after the cards there were')
    t.match(fetched.cards[2], { front: 'new 2', back: '', review_status: '0.0', last_review: '04/05/2026' })

    const before = await snapshot()
    const card = { front: 'f', back: 'b' }
    await refused(t, 400, 'add-cards', { flashcardID: deck.flashcardID, cards: [] })
    await refused(t, 400, 'add-cards', { flashcardID: deck.flashcardID })
    await refused(t, 400, 'add-cards', { flashcardID: deck.flashcardID, cards: 'f\tb' })
    await refused(t, 400, 'add-cards', { flashcardID: deck.flashcardID, cards: [card, { front: '', back: 'b' }] })
    await refused(t, 400, 'add-cards', { flashcardID: deck.flashcardID, cards: [card, { front: 'f' }] })
    await refused(t, 400, 'add-cards', { flashcardID: deck.flashcardID, cards: [card, null] })
    await refused(t, 400, 'add-cards', { flashcardID: deck.flashcardID, cards: Array.from({ length: 1001 }, () => card) })
    await refused(t, 400, 'add-cards', { cards: [card] })
    await refused(t, 404, 'add-cards', { flashcardID: UNKNOWN_ID, cards: [card] })
    await refused(t, 404, 'add-cards', { flashcardID: theirs.flashcardID, cards: [card] }, user, "another user's flashcard")
    await refused(t, 404, 'add-cards', { flashcardID: deck.flashcardID, cards: [card] }, other, 'by another user')
    t.strictSame(await snapshot(), before)
  })

  await t.test('edit-card changes the text and keeps the schedule', async (t) => {
    await makeFolder(['Editing'])
    const deck = await makeFlashcard(['Editing'], 'Deck', 2)
    const otherDeck = await makeFlashcard(['Editing'], 'Other deck', 1)
    const [cardID] = deck.cardIDs as [string]
    t.equal((await call('review-card', { flashcardID: deck.flashcardID, cardID, rating: 'good' })).statusCode, 200)
    const reviewed = await storedCard(cardID)
    t.equal(reviewed.reps, 1, 'reviewed once')

    const response = await call('edit-card', { flashcardID: deck.flashcardID, cardID, front: 'new front' })
    t.equal(response.statusCode, 200)
    const answer = response.json()
    t.ok(allStrings(answer))
    t.match(answer, { cardID, front: 'new front', back: 'Deck back 0', review_status: /^0\.[1-9]$/, last_review: '04/05/2026' })
    t.equal(answer.due, (reviewed.due as Date).toISOString())
    const edited = await storedCard(cardID)
    t.equal(edited.front, 'new front')
    t.equal(edited.back, 'Deck back 0', 'the back is kept')
    t.strictSame(withoutText(edited), withoutText(reviewed), 'schedule, version and the rest are kept')

    t.match((await ok('edit-card', { flashcardID: deck.flashcardID, cardID, back: '' })), { front: 'new front', back: '' })
    t.match((await ok('edit-card', { flashcardID: deck.flashcardID, cardID, front: '$where', back: '__proto__' })), { front: '$where', back: '__proto__' })
    const next = await call('review-card', { flashcardID: deck.flashcardID, cardID, rating: 'good' })
    t.equal(next.statusCode, 200, 'the card reviews on from where it was')
    t.equal((await storedCard(cardID)).reps, 2)

    const before = await snapshot()
    await refused(t, 400, 'edit-card', { flashcardID: deck.flashcardID, cardID }, user, 'neither front nor back')
    await refused(t, 400, 'edit-card', { flashcardID: deck.flashcardID, cardID, front: '' })
    await refused(t, 400, 'edit-card', { flashcardID: deck.flashcardID, cardID, back: 'x'.repeat(10_001) })
    await refused(t, 400, 'edit-card', { flashcardID: deck.flashcardID, front: 'x' })
    await refused(t, 404, 'edit-card', { flashcardID: otherDeck.flashcardID, cardID, front: 'x' }, user, 'a card of another flashcard')
    await refused(t, 404, 'edit-card', { flashcardID: deck.flashcardID, cardID: UNKNOWN_ID, front: 'x' })
    await refused(t, 404, 'edit-card', { flashcardID: deck.flashcardID, cardID, front: 'x' }, other, "another user's card")
    t.strictSame(await snapshot(), before)
  })

  await t.test('delete-card', async (t) => {
    await makeFolder(['Trimming'])
    const deck = await makeFlashcard(['Trimming'], 'Deck', 3)
    const otherDeck = await makeFlashcard(['Trimming'], 'Other deck', 1)
    const [first, second, third] = deck.cardIDs as [string, string, string]
    t.equal((await call('review-card', { flashcardID: deck.flashcardID, cardID: second, rating: 'again' })).statusCode, 200)

    const before = await snapshot()
    await refused(t, 404, 'delete-card', { flashcardID: otherDeck.flashcardID, cardID: second }, user, 'a card of another flashcard')
    await refused(t, 404, 'delete-card', { flashcardID: deck.flashcardID, cardID: UNKNOWN_ID })
    await refused(t, 404, 'delete-card', { flashcardID: deck.flashcardID, cardID: second }, other, "another user's card")
    await refused(t, 400, 'delete-card', { flashcardID: deck.flashcardID })
    await refused(t, 400, 'delete-card', { flashcardID: deck.flashcardID, cardID: `${second}x` })
    t.strictSame(await snapshot(), before)

    const response = await call('delete-card', { flashcardID: deck.flashcardID, cardID: second })
    t.equal(response.statusCode, 200)
    t.strictSame(response.json(), { flashcardID: deck.flashcardID, cardID: second })
    t.strictSame((await ok('get-flashcard', { flashcardID: deck.flashcardID })).cards.map((card: { cardID: string }) => card.cardID), [first, third])
    t.strictSame((await snapshot()).reviews, before.reviews, 'the review log stays')
    await refused(t, 404, 'delete-card', { flashcardID: deck.flashcardID, cardID: second }, user, 'twice')
  })

  await t.test('get-all-cards: every folder, flashcard and card, hostile names untouched', async (t) => {
    const learner = await registerUser(app)
    t.strictSame(await allCards(learner), {}, 'an empty library')
    const prototypeBefore = Object.getOwnPropertyNames(Object.prototype).sort()
    const names = ['__proto__', 'constructor', 'toString', 'a.b', '$where', 'x/y', '📚 Bücher 🇩🇪', '7']
    const made = new Map<string, Created>()
    for (const name of names) {
      await makeFolder([name, name, 'empty'], learner)
      made.set(name, await makeFlashcard([name, name], name, 2, learner))
    }
    await makeFolder(['Empty top'], learner)
    // more cards than one day's new-card allowance, some reviewed and no longer due today
    const big = await makeFlashcard(['Empty top'], 'Big', 30, learner)
    await ok('review-card', { flashcardID: big.flashcardID, cardID: big.cardIDs[0], rating: 'easy' }, learner)
    const noCards = await makeFlashcard(['Empty top'], 'No cards', 0, learner)
    await makeFolder(['Empty top', 'Mine too'], other)

    const response = await call('get-all-cards', {}, learner)
    t.equal(response.statusCode, 200)
    const tree = JSON.parse(response.body) as Tree
    t.strictSame(Object.keys(tree).sort(), [...names, 'Empty top'].sort())
    for (const name of names) {
      const outer = own(tree, name)
      t.strictSame(Object.keys(outer as Tree), [name], `${name}: one folder inside`)
      const inner = own(outer, name) as Tree
      t.strictSame(Object.keys(inner).sort(), [name, 'empty'].sort())
      t.strictSame(own(inner, 'empty'), {}, 'an empty folder is {}')
      const flashcard = own(inner, name) as Tree
      const { flashcardID, cardIDs } = made.get(name) as Created
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

  await t.test('an invalid token gives 401 on every operation and changes nothing', async (t) => {
    const doomed = await registerUser(app)
    await databaseOf(app).collection<{ _id: string }>('users').deleteOne({ _id: doomed.userID })
    const deck = await makeFlashcard(['Editing'], 'Token deck', 1)
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
      const missing = await post(app, operation, body)
      t.equal(missing.statusCode, 400, `${operation} without the jwtToken field: a malformed body`)
    }
    t.strictSame(await snapshot(), before)
  })
})
