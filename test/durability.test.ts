import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { test } from 'tap'
import { buildApp } from '../src/app.js'
import { startEmbeddedDatabase } from '../src/db/embedded.js'
import { databaseOf, post, TEST_SECRET } from './helpers/app.js'
import { storedCards, storedNodes } from './helpers/stored.js'

interface Sent { operation: string, body: Record<string, unknown>, status: number, answer: Record<string, unknown> }

test('the embedded database killed (SIGKILL) in a burst of writes: restarted, nothing acknowledged lost, retries safe', async (t) => {
  // a database of this test's own: killing it disturbs no other test
  const dataDir = await mkdtemp(join(tmpdir(), 'durability-test-'))
  t.teardown(() => rm(dataDir, { recursive: true, force: true }))
  const events: string[] = []
  const database = await startEmbeddedDatabase({ dataDir, report: (event) => events.push(event.kind) })
  t.teardown(() => database.stop())
  const app = await buildApp({
    mongodbUrl: `${database.url}/durability`,
    jwtSecret: TEST_SECRET,
    databaseProcess: database.state,
    attemptLimits: { perAddress: 100_000, perAccount: 100_000, windowMs: 60_000 }
  })
  t.teardown(() => app.close())

  const { jwtToken } = (await post(app, 'register', { email: 'kill@example.com', password: 'long enough password' })).json()
  await post(app, 'create-folder', { jwtToken, path: ['Burst'] })
  const deck = (await post(app, 'create-flashcard', {
    jwtToken, folder: ['Burst'], flashcardName: 'Deck', cards: Array.from({ length: 8 }, (_, i) => ({ front: `q${i}`, back: `a${i}` }))
  })).json() as { flashcardID: string, cardIDs: string[] }

  // eight clients: reviews (each of a card of its own, with a reviewID) and new flashcards, as fast as answered
  const sent: Sent[] = []
  let running = true
  let made = 0
  const client = async (worker: number): Promise<void> => {
    while (running) {
      const n = made++
      const [operation, body] = n % 3 === 0
        ? ['create-flashcard', { jwtToken, folder: ['Burst'], flashcardName: `Set ${n}`, cards: [{ front: 'q', back: 'a' }, { front: 'q2', back: 'a2' }] }] as const
        : ['review-card', { jwtToken, flashcardID: deck.flashcardID, cardID: deck.cardIDs[worker], rating: 'good', reviewID: `burst-${n}` }] as const
      const response = await post(app, operation, body)
      sent.push({ operation, body, status: response.statusCode, answer: response.json() })
      if (response.statusCode === 503) await sleep(20)
    }
  }
  const clients = Array.from({ length: 8 }, (_, worker) => client(worker))

  while (sent.length < 150) await sleep(10)
  const killedPid = database.pid()
  process.kill(killedPid as number, 'SIGKILL')
  const killedAt = sent.length
  await sleep(300)
  const health = await app.inject({ method: 'GET', url: '/health' })
  t.equal(health.statusCode, 503, '/health says the database is unavailable while it restarts')

  // the supervisor brings it back; the service serves again without a restart of its own
  let ready = false
  for (const started = Date.now(); !ready && Date.now() - started < 20_000; await sleep(100)) {
    ready = (await app.inject({ method: 'GET', url: '/health' })).statusCode === 200
  }
  t.ok(ready, 'ready again after the database restarted')
  t.not(database.pid(), killedPid, 'a new database process')
  t.ok(events.includes('exited') && events.includes('restarted'), `the supervisor saw the exit and restarted it (${events.join(', ')})`)
  const resumedAt = sent.length
  while (sent.length < resumedAt + 60) await sleep(10)
  running = false
  await Promise.all(clients)

  t.ok(sent.slice(killedAt).some((request) => request.status === 503), 'requests during the outage were answered 503')
  t.strictSame(sent.filter((request) => request.status !== 200 && request.status !== 201 && request.status !== 503), [], 'nothing but success or 503: no internal error')

  // every reviewID is sent again: an acknowledged one answers what it answered, a lost one is reviewed now
  const reviews = sent.filter((request) => request.operation === 'review-card')
  const acknowledged = reviews.filter((request) => request.status === 200)
  t.ok(acknowledged.length >= 50, `reviews were acknowledged (${acknowledged.length} of ${reviews.length})`)
  const refusedRetries: string[] = []
  const changedAnswers: string[] = []
  for (const review of reviews) {
    const retry = await post(app, 'review-card', review.body)
    if (retry.statusCode !== 200) refusedRetries.push(`${String(review.body.reviewID)}: ${retry.statusCode}`)
    if (review.status === 200 && JSON.stringify(retry.json()) !== JSON.stringify(review.answer)) changedAnswers.push(String(review.body.reviewID))
  }
  t.strictSame(refusedRetries, [], 'every retry is answered 200')
  t.strictSame(changedAnswers, [], 'every acknowledged review answers its first answer again: none was lost or counted twice')

  const log = await databaseOf(app).collection('reviews').find({}).toArray()
  t.equal(log.length, reviews.length, 'the log holds each reviewID once')
  t.equal(new Set(log.map((entry) => entry.reviewID)).size, reviews.length)
  const account = await databaseOf(app).collection<{ totalXp: number }>('users').findOne({})
  t.equal(account?.totalXp, 10 * log.length, `XP is 10 x the reviews in the log (${log.length})`)
  const cards = await storedCards(app, { flashcardID: deck.flashcardID })
  t.equal(cards.reduce((sum, card) => sum + card.reps, 0), log.length, 'the cards carry exactly the reviews of the log')

  const flashcards = sent.filter((request) => request.operation === 'create-flashcard' && request.status === 201)
    .map((request) => request.answer as { flashcardID: string, cardIDs: string[] })
  const storedIDs = (await storedNodes(app)).filter((node) => node.kind === 'flashcard').map((node) => node._id)
  const storedFlashcards = flashcards.filter((flashcard) => storedIDs.includes(flashcard.flashcardID)).length
  t.equal(storedFlashcards, flashcards.length, `every acknowledged flashcard is stored (${flashcards.length})`)
  const cardIDs = flashcards.flatMap((flashcard) => flashcard.cardIDs)
  t.equal(await databaseOf(app).collection('cards').countDocuments({ _id: { $in: cardIDs as never[] } }), cardIDs.length, 'with every card')
  t.equal(await databaseOf(app).collection('cardStates').countDocuments({ _id: { $in: cardIDs as never[] } }), cardIDs.length, 'and every card\'s state')
  // a flashcard whose answer was lost is stored whole or not at all
  t.equal(await databaseOf(app).collection('cards').countDocuments({ flashcardID: { $nin: storedIDs } }), 0, 'no card without its flashcard')
  t.equal(await databaseOf(app).collection('cardStates').countDocuments({ flashcardID: { $nin: storedIDs } }), 0, 'no card\'s state without its flashcard')
  for (const flashcardID of storedIDs) {
    if (flashcardID === deck.flashcardID) continue
    t.equal(await databaseOf(app).collection('cards').countDocuments({ flashcardID }), 2, 'no flashcard without its cards')
  }
})
