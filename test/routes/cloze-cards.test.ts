import { test } from 'tap'
import type { AppConfig } from '../../src/app.js'
import { buildTestApp, databaseOf, post, registerUser } from '../helpers/app.js'
import { storedCard } from '../helpers/stored.js'

interface Card {
  cardID: string
  front: string
  back: string
  format: string
  frontHtml: string
  backHtml: string
  noteID?: string
  clozeNumber?: string
  review_status: string
  last_review: string
  due: string
}

const MEDIA = { paris: '111111111111111111111111111111111111111', anthem: '222222222222222222222222222222222222222' }

async function setUp (t: { teardown: (fn: () => unknown) => void }, config: Partial<AppConfig> = {}) {
  let now = new Date('2026-05-04T12:00:00Z')
  const app = await buildTestApp(t, import.meta.filename, { clock: () => now, mediaUrl: (_userID, mediaID) => `/media/${mediaID}`, ...config })
  const user = await registerUser(app)
  const send = async (operation: string, body: object = {}) => await post(app, operation, { jwtToken: user.jwtToken, ...body })
  const call = async (operation: string, body: object = {}) => {
    const response = await send(operation, body)
    if (response.statusCode >= 300) throw new Error(`${operation}: ${response.statusCode} ${response.body}`)
    return response.json()
  }
  await call('create-folder', { path: ['Geography'] })
  let made = 0
  const flashcard = async (cards: object[]): Promise<{ flashcardID: string, cardIDs: string[] }> =>
    await call('create-flashcard', { folder: ['Geography'], flashcardName: made++ === 0 ? 'Capitals' : `Capitals ${made}`, cards })
  const cards = async (flashcardID: string): Promise<Card[]> => (await call('get-flashcard', { flashcardID })).cards
  // the card made whole, as a record of fields that the checks name by their names
  const stored = async (cardID: string) => await storedCard(app, cardID) as Record<string, unknown> | null
  const usage = async () => (await databaseOf(app).collection('users').findOne({ _id: user.userID as never }))?.usage?.cards ?? 0
  const later = (ms: number) => { now = new Date(now.getTime() + ms) }
  return { app, user, send, call, flashcard, cards, stored, usage, later }
}

test('a cloze note makes one card per number, each asking for its own deletions', async (t) => {
  const { flashcard, cards, call } = await setUp(t)
  const { flashcardID, cardIDs } = await flashcard([
    { front: 'before', back: 'a card' },
    { cloze: '{{c1::Paris}} is the capital of {{c2::France::country}}; {{c1::Lyon}} is not', back: 'Back <extra>' },
    { front: 'after', back: 'a card' }
  ])
  t.equal(cardIDs.length, 4, 'a card, the note\'s two, a card: in the order written')
  const [before, first, second, after] = await cards(flashcardID)
  t.equal(before?.front, 'before')
  t.equal(after?.front, 'after')
  t.ok(first?.noteID !== undefined && first.noteID === second?.noteID, 'the note\'s cards share its noteID')
  t.match(before, { noteID: before?.cardID, ord: '0' }, 'a card of a front and a back is a note of its own, under its id')
  t.match(first, {
    cardID: cardIDs[1],
    front: '{{c1::Paris}} is the capital of {{c2::France::country}}; {{c1::Lyon}} is not',
    back: 'Back <extra>',
    format: 'text',
    clozeNumber: '1',
    frontHtml: '<span class="cloze">[...]</span> is the capital of France; <span class="cloze">[...]</span> is not',
    backHtml: '<span class="cloze">Paris</span> is the capital of France; <span class="cloze">Lyon</span> is not<br>Back &lt;extra&gt;',
    review_status: '0.0'
  })
  t.match(second, {
    cardID: cardIDs[2],
    clozeNumber: '2',
    frontHtml: 'Paris is the capital of <span class="cloze">[country]</span>; Lyon is not',
    backHtml: 'Paris is the capital of <span class="cloze">France</span>; Lyon is not<br>Back &lt;extra&gt;'
  })
  const tree = (await call('get-all-cards', { content: true })).library
  t.match(tree.Geography.Capitals.cards[cardIDs[2] as string], { clozeNumber: '2', noteID: first?.noteID, frontHtml: second?.frontHtml })

  const html = await call('add-cards', {
    flashcardID,
    cards: [{ cloze: `{{c1::<b>Paris</b>}} <img src="media:${MEDIA.paris}"> {{c2::<i>France</i>::<u>a country</u>}}`, format: 'html' }]
  })
  const [htmlFirst, htmlSecond] = (await cards(flashcardID)).slice(4)
  t.equal(html.cardIDs.length, 2)
  t.equal(htmlFirst?.frontHtml, `<span class="cloze">[...]</span> <img src="/media/${MEDIA.paris}" /> <i>France</i>`, 'markup inside the answers')
  t.equal(htmlSecond?.frontHtml, `<b>Paris</b> <img src="/media/${MEDIA.paris}" /> <span class="cloze">[<u>a country</u>]</span>`)
  t.equal(htmlSecond?.backHtml, `<b>Paris</b> <img src="/media/${MEDIA.paris}" /> <span class="cloze"><i>France</i></span>`, 'the answer highlighted, no extra')
})

test('what a cloze note must be: a deletion, not a front too, at most 1,000 cards a request', async (t) => {
  const { send, flashcard, usage } = await setUp(t)
  const { flashcardID } = await flashcard([])
  const refusals = [
    [{ cloze: 'no deletion {{c0::here}}' }, 'invalid_cloze', /body\.cards\.0\.cloze holds no cloze deletion: write each answer as \{\{c1::answer\}\}/],
    [{ cloze: '{{c1::x}}', front: 'y', back: 'z' }, 'invalid_field', /body\.cards\.0 has both "front" and "cloze"/],
    [{ back: 'z' }, 'invalid_field', /body\.cards\.0 is missing the field "front"/],
    [{ front: 'y' }, 'invalid_field', /body\.cards\.0 is missing the field "back"/],
    [[{ cloze: '{{c1::x}}' }, { cloze: '' }], 'invalid_field', /body\.cards\.1\.cloze is empty/],
    [[{ cloze: '{{c1::x}}' }, { cloze: '{{c2::y::' }], 'invalid_cloze', /body\.cards\.1\.cloze holds no cloze deletion/]
  ] as const
  const many = Array.from({ length: 501 }, (_, n) => `{{c${n + 1}::x}}`).join('')
  const tooMany = await send('add-cards', { flashcardID, cards: [{ cloze: many }, { cloze: many }] })
  t.match({ status: tooMany.statusCode, ...tooMany.json() }, {
    status: 400, code: 'invalid_field', error: 'body.cards would make 1,002 cards (a cloze note makes one for each number), and a request makes at most 1,000: send them in several requests'
  })
  for (const [written, code, error] of refusals) {
    const response = await send('add-cards', { flashcardID, cards: Array.isArray(written) ? written : [written] })
    t.equal(response.statusCode, 400, JSON.stringify(written).slice(0, 60))
    t.match(response.json(), { code, error })
  }
  t.equal(await usage(), 0, 'nothing stored')
})

test('editing a note\'s text: numbers kept keep their cards and schedules, a number gone goes, a new number gets a card', async (t) => {
  const { call, send, flashcard, cards, stored, usage, later } = await setUp(t)
  const { flashcardID, cardIDs } = await flashcard([{ cloze: '{{c1::Paris}} is the capital of {{c2::France}}' }])
  const [c1, c2] = cardIDs as [string, string]
  later(60_000)
  await call('review-card', { flashcardID, cardID: c1, rating: 'good' })
  const reviewed = await stored(c1)
  const answerBefore = (await cards(flashcardID))[0]

  later(60_000)
  const edited = await call('edit-card', { flashcardID, cardID: c2, cloze: '{{c1::Paris}} is the capital of France and {{c3::Europe}}\'s {{c3::largest}} city?', back: 'extra' })
  t.strictSame(edited.kept, [c1], 'c1 still there')
  t.strictSame(edited.removed, [c2], 'c2 gone, with its card, though the edit was sent to it')
  t.equal(edited.added.length, 1, 'c3 is new')
  const c3 = edited.added[0] as string
  t.strictSame(edited.cards.map((card: Card) => [card.cardID, card.clozeNumber]), [[c1, '1'], [c3, '3']], 'the note as it now is, by number')
  t.equal(edited.noteID, answerBefore?.noteID)

  const now = await cards(flashcardID)
  t.strictSame(now.map((card) => card.cardID), [c1, c3], 'get-flashcard agrees')
  const [first, third] = now as [Card, Card]
  t.match(first, { review_status: answerBefore?.review_status, last_review: answerBefore?.last_review, due: answerBefore?.due, back: 'extra' }, 'c1 keeps its schedule')
  t.not(first.review_status, '0.0')
  const storedFirst = await stored(c1)
  for (const field of ['state', 'due', 'stability', 'difficulty', 'reps', 'lapses', 'lastReview', 'learningSteps', 'version', 'lastReviewID', 'createdOrder']) {
    t.same(storedFirst?.[field], reviewed?.[field], `c1's ${field} as the review left it`)
  }
  t.equal(first.frontHtml, '<span class="cloze">[...]</span> is the capital of France and Europe&#39;s largest city?', 'c1 shows the new text')
  t.equal(third.frontHtml, 'Paris is the capital of France and <span class="cloze">[...]</span>&#39;s <span class="cloze">[...]</span> city?')
  t.match(third, { review_status: '0.0', clozeNumber: '3' }, 'c3 is a new card')
  t.equal(await usage(), 2, 'the account holds 2 cards')

  const today = await call('get-today-cards')
  t.ok(Object.hasOwn(today.Geography.Capitals.cards, c3), 'the new card is among today\'s new cards')
  t.notOk(Object.hasOwn(today.Geography.Capitals.cards, c2), 'the removed one is not')

  const back = await call('edit-card', { flashcardID, cardID: c3, back: 'only the back extra' })
  t.strictSame([back.kept, back.added, back.removed], [[c1, c3], [], []], 'an edit of the back extra alone keeps every card')
  t.ok(back.cards.every((card: Card) => card.back === 'only the back extra' && card.backHtml.endsWith('<br>only the back extra')), 'every card of the note')

  for (const [body, code] of [
    [{ cardID: c1, front: 'x' }, 'wrong_card_kind'],
    [{ cardID: c1, cloze: 'no deletion' }, 'invalid_cloze'],
    [{ cardID: c1 }, 'nothing_to_change']
  ] as const) {
    const response = await send('edit-card', { flashcardID, ...body })
    t.match({ status: response.statusCode, code: response.json().code }, { status: 400, code }, code)
  }
  const basic = await flashcard([{ front: 'f', back: 'b' }])
  const response = await send('edit-card', { flashcardID: basic.flashcardID, cardID: basic.cardIDs[0], cloze: '{{c1::x}}' })
  t.match({ status: response.statusCode, code: response.json().code }, { status: 400, code: 'wrong_card_kind' }, 'cloze for a card of a front and a back')
  t.strictSame((await cards(flashcardID)).map((card) => card.cardID), [c1, c3], 'refused edits changed nothing')
})

test('deleting one card of a note takes its deletion out of the text; the others keep their schedules', async (t) => {
  const { call, flashcard, cards, stored, usage } = await setUp(t)
  const { flashcardID, cardIDs } = await flashcard([{
    cloze: `{{c1::Paris}} <img src="media:${MEDIA.paris}"> is in {{c2::France::country <audio src="media:${MEDIA.anthem}"></audio>}}`,
    format: 'html'
  }])
  const [c1, c2] = cardIDs as [string, string]
  await call('review-card', { flashcardID, cardID: c2, rating: 'easy' })
  const before = await stored(c2)
  t.strictSame((await stored(c1))?.media, [MEDIA.paris], 'c1 shows the image, not the anthem of c2\'s hint')
  t.strictSame((await stored(c2))?.media, [MEDIA.paris, MEDIA.anthem], 'c2 shows both')
  await call('delete-card', { flashcardID, cardID: c1 })
  const [left] = await cards(flashcardID)
  t.equal(left?.cardID, c2)
  t.equal(left?.front, `Paris <img src="media:${MEDIA.paris}"> is in {{c2::France::country <audio src="media:${MEDIA.anthem}"></audio>}}`, 'c1\'s answer stays, as text')
  t.equal(left?.frontHtml, `Paris <img src="/media/${MEDIA.paris}" /> is in <span class="cloze">[country <audio src="/media/${MEDIA.anthem}" controls></audio>]</span>`)
  const after = await stored(c2)
  for (const field of ['state', 'due', 'stability', 'difficulty', 'reps', 'lastReview']) t.same(after?.[field], before?.[field], `c2's ${field} kept`)
  t.strictSame(after?.media, [MEDIA.paris, MEDIA.anthem], 'c2 refers to what it shows')
  t.equal(await usage(), 1)
  await call('delete-card', { flashcardID, cardID: c2 })
  t.strictSame(await cards(flashcardID), [], 'the last card goes like any other')
  t.equal(await usage(), 0)
})

test('media stay exact through a note\'s edits', async (t) => {
  const { call, flashcard, stored } = await setUp(t)
  const { flashcardID, cardIDs } = await flashcard([{ cloze: `{{c1::<img src="media:${MEDIA.paris}">}} {{c2::x}}`, format: 'html' }])
  const [c1, c2] = cardIDs as [string, string]
  t.strictSame((await stored(c1))?.media, [MEDIA.paris], 'c1 shows the image on its back')
  t.strictSame((await stored(c2))?.media, [MEDIA.paris], 'c2 shows it filled in')
  await call('edit-card', { flashcardID, cardID: c1, cloze: '{{c1::y}} {{c2::x}}', back: `<audio src="media:${MEDIA.anthem}"></audio>` })
  t.strictSame((await stored(c1))?.media, [MEDIA.anthem])
  t.strictSame((await stored(c2))?.media, [MEDIA.anthem])
  await call('edit-card', { flashcardID, cardID: c1, format: 'text' })
  t.equal((await stored(c2))?.media, undefined, 'as plain text no media: the field removed')
})

test('a note\'s cards count against the card quota, on creation and on edits', async (t) => {
  const { send, call, flashcard, cards, usage } = await setUp(t, { quotas: { cards: 3 } })
  const { flashcardID } = await flashcard([])
  const over = await send('add-cards', { flashcardID, cards: [{ cloze: '{{c1::a}} {{c2::b}} {{c3::c}} {{c4::d}}' }] })
  t.match({ status: over.statusCode, code: over.json().code }, { status: 409, code: 'quota_exceeded' }, 'four cards where three fit')
  t.equal(await usage(), 0, 'nothing stored')
  const added = await call('add-cards', { flashcardID, cards: [{ cloze: '{{c1::a}} {{c2::b}}' }] })
  t.equal(await usage(), 2)
  const [c1] = added.cardIDs as [string]
  const grow = await send('edit-card', { flashcardID, cardID: c1, cloze: '{{c1::a}} {{c2::b}} {{c3::c}} {{c4::d}}' })
  t.match({ status: grow.statusCode, code: grow.json().code }, { status: 409, code: 'quota_exceeded' }, 'an edit that would pass the quota')
  t.match(await cards(flashcardID), [{ front: '{{c1::a}} {{c2::b}}' }, { front: '{{c1::a}} {{c2::b}}' }], 'and changed nothing')
  t.equal(await usage(), 2)
  await call('edit-card', { flashcardID, cardID: c1, cloze: '{{c1::a}} {{c3::c}} {{c4::d}}' })
  t.equal(await usage(), 3, 'one removed and two added: within the quota')
})

test('undo-review of a note\'s card restores its schedule and leaves the note\'s text as edited since', async (t) => {
  const { call, flashcard, cards } = await setUp(t)
  const { flashcardID, cardIDs } = await flashcard([{ cloze: '{{c1::a}} {{c2::b}}' }])
  const [c1, c2] = cardIDs as [string, string]
  await call('review-card', { flashcardID, cardID: c2, rating: 'good' })
  await call('edit-card', { flashcardID, cardID: c1, cloze: '{{c1::A}} {{c2::B}}' })
  const undone = await call('undo-review')
  t.match(undone, { cardID: c2, flashcardID, review_status: '0.0' })
  t.match(await cards(flashcardID), [{ cardID: c1, front: '{{c1::A}} {{c2::B}}' }, { cardID: c2, front: '{{c1::A}} {{c2::B}}', review_status: '0.0', frontHtml: 'A <span class="cloze">[...]</span>' }])
})

test('a card that an edit adds is among today\'s new cards, even once the new-card queue was read empty', async (t) => {
  const { call, flashcard, later } = await setUp(t)
  const { flashcardID, cardIDs } = await flashcard([{ cloze: '{{c1::a}} {{c2::b}}' }])
  for (const cardID of cardIDs) await call('review-card', { flashcardID, cardID, rating: 'good' })
  later(1000)
  const before = await call('get-today-cards')
  t.strictSame(Object.values(before.Geography?.Capitals?.cards ?? {}).filter((card) => (card as { review_status: string }).review_status === '0.0'), [],
    'no new card left: the queue is read empty, and its start moves past it')
  later(1000)
  const edited = await call('edit-card', { flashcardID, cardID: cardIDs[0], cloze: '{{c1::a}} {{c2::b}} {{c3::c}}' })
  const today = await call('get-today-cards')
  t.match(today.Geography.Capitals.cards[edited.added[0]], { review_status: '0.0' }, 'the new card is there')
})

test('a deletion of several cards, {{c1,2::…}}: a card for each number, kept with their schedules through edits and deletes', async (t) => {
  const { call, flashcard, cards, stored, usage, later } = await setUp(t)
  const { flashcardID, cardIDs } = await flashcard([{ cloze: '{{c1,2::Paris}} is the capital of {{c3::France}}' }])
  t.equal(cardIDs.length, 3, 'cards 1, 2 and 3')
  const [c1, c2, c3] = cardIDs as [string, string, string]
  const made = await cards(flashcardID)
  t.strictSame(made.map((card) => [card.clozeNumber, card.frontHtml, card.backHtml]), [
    ['1', '<span class="cloze">[...]</span> is the capital of France', '<span class="cloze">Paris</span> is the capital of France'],
    ['2', '<span class="cloze">[...]</span> is the capital of France', '<span class="cloze">Paris</span> is the capital of France'],
    ['3', 'Paris is the capital of <span class="cloze">[...]</span>', 'Paris is the capital of <span class="cloze">France</span>']
  ], 'cards 1 and 2 both ask for Paris')

  later(60_000)
  await call('review-card', { flashcardID, cardID: c2, rating: 'good' })
  const reviewed = await stored(c2)
  later(60_000)
  const edited = await call('edit-card', { flashcardID, cardID: c3, cloze: '{{c1,2::Paris::city}} is the capital of {{c3::France}}.' })
  t.strictSame([edited.kept, edited.added, edited.removed], [[c1, c2, c3], [], []], 'the edit keeps all three cards')
  const storedSecond = await stored(c2)
  for (const field of ['state', 'due', 'stability', 'difficulty', 'reps', 'lapses', 'lastReview', 'learningSteps', 'lastReviewID']) {
    t.same(storedSecond?.[field], reviewed?.[field], `card 2's ${field} as the review left it`)
  }
  t.not((await cards(flashcardID))[1]?.review_status, '0.0', 'card 2 is still a reviewed card')
  t.equal((await cards(flashcardID))[1]?.frontHtml, '<span class="cloze">[city]</span> is the capital of France.', 'and shows the new text')

  await call('delete-card', { flashcardID, cardID: c1 })
  const left = await cards(flashcardID)
  t.strictSame(left.map((card) => card.cardID), [c2, c3])
  t.equal(left[0]?.front, '{{c2::Paris::city}} is the capital of {{c3::France}}.', 'card 1 taken out of the list, the deletion stays for card 2')
  t.equal(left[0]?.frontHtml, '<span class="cloze">[city]</span> is the capital of France.')
  t.same((await stored(c2))?.reps, reviewed?.reps, 'card 2 keeps its schedule')
  t.equal(await usage(), 2)
})

test('sides kept from the rendering before {{c1,2::…}} was read are rendered again when read', async (t) => {
  const { flashcard, cards, app } = await setUp(t)
  const { flashcardID, cardIDs } = await flashcard([{ cloze: '{{c1,2::Paris}} is the capital of {{c3::France}}' }])
  // what a card imported from Anki kept before: the list was text to the service's reader
  const kept = '{{c1,2::Paris}} is the capital of France'
  await databaseOf(app).collection('cards').updateOne({ _id: cardIDs[1] as never }, { $set: { html: { front: kept, back: kept, version: 1 } } })
  const [, second] = await cards(flashcardID)
  t.equal(second?.frontHtml, '<span class="cloze">[...]</span> is the capital of France', 'card 2 asks for Paris')
  t.equal(second?.backHtml, '<span class="cloze">Paris</span> is the capital of France')
})
