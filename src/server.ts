import closeWithGrace from 'close-with-grace'
import { join } from 'node:path'
import { buildApp, LOG_REDACTIONS } from './app.js'
import { ConfigError, loadConfig } from './config.js'
import { startEmbeddedDatabase, type EmbeddedDatabase } from './db/embedded.js'
import { MissingGoError } from './db/ferretdb-install.js'
import { loadOrCreateSecret } from './secret.js'

async function main (): Promise<void> {
  const config = loadConfig()
  const logger = {
    level: config.LOG_LEVEL,
    redact: { paths: LOG_REDACTIONS, censor: '[redacted]' },
    // pretty lines for a person at a terminal, JSON for everything else
    ...(process.stdout.isTTY ? { transport: { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname' } } } : {})
  }

  let embedded: EmbeddedDatabase | undefined
  let mongodbUrl = config.MONGODB_URL
  let jwtSecret = config.JWT_SECRET
  if (mongodbUrl === undefined) {
    console.error(`No MONGODB_URL: starting the embedded database (FerretDB on SQLite) in ${config.DATA_DIR}`)
    embedded = await startEmbeddedDatabase({ dataDir: join(config.DATA_DIR, 'ferretdb'), log: (line) => console.error(line) })
    mongodbUrl = `${embedded.url}/flashcards`
    jwtSecret ??= await loadOrCreateSecret(config.DATA_DIR)
  } else if (jwtSecret === undefined) {
    throw new ConfigError('JWT_SECRET: required when MONGODB_URL is set (at least 32 characters), so that every instance signs tokens alike')
  }

  const app = await buildApp({ mongodbUrl, jwtSecret, logger }).catch(async (error: unknown) => {
    await embedded?.stop()
    throw error
  })
  app.addHook('onClose', async () => { await embedded?.stop() })

  closeWithGrace({ delay: 10_000 }, async ({ signal, err }) => {
    if (err !== undefined) app.log.error({ err }, 'closing after an error')
    else app.log.info({ signal }, 'closing: finishing requests in flight')
    await app.close()
  })

  try {
    await app.listen({ port: config.PORT, host: config.HOST })
  } catch (error) {
    await app.close()
    throw error
  }
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError || error instanceof MissingGoError) {
    console.error(error.message)
  } else {
    console.error(error)
  }
  process.exit(1)
})
