import { join } from 'node:path'
import type { Config } from './config.js'
import { ConfigError } from './config.js'
import { startEmbeddedDatabase } from './db/embedded.js'
import { loadOrCreateSecret } from './secret.js'

export interface Runtime {
  mongodbUrl: string
  jwtSecret: string
  /** stops what was started for this runtime (the embedded database) */
  stop: () => Promise<void>
}

/**
 * The database and token secret the configuration asks for: MONGODB_URL with
 * JWT_SECRET, or else the embedded FerretDB in DATA_DIR with a kept secret.
 * Shared by the server and the scripts so that they see the same data.
 */
export async function openRuntime (config: Config, log: (line: string) => void): Promise<Runtime> {
  if (config.MONGODB_URL !== undefined) {
    if (config.JWT_SECRET === undefined) {
      throw new ConfigError('JWT_SECRET: required when MONGODB_URL is set (at least 32 characters), so that every instance signs tokens alike')
    }
    return { mongodbUrl: config.MONGODB_URL, jwtSecret: config.JWT_SECRET, stop: async () => {} }
  }
  log(`No MONGODB_URL: starting the embedded database (FerretDB on SQLite) in ${join(config.DATA_DIR, 'ferretdb')}`)
  const jwtSecret = config.JWT_SECRET ?? await loadOrCreateSecret(config.DATA_DIR)
  const embedded = await startEmbeddedDatabase({ dataDir: join(config.DATA_DIR, 'ferretdb'), log })
  return { mongodbUrl: `${embedded.url}/flashcards`, jwtSecret, stop: embedded.stop }
}
