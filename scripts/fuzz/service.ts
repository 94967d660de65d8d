// The service as `npm run fuzz` runs it, in a process of its own: the whole app
// of src/app.ts on MONGODB_URL, listening on 127.0.0.1:PORT, with JSON logs on
// standard output. One difference from src/server.ts: login and register allow
// many attempts, so that the fuzzer's requests reach their validation and logic
// instead of stopping at 429 after 30 a minute (the limits have their own tests).
import { buildApp } from '../../src/app.js'
import { loggerOptions } from '../../src/logging.js'

const { MONGODB_URL: mongodbUrl, JWT_SECRET: jwtSecret, PORT: port } = process.env
if (mongodbUrl === undefined || jwtSecret === undefined || port === undefined) {
  console.error('scripts/fuzz/service.ts needs MONGODB_URL, JWT_SECRET and PORT; `npm run fuzz` sets them')
  process.exit(2)
}

const app = await buildApp({
  mongodbUrl,
  jwtSecret,
  logger: loggerOptions(process.env.LOG_LEVEL ?? 'warn', false),
  attemptLimits: { perAddress: 1_000_000, perAccount: 1_000_000, windowMs: 60_000 }
})
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => { void app.close().then(() => process.exit(0)) })
}
await app.listen({ port: Number(port), host: '127.0.0.1' })
