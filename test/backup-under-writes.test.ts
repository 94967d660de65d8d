// `npm run backup` while the service runs and learners keep reviewing, then
// `npm run restore` into a new data folder and the service started on it: every
// review acknowledged before the backup began is there, and every review's
// transaction (the card, the log, the account's counts, the day's counts) is
// there whole or not at all, in whichever collections it wrote.
import { mkdtemp, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { MongoClient, type Db } from 'mongodb'
import { test } from 'tap'
import { XP_PER_REVIEW } from '../src/domain/scheduling.js'
import { runScript } from './helpers/backup.js'
import { samples } from './helpers/media.js'
import { call, startServiceProcess, stopped, type RunningService } from './helpers/service-process.js'

interface Learner { userID: string, jwtToken: string, email: string, flashcardID: string, cardIDs: string[] }
interface Sent { reviewID: string, userID: string, cardID: string, acknowledged: boolean }

const LEARNERS = 3
const PASSWORD = 'long enough password'

async function folderOf (t: { teardown: (fn: () => unknown) => void }, name: string): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), `${name}-`))
  t.teardown(() => rm(folder, { recursive: true, force: true }))
  return folder
}

async function stopService (service: RunningService): Promise<void> {
  if (service.process.exitCode !== null || service.process.signalCode !== null) return
  service.process.kill('SIGTERM')
  await stopped(service.process)
}

async function ok (base: string, operation: string, body: object): Promise<Record<string, unknown>> {
  const answer = await call(base, operation, body)
  if (answer.status >= 300) throw new Error(`${operation}: ${answer.status} ${JSON.stringify(answer.body)}`)
  return answer.body
}

/** A learner with 2,000 cards in two flashcards, one card showing an image of 300 KB (two GridFS chunks). */
async function learnerOn (base: string, index: number): Promise<Learner> {
  const email = `learner${index}@example.com`
  const { userID, jwtToken } = await ok(base, 'register', { email, password: PASSWORD }) as { userID: string, jwtToken: string }
  await ok(base, 'create-folder', { jwtToken, path: ['Spanish'] })
  const cardIDs: string[] = []
  let flashcardID = ''
  for (const deck of ['Verbs', 'Nouns']) {
    const made = await ok(base, 'create-flashcard', {
      jwtToken, folder: ['Spanish'], flashcardName: deck, cards: Array.from({ length: 1000 }, (_, n) => ({ front: `${deck} ${n} of ${email}`, back: `answer ${n}` }))
    }) as { flashcardID: string, cardIDs: string[] }
    flashcardID = made.flashcardID
    cardIDs.push(...made.cardIDs)
  }
  const form = new FormData()
  form.append('jwtToken', jwtToken)
  form.append('file', new Blob([new Uint8Array(samples.png(300_000))]), 'picture.png')
  const uploaded = await (await fetch(`${base}/api/upload-media`, { method: 'POST', body: form })).json() as { mediaID: string }
  await ok(base, 'add-cards', { jwtToken, flashcardID, cards: [{ front: `<img src="media:${uploaded.mediaID}" alt="a picture">`, back: 'a picture', format: 'html' }] })
  // the reviews below go to the cards of the last flashcard
  return { userID, jwtToken, email, flashcardID, cardIDs: cardIDs.slice(1000) }
}

/** Reviews the learner's cards one after another until `stop`, recording each review sent and whether it was acknowledged. */
async function keepReviewing (base: string, learner: Learner, sent: Sent[], stop: () => boolean): Promise<void> {
  const ratings = ['again', 'hard', 'good', 'easy']
  for (let n = 0; !stop(); n++) {
    const cardID = learner.cardIDs[(n * 7) % 40] as string
    const review: Sent = { reviewID: `${learner.userID}-${n}`, userID: learner.userID, cardID, acknowledged: false }
    sent.push(review)
    const answer = await call(base, 'review-card', { jwtToken: learner.jwtToken, flashcardID: learner.flashcardID, cardID, rating: ratings[n % 4], reviewID: review.reviewID })
    if (answer.status !== 200) throw new Error(`review-card: ${answer.status} ${JSON.stringify(answer.body)}`)
    review.acknowledged = true
  }
}

/** Every document of a collection as stored, as hex, sorted. */
async function storedBytes (db: Db, collection: string): Promise<string[]> {
  const raw = await db.collection(collection).find({}, { raw: true }).toArray() as unknown as Uint8Array[]
  return raw.map((bytes) => Buffer.from(bytes).toString('hex')).sort()
}

async function indexesOf (db: Db): Promise<Record<string, unknown[]>> {
  const indexes: Record<string, unknown[]> = {}
  for (const { name } of await db.listCollections({}, { nameOnly: true }).toArray()) {
    indexes[name] = (await db.collection(name).listIndexes().toArray()).map(({ name: index, key, unique }) => ({ index, key, unique })).sort((a, b) => String(a.index).localeCompare(String(b.index)))
  }
  return indexes
}

test('a backup taken while reviews keep coming, restored into a new data folder: every review acknowledged before it began is there, each review whole', async (t) => {
  const sourceDir = await folderOf(t, 'backup-source')
  const targetDir = await folderOf(t, 'backup-target')
  const archive = join(await folderOf(t, 'backup-archive'), 'flashcards.backup')
  const source = await startServiceProcess(sourceDir, {})
  t.teardown(() => stopService(source))
  const learners: Learner[] = []
  for (let index = 0; index < LEARNERS; index++) learners.push(await learnerOn(source.base, index))

  const sent: Sent[] = []
  let stopReviewing = false
  const reviewing = Promise.all(learners.map((learner) => keepReviewing(source.base, learner, sent, () => stopReviewing)))
  reviewing.catch(() => { stopReviewing = true })
  while (sent.filter((review) => review.acknowledged).length < 30) await new Promise((resolve) => setTimeout(resolve, 20))
  const acknowledgedBefore = sent.filter((review) => review.acknowledged)
  const sentBefore = sent.length
  const backup = await runScript('backup', [archive], sourceDir)
  const acknowledgedDuring = sent.slice(sentBefore).filter((review) => review.acknowledged).length
  stopReviewing = true
  await reviewing
  t.equal(backup.code, 0, `npm run backup succeeded:\n${backup.stderr}`)
  t.match(backup.stdout, /Backed up [\d,]+ documents of \d+ collections/, 'and said what it wrote')
  t.ok(acknowledgedDuring > 0, `reviews went on during the backup (${acknowledgedDuring} acknowledged)`)
  t.ok((await stat(archive)).size > 0)

  // the source as it is now: the collections the reviews do not write are the same in the restored database
  const sourceClient = new MongoClient(`${source.databaseUrl}/flashcards`)
  t.teardown(() => sourceClient.close())
  const sourceDb = sourceClient.db()

  const restored = await runScript('restore', [archive], targetDir)
  t.equal(restored.code, 0, `npm run restore into a new data folder succeeded:\n${restored.stderr}`)
  const target = await startServiceProcess(targetDir, {})
  t.teardown(() => stopService(target))
  const targetClient = new MongoClient(`${target.databaseUrl}/flashcards`)
  t.teardown(() => targetClient.close())
  const db = targetClient.db()

  const reviews = await db.collection<{ reviewID: string, userID: string, cardID: string, seq: number, xp: number }>('reviews').find().toArray()
  const restoredIDs = new Set(reviews.map((review) => review.reviewID))
  const missing = acknowledgedBefore.filter((review) => !restoredIDs.has(review.reviewID))
  t.strictSame(missing, [], `all ${acknowledgedBefore.length} reviews acknowledged before the backup began are restored`)
  const sentIDs = new Set(sent.map((review) => review.reviewID))
  t.ok(reviews.every((review) => sentIDs.has(review.reviewID)), `the restored reviews (${reviews.length}) are reviews that were sent`)
  t.comment(`${sent.filter((review) => review.acknowledged).length} reviews acknowledged in all, ${reviews.length} in the backup`)

  for (const learner of learners) {
    const own = reviews.filter((review) => review.userID === learner.userID)
    const account = await db.collection<{ _id: string, reviewCount: number, totalXp: number }>('users').findOne({ _id: learner.userID })
    const days = await db.collection<{ reviews: number, xp: number }>('activity').find({ userID: learner.userID }).toArray()
    t.equal(account?.reviewCount, own.length, `${learner.email}: the account counts the reviews in the log`)
    t.equal(account?.totalXp, own.length * XP_PER_REVIEW, `${learner.email}: and its XP is theirs`)
    t.equal(days.reduce((sum, day) => sum + day.reviews, 0), own.length, `${learner.email}: the day's counts hold them`)
    const cards = await db.collection<{ _id: string, version: number, lastReviewID: string | null }>('cardStates').find({ _id: { $in: learner.cardIDs } }).toArray()
    const wrong = cards.filter((card) => {
      const ofCard = own.filter((review) => review.cardID === card._id).sort((a, b) => a.seq - b.seq)
      return card.version !== ofCard.length || card.lastReviewID !== (ofCard[ofCard.length - 1]?.reviewID ?? null)
    })
    t.strictSame(wrong.map((card) => card._id), [], `${learner.email}: each card's schedule is the one its last review in the log gave`)
  }

  for (const collection of ['trees', 'searchPages', 'media', 'media.files', 'media.chunks', 'migrations', 'goals']) {
    t.strictSame(await storedBytes(db, collection), await storedBytes(sourceDb, collection), `${collection}: every document as in the source`)
  }
  t.ok((await storedBytes(db, 'media.chunks')).length >= LEARNERS * 2, 'the images\' bytes among them')
  t.strictSame(await indexesOf(db), await indexesOf(sourceDb), 'every collection with the same indexes')

  // the restored service serves the learners: their passwords, cards and images
  const learner = learners[0] as Learner
  const login = await call(target.base, 'login', { email: learner.email, password: PASSWORD })
  t.equal(login.status, 200, 'a learner logs in on the restored service')
  // the picture card is the flashcard's 1,001st: on its second page
  let pictureCard: { format: string, frontHtml: string } | undefined
  for (let cursor: string | undefined; pictureCard === undefined;) {
    const page = await call(target.base, 'get-flashcard', { jwtToken: login.body.jwtToken, flashcardID: learner.flashcardID, ...(cursor === undefined ? {} : { cursor }) })
    pictureCard = (page.body.cards as Array<{ format: string, frontHtml: string }>).find((card) => card.format === 'html')
    cursor = page.body.nextCursor as string | undefined
    if (cursor === undefined) break
  }
  const image = /src="([^"]+)"/.exec(pictureCard?.frontHtml ?? '')?.[1]?.replace(/&amp;/g, '&')
  t.ok(image?.startsWith('/media/'), 'the card shows its image')
  const served = await fetch(new URL(image ?? '', target.base))
  t.equal(served.status, 200, 'and the restored service serves it')
  t.equal((await served.arrayBuffer()).byteLength, 300_000, 'whole')
})
