import { randomBytes } from 'node:crypto'
import { test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { buildApp, type AppConfig } from '../../src/app.js'
import { buildTestApp, databaseOf, expectOk, expectRefusal, post, registerUser, removalOver, TEST_SECRET, testDatabaseUrl } from '../helpers/app.js'
import { linkIn, startMailbox, type Mailbox } from '../helpers/mailbox.js'

const PUBLIC_URL = 'https://cards.example.com'
const FROM = 'Flashcards <no-reply@cards.example.com>'

interface Tap { teardown: (fn: () => unknown) => void }

async function appMailingTo (t: Tap, mailbox: Mailbox, overrides: Partial<AppConfig> = {}): Promise<FastifyInstance> {
  return await buildTestApp(t, import.meta.filename, { mail: { smtpUrl: mailbox.url, from: FROM, publicUrl: PUBLIC_URL }, ...overrides })
}

/** Asks for a reset of `email` and waits for the mail it makes (the mailbox's next). */
async function resetMail (app: FastifyInstance, mailbox: Mailbox, email: string) {
  const seen = mailbox.mails.length
  await expectOk(app, 'request-password-reset', { email }, 202)
  return await mailbox.mailAfter(seen)
}

test('a reset link arrives by mail, sets a new password once, and ends every other session', async (t) => {
  const mailbox = await startMailbox(t)
  const app = await appMailingTo(t, mailbox)
  const user = await registerUser(app)
  const phone = (await expectOk<{ jwtToken: string }>(app, 'login', { email: user.email, password: user.password })).jwtToken

  const answer = await post(app, 'request-password-reset', { email: `  ${user.email.toUpperCase()} ` })
  t.equal(answer.statusCode, 202)
  t.same(answer.json(), { requested: 'true' })
  const mail = await mailbox.mailAfter(0)
  t.same(mail.to, [user.email], 'mailed to the account\'s address')
  t.equal(mail.from, 'no-reply@cards.example.com', 'from MAIL_FROM')
  t.equal(mail.subject, 'Reset your flashcards password')
  const { link, token } = linkIn(mail)
  t.match(link, /^https:\/\/cards\.example\.com\/#\/reset-password\?token=[A-Za-z0-9_-]{43}$/, 'the study page\'s reset screen, the token in the fragment')

  const stored = JSON.stringify(await databaseOf(app).collection('accountLinks').find().toArray())
  t.notMatch(stored, token, 'the token is stored only as its digest')

  const reset = await expectOk<{ userID: string, jwtToken: string }>(app, 'reset-password', { resetToken: token, newPassword: 'a brand new password' })
  t.equal(reset.userID, user.userID)
  t.equal((await post(app, 'get-user', { jwtToken: reset.jwtToken })).statusCode, 200, 'the answer logs in')
  t.equal((await post(app, 'get-user', { jwtToken: phone })).statusCode, 401, 'another device is logged out')
  t.equal((await post(app, 'get-user', { jwtToken: user.jwtToken })).statusCode, 401, 'and so is the first token')
  t.equal((await post(app, 'login', { email: user.email, password: user.password })).statusCode, 401, 'the old password no longer logs in')
  t.equal((await post(app, 'login', { email: user.email, password: 'a brand new password' })).statusCode, 200, 'the new one does')

  await expectRefusal(t, app, 'reset-password', { resetToken: token, newPassword: 'yet another password' }, 410, 'link_used', 'the link used a second time')
  t.equal((await post(app, 'login', { email: user.email, password: 'a brand new password' })).statusCode, 200, 'the second use changed nothing')
})

test('an unknown email gets the same answer as a known one, and no mail', async (t) => {
  const mailbox = await startMailbox(t)
  const config: AppConfig = {
    mongodbUrl: testDatabaseUrl(import.meta.filename),
    jwtSecret: TEST_SECRET,
    mail: { smtpUrl: mailbox.url, from: FROM, publicUrl: PUBLIC_URL }
  }
  const app = await buildApp(config)
  t.teardown(async () => {
    await databaseOf(app).dropDatabase().catch(() => {})
    await app.close()
  })
  const user = await registerUser(app)

  const known = await post(app, 'request-password-reset', { email: user.email })
  const unknown = await post(app, 'request-password-reset', { email: 'nobody-here@example.com' })
  const shown = (response: typeof known) => ({
    status: response.statusCode,
    body: response.body,
    headers: Object.keys(response.headers).filter((name) => name !== 'date' && name !== 'server-timing').sort()
  })
  t.same(shown(unknown), shown(known), 'the same status, body and headers')

  await mailbox.mailAfter(0)
  // closing waits for the mail under way: then everything the two requests were to mail has gone
  await databaseOf(app).dropDatabase()
  await app.close()
  t.equal(mailbox.mails.length, 1, 'one mail, for the known email')
  t.same(mailbox.mails[0]?.to, [user.email])
})

test('the answer comes before any mail is sent, and does not wait for the mail server', async (t) => {
  const mailbox = await startMailbox(t)
  const app = await appMailingTo(t, mailbox)
  const user = await registerUser(app)

  const release = mailbox.hold()
  const answer = await post(app, 'request-password-reset', { email: user.email })
  t.equal(answer.statusCode, 202, 'answered while the mail server has not even greeted the service')
  t.equal(mailbox.mails.length, 0, 'no mail has arrived yet')
  release()
  t.same((await mailbox.mailAfter(0)).to, [user.email], 'the mail arrives after')
})

test('a link expires an hour after it is sent', async (t) => {
  let now = new Date('2026-05-01T09:00:00Z')
  const mailbox = await startMailbox(t)
  const app = await appMailingTo(t, mailbox, { clock: () => now })
  const user = await registerUser(app)

  const early = linkIn(await resetMail(app, mailbox, user.email)).token
  const late = linkIn(await resetMail(app, mailbox, user.email)).token
  now = new Date('2026-05-01T09:59:59Z')
  await expectOk(app, 'reset-password', { resetToken: early, newPassword: 'set within the hour' })
  t.equal((await post(app, 'login', { email: user.email, password: 'set within the hour' })).statusCode, 200, 'a link works until its hour is over')
  await expectRefusal(t, app, 'reset-password', { resetToken: late, newPassword: 'set by an older link' }, 410, 'link_used', 'a link sent before a reset')

  const third = linkIn(await resetMail(app, mailbox, user.email)).token
  now = new Date('2026-05-01T11:00:00Z')
  await expectRefusal(t, app, 'reset-password', { resetToken: third, newPassword: 'set too late' }, 410, 'link_expired', 'an hour after it was sent')
  t.equal((await post(app, 'login', { email: user.email, password: 'set within the hour' })).statusCode, 200, 'the password is as it was')
})

test('a token the service did not send, or not of a link\'s form, is refused and changes nothing', async (t) => {
  const mailbox = await startMailbox(t)
  const app = await appMailingTo(t, mailbox)
  const user = await registerUser(app)
  await expectRefusal(t, app, 'reset-password', { resetToken: randomBytes(32).toString('base64url'), newPassword: 'a brand new password' }, 400, 'invalid_link')
  await expectRefusal(t, app, 'reset-password', { resetToken: 'short', newPassword: 'a brand new password' }, 400, 'invalid_field')
  const { token } = linkIn(await resetMail(app, mailbox, user.email))
  await expectRefusal(t, app, 'reset-password', { resetToken: token, newPassword: 'short' }, 400, 'invalid_field', 'a new password too short')
  await expectRefusal(t, app, 'confirm-email-change', { token }, 400, 'invalid_link', 'a reset link sent to confirm an email')
  await expectOk(app, 'reset-password', { resetToken: token, newPassword: 'a brand new password' })
})

test('two uses of one link at once: one sets the password, the other is refused', async (t) => {
  const mailbox = await startMailbox(t)
  const app = await appMailingTo(t, mailbox)
  const user = await registerUser(app)
  const { token } = linkIn(await resetMail(app, mailbox, user.email))
  const answers = await Promise.all(['the left password', 'the right password'].map(async (newPassword) =>
    await post(app, 'reset-password', { resetToken: token, newPassword })))
  t.same(answers.map((answer) => answer.statusCode).sort(), [200, 410])
  const kept = answers[0]?.statusCode === 200 ? 'the left password' : 'the right password'
  t.equal((await post(app, 'login', { email: user.email, password: kept })).statusCode, 200, 'the password of the one that succeeded is set')
})

test('the links of a deleted account go with it', async (t) => {
  const mailbox = await startMailbox(t)
  const app = await appMailingTo(t, mailbox)
  const user = await registerUser(app)
  const { token } = linkIn(await resetMail(app, mailbox, user.email))
  await expectOk(app, 'delete-account', { jwtToken: user.jwtToken, password: user.password })
  await removalOver(app, user.userID)
  t.equal(await databaseOf(app).collection('accountLinks').countDocuments({ userID: user.userID }), 0)
  await expectRefusal(t, app, 'reset-password', { resetToken: token, newPassword: 'a brand new password' }, 400, 'invalid_link')
})
