import { test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { newId } from '../../src/domain/ids.js'
import { buildTestApp, databaseOf, post, registerUser } from '../helpers/app.js'
import { insertStoredCards } from '../helpers/stored.js'

const MEDIA = { dog: '111111111111111111111111111111111111111', bark: '222222222222222222222222222222222222222', cat: '333333333333333333333333333333333333333' }
const STRANGER = '999999999999999999999999999999999999999'
/** The signer of media addresses, as the media service will be: it knows the user's media and no other. */
const mediaUrl = (_userID: string, mediaID: string) => Object.values(MEDIA).includes(mediaID) ? `/media/${mediaID}?expires=1&sig=x` : null

interface Card { cardID: string, front: string, back: string, format: string, frontHtml: string, backHtml: string, review_status: string, last_review: string, due: string }

async function setUp (t: { teardown: (fn: () => unknown) => void }) {
  const app = await buildTestApp(t, import.meta.filename, { mediaUrl })
  const user = await registerUser(app)
  const call = async (operation: string, body: object = {}) => {
    const response = await post(app, operation, { jwtToken: user.jwtToken, ...body })
    if (response.statusCode >= 300) throw new Error(`${operation}: ${response.statusCode} ${response.body}`)
    return response.json()
  }
  await call('create-folder', { path: ['Cards'] })
  const flashcard = async (cards: object[], name = 'Deck'): Promise<{ flashcardID: string, cardIDs: string[] }> =>
    await call('create-flashcard', { folder: ['Cards'], flashcardName: name, cards })
  const cards = async (flashcardID: string): Promise<Card[]> => (await call('get-flashcard', { flashcardID })).cards
  const refused = async (operation: string, body: object) => (await post(app, operation, { jwtToken: user.jwtToken, ...body })).json()
  return { app, user, call, flashcard, cards, refused }
}

async function storedMedia (app: FastifyInstance, cardID: string): Promise<unknown> {
  return (await databaseOf(app).collection('cards').findOne({ _id: cardID as never }))?.media
}

test('a plain text card is shown as written: its markup escaped, its line breaks <br>', async (t) => {
  const { call, flashcard, cards } = await setUp(t)
  const { flashcardID, cardIDs } = await flashcard([{ front: '<b>hola</b>', back: 'line one\nline two & "three"' }])
  const [card] = await cards(flashcardID)
  t.strictSame(card, {
    cardID: cardIDs[0],
    front: '<b>hola</b>',
    back: 'line one\nline two & "three"',
    format: 'text',
    frontHtml: '&lt;b&gt;hola&lt;/b&gt;',
    backHtml: 'line one<br>line two &amp; &quot;three&quot;',
    // a card of a front and a back made here is a note of its own, under its own id (docs/api.md)
    noteID: cardIDs[0],
    ord: '0',
    review_status: '0.0',
    last_review: card?.last_review,
    due: card?.due,
    suspended: 'false',
    flag: '0'
  }, 'the fields of before, and format, frontHtml and backHtml, and the card\'s standing')
  const edited = await call('edit-card', { flashcardID, cardID: cardIDs[0], back: '<i>x</i>' })
  t.match(edited, { front: '<b>hola</b>', back: '<i>x</i>', format: 'text', backHtml: '&lt;i&gt;x&lt;/i&gt;' }, 'an edit as before: the card stays text')
})

test('a card stored before formats reads as plain text', async (t) => {
  const { app, user, flashcard, cards } = await setUp(t)
  const { flashcardID } = await flashcard([])
  const now = new Date()
  await insertStoredCards(databaseOf(app), [{
    _id: newId(), userID: user.userID, flashcardID, front: 'a < b', back: 'b > a', state: 0, due: now, stability: 0, difficulty: 0, elapsedDays: 0,
    scheduledDays: 0, learningSteps: 0, reps: 0, lapses: 0, lastReview: null, isNew: true, createdOrder: 1, createdAt: now, version: 0, lastReviewID: null
  }])
  t.match((await cards(flashcardID))[0], { front: 'a < b', format: 'text', frontHtml: 'a &lt; b', backHtml: 'b &gt; a' })
})

test('an html card keeps its source and shows it sanitized, on every read and after edits', async (t) => {
  const { call, flashcard, cards } = await setUp(t)
  const front = '<b>perro</b> <span style="display:none" onclick="x()">hidden?</span><script>alert(1)</script>'
  const { flashcardID, cardIDs } = await flashcard([{ front, back: '<ruby>犬<rt>いぬ</rt></ruby>', format: 'html' }])
  const cardID = cardIDs[0] as string
  const shown = { front, format: 'html', frontHtml: '<b>perro</b> <span>hidden?</span>', backHtml: '<ruby>犬<rt>いぬ</rt></ruby>' }
  t.match((await cards(flashcardID))[0], shown, 'get-flashcard: the source as written, and the HTML to show')
  const tree = (await call('get-all-cards', { content: true })).library
  t.strictSame(tree.Cards.Deck.cards[cardID], { last_review: (await cards(flashcardID))[0]?.last_review, review_status: '0.0', ...shown, back: '<ruby>犬<rt>いぬ</rt></ruby>', noteID: cardID, ord: '0', suspended: 'false', flag: '0' },
    'get-all-cards with content: true too')
  t.strictSame(Object.keys((await call('get-all-cards')).Cards.Deck.cards[cardID]), ['last_review', 'review_status'], 'and without, as before')

  t.match(await call('edit-card', { flashcardID, cardID, back: '<u>dog</u><iframe></iframe>' }),
    { front, back: '<u>dog</u><iframe></iframe>', format: 'html', frontHtml: shown.frontHtml, backHtml: '<u>dog</u>' }, 'the back changed, the front kept')
  t.match(await call('edit-card', { flashcardID, cardID, format: 'text' }),
    { front, format: 'text', frontHtml: '&lt;b&gt;perro&lt;/b&gt; &lt;span style=&quot;display:none&quot; onclick=&quot;x()&quot;&gt;hidden?&lt;/span&gt;&lt;script&gt;alert(1)&lt;/script&gt;' },
    'made plain text, the same source shows as written')
  await call('add-cards', { flashcardID, cards: [{ front: '<i>gato</i>', back: 'cat', format: 'html' }, { front: '<i>gato</i>', back: 'cat' }] })
  t.match((await cards(flashcardID)).slice(1), [{ format: 'html', frontHtml: '<i>gato</i>' }, { format: 'text', frontHtml: '&lt;i&gt;gato&lt;/i&gt;' }], 'add-cards: format or not')
})

test('get-today-cards keeps its published shape with formatted and cloze cards', async (t) => {
  const { call, flashcard } = await setUp(t)
  const { flashcardID, cardIDs } = await flashcard([{ front: '<b>x</b>', back: 'y', format: 'html' }, { cloze: '{{c1::a}} {{c2::b}}' }])
  const today = await call('get-today-cards')
  const leaves = today.Cards.Deck.cards as Record<string, object>
  t.equal(Object.keys(leaves).length, 3, 'each card of the cloze note is a card of its own')
  for (const leaf of Object.values(leaves)) t.strictSame(Object.keys(leaf), ['last_review', 'review_status'])
  t.strictSame(Object.keys(today.Cards.Deck), ['cards', 'flashcardID', 'flashcardName'])
  t.ok(Object.hasOwn(leaves, cardIDs[0] as string))
  t.equal(today.Cards.Deck.flashcardID, flashcardID)
})

test('media: media:<id> becomes the signed address; an unknown one is left out; the card stores exactly what it shows', async (t) => {
  const { app, call, flashcard, cards } = await setUp(t)
  const front = `<img src="media:${MEDIA.dog}" alt="a dog"> <img src="media:${STRANGER}">`
  const { flashcardID, cardIDs } = await flashcard([
    { front, back: `<audio src="media:${MEDIA.bark}"></audio>`, format: 'html' },
    { front: `<img src="media:${MEDIA.cat}">`, back: 'plain, so no media' }
  ])
  const [cardID, plainID] = cardIDs as [string, string]
  const [card] = await cards(flashcardID)
  t.equal(card?.frontHtml, `<img src="/media/${MEDIA.dog}?expires=1&amp;sig=x" alt="a dog" /> `, 'the known media signed, the unknown left out')
  t.equal(card?.backHtml, `<audio src="/media/${MEDIA.bark}?expires=1&amp;sig=x" controls></audio>`)
  t.strictSame(await storedMedia(app, cardID), [MEDIA.dog, STRANGER, MEDIA.bark], 'create-flashcard: every media the sides refer to')
  t.equal(await storedMedia(app, plainID), undefined, 'plain text refers to no media: the card has no media field (index user_media holds only cards with one)')
  const tree = (await call('get-all-cards', { content: true })).library
  t.equal(tree.Cards.Deck.cards[cardID].frontHtml, card?.frontHtml, 'get-all-cards signs the same way')

  await call('edit-card', { flashcardID, cardID, front: `<img src="media:${MEDIA.cat}">` })
  t.strictSame(await storedMedia(app, cardID), [MEDIA.cat, MEDIA.bark], 'edit-card: what the sides refer to now')
  await call('edit-card', { flashcardID, cardID, format: 'text' })
  t.equal(await storedMedia(app, cardID), undefined, 'made plain text: none, the field removed')
  await call('edit-card', { flashcardID, cardID: plainID, format: 'html' })
  t.strictSame(await storedMedia(app, plainID), [MEDIA.cat], 'made html: its image')
  const added = await call('add-cards', { flashcardID, cards: [{ front: 'x', back: `<img src="media:${MEDIA.dog}"><img src="media:${MEDIA.dog}">`, format: 'html' }] })
  t.strictSame(await storedMedia(app, added.cardIDs[0]), [MEDIA.dog], 'add-cards: each media once')
  const imported = await call('import-cards', {
    folder: ['Cards'], flashcardName: 'Imported', format: 'csv', text: `front,back,format,type\r\n"<img src=""media:${MEDIA.bark}"">",b,html,basic\r\n`
  })
  t.strictSame(await storedMedia(app, imported.cardIDs[0]), [MEDIA.bark], 'import-cards: its media')
})

test('CSV export keeps formats and cloze notes as written, and reads back to the same cards; Quizlet text stays plain', async (t) => {
  const { call, flashcard, cards, refused } = await setUp(t)
  const written = [
    { front: 'plain, "quoted"', back: '=1+1' },
    { front: '<b>bold</b>\n<i>new line</i>', back: '<u>u</u>', format: 'html' },
    { cloze: '{{c1::Paris}} is the capital of {{c2::France::country}}', back: '<i>extra</i>', format: 'html' },
    { cloze: '{{c1::<b>not html</b>}}' }
  ]
  const { flashcardID } = await flashcard(written)
  const exported = await call('export-flashcard', { flashcardID, format: 'csv' })
  t.equal(exported.text, [
    'front,back,format,type',
    '"plain, ""quoted""",\'=1+1,text,basic',
    '"<b>bold</b>\n<i>new line</i>",<u>u</u>,html,basic',
    '{{c1::Paris}} is the capital of {{c2::France::country}},<i>extra</i>,html,cloze',
    '{{c1::<b>not html</b>}},,text,cloze',
    ''
  ].join('\r\n'), 'a cloze note once, its source and back extra as written')

  const imported = await call('import-cards', { folder: ['Cards'], flashcardName: 'Again', format: 'csv', text: exported.text })
  t.equal(imported.imported, '4', '4 cards written')
  t.equal(imported.cardIDs.length, 5, 'which make 5 cards')
  const content = (card: Card & { clozeNumber?: string }) => ({ front: card.front, back: card.back, format: card.format, frontHtml: card.frontHtml, backHtml: card.backHtml, clozeNumber: card.clozeNumber })
  t.strictSame((await cards(imported.flashcardID)).map(content), (await cards(flashcardID)).map(content), 'the same cards back')

  const plain = await flashcard([{ front: 'a', back: 'b' }], 'Plain')
  t.equal((await call('export-flashcard', { flashcardID: plain.flashcardID, format: 'csv' })).text, 'front,back\r\na,b\r\n', 'plain cards: the CSV of before')

  const refusedExport = await refused('export-flashcard', { flashcardID })
  t.match(refusedExport, { code: 'invalid_import', error: /card 2 \("<b>bold<\/b>\\n<i>new line<\/i>"\) is formatted \(html\), and Quizlet text holds plain text cards only: export as CSV/ },
    'Quizlet text holds no format: the export names the first card it cannot write')
  const quizlet = await call('import-cards', { folder: ['Cards'], flashcardName: 'Quizlet', text: '<b>hola</b>\thello' })
  t.match((await cards(quizlet.flashcardID))[0], { front: '<b>hola</b>', format: 'text', frontHtml: '&lt;b&gt;hola&lt;/b&gt;' }, 'Quizlet text comes in as plain text')
})

test('the OpenAPI document gives format as an enum wherever a card is written or read', async (t) => {
  const { app } = await setUp(t)
  const document = (await app.inject({ method: 'GET', url: '/openapi.json' })).json()
  const body = (operation: string) => document.paths[`/api/${operation}`].post.requestBody.content['application/json'].schema
  const answer = (operation: string) => document.paths[`/api/${operation}`].post.responses['200'].content['application/json'].schema
  t.strictSame(body('create-flashcard').properties.cards.items.properties.format.enum, ['text', 'html'])
  t.strictSame(body('add-cards').properties.cards.items.properties.format.enum, ['text', 'html'])
  t.strictSame(body('edit-card').properties.format.enum, ['text', 'html'])
  t.strictSame(answer('get-flashcard').properties.cards.items.properties.format.enum, ['text', 'html'])
  t.strictSame(answer('get-flashcard').properties.cards.items.required.filter((name: string) => /front|back|format/.test(name)).sort(),
    ['back', 'backHtml', 'format', 'front', 'frontHtml'])
  t.equal(answer('edit-card').anyOf.length, 2, 'edit-card answers a card, or a cloze note')
})
