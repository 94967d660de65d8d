import { test } from 'tap'
import { buildTestApp, expectOk, makeDeck, makeFolder, registerUser } from '../helpers/app.js'
import { samples, uploaded } from '../helpers/media.js'
import { exportedZip, unzip } from '../helpers/zip.js'

test('a flashcard whose cards show no media exports as before; its zip is its CSV alone', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app)
  const jwtToken = user.jwtToken
  const plain = await makeDeck(app, user, { folder: ['Spanish'], name: 'Greetings', cards: [{ front: 'hola', back: 'hello' }, { front: 'adiós, "bye"', back: '=goodbye' }] })

  t.strictSame(await expectOk(app, 'export-flashcard', { jwtToken, flashcardID: plain.flashcardID }),
    { flashcardID: plain.flashcardID, flashcardName: 'Greetings', format: 'quizlet', text: 'hola\thello\nadiós, "bye"\t=goodbye' }, 'Quizlet text, nothing more')
  const csv = 'front,back\r\nhola,hello\r\n"adiós, ""bye""",\'=goodbye\r\n'
  t.strictSame(await expectOk(app, 'export-flashcard', { jwtToken, flashcardID: plain.flashcardID, format: 'csv' }),
    { flashcardID: plain.flashcardID, flashcardName: 'Greetings', format: 'csv', text: csv }, 'CSV, nothing more')

  const { flashcardID: formatted } = await expectOk<{ flashcardID: string }>(app, 'create-flashcard', {
    jwtToken, folder: ['Spanish'], flashcardName: 'Formatted', cards: [{ front: '<b>el perro</b>', back: 'the dog', format: 'html' }, { cloze: '{{c1::Madrid}} is in Spain' }]
  }, 201)
  const formattedCsv = await expectOk<Record<string, string>>(app, 'export-flashcard', { jwtToken, flashcardID: formatted, format: 'csv' })
  t.strictSame(formattedCsv, {
    flashcardID: formatted, flashcardName: 'Formatted', format: 'csv', text: 'front,back,format,type\r\n<b>el perro</b>,the dog,html,basic\r\n{{c1::Madrid}} is in Spain,,text,cloze\r\n'
  }, 'html and cloze cards without media: their CSV, nothing more')

  const files = await unzip(await exportedZip(app, jwtToken, plain.flashcardID))
  t.same([...files.keys()], ['cards.csv'], 'the zip of a flashcard without media holds cards.csv alone')
  t.equal(files.get('cards.csv')?.toString('utf8'), csv, 'the very CSV export-flashcard gives')
  t.equal((await unzip(await exportedZip(app, jwtToken, formatted))).get('cards.csv')?.toString('utf8'), formattedCsv.text)
})

test('the export of a flashcard whose cards show media says how many files, which the zip carries', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app)
  const jwtToken = user.jwtToken
  const [robin, song] = [await uploaded(app, jwtToken, samples.png(2000)), await uploaded(app, jwtToken, samples.wav(2000))]
  await makeFolder(app, user, ['Birds'])
  const { flashcardID } = await expectOk<{ flashcardID: string }>(app, 'create-flashcard', {
    jwtToken,
    folder: ['Birds'],
    flashcardName: 'Robin',
    cards: [
      { front: `<img src="media:${robin.mediaID}">`, back: `<audio src="media:${song.mediaID}"></audio>`, format: 'html' },
      { front: `again <img src="media:${robin.mediaID}">`, back: 'x', format: 'html' }
    ]
  }, 201)
  const answer = await expectOk<Record<string, string>>(app, 'export-flashcard', { jwtToken, flashcardID, format: 'csv' })
  t.equal(answer.media, '2', 'two media files, each counted once')
  t.match(answer.text, `media:${robin.mediaID}`, 'the CSV itself names them by this account\'s ids, as before')
  t.same([...(await unzip(await exportedZip(app, jwtToken, flashcardID))).keys()].length, 3, 'the zip holds cards.csv and the two files')
})
