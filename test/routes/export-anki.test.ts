// export-anki through the API: what a folder, a flashcard and the whole account hold, the answer's
// headers, and what is refused. The packages are read back with the project's Anki reader.
import { finished } from 'node:stream/promises'
import { test } from 'tap'
import { readAnkiPackageFile } from '../../src/anki/package-file.js'
import { noteGuid } from '../../src/domain/anki/export.js'
import { Refusal } from '../../src/domain/refusals.js'
import { ankiExportService } from '../../src/services/anki-export.js'
import { expectOk, expectRefusal, registerUser } from '../helpers/app.js'
import { exportAnki, exportedFile, libraryWithHistory, storedOf } from '../helpers/anki-export.js'

async function contents (path: string) {
  const media: string[] = []
  const { collection } = await readAnkiPackageFile(path, { onMedia: ({ name }) => { media.push(name) } })
  return {
    decks: collection.decks.map((deck) => deck.path.join('::')).sort(),
    guids: collection.notes.map((note) => note.guid).sort(),
    cards: collection.cards.length,
    revlog: collection.revlog.length,
    media
  }
}

test('a folder, a flashcard and the whole account each hold what is in them', async (t) => {
  const { app, user, ids } = await libraryWithHistory(t, import.meta.filename)
  const stored = await storedOf(app, user.userID)
  const reviewsOf = (flashcardID: string) => stored.reviews.filter((review) => review.flashcardID === flashcardID).length
  const guidsOf = (flashcardID: string) => [...new Set(stored.cards.filter((card) => card.flashcardID === flashcardID).map((card) => noteGuid(card.noteID ?? card._id)))]

  const spanish = await contents(await exportedFile(t, app, user, { folderID: ids.spanish }))
  t.same(spanish.decks, ['Default', 'Languages', 'Languages::Spanish', 'Languages::Spanish::Verbs'], 'a folder: its decks, below the folders above it')
  t.same(spanish.guids, guidsOf(ids.verbs).sort(), 'a folder: the notes of its flashcards')
  t.equal(spanish.revlog, reviewsOf(ids.verbs), 'a folder: the reviews of its cards')
  t.same(spanish.media, [], 'a folder whose cards show no media: none')

  const pictures = await contents(await exportedFile(t, app, user, { flashcardID: ids.pictures }))
  t.same(pictures.decks, ['Default', 'Languages', 'Languages::Pictures & sounds'], 'a flashcard: its deck, below its folders')
  t.equal(pictures.cards, 3, 'a flashcard: its card and its cloze note\'s two')
  t.same(pictures.guids, guidsOf(ids.pictures).sort(), 'the cloze note is one note')
  t.equal(pictures.revlog, reviewsOf(ids.pictures))
  t.equal(pictures.media.length, 2, 'a flashcard: the image and the sound its cards show')

  const misc = await contents(await exportedFile(t, app, user, { flashcardID: ids.misc }))
  t.same(misc, { decks: ['Default', 'Other', 'Other::Misc'], guids: guidsOf(ids.misc), cards: 1, revlog: 0, media: [] }, 'a flashcard never reviewed')

  const all = await contents(await exportedFile(t, app, user))
  t.equal(all.cards, stored.cards.length, 'the whole account: every card')
  t.equal(all.revlog, stored.reviews.length, 'every review')
  t.same(all.guids, [...spanish.guids, ...pictures.guids, ...misc.guids].sort(), 'the same notes, by the same guids, whatever was exported')
  const again = await contents(await exportedFile(t, app, user))
  t.same(again.guids, all.guids, 'guids are the same at every export')
})

test('the answer is the package as an attachment named after what was exported', async (t) => {
  const { app, user, ids } = await libraryWithHistory(t, import.meta.filename)
  const whole = await exportAnki(app, user)
  t.equal(whole.statusCode, 200)
  t.equal(whole.headers['content-type'], 'application/octet-stream')
  t.equal(whole.headers['content-disposition'], 'attachment; filename="flashcards.apkg"; filename*=UTF-8\'\'flashcards.apkg')
  t.equal(whole.rawPayload.subarray(0, 4).toString('latin1'), 'PK\u0003\u0004', 'a zip archive')

  const named = await expectOk<{ flashcardID: string }>(app, 'create-flashcard', {
    jwtToken: user.jwtToken, folder: ['Other'], flashcardName: 'Café "déjà" vu', cards: [{ front: 'a', back: 'b' }]
  }, 201)
  const response = await exportAnki(app, user, { flashcardID: named.flashcardID })
  t.equal(response.headers['content-disposition'],
    'attachment; filename="Caf_ _d_j__ vu.apkg"; filename*=UTF-8\'\'Caf%C3%A9%20%22d%C3%A9j%C3%A0%22%20vu.apkg',
    'the name in UTF-8, and plain ASCII for clients that read only that')
  const slashed = await expectOk<{ flashcardID: string }>(app, 'create-flashcard', {
    jwtToken: user.jwtToken, folder: ['Other'], flashcardName: 'x/y', cards: [{ front: 'a', back: 'b' }]
  }, 201)
  t.equal((await exportAnki(app, user, { flashcardID: slashed.flashcardID })).headers['content-disposition'],
    'attachment; filename="x_y.apkg"; filename*=UTF-8\'\'x%2Fy.apkg', 'a name with a slash is no path')
  const folder = await exportAnki(app, user, { folderID: ids.spanish })
  t.match(folder.headers['content-disposition'], /filename="Spanish\.apkg"/, 'a folder\'s export is named after it')
})

test('another user\'s folder or flashcard is not found, and both at once is refused', async (t) => {
  const { app, user, ids } = await libraryWithHistory(t, import.meta.filename)
  const other = await registerUser(app)
  await expectRefusal(t, app, 'export-anki', { jwtToken: other.jwtToken, folderID: ids.spanish }, 404, 'folder_not_found')
  await expectRefusal(t, app, 'export-anki', { jwtToken: other.jwtToken, flashcardID: ids.verbs }, 404, 'flashcard_not_found')
  await expectRefusal(t, app, 'export-anki', { jwtToken: user.jwtToken, folderID: ids.spanish, flashcardID: ids.verbs }, 400, 'invalid_value')
  await expectRefusal(t, app, 'export-anki', { jwtToken: user.jwtToken, folderID: 'not-an-id' }, 400, 'invalid_field')
  await expectRefusal(t, app, 'export-anki', { jwtToken: `${user.jwtToken}x` }, 401, 'invalid_token')
  const empty = await contents(await exportedFile(t, app, other))
  t.same({ decks: empty.decks, cards: empty.cards, revlog: empty.revlog }, { decks: ['Default'], cards: 0, revlog: 0 }, 'the other user\'s own export holds none of it')
})

test('an export past the limits is refused before anything is sent', async (t) => {
  const { app, user, ids } = await libraryWithHistory(t, import.meta.filename)
  const stored = await storedOf(app, user.userID)
  const context = { repositories: app.repositories, clock: app.clock }
  const refusal = async (limits: { cards: number, textCharacters: number, reviews: number }, scope = { kind: 'account' as const }) => {
    try {
      const { stream } = await ankiExportService(context, limits).exportAnki(user.userID, scope)
      // read to its end: its media is read from the database while it streams
      stream.resume()
      await finished(stream)
      return null
    } catch (error) {
      return error instanceof Refusal ? error.code : error
    }
  }
  const roomy = { cards: 1000, textCharacters: 1_000_000, reviews: 1000 }
  t.equal(await refusal({ ...roomy, cards: stored.cards.length - 1 }), 'export_too_large', 'one card too many')
  t.equal(await refusal({ ...roomy, cards: stored.cards.length }), null, 'as many cards as the limit')
  const text = stored.cards.reduce((sum, card) => sum + card.front.length + card.back.length, 0)
  t.equal(await refusal({ ...roomy, textCharacters: text - 1 }), 'export_too_large', 'one character too many')
  t.equal(await refusal({ ...roomy, textCharacters: text }), null, 'as much text as the limit')
  t.equal(await refusal({ ...roomy, reviews: stored.reviews.length - 1 }), 'export_too_large', 'one review too many')
  t.equal(await refusal({ ...roomy, reviews: stored.reviews.length }), null, 'as many reviews as the limit')
  t.equal(await refusal({ ...roomy, cards: 1 }, { kind: 'flashcard', flashcardID: ids.misc } as never), null, 'the limits count what is exported, not the account')
})
