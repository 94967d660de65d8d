// What a database of an earlier version holds, for the tests of the start-up migrations: a database
// of the test's own, and accounts with their trees written as those versions wrote them.
import { MongoClient, type Db } from 'mongodb'
import { newId } from '../../src/domain/ids.js'
import { testDatabaseUrl } from './app.js'

/** A database of the test file's own (`file`: its import.meta.filename) that no app has started on; dropped when the test ends. */
export async function databaseOfItsOwn (t: { teardown: (fn: () => unknown) => void }, file: string): Promise<{ db: Db, url: string }> {
  const url = testDatabaseUrl(file)
  const client = await MongoClient.connect(url)
  t.teardown(async () => {
    await client.db().dropDatabase().catch(() => {})
    await client.close()
  })
  return { db: client.db(), url }
}

/** An account as an earlier version stored it: none of the fields the migrations add. */
export function oldAccount (userID: string): Record<string, unknown> {
  return {
    _id: userID, email: `${userID}@example.com`, passwordHash: 'not used', displayName: 'old', timezone: 'UTC', dayStartHour: 4,
    newCardsPerDay: 20, reviewsPerDay: 200, desiredRetention: 0.9, totalXp: 0, createdAt: new Date('2026-01-01T00:00:00Z')
  }
}

/** An old account with a tree of one folder holding one flashcard, written straight to the database. */
export async function oldUserWithFlashcard (db: Db): Promise<{ userID: string, flashcardID: string }> {
  const userID = newId()
  const flashcardID = newId()
  await db.collection<Record<string, unknown> & { _id: string }>('users').insertOne(oldAccount(userID) as never)
  await db.collection('trees').insertOne({
    _id: userID as never, userID, version: 1, folders: [{ id: newId(), name: 'Old', folders: [], flashcards: [{ id: flashcardID, name: 'Deck', description: '' }] }]
  })
  return { userID, flashcardID }
}
