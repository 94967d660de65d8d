import { test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { buildApp, type AppConfig } from '../../src/app.js'
import { databaseOf, registerUser, TEST_SECRET, testDatabaseUrl } from '../helpers/app.js'
import { startMailbox } from '../helpers/mailbox.js'

interface Tap { teardown: (fn: () => unknown) => void }

/** Two instances of the service on one database, as production runs them behind a load balancer. */
async function twoInstances (t: Tap, overrides: Partial<AppConfig>): Promise<[FastifyInstance, FastifyInstance]> {
  const config: AppConfig = { mongodbUrl: testDatabaseUrl(import.meta.filename), jwtSecret: TEST_SECRET, ...overrides }
  const first = await buildApp(config)
  const second = await buildApp(config)
  await Promise.all([first.ready(), second.ready()])
  t.teardown(async () => {
    await databaseOf(first).dropDatabase().catch(() => {})
    await Promise.all([first.close(), second.close()])
  })
  return [first, second]
}

async function login (app: FastifyInstance, email: string, password: string, address: string): Promise<number> {
  const response = await app.inject({ method: 'POST', url: '/api/login', remoteAddress: address, payload: { email, password } })
  return response.statusCode
}

test('the per-account limit holds across two instances: guesses split between them stop at the account\'s limit', async (t) => {
  const [one, two] = await twoInstances(t, { attemptLimits: { perAddress: 1000, perAccount: 10, windowMs: 60_000 } })
  const owner = await registerUser(one) // registering counts as the account's first attempt

  // a stranger guesses from a new address each time, taking turns between the instances
  const statuses: number[] = []
  for (let guess = 1; guess <= 20; guess++) {
    const password = guess === 16 ? owner.password : `guess number ${guess}`
    statuses.push(await login(guess % 2 === 0 ? one : two, owner.email, password, `10.0.${guess}.1`))
  }
  t.same(statuses.slice(0, 9), Array(9).fill(401), 'nine guesses after registering: the account\'s ten attempts')
  t.same(statuses.slice(9), Array(11).fill(429), 'then every guess is held back on both instances')
  t.equal(statuses[15], 429, 'the right password at guess 16 is held back too, from an address the account does not know')
  t.equal(await login(two, owner.email, owner.password, '127.0.0.1'), 200, 'the owner, from the address that registered, still gets in')
})

test('the per-address limit holds across two instances', async (t) => {
  const [one, two] = await twoInstances(t, { attemptLimits: { perAddress: 30, perAccount: 1000, windowMs: 60_000 } })
  const statuses: number[] = []
  for (let attempt = 0; attempt < 60; attempt++) {
    statuses.push(await login(attempt % 2 === 0 ? one : two, `someone${attempt}@example.com`, 'wrong password', '10.9.9.9'))
  }
  t.equal(statuses.filter((status) => status === 401).length, 30, '30 attempts a window from one address, in all')
  t.same(statuses.slice(30), Array(30).fill(429))
  t.equal(await login(one, 'other@example.com', 'wrong password', '10.9.9.10'), 401, 'another address is not affected')
})

test('attempts sent at once to both instances are each counted once', async (t) => {
  const [one, two] = await twoInstances(t, { attemptLimits: { perAddress: 1000, perAccount: 10, windowMs: 60_000 } })
  // no account: every attempt counts on the email's counter, and the first ones open its window at the same moment
  const statuses = await Promise.all(Array.from({ length: 30 }, async (_, n) =>
    await login(n % 2 === 0 ? one : two, 'nobody@example.com', `guess ${n}`, `10.1.${n}.1`)))
  t.equal(statuses.filter((status) => status === 401).length, 10, 'exactly the limit got an answer')
  t.equal(statuses.filter((status) => status === 429).length, 20, 'every other attempt was held back')
})

test('a window closes: attempts are allowed again once it has passed', async (t) => {
  let now = new Date('2026-03-01T10:00:00Z')
  const [one] = await twoInstances(t, { clock: () => now, attemptLimits: { perAddress: 2, perAccount: 1000, windowMs: 60_000 } })
  const statuses = [
    await login(one, 'a@example.com', 'wrong password', '10.2.2.2'),
    await login(one, 'b@example.com', 'wrong password', '10.2.2.2'),
    await login(one, 'c@example.com', 'wrong password', '10.2.2.2')
  ]
  t.same(statuses, [401, 401, 429])
  now = new Date(now.getTime() + 61_000)
  t.equal(await login(one, 'd@example.com', 'wrong password', '10.2.2.2'), 401, 'a new window')
})

test('the stored counters name no address and no email', async (t) => {
  const [one] = await twoInstances(t, { attemptLimits: { perAddress: 1000, perAccount: 1000, windowMs: 60_000 } })
  await login(one, 'private@example.com', 'wrong password', '10.3.3.3')
  const stored = JSON.stringify(await databaseOf(one).collection('attempts').find().toArray())
  t.notMatch(stored, /private|example|10\.3\.3\.3/)
  t.match(stored, /"count":1/)
})

async function requestReset (app: FastifyInstance, email: string, address: string): Promise<number> {
  const response = await app.inject({ method: 'POST', url: '/api/request-password-reset', remoteAddress: address, payload: { email } })
  return response.statusCode
}

test('mails of reset links are limited per email across two instances, whether or not an account has it; only those let through are mailed', async (t) => {
  const mailbox = await startMailbox(t)
  const [one, two] = await twoInstances(t, {
    mailLimits: { perAddress: 1000, perEmail: 3, windowMs: 3_600_000 },
    mail: { smtpUrl: mailbox.url, from: 'no-reply@example.com', publicUrl: 'https://cards.example.com' }
  })
  const owner = await registerUser(one)
  const known: number[] = []
  const unknown: number[] = []
  for (let request = 0; request < 6; request++) {
    const instance = request % 2 === 0 ? one : two
    known.push(await requestReset(instance, owner.email, `10.4.${request}.1`))
    unknown.push(await requestReset(instance, 'nobody-at-all@example.com', `10.5.${request}.1`))
  }
  t.same(known, [202, 202, 202, 429, 429, 429], 'three a window for an account\'s email, from any address, on either instance')
  t.same(unknown, known, 'and the same for an email no account has')
  await mailbox.mailAfter(2)
  // closing waits for the mail under way: then everything the requests were to mail has gone
  await databaseOf(one).dropDatabase()
  await Promise.all([one.close(), two.close()])
  t.equal(mailbox.mails.length, 3, 'three mails sent, all to the account')
  t.ok(mailbox.mails.every((mail) => mail.to[0] === owner.email))
})

test('mails of links are limited per client address across two instances, change-email\'s too', async (t) => {
  const [one, two] = await twoInstances(t, { mailLimits: { perAddress: 4, perEmail: 1000, windowMs: 3_600_000 } })
  const owner = await registerUser(one)
  const statuses: number[] = []
  for (let request = 0; request < 3; request++) {
    statuses.push(await requestReset(request % 2 === 0 ? one : two, `someone${request}@example.com`, '10.6.6.6'))
  }
  const change = await two.inject({
    method: 'POST',
    url: '/api/change-email',
    remoteAddress: '10.6.6.6',
    payload: { jwtToken: owner.jwtToken, password: owner.password, newEmail: 'elsewhere@example.com' }
  })
  statuses.push(change.statusCode)
  statuses.push(await requestReset(one, 'someone-else@example.com', '10.6.6.6'))
  t.same(statuses, [202, 202, 202, 202, 429], 'four mails a window from one address, in all')
  t.equal(await requestReset(two, 'someone-else@example.com', '10.6.6.7'), 202, 'another address is not affected')
})

test('reset-password is limited per client address across two instances, with login\'s counter', async (t) => {
  const [one, two] = await twoInstances(t, { attemptLimits: { perAddress: 3, perAccount: 1000, windowMs: 60_000 } })
  const statuses: number[] = []
  for (let attempt = 0; attempt < 5; attempt++) {
    const response = await (attempt % 2 === 0 ? one : two).inject({
      method: 'POST',
      url: '/api/reset-password',
      remoteAddress: '10.7.7.7',
      payload: { resetToken: 'A'.repeat(43), newPassword: 'a brand new password' }
    })
    statuses.push(response.statusCode)
  }
  t.same(statuses, [400, 400, 400, 429, 429])
  t.equal(await login(one, 'someone@example.com', 'wrong password', '10.7.7.7'), 429, 'logins from that address are held back too')
})
