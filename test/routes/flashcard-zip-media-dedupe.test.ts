import { test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { buildTestApp, databaseOf, expectOk, makeFolder, registerUser, type TestUser } from '../helpers/app.js'
import { samples, storedMedia, uploaded } from '../helpers/media.js'
import { exportedZip, importedZip, zipOf } from '../helpers/zip.js'

async function mediaBytesUsed (app: FastifyInstance, user: TestUser): Promise<number> {
  const account = await databaseOf(app).collection<{ _id: string, usage?: { mediaBytes?: number } }>('users').findOne({ _id: user.userID })
  return account?.usage?.mediaBytes ?? 0
}

async function frontsOf (app: FastifyInstance, user: TestUser, flashcardID: string): Promise<string[]> {
  const { cards } = await expectOk<{ cards: Array<{ front: string }> }>(app, 'get-flashcard', { jwtToken: user.jwtToken, flashcardID })
  return cards.map((card) => card.front)
}

test('importing an archive of media the account holds stores nothing more: the cards show that media, counted once', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app)
  const robin = samples.png(40_000)
  const song = samples.ogg(9_000)
  const [robinMedia, songMedia] = [await uploaded(app, user.jwtToken, robin), await uploaded(app, user.jwtToken, song)]
  await makeFolder(app, user, ['Birds'])
  const fronts = [`<img src="media:${robinMedia.mediaID}">`, `<audio src="media:${songMedia.mediaID}"></audio>`]
  const { flashcardID } = await expectOk<{ flashcardID: string }>(app, 'create-flashcard', {
    jwtToken: user.jwtToken, folder: ['Birds'], flashcardName: 'Robin', cards: fronts.map((front) => ({ front, back: 'x', format: 'html' }))
  }, 201)
  const archive = await exportedZip(app, user.jwtToken, flashcardID)
  const used = await mediaBytesUsed(app, user)
  t.equal(used, robin.length + song.length)

  const copy = await importedZip(app, user.jwtToken, { folder: ['Birds'], flashcardName: 'Robin, again', archive })
  t.same({ added: copy.mediaAdded, reused: copy.mediaReused, bytes: copy.mediaBytesAdded }, { added: '0', reused: '2', bytes: '0' })
  t.same(await frontsOf(app, user, copy.flashcardID), fronts, 'the new cards show the very media the account holds')
  t.equal(await mediaBytesUsed(app, user), used, 'the quota is not charged again')
  t.same(await storedMedia(app), { records: 2, files: 2, chunks: 2, unrecorded: 0 }, 'one record and one file of each content; the copies read from the archive are gone')
})

test('the same archive imported twice into another account, one after the other or at once, stores its media once', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const alice = await registerUser(app)
  const bob = await registerUser(app)
  const owl = samples.jpeg(300_000)
  const owlMedia = await uploaded(app, alice.jwtToken, owl)
  await makeFolder(app, alice, ['Birds'])
  const { flashcardID } = await expectOk<{ flashcardID: string }>(app, 'create-flashcard', {
    jwtToken: alice.jwtToken, folder: ['Birds'], flashcardName: 'Owl', cards: [{ front: `<img src="media:${owlMedia.mediaID}">`, back: 'owl', format: 'html' }]
  }, 201)
  const archive = await exportedZip(app, alice.jwtToken, flashcardID)
  await makeFolder(app, bob, ['Inbox'])

  const first = await importedZip(app, bob.jwtToken, { folder: ['Inbox'], flashcardName: 'Owl 1', archive })
  t.same({ added: first.mediaAdded, bytes: first.mediaBytesAdded }, { added: '1', bytes: String(owl.length) }, 'the first import stores the owl')
  const second = await importedZip(app, bob.jwtToken, { folder: ['Inbox'], flashcardName: 'Owl 2', archive })
  t.same({ added: second.mediaAdded, reused: second.mediaReused, bytes: second.mediaBytesAdded }, { added: '0', reused: '1', bytes: '0' }, 'the second finds it')
  const together = await Promise.all([3, 4].map(async (n) => await importedZip(app, bob.jwtToken, { folder: ['Inbox'], flashcardName: `Owl ${n}`, archive })))
  t.same(together.map((answer) => answer.mediaBytesAdded), ['0', '0'], 'two more at once add nothing')

  t.equal(await mediaBytesUsed(app, bob), owl.length, 'bob\'s quota holds the owl once')
  const bobOwl = await databaseOf(app).collection<{ _id: string }>('media').find({ userID: bob.userID }).toArray()
  t.equal(bobOwl.length, 1, 'one record of bob\'s')
  for (const answer of [first, second, ...together]) {
    t.same(await frontsOf(app, bob, answer.flashcardID), [`<img src="media:${bobOwl[0]?._id ?? ''}">`], 'every copy shows that one media')
  }
  t.same(await storedMedia(app), { records: 2, files: 2, chunks: 4, unrecorded: 0 }, 'alice\'s owl and bob\'s, nothing left over')
})

test('one content under two names in an archive is one media file', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app)
  const picture = samples.webp(5_000)
  await makeFolder(app, user, ['Inbox'])
  const archive = zipOf([
    { name: 'cards.csv', data: Buffer.from('front,back,format,type\r\n"<img src=""media/a.webp"">",a,html,basic\r\n"<img src=""media/b.webp"">",b,html,basic\r\n') },
    { name: 'media/a.webp', data: picture, method: 'store' },
    { name: 'media/b.webp', data: picture, method: 'store' }
  ])
  const imported = await importedZip(app, user.jwtToken, { folder: ['Inbox'], flashcardName: 'Twice', archive })
  t.same({ added: imported.mediaAdded, reused: imported.mediaReused, bytes: imported.mediaBytesAdded }, { added: '1', reused: '0', bytes: String(picture.length) })
  const [first, second] = await frontsOf(app, user, imported.flashcardID)
  t.equal(first, second, 'both cards show the one media')
  t.same(await storedMedia(app), { records: 1, files: 1, chunks: 1, unrecorded: 0 })
  t.equal(await mediaBytesUsed(app, user), picture.length)
})
