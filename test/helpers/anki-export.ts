// A learner with a library worth exporting to Anki: nested folders, plain and formatted cards, a
// cloze note, an image and a sound, and reviews on days before the export, in a time zone with
// daylight saving. The export itself, written to a file for the readers to read.
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { readAnkiPackageFile } from '../../src/anki/package-file.js'
import type { CardDocument } from '../../src/repositories/cards.js'
import type { ReviewDocument } from '../../src/repositories/reviews.js'
import type { MediaDocument } from '../../src/repositories/media.js'
import { buildTestApp, databaseOf, expectOk, post, registerUser, type TestUser } from './app.js'
import { storedCards } from './stored.js'
import { samples, uploaded } from './media.js'

const DAY = 86_400_000

export interface Library {
  app: FastifyInstance
  user: TestUser
  /** sets the service's clock */
  setNow: (instant: Date) => void
  ids: {
    spanish: string
    verbs: string
    pictures: string
    other: string
    misc: string
    /** the cards of Verbs: reviewed into review, into relearning, into learning, and never */
    verbCards: string[]
    /** the card showing an image and a sound */
    pictureCard: string
    /** the cloze note's cards, numbers 1 and 2 */
    clozeCards: string[]
    image: string
    sound: string
  }
  bytes: { image: Buffer, sound: Buffer }
}

/**
 * The library, its reviews made over the 40 days before `exportAt` (the real time by default, as
 * Anki's own "today" is), in America/New_York with the day starting at 04:00.
 */
export async function libraryWithHistory (t: { teardown: (fn: () => unknown) => void }, testFile: string, exportAt = new Date()): Promise<Library> {
  let now = new Date(exportAt.getTime() - 40 * DAY)
  const app = await buildTestApp(t, testFile, { clock: () => now })
  const user = await registerUser(app, { timezone: 'America/New_York' })
  const call = async <T>(operation: string, body: object, status = 200): Promise<T> => await expectOk<T>(app, operation, { jwtToken: user.jwtToken, ...body }, status)

  const image = samples.png(3000)
  const sound = samples.mp3(5000)
  const imageID = (await uploaded(app, user.jwtToken, image)).mediaID
  const soundID = (await uploaded(app, user.jwtToken, sound)).mediaID

  const spanish = (await call<{ folderID: string }>('create-folder', { path: ['Languages', 'Spanish'] }, 201)).folderID
  const other = (await call<{ folderID: string }>('create-folder', { path: ['Other'] }, 201)).folderID
  const verbs = await call<{ flashcardID: string, cardIDs: string[] }>('create-flashcard', {
    folder: ['Languages', 'Spanish'],
    flashcardName: 'Verbs',
    cards: [
      { front: 'to be', back: 'ser <or> estar & "more"\nsecond line' },
      { front: 'to have', back: 'tener' },
      { front: 'to go', back: 'ir' },
      { front: 'to say', back: 'decir' }
    ]
  }, 201)
  now = new Date(now.getTime() + 60_000)
  const pictures = await call<{ flashcardID: string, cardIDs: string[] }>('create-flashcard', {
    folder: ['Languages'],
    flashcardName: 'Pictures & sounds',
    cards: [
      { front: `<b>Robin</b> <img src="media:${imageID}" alt="a robin">`, back: `a bird <audio src="media:${soundID}"></audio>`, format: 'html' },
      { cloze: '{{c1::Madrid}} is the capital of {{c2::Spain::country}}', back: 'in <i>Europe</i>', format: 'html' }
    ]
  }, 201)
  const misc = await call<{ flashcardID: string }>('create-flashcard', {
    folder: ['Other'], flashcardName: 'Misc', cards: [{ front: 'alone', back: 'in its folder' }]
  }, 201)

  const [be, have, go] = verbs.cardIDs as [string, string, string, string]
  const [pictureCard, madrid, spain] = pictures.cardIDs as [string, string, string]
  const review = async (flashcardID: string, cardID: string, rating: string) => await call('review-card', { flashcardID, cardID, rating })
  await review(verbs.flashcardID, be, 'easy')
  await review(verbs.flashcardID, have, 'good')
  await review(verbs.flashcardID, have, 'good')
  await review(pictures.flashcardID, madrid, 'good')
  await review(pictures.flashcardID, pictureCard, 'hard')
  now = new Date(now.getTime() + 20 * DAY)
  await review(verbs.flashcardID, be, 'good')
  await review(verbs.flashcardID, have, 'again')
  await review(pictures.flashcardID, madrid, 'good')
  await review(verbs.flashcardID, go, 'again')
  now = new Date(exportAt.getTime())
  return {
    app,
    user,
    setNow: (instant) => { now = instant },
    ids: {
      spanish,
      verbs: verbs.flashcardID,
      pictures: pictures.flashcardID,
      other,
      misc: misc.flashcardID,
      verbCards: verbs.cardIDs,
      pictureCard,
      clozeCards: [madrid, spain],
      image: imageID,
      sound: soundID
    },
    bytes: { image, sound }
  }
}

/** export-anki's answer. */
export async function exportAnki (app: FastifyInstance, user: TestUser, scope: { folderID?: string, flashcardID?: string } = {}): Promise<LightMyRequestResponse> {
  return await post(app, 'export-anki', { jwtToken: user.jwtToken, ...scope })
}

/** An export that must succeed, written to a file of a folder removed when the test ends: its path. */
export async function exportedFile (t: { teardown: (fn: () => unknown) => void }, app: FastifyInstance, user: TestUser, scope: { folderID?: string, flashcardID?: string } = {}): Promise<string> {
  const response = await exportAnki(app, user, scope)
  if (response.statusCode !== 200) throw new Error(`export-anki: ${response.statusCode} ${response.body}`)
  const folder = await mkdtemp(join(tmpdir(), 'anki-export-'))
  t.teardown(async () => { await rm(folder, { recursive: true, force: true }) })
  const path = join(folder, 'export.apkg')
  await writeFile(path, response.rawPayload)
  return path
}

/** What the service holds of the user: their cards, their review log, their media records. */
export async function storedOf (app: FastifyInstance, userID: string): Promise<{ cards: CardDocument[], reviews: ReviewDocument[], media: MediaDocument[] }> {
  const db = databaseOf(app)
  return {
    cards: await storedCards(db, { userID }, { createdOrder: 1 }),
    reviews: await db.collection<ReviewDocument>('reviews').find({ userID }).sort({ reviewedAt: 1, seq: 1 }).toArray(),
    media: await db.collection<MediaDocument>('media').find({ userID }).toArray()
  }
}

/** What a package names by id: its decks by name, its notes by guid, its cards by guid and ord. */
export interface PackageIds {
  decks: Record<string, number>
  notes: Record<string, number>
  cards: Record<string, number>
}

export async function packageIds (path: string): Promise<PackageIds> {
  const { collection } = await readAnkiPackageFile(path, { onMedia: () => {} })
  const guids = new Map(collection.notes.map((note) => [note.id, note.guid]))
  return {
    decks: Object.fromEntries(collection.decks.map((deck) => [deck.path.join('::'), deck.id])),
    notes: Object.fromEntries(collection.notes.map((note) => [note.guid, note.id])),
    cards: Object.fromEntries(collection.cards.map((card) => [`${guids.get(card.noteId) ?? '?'}/${card.ord}`, card.id]))
  }
}
