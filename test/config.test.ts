import { test } from 'tap'
import { ConfigError, loadConfig, publicUrlOf } from '../src/config.js'

test('defaults apply when the environment says nothing', async (t) => {
  t.same(loadConfig({}), {
    PORT: 3000, HOST: '127.0.0.1', DATA_DIR: './data', LOG_LEVEL: 'info', CORS_ORIGINS: '', DATABASE_TIMEOUT_MS: 10_000, DATABASE_CACHE_SIZE: '512M', REQUEST_TIMEOUT_MS: 10_000, UPLOAD_TIMEOUT_MS: 3_600_000, MAX_CONNECTIONS_PER_ADDRESS: 100,
    MEDIA_GRACE_SECONDS: 86_400, MEDIA_URL_LIFETIME_SECONDS: 3600, MEDIA_SWEEP_SECONDS: 3600, IMPORT_LEASE_SECONDS: 15,
    MIGRATION_WAIT_SECONDS: 300
  })
})

test('values are read and converted', async (t) => {
  const config = loadConfig({ PORT: '8080', HOST: '0.0.0.0', MONGODB_URL: 'mongodb://db:27017/cards', LOG_LEVEL: 'debug', JWT_SECRET: 'x'.repeat(32) })
  t.equal(config.PORT, 8080)
  t.equal(config.HOST, '0.0.0.0')
  t.equal(config.MONGODB_URL, 'mongodb://db:27017/cards')
  t.equal(config.LOG_LEVEL, 'debug')
})

test('an empty variable counts as unset', async (t) => {
  t.equal(loadConfig({ PORT: '' }).PORT, 3000)
})

test('a wrong value stops start-up with a message naming the variable', async (t) => {
  const cases: Array<[Record<string, string>, RegExp]> = [
    [{ PORT: 'abc' }, /PORT/],
    [{ PORT: '70000' }, /PORT/],
    [{ PORT: '80.5' }, /PORT/],
    [{ DATABASE_TIMEOUT_MS: '5s' }, /DATABASE_TIMEOUT_MS/],
    [{ DATABASE_TIMEOUT_MS: '10' }, /DATABASE_TIMEOUT_MS/],
    [{ REQUEST_TIMEOUT_MS: '500' }, /REQUEST_TIMEOUT_MS/],
    [{ UPLOAD_TIMEOUT_MS: '5000' }, /UPLOAD_TIMEOUT_MS/],
    [{ MAX_CONNECTIONS_PER_ADDRESS: '-1' }, /MAX_CONNECTIONS_PER_ADDRESS/],
    [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL.*expected one of fatal, error, warn, info, debug, trace, silent/],
    [{ MONGODB_URL: 'http://localhost:27017' }, /MONGODB_URL/],
    [{ JWT_SECRET: 'too-short' }, /JWT_SECRET/],
    [{ METRICS_TOKEN: 'too-short' }, /METRICS_TOKEN/],
    [{ METRICS_PORT: '9100.5' }, /METRICS_PORT/],
    [{ METRICS_PORT: '0' }, /METRICS_PORT/],
    [{ METRICS_PORT: '3000' }, /METRICS_PORT.*another port than PORT's/],
    [{ METRICS_PORT: '8080', PORT: '8080' }, /METRICS_PORT.*another port than PORT's/]
  ]
  for (const [env, message] of cases) {
    t.throws(() => loadConfig(env), { name: 'ConfigError', message }, JSON.stringify(env))
  }
})

test('a rejected secret is not printed', async (t) => {
  try {
    loadConfig({ JWT_SECRET: 'hunter2-secret' })
    t.fail('should have thrown')
  } catch (error) {
    t.ok(error instanceof ConfigError)
    t.notMatch((error as Error).message, /hunter2/)
    t.match((error as Error).message, /14 characters/)
  }
})

test('the metrics settings are read, and a rejected metrics token is not printed', async (t) => {
  const config = loadConfig({ METRICS_TOKEN: 'm'.repeat(40), METRICS_PORT: '9100' })
  t.equal(config.METRICS_TOKEN, 'm'.repeat(40))
  t.equal(config.METRICS_PORT, 9100)
  try {
    loadConfig({ METRICS_TOKEN: 'scrape-me-please' })
    t.fail('should have thrown')
  } catch (error) {
    t.notMatch((error as Error).message, /scrape-me/)
    t.match((error as Error).message, /METRICS_TOKEN.*16 characters/)
  }
})

test('credentials in a rejected database URL are not printed', async (t) => {
  t.throws(() => loadConfig({ MONGODB_URL: 'postgres://admin:s3cret@db/x' }), { message: /MONGODB_URL/ })
  try {
    loadConfig({ MONGODB_URL: 'mongodb:/admin:s3cret@db/x' })
  } catch (error) {
    t.notMatch((error as Error).message, /s3cret/)
  }
})

test('mail: SMTP_URL needs MAIL_FROM and PUBLIC_URL, each checked, and its credentials are not printed', async (t) => {
  const config = loadConfig({ SMTP_URL: 'smtp://sender:pa%24%24@mail.example.com:587', MAIL_FROM: 'Flashcards <no-reply@example.com>', PUBLIC_URL: 'https://cards.example.com/' })
  t.equal(config.SMTP_URL, 'smtp://sender:pa%24%24@mail.example.com:587')
  t.equal(publicUrlOf(config), 'https://cards.example.com', 'the links start with PUBLIC_URL')
  t.equal(publicUrlOf(loadConfig({ PORT: '8080' })), 'http://127.0.0.1:8080', 'or, without SMTP_URL, where the service listens')
  const cases: Array<[Record<string, string>, RegExp]> = [
    [{ SMTP_URL: 'smtp://mail.example.com:25' }, /MAIL_FROM: .*\n {2}PUBLIC_URL: .*SMTP_URL is set/],
    [{ SMTP_URL: 'http://mail.example.com', MAIL_FROM: 'a@example.com', PUBLIC_URL: 'https://x.example.com' }, /SMTP_URL/],
    [{ MAIL_FROM: 'nobody' }, /MAIL_FROM/],
    [{ PUBLIC_URL: 'cards.example.com' }, /PUBLIC_URL/],
    [{ PUBLIC_URL: 'https://cards.example.com/#/study' }, /PUBLIC_URL/]
  ]
  for (const [env, message] of cases) {
    t.throws(() => loadConfig(env), { name: 'ConfigError', message }, JSON.stringify(env))
  }
  try {
    loadConfig({ SMTP_URL: 'smtp://sender:hunter2@mail example.com' })
    t.fail('should have thrown')
  } catch (error) {
    t.match((error as Error).message, /SMTP_URL/)
    t.notMatch((error as Error).message, /hunter2/)
  }
})
