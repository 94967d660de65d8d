// get-flashcard and get-all-cards with content answer a page of cards at a time
// (at most 1,000 cards and 4 MiB of them), with a cursor for the rest.
import { test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { MAX_CARDS_PER_PAGE, MAX_PAGE_BYTES } from '../../src/domain/limits.js'
import {
  buildTestApp, expectOk, expectRefusal, flashcardPages, libraryPages, makeDeck, post, registerUser, type LibraryPage, type TestUser
} from '../helpers/app.js'

interface ShownCard { cardID: string, front: string, back: string, frontHtml: string }
interface TreeFlashcard { cards: Record<string, { front: string }>, flashcardID: string, flashcardName: string }

/** `count` cards added to a flashcard, `perRequest` at a time (add-cards): their ids in creation order. */
async function addCards (app: FastifyInstance, user: TestUser, flashcardID: string, count: number, card: (n: number) => { front: string, back: string },
  perRequest = 1000): Promise<string[]> {
  const ids: string[] = []
  for (let from = 0; from < count; from += perRequest) {
    const cards = Array.from({ length: Math.min(perRequest, count - from) }, (_, i) => card(from + i))
    ids.push(...(await expectOk<{ cardIDs: string[] }>(app, 'add-cards', { jwtToken: user.jwtToken, flashcardID, cards }, 201)).cardIDs)
  }
  return ids
}

/** The flashcards of a library page's tree, wherever they are, by id. */
function flashcardsIn (tree: Record<string, unknown>, into = new Map<string, TreeFlashcard>()): Map<string, TreeFlashcard> {
  for (const value of Object.values(tree)) {
    const node = value as Record<string, unknown>
    if (typeof node.flashcardID === 'string' && typeof node.cards === 'object') into.set(node.flashcardID, node as unknown as TreeFlashcard)
    else flashcardsIn(node, into)
  }
  return into
}

test('a flashcard of 2,500 cards comes in pages of 1,000, 1,000 and 500, each card once in creation order, whatever changes between pages', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app)
  const deck = await makeDeck(app, user, { folder: ['Paged'], name: 'Big', cards: 1000 })
  const ids = [...deck.cardIDs, ...await addCards(app, user, deck.flashcardID, 1500, (n) => ({ front: `more ${n}`, back: 'b' }))]

  const pages = await flashcardPages<ShownCard>(app, user.jwtToken, deck.flashcardID)
  t.strictSame(pages.map((page) => page.cards.length), [1000, 1000, 500], 'pages of 1,000, 1,000 and 500')
  t.strictSame(pages.flatMap((page) => page.cards.map((card) => card.cardID)), ids, 'every card once, in creation order')
  t.strictSame(pages.map((page) => typeof page.nextCursor), ['string', 'string', 'undefined'], 'a cursor while more follow, none on the last page')
  t.strictSame(pages.map((page) => [page.flashcardName, page.folder]), Array(3).fill(['Big', ['Paged']]), 'every page names the flashcard and its folder')

  // between pages: the first page's last card deleted (the cursor's own card), one of the next page deleted, a card added
  const first = await expectOk<{ cards: ShownCard[], nextCursor: string }>(app, 'get-flashcard', { jwtToken: user.jwtToken, flashcardID: deck.flashcardID })
  const deleted = [ids[999], ids[1500]] as string[]
  for (const cardID of deleted) await expectOk(app, 'delete-card', { jwtToken: user.jwtToken, flashcardID: deck.flashcardID, cardID })
  const [added] = await addCards(app, user, deck.flashcardID, 1, () => ({ front: 'added between pages', back: 'b' }))
  const rest: ShownCard[] = []
  let cursor: string | undefined = first.nextCursor
  while (cursor !== undefined) {
    const page: { cards: ShownCard[], nextCursor?: string } = await expectOk(app, 'get-flashcard', { jwtToken: user.jwtToken, flashcardID: deck.flashcardID, cursor })
    rest.push(...page.cards)
    cursor = page.nextCursor
  }
  t.strictSame(rest.map((card) => card.cardID), [...ids.slice(1000).filter((id) => !deleted.includes(id)), added],
    'the next pages: every card after the first page once, none repeated or skipped, the deleted ones gone and the added one last')
})

test('cards of 10,000-character sides come in pages of at most 4 MiB, every card once', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app)
  const deck = await makeDeck(app, user, { folder: ['Long'], name: 'Long sides', cards: [{ front: 'short', back: 'card' }] })
  // '&' is shown as "&amp;": each side's HTML five times its text; as many cards a request as the 1 MiB body takes
  const side = (n: number, what: string) => `${what} ${n} `.padEnd(10_000, '&')
  const ids = [...deck.cardIDs, ...await addCards(app, user, deck.flashcardID, 180, (n) => ({ front: side(n, 'front'), back: side(n, 'back') }), 45)]

  const bodies: number[] = []
  const seen: string[] = []
  let cursor: string | undefined
  do {
    const response = await post(app, 'get-flashcard', { jwtToken: user.jwtToken, flashcardID: deck.flashcardID, ...(cursor === undefined ? {} : { cursor }) })
    t.equal(response.statusCode, 200)
    const page = response.json<{ cards: ShownCard[], nextCursor?: string }>()
    bodies.push(Buffer.byteLength(response.body))
    seen.push(...page.cards.map((card) => card.cardID))
    cursor = page.nextCursor
  } while (cursor !== undefined)
  t.ok(bodies.length >= 4, `${bodies.length} pages`)
  t.ok(bodies.every((bytes) => bytes <= MAX_PAGE_BYTES + 16 * 1024), `every answer at most a little over 4 MiB: ${bodies.join(', ')} bytes`)
  t.ok(bodies.slice(0, -1).every((bytes) => bytes > MAX_PAGE_BYTES - 200 * 1024), 'each page but the last is full: its next card would not have fitted')
  t.strictSame(seen, ids, 'every card once, in creation order')
})

test('get-all-cards with content: a library larger than a page comes in pages of its tree; without content, the tree as before', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app)
  const other = await registerUser(app)
  const decks = [
    await makeDeck(app, user, { folder: ['Languages', 'Spanish'], name: 'Verbs', cards: 1000 }),
    await makeDeck(app, user, { folder: ['Languages', 'French'], name: 'Nouns', cards: 900 }),
    await makeDeck(app, user, { folder: ['Maths'], name: 'Sums', cards: 400 })
  ]
  const verbs = decks[0]?.flashcardID as string
  decks.push({ flashcardID: verbs, cardIDs: await addCards(app, user, verbs, 300, (n) => ({ front: `later verb ${n}`, back: 'b' })) })
  await makeDeck(app, user, { folder: ['Empty deck here'], name: 'Nothing', cards: [] })
  await expectOk(app, 'create-folder', { jwtToken: user.jwtToken, path: ['Empty folder'] }, 201)
  await makeDeck(app, other, { folder: ['Languages', 'Spanish'], name: 'Verbs', cards: 10 })

  const pages = await libraryPages(app, user.jwtToken)
  t.strictSame(pages.map((page) => Object.keys(page).sort()), [['library', 'nextCursor'], ['library', 'nextCursor'], ['library']],
    'three pages {library, nextCursor}, the last without a cursor')
  const perPage = pages.map((page) => [...flashcardsIn(page.library).values()].reduce((sum, flashcard) => sum + Object.keys(flashcard.cards).length, 0))
  t.strictSame(perPage, [1000, 1000, 600], 'at most 1,000 cards a page')
  const everyCard = new Map<string, string[]>()
  for (const page of pages) {
    for (const [flashcardID, flashcard] of flashcardsIn(page.library)) everyCard.set(flashcardID, [...everyCard.get(flashcardID) ?? [], ...Object.keys(flashcard.cards)])
  }
  const byFlashcard = new Map<string, string[]>()
  for (const deck of decks) byFlashcard.set(deck.flashcardID, [...byFlashcard.get(deck.flashcardID) ?? [], ...deck.cardIDs])
  for (const [flashcardID, cardIDs] of byFlashcard) {
    t.strictSame(everyCard.get(flashcardID)?.slice().sort(), cardIDs.slice().sort(), `every card of ${flashcardID} once, in its own flashcard`)
  }
  const [firstPage, ...later] = pages as [LibraryPage, ...LibraryPage[]]
  t.strictSame(firstPage.library['Empty folder'], {}, 'the first page holds the empty folder')
  t.match(firstPage.library['Empty deck here'], { Nothing: { cards: {}, flashcardName: 'Nothing' } }, 'and the flashcard without cards')
  t.ok(later.every((page) => !('Empty folder' in page.library) && !('Empty deck here' in page.library)), 'the next pages only what holds their cards')
  t.ok(flashcardsIn(firstPage.library).get(verbs)?.cards[decks[0]?.cardIDs[0] as string]?.front !== undefined, 'each card with its content')

  const whole = await expectOk<Record<string, unknown>>(app, 'get-all-cards', { jwtToken: user.jwtToken })
  t.strictSame(Object.keys(whole).sort(), ['Empty deck here', 'Empty folder', 'Languages', 'Maths'], 'without content: the tree itself, as before')
  const wholeCards = [...flashcardsIn(whole).values()].flatMap((flashcard) => Object.entries(flashcard.cards))
  t.equal(wholeCards.length, 2600, 'every card at once')
  t.ok(wholeCards.every(([, card]) => Object.keys(card).join() === 'last_review,review_status'), 'each {last_review, review_status} only')
  await expectRefusal(t, app, 'get-all-cards', { jwtToken: user.jwtToken, cursor: firstPage.nextCursor }, 400, 'invalid_field', 'a cursor without content')
})

test('a cursor is the service\'s own, for one read, and only narrows the caller\'s own cards', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const alice = await registerUser(app)
  const bob = await registerUser(app)
  const hers = await makeDeck(app, alice, { folder: ['A'], name: 'Hers', cards: 1000 })
  await addCards(app, alice, hers.flashcardID, 5, (n) => ({ front: `hers ${n}`, back: 'b' }))
  const herOther = await makeDeck(app, alice, { folder: ['A'], name: 'Other', cards: 3 })
  const his = await makeDeck(app, bob, { folder: ['B'], name: 'His', cards: 20 })
  const herPage = await expectOk<{ nextCursor: string }>(app, 'get-flashcard', { jwtToken: alice.jwtToken, flashcardID: hers.flashcardID })
  const herLibraryPage = await expectOk<LibraryPage>(app, 'get-all-cards', { jwtToken: alice.jwtToken, content: true })
  t.type(herLibraryPage.nextCursor, 'string')

  const asCursor = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')
  const [order, cardID] = JSON.parse(Buffer.from(herPage.nextCursor, 'base64url').toString()).after as [number, string]
  const malformed: Array<[string, string]> = [
    ['not base64url', 'not a cursor!'],
    ['base64url of no JSON', Buffer.from('{"of":').toString('base64url')],
    ['JSON of another shape', asCursor([hers.flashcardID, order, cardID])],
    ['a createdOrder that is no number', asCursor({ of: hers.flashcardID, after: [String(order), cardID] })],
    ['a card id that is no id', asCursor({ of: hers.flashcardID, after: [order, 'x'] })],
    ['a field more', asCursor({ of: hers.flashcardID, after: [order, cardID], userID: bob.userID })],
    ['another flashcard\'s cursor', asCursor({ of: herOther.flashcardID, after: [order, cardID] })],
    ['get-all-cards\' cursor', herLibraryPage.nextCursor as string],
    ['over 512 characters', 'A'.repeat(513)]
  ]
  for (const [what, cursor] of malformed) {
    const refused = await expectRefusal(t, app, 'get-flashcard', { jwtToken: alice.jwtToken, flashcardID: hers.flashcardID, cursor }, 400, 'invalid_field', `get-flashcard, ${what}`)
    if (what !== 'over 512 characters') t.match(refused.error, /send the nextCursor of the previous answer/, `${what}: the sentence says what to send`)
  }
  await expectRefusal(t, app, 'get-all-cards', { jwtToken: alice.jwtToken, content: true, cursor: herPage.nextCursor }, 400, 'invalid_field', 'get-all-cards, a flashcard\'s cursor')
  await expectRefusal(t, app, 'get-all-cards', { jwtToken: alice.jwtToken, content: true, cursor: 'bm90IGpzb24' }, 400, 'invalid_field', 'get-all-cards, no JSON')

  // Bob with Alice's cursors
  await expectRefusal(t, app, 'get-flashcard', { jwtToken: bob.jwtToken, flashcardID: hers.flashcardID, cursor: herPage.nextCursor }, 404, 'flashcard_not_found', 'her flashcard and cursor')
  await expectRefusal(t, app, 'get-flashcard', { jwtToken: bob.jwtToken, flashcardID: his.flashcardID, cursor: herPage.nextCursor }, 400, 'invalid_field', 'his flashcard, her cursor')
  const bobPages = [await expectOk<LibraryPage>(app, 'get-all-cards', { jwtToken: bob.jwtToken, content: true, cursor: herLibraryPage.nextCursor })]
  const herCards = new Set([...hers.cardIDs, ...herOther.cardIDs])
  const bobCards = [...flashcardsIn(bobPages[0]?.library ?? {}).values()].flatMap((flashcard) => Object.keys(flashcard.cards))
  t.ok(bobCards.every((id) => his.cardIDs.includes(id)) && !bobCards.some((id) => herCards.has(id)), 'her library cursor gives him only his own cards, after its place')
  t.notOk(JSON.stringify(bobPages).includes('Hers'), 'and nothing of her tree')
})

test('get-flashcard with cardIDs gives only those of its cards, in creation order, paged the same way', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app)
  const other = await registerUser(app)
  const deck = await makeDeck(app, user, { folder: ['F'], name: 'Deck', cards: 1000 })
  const more = await addCards(app, user, deck.flashcardID, 200, (n) => ({ front: `more ${n}`, back: 'b' }))
  const elsewhere = await makeDeck(app, user, { folder: ['F'], name: 'Elsewhere', cards: 2 })
  const theirs = await makeDeck(app, other, { folder: ['F'], name: 'Theirs', cards: 2 })
  const wanted = [more[150], deck.cardIDs[3], more[0], deck.cardIDs[999]] as string[]
  const answer = await expectOk<{ cards: ShownCard[], nextCursor?: string }>(app, 'get-flashcard', {
    jwtToken: user.jwtToken, flashcardID: deck.flashcardID, cardIDs: [...wanted, deck.cardIDs[3], ...elsewhere.cardIDs, ...theirs.cardIDs]
  })
  t.strictSame(answer.cards.map((card) => card.cardID), [deck.cardIDs[3], deck.cardIDs[999], more[0], more[150]],
    'the cards asked for of this flashcard, once each, in creation order; another flashcard\'s and another user\'s left out')
  t.equal(answer.nextCursor, undefined)

  const all = [...deck.cardIDs, ...more]
  const pages = await flashcardPages<ShownCard>(app, user.jwtToken, deck.flashcardID, { cardIDs: all.slice(100, 100 + MAX_CARDS_PER_PAGE) })
  t.strictSame(pages.map((page) => page.cards.length), [MAX_CARDS_PER_PAGE], '1,000 ids fit one page of small cards')
  await expectRefusal(t, app, 'get-flashcard', { jwtToken: user.jwtToken, flashcardID: deck.flashcardID, cardIDs: all.slice(0, MAX_CARDS_PER_PAGE + 1) }, 400, 'invalid_field', '1,001 ids')
})
