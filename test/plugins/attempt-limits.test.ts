import { test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { buildApp, type AppConfig } from '../../src/app.js'
import { databaseOf, registerUser, TEST_SECRET, testDatabaseUrl } from '../helpers/app.js'

interface Tap { teardown: (fn: () => unknown) => void }

/** Two instances of the service on one database, as production runs them behind a load balancer. */
async function twoInstances (t: Tap, overrides: Partial<AppConfig>): Promise<[FastifyInstance, FastifyInstance]> {
  const config: AppConfig = { mongodbUrl: testDatabaseUrl(import.meta.filename), jwtSecret: TEST_SECRET, ...overrides }
  const first = await buildApp(config)
  const second = await buildApp(config)
  await Promise.all([first.ready(), second.ready()])
  t.teardown(async () => {
    await databaseOf(first).dropDatabase()
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
