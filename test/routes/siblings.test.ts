// Sibling burying: answering a card buries the other cards of its note (a cloze note's, or an
// Anki note's by its guid) until the user's next day, as the three settings say, in the review's
// transaction; undo-review puts back those it buried.
import type { FastifyInstance } from 'fastify'
import { test } from 'tap'
import type { CardDocument } from '../../src/repositories/cards.js'
import { buildTestApp, databaseOf, expectOk, post, registerUser, type TestUser } from '../helpers/app.js'
import { storedCard, storedCards } from '../helpers/stored.js'
import { craftedPackage } from '../helpers/anki-craft.js'
import { importAnki } from '../helpers/anki-import.js'
import { cardsByFlashcard } from '../helpers/today-queues.js'

const DAY = 86_400_000

function study (app: FastifyInstance, user: TestUser) {
  const call = async <T>(operation: string, body: object = {}): Promise<T> => await expectOk<T>(app, operation, { jwtToken: user.jwtToken, ...body })
  return {
    call,
    /** the ids of today's cards, as get-today-cards gives them */
    today: async (): Promise<Set<string>> => new Set([...cardsByFlashcard(await call('get-today-cards')).values()].flat()),
    /** the ids of the study queue's first page */
    queue: async (): Promise<Set<string>> => new Set((await call<{ cards: Array<{ cardID: string }> }>('get-study-queue')).cards.map((card) => card.cardID)),
    review: async (flashcardID: string, cardID: string, rating = 'good') => await call('review-card', { flashcardID, cardID, rating }),
    settings: async (changes: Record<string, unknown>) => await call('update-settings', changes)
  }
}

async function stored (app: FastifyInstance, cardID: string): Promise<CardDocument | null> {
  return await storedCard(app, cardID)
}

/** A flashcard holding one cloze note of three cards and one card of its own; the note's card ids, then the other's. */
async function clozeDeck (app: FastifyInstance, user: TestUser, name: string) {
  await post(app, 'create-folder', { jwtToken: user.jwtToken, path: ['Spanish'] })
  const { flashcardID, cardIDs } = await expectOk<{ flashcardID: string, cardIDs: string[] }>(app, 'create-flashcard', {
    jwtToken: user.jwtToken,
    folder: ['Spanish'],
    flashcardName: name,
    cards: [{ cloze: '{{c1::Madrid}} is the capital of {{c2::España}}, in {{c3::Europa}}' }, { front: 'Car', back: 'Auto' }]
  }, 201)
  const [first, second, third, other] = cardIDs as [string, string, string, string]
  return { flashcardID, first, second, third, other }
}

test('answering a card of a cloze note buries its new siblings until the user\'s next day', async (t) => {
  // 10:00 in Madrid (UTC+2 in April): the next day starts at 04:00 there, 02:00 UTC
  const clock = { now: new Date('2026-04-10T08:00:00Z') }
  const app = await buildTestApp(t, import.meta.filename, { clock: () => clock.now })
  const nextDay = new Date('2026-04-11T02:00:00Z')

  await t.test('the other cards of the note leave today\'s cards and the study queue; a card of another note stays', async (t) => {
    const user = await registerUser(app, { timezone: 'Europe/Madrid' })
    const me = study(app, user)
    const note = await clozeDeck(app, user, 'Capitals')
    t.strictSame(await me.today(), new Set([note.first, note.second, note.third, note.other]))
    const answer = await me.review(note.flashcardID, note.first) as { buriedSiblings?: string[] }
    t.strictSame(new Set(answer.buriedSiblings), new Set([note.second, note.third]), 'the answer names the siblings it buried, for a client holding them to drop')
    t.strictSame(await me.today(), new Set([note.first, note.other]), 'the answered card (learning, due in minutes) and the other note\'s card')
    t.strictSame(await me.queue(), new Set([note.first, note.other]))
    for (const cardID of [note.second, note.third]) {
      t.match(await stored(app, cardID), { isNew: 'buried', buriedUntil: nextDay, buriedAsSibling: true }, 'buried until the start of the user\'s next day')
    }
    t.notOk((await stored(app, note.other))?.buriedUntil, 'a card of another note is not a sibling')
    const shown = await me.call<{ cards: Array<{ cardID: string, buriedUntil?: string }> }>('get-flashcard', { flashcardID: note.flashcardID })
    t.equal(shown.cards.find((card) => card.cardID === note.second)?.buriedUntil, '11/04/2026', 'shown as buried until the next day, in the user\'s calendar')

    clock.now = new Date(nextDay.getTime() - 1)
    t.notOk((await me.today()).has(note.second), 'still buried a millisecond before the day starts')
    clock.now = nextDay
    const back = await me.today()
    t.ok(back.has(note.second) && back.has(note.third), 'back once the next day has begun')
    clock.now = new Date('2026-04-10T08:00:00Z')
  })

  await t.test('with buryNewSiblings off, the siblings stay', async (t) => {
    const user = await registerUser(app, { timezone: 'Europe/Madrid' })
    const me = study(app, user)
    t.match(await me.settings({ buryNewSiblings: false }), { buryNewSiblings: 'false' })
    const note = await clozeDeck(app, user, 'Capitals')
    const answer = await me.review(note.flashcardID, note.first) as Record<string, unknown>
    t.notOk('buriedSiblings' in answer, 'an answer that buried none names none')
    t.strictSame(await me.today(), new Set([note.first, note.second, note.third, note.other]))
    t.equal((await stored(app, note.second))?.isNew, true)
  })

  await t.test('a suspended sibling stays suspended and is not buried; one the user buried is left to its own burial', async (t) => {
    const user = await registerUser(app, { timezone: 'Europe/Madrid' })
    const me = study(app, user)
    const note = await clozeDeck(app, user, 'Capitals')
    await me.call('suspend-card', { flashcardID: note.flashcardID, cardID: note.second })
    await me.review(note.flashcardID, note.first)
    const suspended = await stored(app, note.second)
    t.equal(suspended?.isNew, 'suspended')
    t.notOk(suspended?.buriedUntil, 'not buried')
    t.notOk(suspended?.buriedAsSibling)
    t.match(await stored(app, note.third), { isNew: 'buried', buriedAsSibling: true })
    const review = await databaseOf(app).collection('reviews').findOne({ userID: user.userID, cardID: note.first })
    t.strictSame(review?.buriedSiblings, { cardIDs: [note.third], until: nextDay }, 'the review records the sibling it buried, and only it')

    await me.call('undo-review')
    t.equal((await stored(app, note.second))?.isNew, 'suspended', 'undo leaves the suspended sibling suspended')
    t.equal((await stored(app, note.third))?.isNew, true, 'and puts back the one it buried')
  })

  await t.test('undo-review puts back the siblings that answer buried, and only those', async (t) => {
    const user = await registerUser(app, { timezone: 'Europe/Madrid' })
    const me = study(app, user)
    const note = await clozeDeck(app, user, 'Capitals')
    // buried by the user before the answer: not the answer's to put back
    await me.call('bury-card', { flashcardID: note.flashcardID, cardID: note.third })
    await me.review(note.flashcardID, note.first)
    t.match(await stored(app, note.second), { isNew: 'buried', buriedAsSibling: true })
    await me.call('undo-review')
    t.strictSame(await me.today(), new Set([note.first, note.second, note.other]), 'the sibling the answer buried is back among today\'s cards')
    t.strictSame(await me.queue(), new Set([note.first, note.second, note.other]))
    const second = await stored(app, note.second)
    t.equal(second?.isNew, true)
    t.notOk(second?.buriedUntil)
    t.notOk(second?.buriedAsSibling)
    t.match(await stored(app, note.third), { isNew: 'buried', buriedUntil: nextDay }, 'the card the user buried stays buried')
    t.notOk((await stored(app, note.third))?.buriedAsSibling)
  })

  await t.test('an unburied sibling is not buried again by undo', async (t) => {
    const user = await registerUser(app, { timezone: 'Europe/Madrid' })
    const me = study(app, user)
    const note = await clozeDeck(app, user, 'Capitals')
    await me.review(note.flashcardID, note.first)
    t.match(await stored(app, note.second), { isNew: 'buried', buriedAsSibling: true })
    await me.call('unbury-card', { flashcardID: note.flashcardID, cardID: note.second })
    t.equal((await stored(app, note.second))?.isNew, true, 'unburied by the user')
    await me.call('undo-review')
    t.equal((await stored(app, note.second))?.isNew, true)
    t.equal((await stored(app, note.third))?.isNew, true)
  })
})

test('review siblings are buried when a review card is answered; a new card answered leaves them, as in Anki', async (t) => {
  const clock = { now: new Date('2026-04-10T08:00:00Z') }
  const app = await buildTestApp(t, import.meta.filename, { clock: () => clock.now })

  /** A note of three cards, all reviews due today 40 days on (new siblings not buried while they were learned). */
  async function reviewedNote (user: TestUser) {
    const me = study(app, user)
    await me.settings({ buryNewSiblings: false })
    const note = await clozeDeck(app, user, `Capitals ${user.userID}`)
    for (const cardID of [note.first, note.second, note.third]) await me.review(note.flashcardID, cardID, 'easy')
    for (const cardID of [note.first, note.second, note.third]) t.equal((await stored(app, cardID))?.state, 2, 'a review card')
    await me.settings({ buryNewSiblings: true })
    return { me, note }
  }

  await t.test('buried with buryReviewSiblings, kept without', async (t) => {
    const user = await registerUser(app, { timezone: 'Europe/Madrid' })
    const { me, note } = await reviewedNote(user)
    const other = await registerUser(app, { timezone: 'Europe/Madrid' })
    const kept = await reviewedNote(other)
    t.match(await kept.me.settings({ buryReviewSiblings: false }), { buryReviewSiblings: 'false' })
    clock.now = new Date(clock.now.getTime() + 40 * DAY)
    t.strictSame(await me.today(), new Set([note.first, note.second, note.third, note.other]))

    await me.review(note.flashcardID, note.first)
    t.strictSame(await me.today(), new Set([note.other]))
    t.match(await stored(app, note.second), { isNew: 'buried', buriedAsSibling: true })

    await kept.me.review(kept.note.flashcardID, kept.note.first)
    t.strictSame(await kept.me.today(), new Set([kept.note.second, kept.note.third, kept.note.other]), 'buryReviewSiblings off: the review siblings stay')
    clock.now = new Date('2026-04-10T08:00:00Z')
  })

  await t.test('answering a new card buries its new siblings, never a review sibling due today', async (t) => {
    const user = await registerUser(app, { timezone: 'Europe/Madrid' })
    const me = study(app, user)
    const note = await clozeDeck(app, user, 'Mixed')
    await me.settings({ buryNewSiblings: false })
    await me.review(note.flashcardID, note.first, 'easy')
    await me.settings({ buryNewSiblings: true })
    clock.now = new Date(clock.now.getTime() + 40 * DAY)
    // the second card is new, the first a review due: answering the new one buries the third, not the first
    await me.review(note.flashcardID, note.second)
    t.equal((await stored(app, note.first))?.isNew, false, 'the review sibling stays in its queue')
    t.match(await stored(app, note.third), { isNew: 'buried', buriedAsSibling: true }, 'the new sibling is buried')
    clock.now = new Date('2026-04-10T08:00:00Z')
  })
})

/**
 * A package of one reversed note (two cards of one guid, cards 1 and 2 of the note type), and
 * its preset's bury options as given.
 */
async function reversedNotePackage (t: { teardown: (fn: () => unknown) => void }, bury: { new: boolean, rev: boolean, interday: boolean }): Promise<Buffer> {
  return await craftedPackage(t, { cards: 1, revlog: 1, decks: [['Words']], guidPrefix: 'reversed', fields: () => ['Car', 'Auto'] }, (db) => {
    db.exec(`update col set models = json_insert(models, '$."1600000000000".tmpls[#]',
      json('{"name": "Card 2", "ord": 1, "qfmt": "{{Back}}", "afmt": "{{FrontSide}}<hr id=answer>{{Front}}", "did": null}'))`)
    db.exec(`update col set dconf = json_set(dconf, '$."1".new.bury', json('${String(bury.new)}'), '$."1".rev.bury', json('${String(bury.rev)}'),
      '$."1".buryInterdayLearning', json('${String(bury.interday)}'))`)
    db.exec('insert into cards select id + 1, nid, did, 1, mod, usn, type, queue, due, ivl, factor, reps, lapses, left, odue, odid, flags, data from cards')
  })
}

test('the cards of one imported Anki note are siblings; another user\'s cards of that note are never touched', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const file = await reversedNotePackage(t, { new: true, rev: true, interday: false })

  async function importedNote (user: TestUser, withScheduling: string) {
    const status = await importAnki(app, user.jwtToken, file, { withScheduling })
    t.equal(status.state, 'done', JSON.stringify(status))
    const cards = await storedCards(app, { userID: user.userID }, { ankiOrd: 1 })
    t.equal(cards.length, 2)
    t.equal(cards[0]?.ankiGuid, cards[1]?.ankiGuid, 'one note')
    return cards as [CardDocument, CardDocument]
  }

  await t.test('new cards: answering the front buries the reverse', async (t) => {
    const user = await registerUser(app)
    const other = await registerUser(app)
    const me = study(app, user)
    const [front, reverse] = await importedNote(user, 'false')
    const [, othersReverse] = await importedNote(other, 'false')
    t.strictSame(await me.today(), new Set([front._id, reverse._id]))
    await me.review(front.flashcardID, front._id)
    t.strictSame(await me.today(), new Set([front._id]))
    t.match(await stored(app, reverse._id), { isNew: 'buried', buriedAsSibling: true })
    t.match(await stored(app, othersReverse._id), { isNew: true, version: othersReverse.version }, 'the other user\'s card of the same guid is as it was')
    t.notOk((await stored(app, othersReverse._id))?.buriedUntil)

    await me.call('undo-review')
    t.strictSame(await me.today(), new Set([front._id, reverse._id]), 'undo puts the reverse back')
  })

  await t.test('review cards: answering one buries the other (the preset buries review siblings)', async (t) => {
    const user = await registerUser(app)
    const me = study(app, user)
    const [front, reverse] = await importedNote(user, 'true')
    t.equal(front.state, 2)
    t.equal(reverse.state, 2)
    t.strictSame(await me.today(), new Set([front._id, reverse._id]), 'both overdue')
    await me.review(front.flashcardID, reverse._id)
    t.notOk((await me.today()).has(front._id))
    t.match(await stored(app, front._id), { isNew: 'buried', buriedAsSibling: true })
  })
})

test('an import with scheduling takes the bury options of the preset most of its cards use', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const cases: Array<[{ new: boolean, rev: boolean, interday: boolean }, Record<string, string>]> = [
    [{ new: false, rev: false, interday: false }, { buryNewSiblings: 'false', buryReviewSiblings: 'false', buryInterdayLearningSiblings: 'false' }],
    [{ new: true, rev: false, interday: true }, { buryNewSiblings: 'true', buryReviewSiblings: 'false', buryInterdayLearningSiblings: 'true' }]
  ]
  for (const [bury, expected] of cases) {
    const user = await registerUser(app)
    const file = await reversedNotePackage(t, bury)
    t.equal((await importAnki(app, user.jwtToken, file)).state, 'done')
    t.match(await expectOk(app, 'get-user', { jwtToken: user.jwtToken }), expected, JSON.stringify(bury))
  }
  // without scheduling, the account keeps its own
  const user = await registerUser(app)
  t.equal((await importAnki(app, user.jwtToken, await reversedNotePackage(t, { new: false, rev: false, interday: true }), { withScheduling: 'false' })).state, 'done')
  t.match(await expectOk(app, 'get-user', { jwtToken: user.jwtToken }), { buryNewSiblings: 'true', buryReviewSiblings: 'true', buryInterdayLearningSiblings: 'false' })
})

test('today\'s new cards come by card type, then creation order (Anki\'s default): the cards of a note apart, burying on or off', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app)
  const me = study(app, user)
  const a = await clozeDeck(app, user, 'First')
  const b = await clozeDeck(app, user, 'Second')
  // a word and its reverse, as an Anki import keeps them: templates 0 and 1 of one note
  const words = await expectOk<{ cardIDs: string[] }>(app, 'add-cards', {
    jwtToken: user.jwtToken, flashcardID: b.flashcardID, cards: [{ front: 'Perro', back: 'Dog' }, { front: 'Dog', back: 'Perro' }]
  }, 201)
  const cards = databaseOf(app).collection<CardDocument>('cards')
  const states = databaseOf(app).collection<CardDocument>('cardStates')
  for (const [index, cardID] of words.cardIDs.entries()) {
    await cards.updateOne({ _id: cardID }, { $set: { ankiGuid: 'perro-note', ankiOrd: index } })
    // the card type is copied into the state, which orders the queues by it
    await states.updateOne({ _id: cardID }, { $set: { ankiOrd: index } })
  }
  const [forward, reverse] = words.cardIDs as [string, string]
  const expected = [a.first, a.other, b.first, b.other, forward, a.second, b.second, reverse, a.third, b.third]
  const order = async (): Promise<string[]> => (await me.call<{ cards: Array<{ cardID: string }> }>('get-study-queue')).cards.map((card) => card.cardID)
  t.strictSame(await order(), expected, 'every note\'s first card in creation order, then every second card, then every third')
  t.strictSame(await me.today(), new Set(expected), 'the same cards as get-today-cards')

  await me.settings({ buryNewSiblings: false })
  await me.review(a.flashcardID, a.first, 'easy')
  t.strictSame(await order(), expected.slice(1), 'answered, the first card leaves; its siblings stay where their type puts them')

  // one new card started today: four left, the next four in creation order (the note's last two, Car, then the second deck's first)
  await me.settings({ newCardsPerDay: 5 })
  t.strictSame(await order(), [a.other, b.first, a.second, a.third], 'which cards are today\'s is creation order still; only their order is by type')
})
