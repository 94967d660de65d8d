import { test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { databaseOf, buildTestApp, expectOk, makeFolder, registerUser, type TestUser } from '../helpers/app.js'
import { samples, sha256, uploaded } from '../helpers/media.js'
import { exportedZip, exportZip, importedZip, unzip } from '../helpers/zip.js'

interface ShownCard { cardID: string, front: string, back: string, format: string, frontHtml: string, backHtml: string, noteID?: string, clozeNumber?: string }
interface Flashcard { flashcardName: string, cards: ShownCard[] }

/** The user's media, as content hash by media id. */
async function mediaHashes (app: FastifyInstance, user: TestUser): Promise<Map<string, string>> {
  const records = await databaseOf(app).collection<{ _id: string, userID: string, sha256: string }>('media').find({ userID: user.userID }).toArray()
  return new Map(records.map((record) => [record._id, record.sha256]))
}

/** A card as it reads whatever account holds it: each media id written as the hash of its bytes, and the note's identity as the position of its first card. */
function comparable (cards: readonly ShownCard[], hashOf: ReadonlyMap<string, string>) {
  const notes = new Map<string, number>()
  const unidentified = (text: string) => text.replace(/media:(\d+)/g, (_, mediaID: string) => `media:<${hashOf.get(mediaID) ?? 'not this account\'s'}>`)
  return cards.map((card, position) => {
    if (card.noteID !== undefined && !notes.has(card.noteID)) notes.set(card.noteID, position)
    return {
      front: unidentified(card.front),
      back: unidentified(card.back),
      format: card.format,
      note: card.noteID === undefined ? null : notes.get(card.noteID),
      clozeNumber: card.clozeNumber ?? null
    }
  })
}

/** Each media address a card shows, as the browser would load it. */
function addresses (html: string): string[] {
  return [...html.matchAll(/src="([^"]+)"/g)].map((match) => (match[1] as string).replaceAll('&amp;', '&'))
}

test('a flashcard with images, a sound, a cloze note and plain cards goes out as a zip and comes back the same in another account', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const alice = await registerUser(app)
  const bob = await registerUser(app)
  const robin = samples.png(3000)
  const owl = samples.jpeg(70_000)
  const song = samples.mp3(5000)
  const [robinMedia, owlMedia, songMedia] = [await uploaded(app, alice.jwtToken, robin), await uploaded(app, alice.jwtToken, owl), await uploaded(app, alice.jwtToken, song)]
  await makeFolder(app, alice, ['Nature'])
  const { flashcardID } = await expectOk<{ flashcardID: string }>(app, 'create-flashcard', {
    jwtToken: alice.jwtToken,
    folder: ['Nature'],
    flashcardName: 'Birds 🐦',
    cards: [
      { front: 'plain, with "quotes"', back: 'and a\nline break' },
      { front: `<b>Robin</b> <img src="media:${robinMedia.mediaID}" alt="a robin, singing">`, back: `<audio src="media:${songMedia.mediaID}"></audio> its song`, format: 'html' },
      { cloze: `The {{c1::owl <img src='media:${owlMedia.mediaID}'>}} hunts at {{c2::night}}`, back: `<IMG SRC=media:${robinMedia.mediaID}>`, format: 'html' },
      { front: '<i>html</i> without media', back: '=1+1', format: 'html' },
      { cloze: 'a plain {{c1::cloze}}', back: '' }
    ]
  }, 201)
  const original = await expectOk<Flashcard>(app, 'get-flashcard', { jwtToken: alice.jwtToken, flashcardID })

  const response = await exportZip(app, alice.jwtToken, flashcardID)
  t.equal(response.statusCode, 200)
  t.equal(response.headers['content-type'], 'application/zip')
  t.equal(response.headers['content-disposition'], 'attachment; filename="Birds _.zip"; filename*=UTF-8\'\'Birds%20%F0%9F%90%A6.zip', 'a download named after the flashcard')
  t.equal(Number(response.headers['content-length']), response.rawPayload.length, 'its length known ahead')
  const files = await unzip(response.rawPayload)
  const robinFile = `media/${sha256(robin)}.png`
  const owlFile = `media/${sha256(owl)}.jpg`
  const songFile = `media/${sha256(song)}.mp3`
  t.same([...files.keys()].sort(), ['cards.csv', owlFile, robinFile, songFile].sort(), 'cards.csv and each media file once, named by its content')
  t.ok(files.get(robinFile)?.equals(robin) && files.get(owlFile)?.equals(owl) && files.get(songFile)?.equals(song), 'the media as uploaded, byte for byte')
  const csv = files.get('cards.csv')?.toString('utf8') ?? ''
  t.match(csv, /^front,back,format,type\r\n/, 'the CSV of export-flashcard, with formats and cloze notes')
  t.notMatch(csv, /media:/, 'no media id of the account')
  t.match(csv, `<img src=""${robinFile}"" alt=""a robin, singing"">`, 'an image named by its file, beside cards.csv')
  t.match(csv, `<audio src=""${songFile}""></audio>`)
  t.match(csv, `owl <img src='${owlFile}'>`, 'a reference written in single quotes, rewritten in them')
  t.match(csv, `<IMG SRC=${robinFile}>`, 'and one unquoted, in upper case')

  await makeFolder(app, bob, ['Imported', 'Birds'])
  const imported = await importedZip(app, bob.jwtToken, { folder: ['Imported', 'Birds'], flashcardName: 'Birds 🐦', archive: response.rawPayload })
  t.same({ imported: imported.imported, cards: imported.cardIDs.length, added: imported.mediaAdded, reused: imported.mediaReused, bytes: imported.mediaBytesAdded },
    { imported: '5', cards: 6, added: '3', reused: '0', bytes: String(robin.length + owl.length + song.length) },
    'five cards as written, six cards (a cloze note of two numbers), three new media files')

  const copy = await expectOk<Flashcard>(app, 'get-flashcard', { jwtToken: bob.jwtToken, flashcardID: imported.flashcardID })
  const bobMedia = await mediaHashes(app, bob)
  t.equal(bobMedia.size, 3, 'the other account holds the three files as its own')
  t.same(comparable(copy.cards, bobMedia), comparable(original.cards, await mediaHashes(app, alice)),
    'the same texts, formats and cloze notes, each image and sound its own media of the same bytes')
  t.equal(copy.flashcardName, 'Birds 🐦')
  for (const mediaID of bobMedia.keys()) t.notOk((await mediaHashes(app, alice)).has(mediaID), 'new media ids')

  const served = new Map<string, Buffer>()
  for (const card of copy.cards) {
    for (const address of [...addresses(card.frontHtml), ...addresses(card.backHtml)]) {
      const file = await app.inject({ method: 'GET', url: address })
      t.equal(file.statusCode, 200, `${address} is served`)
      served.set(sha256(file.rawPayload), file.rawPayload)
    }
  }
  t.same([...served.keys()].sort(), [sha256(robin), sha256(owl), sha256(song)].sort(), 'the images and the sound are served, their bytes as uploaded')

  const again = await unzip(await exportedZip(app, bob.jwtToken, imported.flashcardID))
  t.equal(again.get('cards.csv')?.toString('utf8'), csv, 'exported again, the very same cards.csv')
  t.same([...again.keys()].sort(), [...files.keys()].sort(), 'and the same media files')
})

test('an archive packed again from its unpacked folder, with references a browser reads the same, imports too', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app)
  const picture = samples.gif(1500)
  const { zipOf } = await import('../helpers/zip.js')
  const archive = zipOf([
    { name: 'Deck/', data: Buffer.alloc(0), method: 'store' },
    { name: 'Deck/cards.csv', data: Buffer.from('front,back,format,type\r\n"<img src=""media/my%20picture.gif"">",shown,html,basic\r\n') },
    { name: 'Deck/media/my picture.gif', data: picture, method: 'store' },
    { name: '__MACOSX/Deck/._cards.csv', data: Buffer.from('resource fork') }
  ])
  await makeFolder(app, user, ['Packed'])
  const imported = await importedZip(app, user.jwtToken, { folder: ['Packed'], flashcardName: 'Deck', archive })
  const [card] = (await expectOk<Flashcard>(app, 'get-flashcard', { jwtToken: user.jwtToken, flashcardID: imported.flashcardID })).cards
  const [mediaID] = (await mediaHashes(app, user)).keys()
  t.equal(card?.front, `<img src="media:${mediaID ?? ''}">`, 'the file the reference names, stored and shown by its media id')
  const [address] = addresses(card?.frontHtml ?? '')
  t.equal(sha256((await app.inject({ method: 'GET', url: address ?? '' })).rawPayload), sha256(picture), 'and served')
})

test('a media file that cannot be read while the archive is sent ends the download, rather than answer an archive that is not whole', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app)
  const robin = await uploaded(app, user.jwtToken, samples.png(600_000))
  await makeFolder(app, user, ['Birds'])
  const { flashcardID } = await expectOk<{ flashcardID: string }>(app, 'create-flashcard', {
    jwtToken: user.jwtToken, folder: ['Birds'], flashcardName: 'Robin', cards: [{ front: `<img src="media:${robin.mediaID}">`, back: 'x', format: 'html' }]
  }, 201)
  // the file's chunks after the first are lost: its first bytes are sent before the loss shows
  await databaseOf(app).collection('media.chunks').deleteMany({ n: { $gte: 1 } })
  await t.rejects(exportZip(app, user.jwtToken, flashcardID), { code: 'LIGHT_ECONNRESET' }, 'the connection ends before the archive is whole')
  t.equal((await expectOk<{ text: string }>(app, 'export-flashcard', { jwtToken: user.jwtToken, flashcardID, format: 'csv' })).text.length > 0, true, 'and the service goes on')
})
