import { Writable } from 'node:stream'
import { test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { MongoClient } from 'mongodb'
import { buildApp, type AppConfig } from '../../src/app.js'
import { expectOk, registerUser, TEST_SECRET, testDatabaseUrl } from '../helpers/app.js'
import { startMailbox } from '../helpers/mailbox.js'

interface LogLine { level: number, msg: string, mailTo?: string, err?: { message: string } }

/** An app whose log lines are kept, closed (and its mail done) by `finish`. */
async function loggedApp (t: { teardown: (fn: () => unknown) => void }, mail: AppConfig['mail']) {
  const lines: LogLine[] = []
  const stream = new Writable({
    write (chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line !== '') lines.push(JSON.parse(line) as LogLine)
      done()
    }
  })
  const url = testDatabaseUrl(import.meta.filename)
  const app: FastifyInstance = await buildApp({ mongodbUrl: url, jwtSecret: TEST_SECRET, logger: { level: 'info', stream }, mail })
  let closed = false
  const finish = async (): Promise<void> => {
    if (closed) return
    closed = true
    // closing waits for the mail under way, which reads the account: the database goes after
    await app.close()
    const client = new MongoClient(url)
    try {
      await client.connect()
      await client.db().dropDatabase().catch(() => {})
    } finally {
      await client.close()
    }
  }
  t.teardown(finish)
  return { app, lines, finish }
}

test('without SMTP_URL, a mail is written to the log, its link with it', async (t) => {
  const { app, lines, finish } = await loggedApp(t, { publicUrl: 'http://127.0.0.1:3000' })
  const user = await registerUser(app)
  await expectOk(app, 'request-password-reset', { email: user.email }, 202)
  await finish()
  const logged = lines.find((line) => line.mailTo === user.email)
  t.ok(logged, 'the mail is in the log')
  t.match(logged?.msg, /no SMTP_URL is set, so this mail was not sent/)
  t.match(logged?.msg, /http:\/\/127\.0\.0\.1:3000\/#\/reset-password\?token=[A-Za-z0-9_-]{43}/)
})

test('a mail the SMTP server refuses is logged as an error; the answer was the same', async (t) => {
  const mailbox = await startMailbox(t)
  const wrongPassword = mailbox.url.replace(/:[^:@/]+@/, ':not-the-password@')
  const { app, lines, finish } = await loggedApp(t, { smtpUrl: wrongPassword, from: 'no-reply@example.com', publicUrl: 'https://cards.example.com' })
  const user = await registerUser(app)
  await expectOk(app, 'request-password-reset', { email: user.email }, 202)
  await finish()
  t.equal(mailbox.mails.length, 0)
  const failure = lines.find((line) => line.msg === 'a mail could not be made or sent')
  t.equal(failure?.level, 50, 'logged as an error')
  t.notMatch(JSON.stringify(lines), /not-the-password/, 'the SMTP password is not in the log')
})
