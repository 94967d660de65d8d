import type { Db } from 'mongodb'
import { test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { buildApp } from '../../src/app.js'
import { newId } from '../../src/domain/ids.js'
import { NO_CARD } from '../../src/domain/queues.js'
import { CardState } from '../../src/domain/scheduling.js'
import { migrate } from '../../src/repositories/migrations.js'
import type { UserDocument } from '../../src/repositories/users.js'
import { TEST_SECRET } from '../helpers/app.js'
import { databaseOfItsOwn, oldUserWithFlashcard } from '../helpers/old-data.js'
import { learner } from '../helpers/today-queues.js'

const HOUR = 3_600_000
const DAY = 24 * HOUR
const now = new Date('2026-04-10T12:00:00Z')

/** A card as an earlier version stored it: new (due from its creation) or in review, due at `due`. */
function oldCard (userID: string, flashcardID: string, isNew: boolean, due: Date, createdOrder: number): Record<string, unknown> {
  return {
    _id: newId(), userID, flashcardID, front: 'front', back: 'back', state: isNew ? CardState.New : CardState.Review, due,
    stability: isNew ? 0 : 5, difficulty: isNew ? 0 : 5, elapsedDays: 0, scheduledDays: isNew ? 0 : 5, learningSteps: 0, reps: isNew ? 0 : 3, lapses: 0,
    lastReview: isNew ? null : new Date(due.getTime() - 5 * DAY), isNew, createdOrder, createdAt: new Date('2026-01-01T00:00:00Z'), version: 0, lastReviewID: null
  }
}

/** A user's data as an earlier version left it (no starts of today's queues): one flashcard holding `cards`. */
async function oldUser (db: Db, cards: Array<{ isNew: boolean, due: Date }>): Promise<{ userID: string, flashcardID: string }> {
  const { userID, flashcardID } = await oldUserWithFlashcard(db)
  if (cards.length > 0) await db.collection('cards').insertMany(cards.map((card, n) => oldCard(userID, flashcardID, card.isNew, card.due, card.due.getTime() * 1000 + n)) as never[])
  return { userID, flashcardID }
}

test('accounts from before the starts get them from their cards at start-up, and today\'s cards are whole', async (t) => {
  const { db, url } = await databaseOfItsOwn(t, import.meta.filename)
  const at = (hoursAgo: number): Date => new Date(now.getTime() - hoursAgo * HOUR)
  // new cards created in batches over past days, review cards overdue by days or due later
  const both = await oldUser(db, [
    ...Array.from({ length: 30 }, (_, n) => ({ isNew: true, due: at(72 - Math.floor(n / 10)) })),
    ...Array.from({ length: 30 }, (_, n) => ({ isNew: false, due: at(24 * (n % 6) - 48) }))
  ])
  const onlyNew = await oldUser(db, Array.from({ length: 5 }, () => ({ isNew: true, due: at(5) })))
  const none = await oldUser(db, [])
  // a write of an instance already running, on an account the migration had not reached: a start in part, too late
  const written = await oldUser(db, [{ isNew: true, due: at(50) }, { isNew: true, due: at(2) }])
  await db.collection<{ _id: string }>('users').updateOne({ _id: written.userID }, { $set: { 'queueFrom.new': { at: at(2), order: 0 }, 'queueFrom.writes': 1 } })

  const app: FastifyInstance = await buildApp({ mongodbUrl: url, jwtSecret: TEST_SECRET, clock: () => now, loadShedding: { maxInFlight: 1000, maxInFlightPerUser: 1000 } })
  await app.ready()
  t.teardown(async () => { await app.close() })

  const starts = async (userID: string): Promise<UserDocument['queueFrom']> => (await db.collection<UserDocument>('users').findOne({ _id: userID }))?.queueFrom
  t.strictSame(await starts(both.userID), { new: { at: at(72), order: -Infinity }, due: { at: at(72), order: -Infinity }, writes: 0 },
    'each queue starts at its earliest card, any card of that instant')
  t.strictSame(await starts(onlyNew.userID), { new: { at: at(5), order: -Infinity }, due: { at: NO_CARD, order: Infinity }, writes: 0 },
    'a queue without cards starts nowhere')
  t.strictSame(await starts(none.userID), { new: { at: NO_CARD, order: Infinity }, due: { at: NO_CARD, order: Infinity }, writes: 0 })
  t.strictSame(await starts(written.userID), { new: { at: at(50), order: -Infinity }, due: { at: NO_CARD, order: Infinity }, writes: 1 },
    'a start a write had set too late is lowered to the earliest card, and its count kept')

  for (const { userID } of [both, onlyNew, none, written]) {
    const me = learner(app, { userID, jwtToken: app.issueToken(userID), email: '', password: '' }, { now })
    await me.expectToday(t, 'today\'s cards are those of a full sort')
    await me.expectToday(t, 'and again, once the read moved the starts')
  }

  // run again (two instances starting together, or its record removed by hand): no start moves up
  const before = await db.collection<UserDocument>('users').find({}, { projection: { queueFrom: 1 } }).sort({ _id: 1 }).toArray()
  await db.collection('migrations').deleteOne({ _id: 'queue-starts-from-cards' as never })
  await migrate(db, () => {})
  const after = await db.collection<UserDocument>('users').find({}, { projection: { queueFrom: 1 } }).sort({ _id: 1 }).toArray()
  for (const [n, account] of after.entries()) {
    const earlier = before[n]?.queueFrom
    t.ok(account.queueFrom !== undefined && earlier !== undefined &&
      account.queueFrom.new.at <= earlier.new.at && account.queueFrom.due.at <= earlier.due.at, 'a run again moves no start up')
  }
  for (const { userID } of [both, onlyNew, none, written]) {
    await learner(app, { userID, jwtToken: app.issueToken(userID), email: '', password: '' }, { now }).expectToday(t, 'and today\'s cards stay whole')
  }
})
