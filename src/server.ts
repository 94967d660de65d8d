import closeWithGrace from 'close-with-grace'
import { pino } from 'pino'
import { buildApp } from './app.js'
import { loggerOptions } from './logging.js'
import { ConfigError, loadConfig } from './config.js'
import { MissingCargoError } from './db/secantus-install.js'
import { openRuntime } from './runtime.js'

async function main (): Promise<void> {
  const config = loadConfig()
  // one logger for the service and the database it supervises
  const logger = pino(loggerOptions(config.LOG_LEVEL, process.stdout.isTTY))

  const runtime = await openRuntime(config, {
    info: (message) => logger.info(message),
    error: (message) => logger.error(message)
  })
  const app = await buildApp({
    mongodbUrl: runtime.mongodbUrl,
    jwtSecret: runtime.jwtSecret,
    databaseTimeouts: { socketMs: config.DATABASE_TIMEOUT_MS },
    databaseProcess: runtime.databaseProcess,
    loggerInstance: logger,
    corsOrigins: config.CORS_ORIGINS.split(',').filter((origin) => origin !== ''),
    connectionLimits: { requestTimeoutMs: config.REQUEST_TIMEOUT_MS, perAddress: config.MAX_CONNECTIONS_PER_ADDRESS }
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
  if (error instanceof ConfigError || error instanceof MissingCargoError) {
    console.error(error.message)
  } else {
    console.error(error)
  }
  process.exit(1)
})
