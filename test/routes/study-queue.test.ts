// get-study-queue: today's cards of the whole library, a folder or a
// flashcard, in the order to study them, with their content and the counts of
// a study header; the daily limits across the whole library. And get-library's
// counts of what studying each part would give.
import { test } from 'tap'
import { buildTestApp, expectOk, expectRefusal, makeDeck, registerUser } from '../helpers/app.js'
import { learner, pairsOf } from '../helpers/today-queues.js'

const DAY = 24 * 3_600_000

interface QueueCard { cardID: string, flashcardID: string, flashcardName: string, folder: string[], queue: string, front: string, back: string, frontHtml: string, review_status: string, suspended: string, flag: string }
interface StudyQueue { counts: { new: string, learning: string, review: string }, cards: QueueCard[] }
interface OutlineFlashcard { flashcardID: string, flashcardName: string, due: string, new: string }
interface OutlineFolder { folderID: string, name: string, due: string, new: string, folders: OutlineFolder[], flashcards: OutlineFlashcard[] }

test('the whole library: the cards of get-today-cards, in the order to study them, with their content and counts', async (t) => {
  const clock = { now: new Date('2026-09-01T08:00:00Z') }
  const app = await buildTestApp(t, import.meta.filename, { clock: () => clock.now })
  const user = await registerUser(app)
  const me = learner(app, user, clock)
  const spanish = await makeDeck(app, user, { folder: ['Languages', 'Spanish'], name: 'Verbs', cards: [{ front: 'ser', back: 'to be' }, { front: '<ir>', back: 'to go' }] })
  clock.now = new Date(clock.now.getTime() + 1)
  const french = await makeDeck(app, user, { folder: ['Languages', 'French'], name: 'Nouns', cards: 3 })
  await me.review(french.flashcardID, french.cardIDs[2] as string, 'easy')
  await me.review(spanish.flashcardID, spanish.cardIDs[0] as string, 'again')
  clock.now = new Date(clock.now.getTime() + 30 * DAY)

  const queue = await expectOk<StudyQueue>(app, 'get-study-queue', { jwtToken: user.jwtToken })
  const today = await me.expectToday(t, 'today\'s cards')
  t.strictSame(queue.cards.map((card) => card.cardID).sort(), pairsOf(today).map(([, cardID]) => cardID).sort(), 'the same cards as get-today-cards')
  t.strictSame(queue.cards.map((card) => card.cardID), [spanish.cardIDs[0], french.cardIDs[2], spanish.cardIDs[1], french.cardIDs[0], french.cardIDs[1]],
    'the most overdue first, then new cards in creation order')
  t.strictSame(queue.counts, { new: '3', learning: '1', review: '1' })
  t.match(queue.cards[2], {
    cardID: spanish.cardIDs[1],
    flashcardID: spanish.flashcardID,
    flashcardName: 'Verbs',
    folder: ['Languages', 'Spanish'],
    queue: 'new',
    front: '<ir>',
    frontHtml: '&lt;ir&gt;',
    review_status: '0.0',
    suspended: 'false',
    flag: '0'
  }, 'each card with its flashcard, its content and its standing')
  t.strictSame(queue.cards.map((card) => card.queue), ['learning', 'review', 'new', 'new', 'new'])
})

test('a folder or a flashcard: its own cards, within what the daily limits leave across the whole library', async (t) => {
  const clock = { now: new Date('2026-09-01T08:00:00Z') }
  const app = await buildTestApp(t, import.meta.filename, { clock: () => clock.now })
  const user = await registerUser(app)
  const other = await registerUser(app)
  const me = learner(app, user, clock)
  await me.settings({ newCardsPerDay: 6, reviewsPerDay: 4 })
  const first = await makeDeck(app, user, { folder: ['A'], name: 'First', cards: 10 })
  clock.now = new Date(clock.now.getTime() + 1)
  const deep = await makeDeck(app, user, { folder: ['B', 'Inner'], name: 'Deep', cards: 10 })
  clock.now = new Date(clock.now.getTime() + 1)
  const shallow = await makeDeck(app, user, { folder: ['B'], name: 'Shallow', cards: 10 })
  const library = async (): Promise<{ due: string, new: string, folders: OutlineFolder[] }> => await expectOk(app, 'get-library', { jwtToken: user.jwtToken })
  const queueOf = async (scope: object): Promise<StudyQueue> => await expectOk<StudyQueue>(app, 'get-study-queue', { jwtToken: user.jwtToken, ...scope })
  const folderB = (await library()).folders.find((folder) => folder.name === 'B') as OutlineFolder

  t.strictSame((await queueOf({ flashcardID: deep.flashcardID })).cards.map((card) => card.cardID), deep.cardIDs.slice(0, 6),
    'a flashcard whose cards come after another\'s: its own first six, though today\'s six are all the first flashcard\'s')
  t.strictSame((await queueOf({ folderID: folderB.folderID })).cards.map((card) => card.cardID), deep.cardIDs.slice(0, 6),
    'a folder: the cards of every flashcard below it, in creation order')
  t.strictSame((await queueOf({ folderID: folderB.folderID })).counts, { new: '6', learning: '0', review: '0' })

  // three new cards started: three left today, whichever part is studied
  for (const cardID of shallow.cardIDs.slice(0, 3)) await me.review(shallow.flashcardID, cardID, 'again')
  t.strictSame((await queueOf({ flashcardID: first.flashcardID })).counts, { new: '3', learning: '0', review: '0' }, 'new cards left across the library')
  t.strictSame((await queueOf({ flashcardID: shallow.flashcardID })).counts, { new: '3', learning: '3', review: '0' },
    'the started cards are learning, due in minutes, before the day ends')
  const counted = await library()
  t.strictSame([counted.due, counted.new], ['3', '3'], 'the library: what studying all of it gives')
  const b = counted.folders.find((folder) => folder.name === 'B') as OutlineFolder
  t.strictSame([b.due, b.new], ['3', '3'], 'a folder: the cards of everything below it, within the limits')
  t.strictSame(b.folders[0]?.flashcards.map((flashcard) => [flashcard.flashcardName, flashcard.due, flashcard.new]), [['Deep', '0', '3']])
  t.strictSame(b.flashcards.map((flashcard) => [flashcard.flashcardName, flashcard.due, flashcard.new]), [['Shallow', '3', '3']])

  // the reviews allowed today bound the learning and review cards of every part
  for (const cardID of first.cardIDs.slice(0, 3)) await me.review(first.flashcardID, cardID, 'again')
  await me.settings({ reviewsPerDay: 4 })
  clock.now = new Date(clock.now.getTime() + 3_600_000)
  t.strictSame((await queueOf({ folderID: b.folderID })).counts, { new: '0', learning: '3', review: '0' }, 'six new started: none left; three learning of four reviews allowed')
  t.strictSame((await queueOf({})).counts, { new: '0', learning: '4', review: '0' }, 'the library: four of six learning cards')

  await expectRefusal(t, app, 'get-study-queue', { jwtToken: user.jwtToken, folderID: b.folderID, flashcardID: first.flashcardID }, 400, 'invalid_field', 'both')
  await expectRefusal(t, app, 'get-study-queue', { jwtToken: user.jwtToken, folderID: '1'.repeat(39) }, 404, 'folder_not_found')
  await expectRefusal(t, app, 'get-study-queue', { jwtToken: user.jwtToken, flashcardID: '1'.repeat(39) }, 404, 'flashcard_not_found')
  await expectRefusal(t, app, 'get-study-queue', { jwtToken: other.jwtToken, folderID: b.folderID }, 404, 'folder_not_found', 'another user\'s folder')
  await expectRefusal(t, app, 'get-study-queue', { jwtToken: other.jwtToken, flashcardID: first.flashcardID }, 404, 'flashcard_not_found', 'another user\'s flashcard')
  t.strictSame(await expectOk(app, 'get-study-queue', { jwtToken: other.jwtToken }), { counts: { new: '0', learning: '0', review: '0' }, cards: [] }, 'nothing to study')
})
