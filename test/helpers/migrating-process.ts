// An instance running the migrations in a process of its own, for the test that kills it
// (SIGKILL) in the middle of a step: run as `node --import tsx migrating-process.ts <url> <leaseMs>`.
import { MongoClient } from 'mongodb'
import { migrate, type MigrationStep } from '../../src/repositories/migrations.js'

/** Step 1 done at once; step 2 says it has started, then never ends, until the process is killed. */
export const STEPS_OF_THE_KILLED: MigrationStep[] = [
  { number: 1, name: 'first', run: async () => {} },
  {
    number: 2,
    name: 'cut-off',
    run: async () => {
      process.stdout.write('step 2 started\n')
      await new Promise(() => {})
    }
  }
]

if (process.argv[1] === import.meta.filename) {
  const [url, leaseMs] = process.argv.slice(2)
  const client = await MongoClient.connect(url as string)
  await migrate(client.db(), () => {}, { steps: STEPS_OF_THE_KILLED, leaseMs: Number(leaseMs) })
}
