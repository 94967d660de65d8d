import closeWithGrace from 'close-with-grace'
import { buildApp } from './app.js'
import { loggerOptions } from './logging.js'
import { ConfigError, loadConfig } from './config.js'
import { MissingGoError } from './db/ferretdb-install.js'
import { openRuntime } from './runtime.js'

async function main (): Promise<void> {
  const config = loadConfig()
  const logger = loggerOptions(config.LOG_LEVEL, process.stdout.isTTY)

  const runtime = await openRuntime(config, (line) => console.error(line))
  const app = await buildApp({
    mongodbUrl: runtime.mongodbUrl,
    jwtSecret: runtime.jwtSecret,
    databaseTimeouts: { socketMs: config.DATABASE_TIMEOUT_MS },
    logger,
    corsOrigins: config.CORS_ORIGINS.split(',').filter((origin) => origin !== '')
  }).catch(async (error: unknown) => {
    await runtime.stop()
    throw error
  })
  app.addHook('onClose', async () => { await runtime.stop() })

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
