// `npm run restore -- FILE`: fills an empty database (MONGODB_URL, or the embedded
// one in DATA_DIR) from a backup that `npm run backup` wrote. A damaged archive,
// or a database that holds documents, is refused and nothing is changed.
import { resolve } from 'node:path'
import { MongoClient } from 'mongodb'
import { DamagedArchiveError } from '../src/backup/archive.js'
import { ConfigError, loadConfig } from '../src/config.js'
import { MissingCargoError } from '../src/db/secantus-install.js'
import { openToolDatabase } from '../src/runtime.js'
import { checkArchive, restore, TargetNotEmptyError } from '../src/services/backup.js'

const file = process.argv[2]
if (file === undefined || file === '' || process.argv.length > 3) {
  console.error('Usage: npm run restore -- FILE\n  fills the service\'s database (MONGODB_URL, or the embedded one in DATA_DIR), which must be empty, from the backup FILE')
  process.exit(2)
}

try {
  const config = loadConfig()
  const started = performance.now()
  // read through and checked before any database is started or touched
  const checked = await checkArchive(resolve(file))
  console.error(`${resolve(file)}: a backup of ${checked.header.database} on ${checked.header.server}, as it was at ${checked.header.snapshotAt.toISOString()}, ` +
    `${checked.documents.toLocaleString('en')} documents; its checksum matches`)
  const database = await openToolDatabase(config, (line) => console.error(line))
  const client = new MongoClient(database.mongodbUrl, { appName: 'flashcard-restore' })
  try {
    console.error(`Restoring it into ${database.where}`)
    const summary = await restore(client.db(), resolve(file), (line) => console.error(`  ${line}`), checked)
    const seconds = (performance.now() - started) / 1000
    console.log(`Restored ${summary.documents.toLocaleString('en')} documents of ${summary.collections} collections, as they were at ` +
      `${summary.header.snapshotAt.toISOString()}, in ${seconds.toFixed(1)} s. Start the service on this database now.`)
  } finally {
    await client.close()
    await database.stop()
  }
} catch (error) {
  if (error instanceof DamagedArchiveError) {
    console.error(`Refused: ${error.message}. Nothing was restored; the database is as it was.`)
  } else if (error instanceof TargetNotEmptyError) {
    console.error(`Refused: ${error.message}. Restore into an empty database: with the embedded one, a new DATA_DIR, the service not running on it.`)
  } else {
    console.error(error instanceof ConfigError || error instanceof MissingCargoError ? error.message : `The restore failed: ${error instanceof Error ? error.message : String(error)}`)
  }
  process.exit(1)
}
