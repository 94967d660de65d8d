import { test } from 'tap'
import { databaseOf, buildTestApp, expectOk, post, registerUser } from '../helpers/app.js'
import { storedNodes } from '../helpers/stored.js'

interface Card { front: string, back: string }

// Text a person would not think to avoid: commas, quotes, line breaks of every kind, tabs, Unicode beyond the BMP
const TRICKY: Card[] = [
  { front: 'front', back: 'back' },
  { front: 'a, "quoted" word', back: 'she said ""hi""' },
  { front: 'line one\nline two', back: 'windows\r\nbreak and a lone\rreturn' },
  { front: 'tab\there', back: 'semi;colon - dash' },
  { front: '  spaces kept  ', back: '' },
  { front: 'emoji 🦊👩‍👩‍👧 and é (e + \u0301)', back: 'עברית and 中文' },
  { front: 'term', back: 'definition' }
]

test('import-cards and export-flashcard', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app)
  const jwtToken = user.jwtToken
  const folder = ['Languages', 'Spanish']
  t.equal((await post(app, 'create-folder', { jwtToken, path: folder })).statusCode, 201)

  async function counts (): Promise<{ library: number, cards: number }> {
    return {
      library: (await storedNodes(app)).length,
      cards: await databaseOf(app).collection('cards').countDocuments()
    }
  }

  async function storedCards (flashcardID: string, userID = user.userID): Promise<Card[]> {
    const cards = await app.repositories.cards.byFlashcard(userID, flashcardID)
    return cards.map(({ front, back }) => ({ front, back }))
  }

  async function importCards (fields: Record<string, unknown>): Promise<{ flashcardID: string, cardIDs: string[], imported: string }> {
    return await expectOk(app, 'import-cards', { jwtToken, folder, ...fields }, 201)
  }

  async function exportText (fields: Record<string, unknown>): Promise<string> {
    return (await expectOk<{ text: string }>(app, 'export-flashcard', { jwtToken, ...fields })).text
  }

  await t.test('Quizlet text with the default separators makes a flashcard of new cards, in order', async (t) => {
    const response = await post(app, 'import-cards', {
      jwtToken, folder, flashcardName: 'Greetings', text: 'hola\thello\nadiós\tgoodbye\r\ngracias\tthank you\n\n'
    })
    t.equal(response.statusCode, 201)
    const body = response.json()
    t.equal(body.imported, '3')
    t.match(body.flashcardID, /^\d{30,}$/)
    t.equal(body.cardIDs.length, 3)
    for (const cardID of body.cardIDs) t.match(cardID, /^\d{30,}$/)
    t.strictSame(await storedCards(body.flashcardID), [
      { front: 'hola', back: 'hello' }, { front: 'adiós', back: 'goodbye' }, { front: 'gracias', back: 'thank you' }
    ])
    const stored = await app.repositories.cards.byFlashcard(user.userID, body.flashcardID)
    t.strictSame(stored.map((card) => card._id), body.cardIDs, 'cardIDs in the order of the file')
    t.ok(stored.every((card) => card.isNew && card.reps === 0), 'never reviewed')
  })

  await t.test('Quizlet text with separators of the user\'s choice', async (t) => {
    const { flashcardID, imported } = await importCards({
      flashcardName: 'Elements', text: 'H - hydrogen; He - helium - a noble gas; ', termSeparator: ' - ', cardSeparator: '; '
    })
    t.equal(imported, '2')
    t.strictSame(await storedCards(flashcardID), [{ front: 'H', back: 'hydrogen' }, { front: 'He', back: 'helium - a noble gas' }])
  })

  await t.test('CSV with quoted fields and a header', async (t) => {
    const { flashcardID, imported } = await importCards({
      flashcardName: 'Phrases',
      format: 'csv',
      text: 'Term,Definition\r\n"¿Qué tal?","How are you? (informal, ""what\'s up"")"\r\n"varias\nlíneas",two lines\r\n'
    })
    t.equal(imported, '2')
    t.strictSame(await storedCards(flashcardID), [
      { front: '¿Qué tal?', back: 'How are you? (informal, "what\'s up")' },
      { front: 'varias\nlíneas', back: 'two lines' }
    ])
  })

  await t.test('CSV header: false keeps the first row as a card', async (t) => {
    const { flashcardID } = await importCards({ flashcardName: 'No header', format: 'csv', text: 'front,back\na,b', header: false })
    t.strictSame(await storedCards(flashcardID), [{ front: 'front', back: 'back' }, { front: 'a', back: 'b' }])
  })

  await t.test('export writes Quizlet text and CSV', async (t) => {
    const { flashcardID } = await importCards({ flashcardName: 'To export', format: 'csv', text: 'uno,one\n"dos, 2","say ""two"""\n' })
    const quizlet = await post(app, 'export-flashcard', { jwtToken, flashcardID })
    t.equal(quizlet.statusCode, 200)
    t.strictSame(quizlet.json(), { flashcardID, flashcardName: 'To export', format: 'quizlet', text: 'uno\tone\ndos, 2\tsay "two"' })
    t.equal(await exportText({ flashcardID, termSeparator: ' = ', cardSeparator: '\n\n' }), 'uno = one\n\ndos, 2 = say "two"')
    const csv = await post(app, 'export-flashcard', { jwtToken, flashcardID, format: 'csv' })
    t.equal(csv.statusCode, 200)
    t.strictSame(csv.json(), { flashcardID, flashcardName: 'To export', format: 'csv', text: 'front,back\r\nuno,one\r\n"dos, 2","say ""two"""\r\n' })
  })

  await t.test('export -> import gives back the very same cards', async (t) => {
    const created = await post(app, 'create-flashcard', { jwtToken, folder, flashcardName: 'Tricky', cards: TRICKY })
    t.equal(created.statusCode, 201)
    const { flashcardID } = created.json()

    const csv = await exportText({ flashcardID, format: 'csv' })
    const fromCsv = await importCards({ flashcardName: 'Tricky from CSV', format: 'csv', text: csv })
    t.equal(fromCsv.imported, String(TRICKY.length))
    t.strictSame(await storedCards(fromCsv.flashcardID), TRICKY, 'CSV: any text')
    t.equal(await exportText({ flashcardID: fromCsv.flashcardID, format: 'csv' }), csv, 'and the same file again')

    const separators = { termSeparator: ' :: ', cardSeparator: '\n%%\n' }
    const quizlet = await exportText({ flashcardID, ...separators })
    const fromQuizlet = await importCards({ flashcardName: 'Tricky from Quizlet', text: quizlet, ...separators })
    t.strictSame(await storedCards(fromQuizlet.flashcardID), TRICKY, 'Quizlet: any text the separators leave alone')
  })

  await t.test('a Quizlet export that its separators would change is refused, naming the card', async (t) => {
    const created = await post(app, 'create-flashcard', {
      jwtToken, folder, flashcardName: 'Multi-line', cards: [{ front: 'one', back: 'fine' }, { front: 'two', back: 'first\nsecond' }]
    })
    const response = await post(app, 'export-flashcard', { jwtToken, flashcardID: created.json().flashcardID })
    t.equal(response.statusCode, 400)
    t.match(response.json().error, /^card 2 \("two"\) .*its back contains the card separator "\\n"; choose other separators, or CSV$/)
  })

  await t.test('a bad file answers 400 naming the line, and stores nothing', async (t) => {
    const before = await counts()
    const cases: Array<{ body: Record<string, unknown>, error: RegExp }> = [
      { body: { text: 'a\tb\nc\td\nno separator\ne\tf' }, error: /^line 3: missing the term separator "\\t"/ },
      { body: { text: 'a;b|c;d|;e', termSeparator: ';', cardSeparator: '|' }, error: /^line 1: empty front/ },
      { body: { text: 'a\tb\n\n\tno front' }, error: /^line 3: empty front/ },
      { body: { format: 'csv', text: 'front,back\na,b\nc,"never closed\nd,e' }, error: /^line 3: the quoted field of column 2 that starts here is never closed/ },
      { body: { format: 'csv', text: 'a,b\n"two\nlines",x\nc,d,e' }, error: /^line 4: expected 2 columns \(front,back\), found 3/ },
      { body: { format: 'csv', text: 'a,b\n"x"y,z' }, error: /^line 2: text after the closing quote/ },
      { body: { text: `a\tb\n${'x'.repeat(10_001)}\tc` }, error: /^line 2: the front is 10001 characters long; at most 10000/ },
      { body: { text: Array.from({ length: 1001 }, (_, index) => `${index}\tx`).join('\n') }, error: /^line 1001: card 1001 starts here, but an import holds at most 1000 cards/ },
      { body: { text: '\n\n' }, error: /no cards/ }
    ]
    for (const { body, error } of cases) {
      const response = await post(app, 'import-cards', { jwtToken, folder, flashcardName: 'Broken', ...body })
      t.equal(response.statusCode, 400, String(error))
      t.match(response.json().error, error)
    }
    t.strictSame(await counts(), before, 'no flashcard and no card stored')
  })

  await t.test('options that do not fit the format are refused rather than ignored', async (t) => {
    const before = await counts()
    const separators = await post(app, 'import-cards', { jwtToken, folder, flashcardName: 'X', format: 'csv', text: 'a;b', termSeparator: ';' })
    t.equal(separators.statusCode, 400)
    t.match(separators.json().error, /quizlet format only/)
    const header = await post(app, 'import-cards', { jwtToken, folder, flashcardName: 'X', text: 'a\tb', header: true })
    t.equal(header.statusCode, 400)
    t.match(header.json().error, /csv format only/)
    const badHeader = await post(app, 'import-cards', { jwtToken, folder, flashcardName: 'X', format: 'csv', text: 'a,b', header: 'yes' })
    t.equal(badHeader.statusCode, 400)
    t.match(badHeader.json().error, /header must be one of true, false, "auto"/)
    const format = await post(app, 'import-cards', { jwtToken, folder, flashcardName: 'X', format: 'xlsx', text: 'a,b' })
    t.equal(format.statusCode, 400)
    t.match(format.json().error, /format must be one of "quizlet", "csv"/)
    const same = await post(app, 'import-cards', { jwtToken, folder, flashcardName: 'X', text: 'a;b', termSeparator: ';', cardSeparator: ';' })
    t.equal(same.statusCode, 400)
    t.match(same.json().error, /contains the card separator/)
    const empty = await post(app, 'import-cards', { jwtToken, folder, flashcardName: 'X', text: 'a\tb', termSeparator: '' })
    t.equal(empty.statusCode, 400)
    t.strictSame(await counts(), before)
  })

  await t.test('the flashcard name must be free and the folder must exist', async (t) => {
    const before = await counts()
    const clash = await post(app, 'import-cards', { jwtToken, folder, flashcardName: 'Greetings', text: 'a\tb' })
    t.equal(clash.statusCode, 409)
    t.match(clash.json().error, /already exists/)
    const folderClash = await post(app, 'import-cards', { jwtToken, folder: ['Languages'], flashcardName: 'Spanish', text: 'a\tb' })
    t.equal(folderClash.statusCode, 409, 'a folder of that name is a clash too')
    const noFolder = await post(app, 'import-cards', { jwtToken, folder: ['Nowhere'], flashcardName: 'X', text: 'a\tb' })
    t.equal(noFolder.statusCode, 404)
    t.match(noFolder.json().error, /no folder "Nowhere"/)
    const reserved = await post(app, 'import-cards', { jwtToken, folder, flashcardName: 'cards', text: 'a\tb' })
    t.equal(reserved.statusCode, 400)
    t.strictSame(await counts(), before)
  })

  await t.test('an invalid token answers 401 and stores nothing', async (t) => {
    const before = await counts()
    const imported = await post(app, 'import-cards', { jwtToken: 'not-a-token', folder, flashcardName: 'X', text: 'a\tb' })
    t.equal(imported.statusCode, 401)
    t.strictSame(imported.json(), { error: 'invalid or expired token', code: 'invalid_token' })
    // well signed, but for an account that does not exist
    const orphan = await post(app, 'export-flashcard', { jwtToken: app.issueToken('9'.repeat(39)), flashcardID: '1'.repeat(39) })
    t.equal(orphan.statusCode, 401)
    t.strictSame(await counts(), before)
  })

  await t.test('an unknown flashcard, a folder, or another user\'s flashcard answers 404', async (t) => {
    const { flashcardID } = await importCards({ flashcardName: 'Mine', text: 'secret\tfront' })
    const unknown = await post(app, 'export-flashcard', { jwtToken, flashcardID: '1'.repeat(39) })
    t.equal(unknown.statusCode, 404)
    t.match(unknown.json().error, /no flashcard/)

    const folderID = (await storedNodes(app, { userID: user.userID })).find((node) => node.name === 'Languages' && node.parentID === '')?._id
    const folderExport = await post(app, 'export-flashcard', { jwtToken, flashcardID: folderID })
    t.equal(folderExport.statusCode, 404, 'a folder is not a flashcard')

    const other = await registerUser(app)
    const stolen = await post(app, 'export-flashcard', { jwtToken: other.jwtToken, flashcardID })
    t.equal(stolen.statusCode, 404)
    t.strictSame(stolen.json(), { error: `no flashcard ${flashcardID}`, code: 'flashcard_not_found' }, 'the same answer as for an id that does not exist')
    t.notOk(stolen.body.includes('secret'))

    const malformed = await post(app, 'export-flashcard', { jwtToken, flashcardID: 'abc' })
    t.equal(malformed.statusCode, 400)
  })

  await t.test('a full import of 1000 cards', async (t) => {
    const text = Array.from({ length: 1000 }, (_, index) => `front ${index}\tback ${index}`).join('\n')
    const { flashcardID, imported, cardIDs } = await importCards({ flashcardName: 'Big', text })
    t.equal(imported, '1000')
    t.equal(cardIDs.length, 1000)
    t.equal(await exportText({ flashcardID }), text)
  })
})
