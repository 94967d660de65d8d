import { test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { buildTestApp, databaseOf, expectOk, expectRefusal, post, registerUser, type TestUser } from '../helpers/app.js'
import { linkIn, startMailbox, type Mailbox } from '../helpers/mailbox.js'

interface Tap { teardown: (fn: () => unknown) => void }

async function appMailingTo (t: Tap, mailbox: Mailbox): Promise<FastifyInstance> {
  return await buildTestApp(t, import.meta.filename, { mail: { smtpUrl: mailbox.url, from: 'no-reply@cards.example.com', publicUrl: 'https://cards.example.com/' } })
}

/** Asks to move `user` to `newEmail` and waits for the mail it makes; its token. */
async function emailChangeToken (app: FastifyInstance, mailbox: Mailbox, user: TestUser, newEmail: string): Promise<string> {
  const seen = mailbox.mails.length
  await expectOk(app, 'change-email', { jwtToken: user.jwtToken, password: user.password, newEmail }, 202)
  return linkIn(await mailbox.mailAfter(seen)).token
}

async function emailOf (app: FastifyInstance, user: TestUser): Promise<string> {
  return (await expectOk<{ email: string }>(app, 'get-user', { jwtToken: user.jwtToken })).email
}

test('a new email is mailed a link, and becomes the account\'s only once the link is opened', async (t) => {
  const mailbox = await startMailbox(t)
  const app = await appMailingTo(t, mailbox)
  const user = await registerUser(app)

  const answer = await post(app, 'change-email', { jwtToken: user.jwtToken, password: user.password, newEmail: ' Ada.New@Example.com ' })
  t.equal(answer.statusCode, 202)
  t.same(answer.json(), { newEmail: 'ada.new@example.com' })
  const mail = await mailbox.mailAfter(0)
  t.same(mail.to, ['ada.new@example.com'], 'mailed to the new address')
  t.equal(mail.subject, 'Confirm your new flashcards email address')
  const { link, token } = linkIn(mail)
  t.match(link, /^https:\/\/cards\.example\.com\/#\/confirm-email-change\?token=[A-Za-z0-9_-]{43}$/)
  t.equal(await emailOf(app, user), user.email, 'the account keeps its email until then')

  t.same(await expectOk(app, 'confirm-email-change', { token }), { userID: user.userID, email: 'ada.new@example.com' })
  t.equal(await emailOf(app, user), 'ada.new@example.com', 'the email is changed')
  t.equal((await post(app, 'get-user', { jwtToken: user.jwtToken })).statusCode, 200, 'the session goes on')
  t.equal((await post(app, 'login', { email: 'ada.new@example.com', password: user.password })).statusCode, 200, 'the new email logs in')
  t.equal((await post(app, 'login', { email: user.email, password: user.password })).statusCode, 401, 'the old one no longer does')
  await expectRefusal(t, app, 'confirm-email-change', { token }, 410, 'link_used', 'the link used a second time')
})

test('change-email asks for the password, and refuses an address that is the account\'s or another\'s, mailing nothing', async (t) => {
  const mailbox = await startMailbox(t)
  const app = await appMailingTo(t, mailbox)
  const user = await registerUser(app)
  const other = await registerUser(app)
  await expectRefusal(t, app, 'change-email', { jwtToken: user.jwtToken, password: 'not the password', newEmail: 'fresh@example.com' }, 401, 'wrong_password')
  await expectRefusal(t, app, 'change-email', { jwtToken: user.jwtToken, password: user.password, newEmail: other.email.toUpperCase() }, 409, 'email_taken')
  await expectRefusal(t, app, 'change-email', { jwtToken: user.jwtToken, password: user.password, newEmail: user.email }, 400, 'nothing_to_change')
  await expectRefusal(t, app, 'change-email', { jwtToken: user.jwtToken, password: user.password, newEmail: 'no-at-sign' }, 400, 'invalid_field')
  await expectRefusal(t, app, 'change-email', { jwtToken: 'not.a.token', password: user.password, newEmail: 'fresh@example.com' }, 401, 'invalid_token')
  t.equal(await databaseOf(app).collection('accountLinks').countDocuments(), 0, 'no link was made')
  t.equal(mailbox.connections(), 0, 'nothing was mailed')
})

test('an address another account takes before the link is opened: 409, and the email stays as it was', async (t) => {
  const mailbox = await startMailbox(t)
  const app = await appMailingTo(t, mailbox)
  const user = await registerUser(app)
  const token = await emailChangeToken(app, mailbox, user, 'contested@example.com')
  await expectOk(app, 'register', { email: 'contested@example.com', password: 'the quicker one' }, 201)
  await expectRefusal(t, app, 'confirm-email-change', { token }, 409, 'email_taken')
  t.equal(await emailOf(app, user), user.email)
  t.notOk((await databaseOf(app).collection('accountLinks').findOne({ userID: user.userID }))?.usedAt, 'the link is not used up')
})

test('a confirmed change of email ends the links sent before it, and a logout everywhere ends a change not yet confirmed', async (t) => {
  const mailbox = await startMailbox(t)
  const app = await appMailingTo(t, mailbox)
  const user = await registerUser(app)

  const seen = mailbox.mails.length
  await expectOk(app, 'request-password-reset', { email: user.email }, 202)
  const reset = linkIn(await mailbox.mailAfter(seen)).token
  const first = await emailChangeToken(app, mailbox, user, 'first-choice@example.com')
  const second = await emailChangeToken(app, mailbox, user, 'second-choice@example.com')
  await expectOk(app, 'confirm-email-change', { token: second })
  await expectRefusal(t, app, 'reset-password', { resetToken: reset, newPassword: 'taken over by the old mailbox' }, 410, 'link_used', 'a reset link mailed to the old address')
  await expectRefusal(t, app, 'confirm-email-change', { token: first }, 410, 'link_used', 'a change asked for before')
  t.equal(await emailOf(app, user), 'second-choice@example.com')

  const pending = await emailChangeToken(app, mailbox, user, 'third-choice@example.com')
  await expectOk(app, 'logout-everywhere', { jwtToken: user.jwtToken })
  await expectRefusal(t, app, 'confirm-email-change', { token: pending }, 410, 'link_used', 'a change asked for by a session since ended')
})
