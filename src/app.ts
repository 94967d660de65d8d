import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyServerOptions } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { randomUUID } from 'node:crypto'
import database, { DEFAULT_DATABASE_TIMEOUTS, type DatabaseTimeouts } from './plugins/database.js'
import type { DatabaseProcessState } from './db/embedded.js'
import { DEFAULT_QUOTAS, type Quotas } from './domain/quotas.js'
import auth, { requireAuthentication } from './plugins/auth.js'
import errors, { frameworkErrors } from './plugins/errors.js'
import jsonBody from './plugins/json-body.js'
import docs from './plugins/docs.js'
import studyPage from './plugins/study-page.js'
import security from './plugins/security.js'
import loadShedding, { type LoadShedding } from './plugins/load-shedding.js'
import attemptLimits, { DEFAULT_ATTEMPT_LIMITS, DEFAULT_MAIL_LIMITS, type AttemptLimits, type MailLimits } from './plugins/attempt-limits.js'
import mail from './plugins/mail.js'
import connections, { connectionServerOptions, DEFAULT_CONNECTION_LIMITS, type ConnectionLimits } from './plugins/connections.js'
import timing from './plugins/timing.js'
import fitting from './plugins/fitting.js'
import ankiImports from './plugins/anki-imports.js'
import metrics, { type MetricsOptions } from './plugins/metrics.js'
import anki from './routes/anki.js'
import { DEFAULT_IMPORT_SETTINGS, type ImportSettings } from './services/anki-import.js'
import type { FitterOptions } from './fitting/fitter.js'
import accounts from './routes/accounts.js'
import accountRecovery from './routes/account-recovery.js'
import health from './routes/health.js'
import library from './routes/library.js'
import transfer from './routes/transfer.js'
import study from './routes/study.js'
import goals from './routes/goals.js'
import progress from './routes/progress.js'
import media, { mediaFiles } from './routes/media.js'
import mediaSweep from './plugins/media-sweep.js'
import accountDeletions from './plugins/account-deletions.js'
import noteTypeRenders from './plugins/note-type-renders.js'
import { DEFAULT_RENDER_SETTINGS, type RenderSettings } from './services/note-type-renders.js'
import { DEFAULT_LARGE_DELETION_SETTINGS, type LargeDeletionSettings } from './services/library.js'
import { DEFAULT_DELETION_SETTINGS, type DeletionSettings } from './services/account-deletion.js'
import { mediaLinks } from './domain/media-links.js'
import { DEFAULT_MEDIA_SETTINGS, type MediaSettings } from './services/media.js'
import type { MediaUrl } from './services/context.js'
import schedule from './routes/schedule.js'
import cardStates from './routes/card-states.js'
import browse from './routes/browse.js'
import studySession from './routes/study-session.js'
import search from './routes/search.js'
import { commonErrors } from './schemas/common.js'
import { createServices, type Services } from './services/index.js'
import { DEFAULT_FITTING_SETTINGS, type FittingSettings } from './services/schedule.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** the service's notion of "now"; tests inject a fixed or moving clock */
    clock: () => Date
    /** what one account may hold */
    quotas: Quotas
    /** imports of Anki packages: their limits and lease */
    importSettings: ImportSettings
    /** what the operations do; routes call these */
    services: Services
  }
}

export interface AppConfig {
  mongodbUrl: string
  jwtSecret: string
  logger?: FastifyServerOptions['logger']
  /** a logger made beforehand (the server shares it with the embedded database's supervision) */
  loggerInstance?: FastifyBaseLogger
  /** the embedded database process's state, when the service runs one: requests get 503 at once while it is not running */
  databaseProcess?: () => DatabaseProcessState
  clock?: () => Date
  /** browser origins allowed to call the API (CORS); none by default */
  corsOrigins?: readonly string[]
  /** attempts allowed on login and register per window, per address and per account; shared by every instance on the database */
  attemptLimits?: AttemptLimits
  /** mails of links (password reset, change of email) allowed per window, per client address and per address mailed; shared as attemptLimits are */
  mailLimits?: Partial<MailLimits>
  /** how mail goes out: the SMTP server (none: mail is written to the log), its sender, and the address users reach the service at, which mailed links start with */
  mail?: { smtpUrl?: string, from?: string, publicUrl?: string }
  /** how long a request may take to arrive, and how many connections one address may hold open */
  connectionLimits?: Partial<ConnectionLimits>
  /** how long to wait on the database before answering 503; defaults in plugins/database.ts */
  databaseTimeouts?: Partial<DatabaseTimeouts>
  /** emit the driver's command events on `databaseClient` (off: they decode every reply twice) */
  monitorCommands?: boolean
  /** what one account may hold; defaults in domain/quotas.ts */
  quotas?: Partial<Quotas>
  /** when to turn requests away with 503 as overloaded; defaults in plugins/load-shedding.ts */
  loadShedding?: Partial<LoadShedding>
  /** how media is kept: its grace, the life of its URLs, how often it is swept; defaults in services/media.ts */
  media?: Partial<MediaSettings>
  /** the address of one of a user's media, as cards show it (a probe of card reads sets a fixed one); default: the signed URLs GET /media serves */
  mediaUrl?: MediaUrl
  /** the queue of fits of users' parameters, and how fits share work between instances; defaults in fitting/fitter.ts and services/schedule.ts */
  fitting?: Partial<FitterOptions & FittingSettings>
  /** imports of Anki packages: their size limit, how long an instance holds one without renewing it, where packages wait; defaults in services/anki-import.ts */
  imports?: Partial<ImportSettings>
  /** deleting accounts: how long an instance holds the removal of a deleted account's documents; defaults in services/account-deletion.ts */
  deletions?: Partial<DeletionSettings>
  /** cards rendered again after edit-note-type: how long the request waits, how long an instance holds a rendering; defaults in services/note-type-renders.ts */
  noteTypeRendering?: Partial<RenderSettings>
  /** delete-folder and delete-flashcard past one transaction of cards: how long the request waits before it answers, how long an instance holds one without renewing it; defaults in services/library.ts */
  largeDeletions?: Partial<LargeDeletionSettings>
  /** GET /metrics for a scraper: its bearer token, and a port of its own on loopback; served nowhere without either */
  metrics?: MetricsOptions
}

/** The sender of mail when none is configured (mail then goes to the log, where it serves to tell mails apart). */
const DEFAULT_MAIL_FROM = 'flashcards@localhost'
/** What mailed links start with when the service is not told its public address: the default PORT and HOST. */
const DEFAULT_PUBLIC_URL = 'http://127.0.0.1:3000'

/** The whole service as one plugin tree, not yet listening. */
export async function buildApp (config: AppConfig): Promise<FastifyInstance> {
  const connectionLimits = { ...DEFAULT_CONNECTION_LIMITS, ...config.connectionLimits }
  const databaseTimeouts = { ...DEFAULT_DATABASE_TIMEOUTS, ...config.databaseTimeouts }
  const app = Fastify({
    ...(config.loggerInstance !== undefined ? { loggerInstance: config.loggerInstance } : { logger: config.logger ?? false }),
    genReqId: () => randomUUID(),
    bodyLimit: 1024 * 1024,
    // a socket that sends nothing for this long is closed, whatever it is doing
    connectionTimeout: 30_000,
    ...connectionServerOptions(connectionLimits),
    keepAliveTimeout: 5_000,
    // the database plugin may wait for the database to come up, and then for another instance's migrations
    pluginTimeout: 60_000 + databaseTimeouts.startupMs + databaseTimeouts.migrationWaitMs,
    return503OnClosing: true,
    frameworkErrors,
    ajv: { customOptions: { coerceTypes: true, removeAdditional: true, useDefaults: true, allErrors: false } }
  }).withTypeProvider<TypeBoxTypeProvider>()

  // every operation takes JSON; anything else is answered 415 rather than parsed as text
  app.removeContentTypeParser('text/plain')
  app.decorate('clock', config.clock ?? (() => new Date()))
  app.decorate('quotas', { ...DEFAULT_QUOTAS, ...config.quotas })

  await app.register(errors)
  await app.register(jsonBody)
  await app.register(connections, connectionLimits)
  await app.register(security, { corsOrigins: config.corsOrigins ?? [] })
  await app.register(loadShedding, config.loadShedding ?? {})
  await app.register(docs)
  await app.register(database, {
    url: config.mongodbUrl,
    timeouts: config.databaseTimeouts,
    monitorCommands: config.monitorCommands,
    processState: config.databaseProcess
  })
  await app.register(attemptLimits, {
    limits: config.attemptLimits ?? DEFAULT_ATTEMPT_LIMITS,
    mailLimits: { ...DEFAULT_MAIL_LIMITS, ...config.mailLimits },
    secret: config.jwtSecret
  })
  await app.register(mail, { smtpUrl: config.mail?.smtpUrl, from: config.mail?.from ?? DEFAULT_MAIL_FROM })
  await app.register(timing)
  await app.register(auth, { secret: config.jwtSecret })
  const mediaSettings = { ...DEFAULT_MEDIA_SETTINGS, ...config.media }
  const links = mediaLinks(config.jwtSecret, mediaSettings.urlLifetimeSeconds)
  await app.register(fitting, config.fitting ?? {})
  const instance = randomUUID()
  app.decorate('importSettings', { ...DEFAULT_IMPORT_SETTINGS, ...config.imports })
  app.decorate('services', createServices({
    repositories: app.repositories,
    transaction: app.transaction,
    userTransaction: app.userTransaction,
    clock: app.clock,
    quotas: app.quotas,
    mediaUrl: config.mediaUrl ?? ((userID, mediaID) => links.urlOf(userID, mediaID, app.clock())),
    media: { graceSeconds: mediaSettings.graceSeconds, uploadWindowMs: connectionLimits.uploadTimeoutMs, links }
  }, {
    fitter: app.fitter,
    settings: { ...DEFAULT_FITTING_SETTINGS, ...config.fitting },
    instance
  }, { instance, mongodbUrl: config.mongodbUrl, log: app.log }, app.importSettings, {
    outbox: app.outbox,
    publicUrl: config.mail?.publicUrl ?? DEFAULT_PUBLIC_URL
  }, {
    runtime: { instance, log: app.log },
    settings: { ...DEFAULT_DELETION_SETTINGS, ...config.deletions }
  }, { ...DEFAULT_RENDER_SETTINGS, ...config.noteTypeRendering }, { ...DEFAULT_LARGE_DELETION_SETTINGS, ...config.largeDeletions }))
  // the deletions going on behind their answers stop after their current batch, before the database closes
  app.addHook('preClose', async () => { await app.services.library.close() })
  await app.register(ankiImports)
  await app.register(metrics, config.metrics ?? {})
  await app.register(mediaSweep, { everySeconds: mediaSettings.sweepEverySeconds })
  await app.register(accountDeletions, { everyMs: Math.max(100, ({ ...DEFAULT_DELETION_SETTINGS, ...config.deletions }).leaseMs / 2) })
  await app.register(noteTypeRenders, { everyMs: Math.max(100, ({ ...DEFAULT_RENDER_SETTINGS, ...config.noteTypeRendering }).leaseMs / 2) })

  await app.register(health)
  await app.register(studyPage)
  await app.register(mediaFiles)
  await app.register(async (api) => {
    // every operation answers the common errors; routes declare only their own
    api.addHook('onRoute', (route) => {
      if (route.schema === undefined) return
      route.schema.response = { ...commonErrors(route.config?.public !== true), ...(route.schema.response as object | undefined) }
    })
    requireAuthentication(api)
    await api.register(accounts)
    await api.register(accountRecovery)
    await api.register(library)
    await api.register(transfer)
    await api.register(anki)
    await api.register(study)
    await api.register(cardStates)
    await api.register(studySession)
    await api.register(search)
    await api.register(browse)
    await api.register(goals)
    await api.register(progress)
    await api.register(media)
    await api.register(schedule)
  }, { prefix: '/api' })

  return app
}
