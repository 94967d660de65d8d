import closeWithGrace from 'close-with-grace'
import { pino } from 'pino'
import { buildApp } from './app.js'
import { loggerOptions } from './logging.js'
import { ConfigError, loadConfig, publicUrlOf } from './config.js'
import { MissingCargoError } from './db/secantus-install.js'
import { openRuntime } from './runtime.js'

/** How long closing may take, after a signal or a lost database, before the process exits regardless. */
const CLOSE_GRACE_MS = 10_000

async function main (): Promise<void> {
  const config = loadConfig()
  // one logger for the service and the database it supervises
  const logger = pino(loggerOptions(config.LOG_LEVEL, process.stdout.isTTY))

  const runtime = await openRuntime(config, {
    info: (message) => logger.info(message),
    error: (message) => logger.error(message),
    fatal: (message) => logger.fatal(message)
  }, () => { void exitForLostDatabase() })
  // once the app is built, closing it stops the runtime too
  let closeService = async (): Promise<void> => { await runtime.stop() }

  /**
   * The embedded database cannot be started again, and without it every
   * request would get 503 until someone restarts the service. The process
   * exits with an error instead, so that its manager (Docker, systemd)
   * starts it afresh.
   */
  async function exitForLostDatabase (): Promise<void> {
    logger.fatal('closing the service, which cannot serve without its database, and exiting with code 1 so that its process manager starts it again')
    setTimeout(() => process.exit(1), CLOSE_GRACE_MS).unref()
    try {
      await closeService()
    } catch (err) {
      logger.error({ err }, 'closing after the database was lost')
    }
    process.exit(1)
  }

  const app = await buildApp({
    mongodbUrl: runtime.mongodbUrl,
    jwtSecret: runtime.jwtSecret,
    databaseTimeouts: { socketMs: config.DATABASE_TIMEOUT_MS, migrationWaitMs: config.MIGRATION_WAIT_SECONDS * 1000 },
    databaseProcess: runtime.databaseProcess,
    loggerInstance: logger,
    corsOrigins: config.CORS_ORIGINS.split(',').filter((origin) => origin !== ''),
    connectionLimits: { requestTimeoutMs: config.REQUEST_TIMEOUT_MS, uploadTimeoutMs: config.UPLOAD_TIMEOUT_MS, perAddress: config.MAX_CONNECTIONS_PER_ADDRESS },
    media: { graceSeconds: config.MEDIA_GRACE_SECONDS, urlLifetimeSeconds: config.MEDIA_URL_LIFETIME_SECONDS, sweepEverySeconds: config.MEDIA_SWEEP_SECONDS },
    imports: { leaseMs: config.IMPORT_LEASE_SECONDS * 1000 },
    metrics: { token: config.METRICS_TOKEN, port: config.METRICS_PORT },
    mail: { smtpUrl: config.SMTP_URL, from: config.MAIL_FROM, publicUrl: publicUrlOf(config) }
  }).catch(async (error: unknown) => {
    await runtime.stop()
    throw error
  })
  app.addHook('onClose', async () => { await runtime.stop() })
  closeService = async () => { await app.close() }

  closeWithGrace({ delay: CLOSE_GRACE_MS }, async ({ signal, err }) => {
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
