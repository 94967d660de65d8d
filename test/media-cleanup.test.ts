// Media no card shows is removed: in the transaction that deletes the last
// card showing it (once past its grace), or by the sweep. Most tests give
// cards their `media` list directly through the cards collection, as
// formatted cards store it (the tests were written before those were
// merged, and this sets up exactly what each needs); the last one writes
// formatted cards through the API.
import { test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { ObjectId } from 'mongodb'
import { buildTestApp, databaseOf, expectOk, makeDeck, makeFolder, registerUser, removalOver, type Deck, type TestUser } from './helpers/app.js'
import { samples, storedMedia, uploaded, type Uploaded } from './helpers/media.js'

const GRACE_SECONDS = 600

interface Clocked { app: FastifyInstance, advance: (seconds: number) => void }

async function appWithClock (t: Parameters<typeof buildTestApp>[0]): Promise<Clocked> {
  let now = Date.parse('2026-05-04T08:00:00Z')
  const app = await buildTestApp(t, import.meta.filename, { clock: () => new Date(now), media: { graceSeconds: GRACE_SECONDS } })
  return { app, advance: (seconds) => { now += seconds * 1000 } }
}

/** Makes these cards show these media, as a formatted card's write would. */
async function show (app: FastifyInstance, cardID: string, media: readonly Uploaded[]): Promise<void> {
  await databaseOf(app).collection<{ _id: string }>('cards').updateOne({ _id: cardID }, { $set: { media: media.map((item) => item.mediaID) } })
}

async function mediaUsage (app: FastifyInstance, user: TestUser): Promise<number> {
  return (await databaseOf(app).collection('users').findOne({ _id: user.userID as never }))?.usage?.mediaBytes ?? 0
}

async function served (app: FastifyInstance, media: Uploaded): Promise<number> {
  return (await app.inject({ method: 'GET', url: media.url })).statusCode
}

test('deleting the last card that shows media past its grace removes it, its GridFS file and its quota, in the same request', async (t) => {
  const { app, advance } = await appWithClock(t)
  const user = await registerUser(app)
  const deck = await makeDeck(app, user, { folder: ['Birds'], name: 'Birds', cards: 3 })
  const robin = await uploaded(app, user.jwtToken, samples.jpeg(300_000))
  const wren = await uploaded(app, user.jwtToken, samples.jpeg(20_000))
  await show(app, deck.cardIDs[0] as string, [robin, wren])
  await show(app, deck.cardIDs[1] as string, [wren])
  advance(GRACE_SECONDS + 1)

  await expectOk(app, 'delete-card', { jwtToken: user.jwtToken, flashcardID: deck.flashcardID, cardID: deck.cardIDs[0] })
  t.equal(await served(app, robin), 404, 'the media only that card showed is gone')
  t.equal(await served(app, wren), 200, 'media another card still shows stays')
  t.same(await storedMedia(app), { records: 1, files: 1, chunks: 1, unrecorded: 0 }, 'its GridFS file and chunks are gone, none left listed')
  t.equal(await mediaUsage(app, user), 20_000, 'its bytes are given back')

  await expectOk(app, 'delete-card', { jwtToken: user.jwtToken, flashcardID: deck.flashcardID, cardID: deck.cardIDs[1] })
  t.equal(await served(app, wren), 404, 'then the last card showing the other goes, and so does it')
  t.same(await storedMedia(app), { records: 0, files: 0, chunks: 0, unrecorded: 0 })
  t.equal(await mediaUsage(app, user), 0)
})

test('deleting a flashcard, or a folder, removes the media only its cards showed', async (t) => {
  const { app, advance } = await appWithClock(t)
  const user = await registerUser(app)
  const deck = await makeDeck(app, user, { folder: ['Deck'], name: 'Deck', cards: 2 })
  const folderDeck = await makeDeck(app, user, { folder: ['Folder'], name: 'Folder', cards: 2 })
  const kept = await makeDeck(app, user, { folder: ['Kept'], name: 'Kept', cards: 1 })
  const [a, b, shared] = [await uploaded(app, user.jwtToken, samples.png()), await uploaded(app, user.jwtToken, samples.ogg()), await uploaded(app, user.jwtToken, samples.gif())]
  await show(app, deck.cardIDs[0] as string, [a, shared])
  await show(app, folderDeck.cardIDs[1] as string, [b, shared])
  await show(app, kept.cardIDs[0] as string, [shared])
  advance(GRACE_SECONDS + 1)

  await expectOk(app, 'delete-flashcard', { jwtToken: user.jwtToken, flashcardID: deck.flashcardID })
  t.equal(await served(app, a), 404, 'delete-flashcard: the media of its cards')
  const outline = await expectOk<{ folders: Array<{ folderID: string, name: string }> }>(app, 'get-library', { jwtToken: user.jwtToken })
  const folderID = outline.folders.find((folder) => folder.name === 'Folder')?.folderID
  await expectOk(app, 'delete-folder', { jwtToken: user.jwtToken, folderID })
  t.equal(await served(app, b), 404, 'delete-folder: the media of the cards below it')
  t.equal(await served(app, shared), 200, 'media a remaining card shows stays')
  t.same(await storedMedia(app), { records: 1, files: 1, chunks: 1, unrecorded: 0 })
})

test('media within its grace outlives its cards; the sweep removes it once the grace has passed, and keeps what cards show', async (t) => {
  const { app, advance } = await appWithClock(t)
  const user = await registerUser(app)
  const deck = await makeDeck(app, user, { folder: ['Deck'], name: 'Deck', cards: 2 })
  const shown = await uploaded(app, user.jwtToken, samples.wav(5000))
  const unshown = await uploaded(app, user.jwtToken, samples.png(5000))
  const deleted = await uploaded(app, user.jwtToken, samples.mp3(5000))
  await show(app, deck.cardIDs[0] as string, [shown])
  await show(app, deck.cardIDs[1] as string, [deleted])
  await expectOk(app, 'delete-card', { jwtToken: user.jwtToken, flashcardID: deck.flashcardID, cardID: deck.cardIDs[1] })
  t.equal(await served(app, deleted), 200, 'deleted within its grace: kept, for a card about to show it')

  await app.services.media.sweep()
  t.equal(await served(app, unshown), 200, 'an upload no card shows yet is kept through its grace')

  advance(GRACE_SECONDS - 5)
  // uploaded again: its grace starts afresh
  await uploaded(app, user.jwtToken, (await app.inject({ method: 'GET', url: unshown.url })).rawPayload)
  advance(10)
  t.same(await app.services.media.sweep(), { files: 1, media: 1 }, 'the sweep past the grace removes one media and its file')
  t.equal(await served(app, deleted), 404, 'media whose cards were deleted')
  t.equal(await served(app, shown), 200, 'media a card shows stays')
  t.equal(await served(app, unshown), 200, 'media uploaded again is kept for another grace')
  advance(GRACE_SECONDS)
  await app.services.media.sweep()
  t.equal(await served(app, unshown), 404, 'and goes once that has passed')
  t.equal(await served(app, shown), 200, 'what a card shows is never removed')

  // a card's media changed by an edit (the other branch writes it): the sweep's next look finds it unshown
  await databaseOf(app).collection<{ _id: string }>('cards').updateOne({ _id: deck.cardIDs[0] as string }, { $set: { media: [] } })
  advance(GRACE_SECONDS + 1)
  await app.services.media.sweep()
  t.equal(await served(app, shown), 404, 'media a card stopped showing goes at the sweep\'s next look')
  t.same(await storedMedia(app), { records: 0, files: 0, chunks: 0, unrecorded: 0 })
  t.equal(await mediaUsage(app, user), 0, 'every byte is given back')
})

test('delete-account removes every media record, GridFS file and chunk of the user, and nothing of others', async (t) => {
  const { app } = await appWithClock(t)
  const leaving = await registerUser(app)
  const staying = await registerUser(app)
  const deck = await makeDeck(app, leaving, { folder: ['Deck'], name: 'Deck', cards: 1 })
  const media = [await uploaded(app, leaving.jwtToken, samples.png(600_000)), await uploaded(app, leaving.jwtToken, samples.m4a(3000))]
  await show(app, deck.cardIDs[0] as string, media)
  const theirs = await uploaded(app, staying.jwtToken, samples.png(600_000))

  await expectOk(app, 'delete-account', { jwtToken: leaving.jwtToken, password: leaving.password })
  await removalOver(app, leaving.userID)
  t.same(await storedMedia(app), { records: 1, files: 1, chunks: 3, unrecorded: 0 }, 'only the other user\'s file is left')
  t.equal(await served(app, theirs), 200)
  for (const item of media) t.equal(await served(app, item), 404)
})

test('files no record holds (an upload cut off, a removal cut off) are removed by the sweep once their time has come', async (t) => {
  const { app, advance } = await appWithClock(t)
  const db = databaseOf(app)
  const user = await registerUser(app)
  const recorded = await uploaded(app, user.jwtToken, samples.png(10_000))
  // what a service killed in the middle of an upload leaves: chunks, and maybe a files document, listed as unrecorded
  const now = app.clock()
  const cutOff = [new ObjectId(), new ObjectId()]
  for (const [n, fileId] of cutOff.entries()) {
    await db.collection('media_unrecorded').insertOne({ _id: fileId, after: new Date(now.getTime() + (n + 1) * 1000) })
    await db.collection('media.chunks').insertMany([0, 1].map((index) => ({ files_id: fileId, n: index, data: Buffer.alloc(100) })))
  }
  await db.collection('media.files').insertOne({ _id: cutOff[1], length: 200, chunkSize: 261_120, uploadDate: now, filename: 'cut off' })
  t.same(await app.services.media.sweep(), { files: 0, media: 0 }, 'nothing before its time')
  advance(2)
  t.same(await app.services.media.sweep(), { files: 2, media: 0 }, 'both once it has come')
  t.same(await storedMedia(app), { records: 1, files: 1, chunks: 1, unrecorded: 0 }, 'only the recorded file is left')
  t.equal(await served(app, recorded), 200)
})

test('with formatted cards: a card shows its image by a signed URL; once no card shows it, it goes', async (t) => {
  const { app, advance } = await appWithClock(t)
  const user = await registerUser(app)
  const image = await uploaded(app, user.jwtToken, samples.png(8000))
  const sound = await uploaded(app, user.jwtToken, samples.ogg(8000))
  await makeFolder(app, user, ['Birds'])
  const deck = await expectOk<Deck>(app, 'create-flashcard', {
    jwtToken: user.jwtToken,
    folder: ['Birds'],
    flashcardName: 'Songs',
    cards: [{ front: `<img src="media:${image.mediaID}" alt="a robin">`, back: `<audio src="media:${sound.mediaID}"></audio>`, format: 'html' }]
  }, 201)
  const read = await expectOk<{ cards: Array<{ frontHtml: string, backHtml: string }> }>(app, 'get-flashcard', { jwtToken: user.jwtToken, flashcardID: deck.flashcardID })
  const shownImage = /src="([^"]+)"/.exec(read.cards[0]?.frontHtml ?? '')?.[1]?.replaceAll('&amp;', '&') ?? ''
  t.match(shownImage, new RegExp(`^/media/${image.mediaID}\\?u=${user.userID}&e=\\d+&s=`), 'the card shows the image by its signed URL')
  t.equal(await served(app, { ...image, url: shownImage }), 200, 'which serves it')

  // an edit that drops the image: the sweep's look after the grace removes it; the sound stays shown
  await expectOk(app, 'edit-card', { jwtToken: user.jwtToken, flashcardID: deck.flashcardID, cardID: deck.cardIDs[0], front: 'a robin' })
  advance(GRACE_SECONDS + 1)
  await app.services.media.sweep()
  t.equal(await served(app, image), 404, 'the image no card shows is gone')
  t.equal(await served(app, sound), 200, 'the sound a card shows stays')
  await expectOk(app, 'delete-card', { jwtToken: user.jwtToken, flashcardID: deck.flashcardID, cardID: deck.cardIDs[0] })
  t.equal(await served(app, sound), 404, 'deleting the card takes its sound with it')
  t.same(await storedMedia(app), { records: 0, files: 0, chunks: 0, unrecorded: 0 })
})
