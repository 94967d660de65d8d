import type { Db } from 'mongodb'
import { activityId, type DayActivityDocument } from './activity.js'

interface MigrationDocument { _id: string, doneAt: Date }

/**
 * Brings data written by an earlier version up to what this one reads; each
 * step runs once per database and is recorded in `migrations`. A step is
 * idempotent: cut off half-way, it runs again whole at the next start.
 */
const MIGRATIONS: Array<{ name: string, run: (db: Db) => Promise<void> }> = [
  {
    // the daily counts were added after reviews were logged: count the log once
    name: 'activity-from-review-log',
    run: async (db) => {
      const days = db.collection<DayActivityDocument>('activity')
      const counted = db.collection('reviews').aggregate<{ _id: { userID: string, day: string }, reviews: number, xp: number }>([
        { $group: { _id: { userID: '$userID', day: '$day' }, reviews: { $sum: 1 }, xp: { $sum: '$xp' } } }
      ])
      let batch: Array<Parameters<typeof days.bulkWrite>[0][number]> = []
      for await (const { _id: { userID, day }, reviews, xp } of counted) {
        batch.push({ replaceOne: { filter: { _id: activityId(userID, day) }, replacement: { userID, day, reviews, xp }, upsert: true } })
        if (batch.length === 1000) {
          await days.bulkWrite(batch, { ordered: false })
          batch = []
        }
      }
      if (batch.length > 0) await days.bulkWrite(batch, { ordered: false })
    }
  }
]

export async function migrate (db: Db, log: (message: string) => void): Promise<void> {
  const done = db.collection<MigrationDocument>('migrations')
  for (const migration of MIGRATIONS) {
    if (await done.findOne({ _id: migration.name }) !== null) continue
    const startedAt = Date.now()
    await migration.run(db)
    await done.updateOne({ _id: migration.name }, { $set: { doneAt: new Date() } }, { upsert: true })
    log(`migration ${migration.name} done in ${Date.now() - startedAt} ms`)
  }
}
