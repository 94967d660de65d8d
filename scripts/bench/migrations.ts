// The start-up migrations at the benchmark's size: a copy of the bench data, its
// record of steps done removed, migrated as a start-up migrates a database of a
// version before every step (src/repositories/migrations.ts, migrate), each
// step's time read from the line the run logs for it.
import { cp, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { MongoClient, type Db } from 'mongodb'
import { STATE_FIELDS } from '../../src/repositories/card-states.js'
import { ensureIndexes } from '../../src/repositories/indexes.js'
import { startEmbeddedDatabase } from '../../src/db/embedded.js'
import { MIGRATIONS, migrate } from '../../src/repositories/migrations.js'

/**
 * Puts each card's state back in its card, as versions before step 7 kept it, with the indexes
 * that served it there, and leaves `cardStates` empty with its own indexes, as a start-up of this
 * version finds it before its migrations: one aggregation that merges the states into the cards,
 * which the figures leave out.
 */
async function statesIntoCards (db: Db, log: (line: string) => void): Promise<void> {
  const started = performance.now()
  const states = db.collection('cardStates')
  if (await states.countDocuments({}, { limit: 1 }) === 0) return
  await states.aggregate([
    { $project: Object.fromEntries(STATE_FIELDS.map((field) => [field, 1])) },
    { $merge: { into: 'cards', on: '_id', whenMatched: 'merge', whenNotMatched: 'discard' } }
  ]).toArray()
  await states.deleteMany({})
  await db.collection('cards').createIndexes([
    { key: { userID: 1, isNew: 1, due: 1, createdOrder: 1 }, name: 'user_queue' },
    { key: { userID: 1, flag: 1 }, name: 'user_flag', partialFilterExpression: { flag: { $exists: true } } }
  ])
  await ensureIndexes(db)
  log(`card states put back in the cards, as before step 7, in ${((performance.now() - started) / 1000).toFixed(1)} s (not counted)`)
}

export interface MigrationFigures {
  /** each step, in the order run, with the milliseconds the run logged for it */
  steps: Array<{ number: number, name: string, ms: number }>
  /** the whole run: the lock taken, every step run and recorded, the lock given back */
  totalMs: number
  /** copying the bench data's files, which the figures leave out */
  copyMs: number
}

/**
 * Copies the embedded database's folder `secantusDir` (its server stopped), and
 * migrates the copy's database `databaseName`. A string says why it was not run:
 * with MONGODB_URL there is no folder to copy, and the bench data is not to be changed.
 */
export async function measureMigrations (secantusDir: string, databaseName: string, cacheSize: string, log: (line: string) => void): Promise<MigrationFigures | string> {
  if ((process.env.MONGODB_URL ?? '') !== '') return 'not run with MONGODB_URL: the steps would change the bench data'
  const scratch = await mkdtemp(join(tmpdir(), 'flashcard-bench-migrations-'))
  try {
    const copied = performance.now()
    await cp(secantusDir, join(scratch, 'secantus'), { recursive: true })
    const copyMs = performance.now() - copied
    const database = await startEmbeddedDatabase({ dataDir: join(scratch, 'secantus'), cacheSize, log: () => {} })
    try {
      const client = new MongoClient(`${database.url}/${databaseName}`)
      await client.connect()
      try {
        const db = client.db()
        // as a database of a version before the first step: none recorded, and each card's state inside it
        await db.collection('migrations').deleteMany({})
        await statesIntoCards(db, log)
        const logged: string[] = []
        const started = performance.now()
        await migrate(db, (line) => {
          logged.push(line)
          log(line)
        })
        const totalMs = performance.now() - started
        const steps = MIGRATIONS.map((step) => {
          const line = logged.find((one) => one.startsWith(`migration ${step.number} ${step.name} done in `))
          const ms = line === undefined ? NaN : Number(/done in (\d+) ms/.exec(line)?.[1])
          return { number: step.number, name: step.name, ms }
        })
        return { steps, totalMs, copyMs }
      } finally {
        await client.close()
      }
    } finally {
      await database.stop()
    }
  } catch (error) {
    return error instanceof Error ? error.message : String(error)
  } finally {
    await rm(scratch, { recursive: true, force: true })
  }
}
