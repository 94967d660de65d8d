import { Type, type Static } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { DEFAULT_CACHE_SIZE } from './db/embedded.js'

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const

/** Every setting the service reads from its environment, with its default. */
export const ConfigSchema = Type.Object({
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 3000, description: 'TCP port the service listens on' }),
  HOST: Type.String({ minLength: 1, default: '127.0.0.1', description: 'address the service listens on' }),
  MONGODB_URL: Type.Optional(Type.String({
    pattern: '^mongodb(\\+srv)?://',
    description: 'MongoDB connection string (a replica set: transactions need one); when absent the embedded SecantusDB is started'
  })),
  JWT_SECRET: Type.Optional(Type.String({
    minLength: 32,
    description: 'secret that signs tokens (at least 32 characters); the embedded default keeps one in DATA_DIR'
  })),
  DATA_DIR: Type.String({ minLength: 1, default: './data', description: 'folder of the embedded database and its token secret' }),
  CORS_ORIGINS: Type.String({
    default: '',
    pattern: '^(https?://[^,\\s]+(,https?://[^,\\s]+)*)?$',
    description: 'comma-separated browser origins allowed to call the API (CORS), e.g. https://app.example.com; none by default'
  }),
  DATABASE_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    maximum: 600_000,
    default: 10_000,
    description: 'longest wait for one database answer before the request gets 503'
  }),
  DATABASE_CACHE_SIZE: Type.String({
    pattern: '^[1-9][0-9]*[MG]$',
    default: DEFAULT_CACHE_SIZE,
    description: "the embedded database's WiredTiger cache, e.g. 256M or 2G: the data it keeps in memory; size it for the data"
  }),
  REQUEST_TIMEOUT_MS: Type.Integer({
    minimum: 1000,
    maximum: 600_000,
    default: 10_000,
    description: 'a request\'s headers, and then its body, must each arrive within this time (an upload\'s body: UPLOAD_TIMEOUT_MS), or it gets 408 and its connection is closed'
  }),
  UPLOAD_TIMEOUT_MS: Type.Integer({
    minimum: 10_000,
    maximum: 86_400_000,
    default: 3_600_000,
    description: 'an upload (upload-media, import-flashcard-zip, import-anki) must arrive whole within this time, and bring at least 64 KiB in every REQUEST_TIMEOUT_MS (more as the upload places fill up), or it gets 408 and its connection is closed'
  }),
  MAX_CONNECTIONS_PER_ADDRESS: Type.Integer({
    minimum: 0,
    maximum: 1_000_000,
    default: 100,
    description: 'connections one client address may hold open at once (429 past it); 0 for none, behind a proxy that caps them itself'
  }),
  MEDIA_GRACE_SECONDS: Type.Integer({
    minimum: 1,
    maximum: 30 * 86_400,
    default: 86_400,
    description: 'media no card shows is removed once this long has passed since its last upload (a file left by an interrupted upload, this long after the upload timed out)'
  }),
  MEDIA_URL_LIFETIME_SECONDS: Type.Integer({
    minimum: 60,
    maximum: 7 * 86_400,
    default: 3600,
    description: 'a signed media URL is valid for one to two of these; browsers keep the file that long'
  }),
  MEDIA_SWEEP_SECONDS: Type.Integer({
    minimum: 1,
    maximum: 86_400,
    default: 3600,
    description: 'how often each instance sweeps media no card shows and files no record holds'
  }),
  IMPORT_LEASE_SECONDS: Type.Integer({
    minimum: 1,
    maximum: 3600,
    default: 15,
    description: 'an import of an Anki package its instance has not renewed for this long is taken over by another instance (or by this one once restarted): finished if it was being kept, cleaned away otherwise'
  }),
  MIGRATION_WAIT_SECONDS: Type.Integer({
    minimum: 1,
    maximum: 86_400,
    default: 300,
    description: 'start-up waits this long for the migrations another instance is running on the same database, then fails (its process manager starts it again)'
  }),
  METRICS_TOKEN: Type.Optional(Type.String({
    minLength: 32,
    description: 'bearer token that GET /metrics (Prometheus text format) asks for (at least 32 characters); without it, or with METRICS_PORT set, /metrics is not served on PORT'
  })),
  METRICS_PORT: Type.Optional(Type.Integer({
    minimum: 1,
    maximum: 65535,
    description: 'a port of its own, on 127.0.0.1 only, that serves GET /metrics (asking for METRICS_TOKEN too when that is set); not PORT'
  })),
  SMTP_URL: Type.Optional(Type.String({
    pattern: '^smtps?://[^\\s/?#]+/?$',
    description: 'the SMTP server that sends the service\'s mail (password resets, changes of email): smtp://user:pass@host:port (TLS once the server offers STARTTLS) or smtps://user:pass@host:port (TLS from the start); when absent, each mail is written to the log instead'
  })),
  MAIL_FROM: Type.Optional(Type.String({
    minLength: 3,
    maxLength: 320,
    pattern: '^[^\\r\\n]*@[^\\r\\n]*$',
    description: 'the sender of the service\'s mail, e.g. "Flashcards <no-reply@example.com>"; needed with SMTP_URL'
  })),
  PUBLIC_URL: Type.Optional(Type.String({
    pattern: '^https?://[^\\s/?#]+(/[^\\s?#]*)?$',
    description: 'the address users reach the service at, e.g. https://cards.example.com: the links mailed start with it; needed with SMTP_URL (without it, http://HOST:PORT)'
  })),
  LOG_LEVEL: Type.Union(LOG_LEVELS.map((level) => Type.Literal(level)), { default: 'info', description: 'pino log level' })
})

export type Config = Static<typeof ConfigSchema>

// Secrets are described by their length only: a start-up message must not print them.
function describeGiven (name: string, value: unknown): string {
  if (value === undefined) return 'nothing'
  if (name === 'JWT_SECRET' || name === 'METRICS_TOKEN') return `a secret of ${String(value).length} characters`
  if (name === 'MONGODB_URL' || name === 'SMTP_URL') return JSON.stringify(String(value).replace(/^([a-z+]*:\/*)[^@]*@/i, '$1***@'))
  return JSON.stringify(value)
}

export class ConfigError extends Error {
  override name = 'ConfigError'
}

/**
 * Reads the configuration once, at start-up. A wrong value stops the service
 * with a message naming the variable, rather than failing later at first use.
 */
export function loadConfig (env: NodeJS.ProcessEnv = process.env): Config {
  const raw: Record<string, unknown> = {}
  for (const key of Object.keys(ConfigSchema.properties)) {
    const value = env[key]
    if (value !== undefined && value !== '') raw[key] = value
  }
  // Convert would truncate "80.5" to 80; an integer setting must be written as one
  for (const name of ['PORT', 'DATABASE_TIMEOUT_MS', 'REQUEST_TIMEOUT_MS', 'UPLOAD_TIMEOUT_MS', 'MAX_CONNECTIONS_PER_ADDRESS', 'MEDIA_GRACE_SECONDS', 'MEDIA_URL_LIFETIME_SECONDS', 'MEDIA_SWEEP_SECONDS', 'IMPORT_LEASE_SECONDS', 'MIGRATION_WAIT_SECONDS', 'METRICS_PORT'] as const) {
    const value = raw[name]
    if (typeof value === 'string' && !/^[0-9]+$/.test(value)) {
      throw new ConfigError(`invalid configuration:\n  ${name}: ${ConfigSchema.properties[name].description ?? ''} (expected a whole number; got ${JSON.stringify(value)})`)
    }
  }
  const candidate = Value.Convert(ConfigSchema, Value.Default(ConfigSchema, raw))
  const problems = [...Value.Errors(ConfigSchema, candidate)]
    .map((error) => {
      const name = error.path.replace(/^\//, '')
      const expected = Array.isArray(error.schema.anyOf)
        ? `expected one of ${error.schema.anyOf.map((member: { const: string }) => member.const).join(', ')}`
        : error.message
      return `${name}: ${error.schema.description ?? ''} (${expected}; got ${describeGiven(name, raw[name])})`
    })
  const config = candidate as Config
  if (problems.length === 0 && config.METRICS_PORT !== undefined && config.METRICS_PORT === config.PORT) {
    problems.push(`METRICS_PORT: ${ConfigSchema.properties.METRICS_PORT.description ?? ''} (expected another port than PORT's; got ${config.METRICS_PORT})`)
  }
  // mail that leaves needs a sender, and links that lead somewhere a user can reach
  if (raw.SMTP_URL !== undefined) {
    for (const name of ['MAIL_FROM', 'PUBLIC_URL'] as const) {
      if (raw[name] === undefined) problems.push(`${name}: ${ConfigSchema.properties[name].description ?? ''} (got nothing, and SMTP_URL is set)`)
    }
  }
  if (problems.length > 0) {
    throw new ConfigError(`invalid configuration:\n  ${problems.join('\n  ')}`)
  }
  return config
}

/** The address mailed links start with: PUBLIC_URL, or else where the service listens. */
export function publicUrlOf (config: Pick<Config, 'PUBLIC_URL' | 'HOST' | 'PORT'>): string {
  if (config.PUBLIC_URL !== undefined) return config.PUBLIC_URL.replace(/\/+$/, '')
  return `http://${config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST}:${config.PORT}`
}
