// browse-cards: every card of the library, a folder or a flashcard, whatever
// its standing, filtered, sorted by creation or due, a page at a time; never
// another user's.
import type { FastifyInstance } from 'fastify'
import { test } from 'tap'
import { buildTestApp, expectOk, expectRefusal, makeDeck, makeFolder, registerUser, type TestUser } from '../helpers/app.js'

const DAY = 86_400_000

interface Row {
  cardID: string
  flashcardID: string
  flashcardName: string
  folder: string[]
  sortField: string
  kind: string
  state: string
  due?: string
  interval: string
  difficulty?: string
  lapses: string
  reps: string
  suspended: string
  buriedUntil?: string
  flag: string
}
interface Page { cards: Row[], total: string, nextCursor?: string }

function browser (app: FastifyInstance, user: TestUser) {
  const page = async (body: Record<string, unknown> = {}): Promise<Page> => await expectOk<Page>(app, 'browse-cards', { jwtToken: user.jwtToken, ...body })
  return {
    page,
    /** Every page from the first, following nextCursor. */
    pages: async (body: Record<string, unknown> = {}): Promise<Page[]> => {
      const pages = [await page(body)]
      for (let last = pages[0]; last?.nextCursor !== undefined; last = pages.at(-1)) pages.push(await page({ ...body, cursor: last.nextCursor }))
      return pages
    },
    ids: async (body: Record<string, unknown> = {}): Promise<string[]> => {
      const ids: string[] = []
      let cursor: string | undefined
      do {
        const answer = await page({ ...body, ...(cursor === undefined ? {} : { cursor }) })
        ids.push(...answer.cards.map((card) => card.cardID))
        cursor = answer.nextCursor
      } while (cursor !== undefined)
      return ids
    },
    call: async (operation: string, body: Record<string, unknown>) => await expectOk(app, operation, { jwtToken: user.jwtToken, ...body })
  }
}

test('every card once across pages of at most 500, in creation order, desc the exact reverse, with the total on every page', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app)
  const me = browser(app, user)
  const first = await makeDeck(app, user, { folder: ['Languages'], name: 'Words', cards: 700 })
  const second = await makeDeck(app, user, { folder: ['Science', 'Physics'], name: 'Units', cards: 600 })
  const created = [...first.cardIDs, ...second.cardIDs]

  const pages = await me.pages()
  t.strictSame(pages.map((page) => page.cards.length), [500, 500, 300], 'pages of at most 500 rows')
  t.ok(pages.every((page) => page.total === '1300'), 'the total of matching cards on every page')
  t.equal(pages.at(-1)?.nextCursor, undefined, 'no cursor after the last page')
  t.strictSame(pages.flatMap((page) => page.cards.map((card) => card.cardID)), created, 'every card once, in creation order')
  t.strictSame(await me.ids({ order: 'desc' }), [...created].reverse(), 'desc: the exact reverse')
  const dueOrder = await me.ids({ sort: 'due' })
  t.strictSame([...dueOrder].sort(), [...created].sort(), 'by due: every card once too')
  t.strictSame(await me.ids({ sort: 'due', order: 'desc' }), [...dueOrder].reverse(), 'by due, desc: the exact reverse')

  const [row] = pages[0]?.cards ?? []
  t.strictSame(row, {
    cardID: first.cardIDs[0],
    flashcardID: first.flashcardID,
    flashcardName: 'Words',
    folder: ['Languages'],
    sortField: 'Words front 0',
    kind: 'basic',
    noteType: 'Basic',
    state: 'new',
    interval: '0',
    lapses: '0',
    reps: '0',
    suspended: 'false',
    flag: '0'
  }, 'a new card: no due, no difficulty; made here, a note of Basic')
})

test('a folder, a flashcard or the whole library; an unknown folder or flashcard 404, both 400, a bad cursor 400', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app)
  const me = browser(app, user)
  const languagesID = await makeFolder(app, user, ['Languages'])
  const words = await makeDeck(app, user, { folder: ['Languages', 'French'], name: 'Words', cards: 3 })
  const verbs = await makeDeck(app, user, { folder: ['Languages'], name: 'Verbs', cards: 2 })
  const units = await makeDeck(app, user, { folder: ['Science'], name: 'Units', cards: 4 })

  t.strictSame((await me.ids({ folderID: languagesID })).sort(), [...words.cardIDs, ...verbs.cardIDs].sort(), 'a folder: its flashcards and those below it')
  t.strictSame(await me.ids({ flashcardID: units.flashcardID }), units.cardIDs, 'a flashcard: its own')
  t.equal((await me.page({ flashcardID: units.flashcardID })).total, '4')
  t.equal((await me.page()).total, '9', 'neither: the whole library')

  await expectRefusal(t, app, 'browse-cards', { jwtToken: user.jwtToken, folderID: '1'.repeat(30) }, 404, 'folder_not_found')
  await expectRefusal(t, app, 'browse-cards', { jwtToken: user.jwtToken, flashcardID: '1'.repeat(30) }, 404, 'flashcard_not_found')
  await expectRefusal(t, app, 'browse-cards', { jwtToken: user.jwtToken, folderID: languagesID, flashcardID: units.flashcardID }, 400, 'invalid_field')
  await expectRefusal(t, app, 'browse-cards', { jwtToken: user.jwtToken, cursor: 'not-a-cursor' }, 400, 'invalid_field', 'a cursor no read gave')
  await expectRefusal(t, app, 'browse-cards', { jwtToken: user.jwtToken, cursor: Buffer.from('{"of":"browse","after":[0,1,"x"]}').toString('base64url') }, 400, 'invalid_field', 'a cursor of a forged shape')
  await expectRefusal(t, app, 'browse-cards', { jwtToken: user.jwtToken, cursor: 'eyJ' }, 400, 'invalid_field', 'not JSON')
  await expectRefusal(t, app, 'browse-cards', { jwtToken: user.jwtToken, sort: 'lapses' }, 400, 'invalid_field', 'a sort no index gives')
})

test('a cursor of another scope, filter or order is refused', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app)
  const me = browser(app, user)
  const deck = await makeDeck(app, user, { folder: ['Big'], name: 'Many', cards: 501 })
  const { nextCursor } = await me.page()
  t.type(nextCursor, 'string')
  await expectRefusal(t, app, 'browse-cards', { jwtToken: user.jwtToken, cursor: nextCursor, order: 'desc' }, 400, 'invalid_field', 'another order')
  await expectRefusal(t, app, 'browse-cards', { jwtToken: user.jwtToken, cursor: nextCursor, flashcardID: deck.flashcardID }, 400, 'invalid_field', 'another scope')
  await expectRefusal(t, app, 'browse-cards', { jwtToken: user.jwtToken, cursor: nextCursor, standing: 'new' }, 400, 'invalid_field', 'another filter')
  const rest = await me.page({ cursor: nextCursor })
  t.strictSame(rest.cards.map((card) => card.cardID), [deck.cardIDs[500]], 'the same read: the card after the page')
})

test('standing filters after suspend-card, bury-card and flag-card, and by schedule; the rows show the standing', async (t) => {
  const clock = { now: new Date('2026-04-10T10:00:00Z') }
  const app = await buildTestApp(t, import.meta.filename, { clock: () => clock.now })
  const user = await registerUser(app)
  const me = browser(app, user)
  const deck = await makeDeck(app, user, { folder: ['Languages'], name: 'Words', cards: 6 })
  const [suspended, buried, flagged, reviewed, learning, both] = deck.cardIDs as [string, string, string, string, string, string]
  const { flashcardID } = deck
  await me.call('suspend-card', { flashcardID, cardID: suspended })
  await me.call('bury-card', { flashcardID, cardID: buried })
  await me.call('flag-card', { flashcardID, cardID: flagged, flag: 3 })
  await me.call('review-card', { flashcardID, cardID: reviewed, rating: 'easy' })
  await me.call('review-card', { flashcardID, cardID: learning, rating: 'again' })
  await me.call('suspend-card', { flashcardID, cardID: both })
  await me.call('bury-card', { flashcardID, cardID: both })

  const sorted = async (standing: string): Promise<string[]> => (await me.ids({ standing })).sort()
  t.strictSame(await sorted('suspended'), [suspended, both].sort(), 'suspended')
  t.strictSame(await sorted('buried'), [buried, both].sort(), 'buried, suspended too or not')
  t.strictSame(await sorted('flagged'), [flagged], 'flagged')
  t.strictSame(await sorted('review'), [reviewed], 'review, by its schedule')
  t.strictSame(await sorted('learning'), [learning], 'learning')
  t.strictSame(await sorted('new'), [suspended, buried, flagged, both].sort(), 'new, whatever their standing')
  t.equal((await me.page({ standing: 'suspended' })).total, '2')

  const rows = new Map((await me.page()).cards.map((row) => [row.cardID, row]))
  t.equal(rows.get(suspended)?.suspended, 'true')
  t.equal(rows.get(buried)?.buriedUntil, '11/04/2026', 'buried until the next day of the user')
  t.equal(rows.get(flagged)?.flag, '3')
  const studied = rows.get(reviewed)
  t.equal(studied?.state, 'review')
  t.equal(studied?.reps, '1')
  t.match(studied?.difficulty, /^\d{1,2}\.\d$/, 'FSRS difficulty, one decimal')
  t.match(studied?.due, /^\d\d\/\d\d\/\d{4}$/, 'due: DD/MM/YYYY')
  t.ok(Number(studied?.interval) >= 1, 'an interval in days')

  await me.call('unsuspend-card', { flashcardID, cardID: suspended })
  t.strictSame(await sorted('suspended'), [both], 'unsuspended: out of the filter')
  clock.now = new Date(clock.now.getTime() + DAY)
  t.strictSame(await sorted('buried'), [], 'the next day: no longer buried')
  t.strictSame(await sorted('suspended'), [both], 'still suspended')
})

test('by due: the cards studied by due, then the new cards; desc the reverse', async (t) => {
  const clock = { now: new Date('2026-04-10T10:00:00Z') }
  const app = await buildTestApp(t, import.meta.filename, { clock: () => clock.now })
  const user = await registerUser(app)
  const me = browser(app, user)
  const deck = await makeDeck(app, user, { folder: ['Languages'], name: 'Words', cards: 5 })
  const [easy, fresh, again, good, hard] = deck.cardIDs as [string, string, string, string, string]
  for (const [cardID, rating] of [[easy, 'easy'], [again, 'again'], [good, 'good'], [hard, 'hard']] as const) {
    await me.call('review-card', { flashcardID: deck.flashcardID, cardID, rating })
  }
  const dueOrder = await me.ids({ sort: 'due' })
  t.equal(dueOrder.at(-1), fresh, 'the new card last')
  t.equal(dueOrder[0], again, 'again first: due in minutes')
  t.equal(dueOrder[3], easy, 'easy last of the studied')
  t.strictSame(await me.ids({ sort: 'due', order: 'desc' }), [...dueOrder].reverse())
})

test('a query finds as search-cards does, within the scope and filter', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app)
  const me = browser(app, user)
  const spanish = await makeDeck(app, user, {
    folder: ['Languages'],
    name: 'Spanish',
    cards: [{ front: 'el Árbol', back: 'the tree' }, { front: 'la canción', back: 'the song' }, { front: 'el árbol grande', back: 'the big tree' }]
  })
  const other = await makeDeck(app, user, { folder: ['Other'], name: 'Trees', cards: [{ front: 'oak', back: 'a tree' }] })
  const [arbol, , grande] = spanish.cardIDs as [string, string, string]
  t.strictSame(await me.ids({ query: 'ARBOL' }), [arbol, grande], 'regardless of case and accents, in creation order')
  t.strictSame(await me.ids({ query: 'arbol', order: 'desc' }), [grande, arbol])
  t.strictSame((await me.ids({ query: 'tree' })).sort(), [...spanish.cardIDs.filter((id) => id !== spanish.cardIDs[1]), ...other.cardIDs].sort(), 'across the library')
  t.strictSame(await me.ids({ query: 'tree', flashcardID: other.flashcardID }), other.cardIDs, 'within the scope')
  await me.call('suspend-card', { flashcardID: spanish.flashcardID, cardID: grande })
  t.strictSame(await me.ids({ query: 'tree', standing: 'suspended' }), [grande], 'within the filter')
  t.equal((await me.page({ query: 'tree' })).total, '3')
  await expectRefusal(t, app, 'browse-cards', { jwtToken: user.jwtToken, query: '  ' }, 400, 'invalid_value', 'a query without a word')
})

test('another user\'s cards are never read', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const owner = await registerUser(app)
  const other = await registerUser(app)
  const deck = await makeDeck(app, owner, { folder: ['Mine'], name: 'Secret', cards: 501 })
  await expectOk(app, 'suspend-card', { jwtToken: owner.jwtToken, flashcardID: deck.flashcardID, cardID: deck.cardIDs[0] })
  const them = browser(app, other)
  t.strictSame(await them.page(), { cards: [], total: '0' }, 'an empty library')
  t.strictSame(await them.page({ standing: 'suspended', query: 'Secret' }), { cards: [], total: '0' }, 'nor by a filter or query')
  await expectRefusal(t, app, 'browse-cards', { jwtToken: other.jwtToken, flashcardID: deck.flashcardID }, 404, 'flashcard_not_found', 'another user\'s flashcard')
  const { nextCursor } = await browser(app, owner).page()
  t.strictSame(await them.page({ cursor: nextCursor }), { cards: [], total: '0' }, 'another user\'s cursor only narrows one\'s own read')
})
