// `npm run backup -- FILE`: every collection of the service's database, media
// included, as it was at one moment, into an archive at FILE, while the service
// runs and takes writes. docs/operations.md says how, and what the archive holds.
import { resolve } from 'node:path'
import { MongoClient } from 'mongodb'
import { ConfigError, loadConfig } from '../src/config.js'
import { MissingCargoError } from '../src/db/secantus-install.js'
import { openToolDatabase } from '../src/runtime.js'
import { backUp } from '../src/services/backup.js'

const file = process.argv[2]
if (file === undefined || file === '' || process.argv.length > 3) {
  console.error('Usage: npm run backup -- FILE\n  writes a backup of the service\'s database (MONGODB_URL, or the embedded one in DATA_DIR) to FILE, a new file')
  process.exit(2)
}

try {
  const config = loadConfig()
  const started = performance.now()
  const database = await openToolDatabase(config, (line) => console.error(line))
  const client = new MongoClient(database.mongodbUrl, { appName: 'flashcard-backup' })
  try {
    console.error(`Backing up ${database.where}`)
    const summary = await backUp(client, client.db(), resolve(file), (line) => console.error(`  ${line}`))
    const seconds = (performance.now() - started) / 1000
    console.log(`Backed up ${summary.documents.toLocaleString('en')} documents of ${summary.collections} collections, as they were at ` +
      `${summary.snapshotAt.toISOString()} (${summary.method} on ${summary.server}), to ${summary.file}: ` +
      `${(summary.bytes / 1024 / 1024).toFixed(1)} MiB in ${seconds.toFixed(1)} s`)
  } finally {
    await client.close()
    await database.stop()
  }
} catch (error) {
  console.error(error instanceof ConfigError || error instanceof MissingCargoError ? error.message : `The backup failed: ${error instanceof Error ? error.message : String(error)}`)
  process.exit(1)
}
