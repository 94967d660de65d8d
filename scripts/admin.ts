// The operator's command on accounts: `npm run admin -- find|disable|enable|delete <email>`, on the
// database the service uses (MONGODB_URL, or the embedded one in DATA_DIR: the running service's
// own server when it runs, or one started for the command when it does not).
import { randomUUID } from 'node:crypto'
import { MongoClient } from 'mongodb'
import { ConfigError, loadConfig, type Config } from '../src/config.js'
import { openToolDatabase } from '../src/runtime.js'
import { MissingCargoError } from '../src/db/secantus-install.js'
import { databaseName, DEFAULT_DATABASE_TIMEOUTS, inTransaction } from '../src/plugins/database.js'
import { repositoriesOf, repositoryCaches } from '../src/repositories/index.js'
import type { Removed } from '../src/services/account-deletion.js'
import { accountAdminService, UnknownAccountError, type AccountSummary } from '../src/services/admin.js'

const USAGE = `usage: npm run admin -- <command> <email>

  find <email>      the account's id, email, creation date, card count, and whether it is disabled
  disable <email>   refuse its login and its tokens, at once, on every instance (403 account_disabled)
  enable <email>    let it log in again (its tokens from before stay ended)
  delete <email>    delete the account and every document of it, for good; returns once they are all gone

On MONGODB_URL's database, or else the embedded one in DATA_DIR (the running service's, if it runs).`

const COMMANDS = ['find', 'disable', 'enable', 'delete'] as const
type Command = typeof COMMANDS[number]

function describe (account: AccountSummary): string {
  return [
    `userID    ${account.userID}`,
    `email     ${account.email}`,
    `created   ${account.createdAt.toISOString()}`,
    `cards     ${account.cards}`,
    `disabled  ${account.disabledAt === null ? 'no' : `yes, since ${account.disabledAt.toISOString()}`}`
  ].join('\n')
}

/** How many documents of each collection went, one collection a line. */
function describeRemoved (removed: Removed): string {
  const width = Math.max(...Object.keys(removed).map((collection) => collection.length))
  return Object.entries(removed).map(([collection, count]) => `  ${collection.padEnd(width)}  ${count.toLocaleString('en')}`).join('\n')
}

async function run (command: Command, email: string, config: Config): Promise<void> {
  const database = await openToolDatabase(config, (line) => console.error(line))
  const client = new MongoClient(database.mongodbUrl, { serverSelectionTimeoutMS: 10_000, appName: 'flashcard-service admin' })
  try {
    await client.connect()
    const db = client.db(databaseName(database.mongodbUrl))
    const caches = repositoryCaches()
    const admin = accountAdminService({
      repositories: repositoriesOf(db, undefined, caches),
      transaction: async (work) => await inTransaction(client, db, caches, DEFAULT_DATABASE_TIMEOUTS, work),
      clock: () => new Date()
    }, {
      // the holder of the removal it runs: should the command stop midway, the service finishes it once this hold runs out
      instance: `admin-${randomUUID()}`,
      log: { info: () => {}, warn: (details, message) => { console.error(message, details) } }
    })
    switch (command) {
      case 'find':
        console.log(describe(await admin.find(email)))
        break
      case 'disable': {
        const { account, changed } = await admin.disable(email)
        console.log(describe(account))
        console.log(changed
          ? 'Disabled: its tokens no longer work, on any instance, and its login answers 403 account_disabled.'
          : 'It was disabled already: nothing changed.')
        break
      }
      case 'enable': {
        const { account, changed } = await admin.enable(email)
        console.log(describe(account))
        console.log(changed
          ? 'Enabled: it can log in again. Its tokens from before it was disabled stay ended.'
          : 'It was not disabled: nothing changed.')
        break
      }
      case 'delete': {
        const { account, removed } = await admin.remove(email)
        console.log(describe(account))
        console.log(`Deleted: the account and every document of it are gone. Removed:\n${describeRemoved(removed)}`)
        break
      }
    }
  } finally {
    await client.close()
    await database.stop()
  }
}

const [command, email, ...rest] = process.argv.slice(2)
if (!COMMANDS.includes(command as Command) || email === undefined || email === '' || rest.length > 0) {
  console.error(USAGE)
  process.exit(2)
}
try {
  await run(command as Command, email, loadConfig())
} catch (error) {
  if (error instanceof UnknownAccountError || error instanceof ConfigError || error instanceof MissingCargoError) {
    console.error(error.message)
  } else {
    console.error(error)
  }
  process.exit(1)
}
