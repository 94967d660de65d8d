// The start-up migrations at the benchmark's size: a copy of the bench data, its
// record of steps done removed, migrated as a start-up migrates a database of a
// version before every step (src/repositories/migrations.ts, migrate), each
// step's time read from the line the run logs for it.
import { cp, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { MongoClient } from 'mongodb'
import { startEmbeddedDatabase } from '../../src/db/embedded.js'
import { MIGRATIONS, migrate } from '../../src/repositories/migrations.js'

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
        // as a database of a version before the first step: none recorded
        await db.collection('migrations').deleteMany({})
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
