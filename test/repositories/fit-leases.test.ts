import { test } from 'tap'
import type { FitLeaseDocument } from '../../src/repositories/fit-leases.js'
import { buildTestApp, databaseOf, post, registerUser } from '../helpers/app.js'
import { storeHistory } from '../helpers/review-history.js'
import { syntheticLog } from '../helpers/synthetic-reviews.js'

test('a user\'s lease is held by one fit until it is given back or runs out', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const leases = app.repositories.fitLeases
  const now = new Date()
  const later = new Date(now.getTime() + 30_000)
  t.equal(await leases.acquire('user-1', 'fit-a', 'instance-1', now, later), null, 'taken')
  t.equal(await leases.acquire('user-1', 'fit-b', 'instance-2', now, later), 'fit-a', 'held: the holder\'s fit is named')
  t.equal(await leases.acquire('user-2', 'fit-c', 'instance-2', now, later), null, 'another user\'s is free')
  t.notOk(await leases.renew('user-1', 'fit-b', later), 'only the holder renews')
  t.ok(await leases.renew('user-1', 'fit-a', later))
  await leases.release('user-1', 'fit-b')
  t.equal((await leases.read('user-1'))?.fitID, 'fit-a', 'only the holder gives it back')
  await leases.release('user-1', 'fit-a')
  t.equal(await leases.acquire('user-1', 'fit-b', 'instance-2', now, later), null, 'free once given back')
  t.equal(await leases.acquire('user-1', 'fit-d', 'instance-3', new Date(later.getTime() + 1), new Date(later.getTime() + 30_000)), null, 'and once run out')
  t.equal((await leases.read('user-1'))?.holder, 'instance-3')
})

test('a lease left by an instance that died holds up the user\'s fits only until it runs out', async (t) => {
  const app = await buildTestApp(t, import.meta.filename, { clock: () => new Date('2024-09-02T12:00:00Z'), fitting: { waitPollMs: 20 } })
  const user = await registerUser(app)
  await storeHistory(app, user.userID, syntheticLog({ parameters: [0.1, 0.4, 0.9, 3.0, 7.5, 0.5, 1.5, 0.02, 1.2, 0.25, 0.9, 2.2, 0.1, 0.3, 1.9, 0.5, 2.0, 0.4, 0.2, 0.1, 0.45], reviews: 2500, seed: 7 }))
  const until = new Date(Date.now() + 1500)
  await databaseOf(app).collection<FitLeaseDocument>('fitLeases').insertOne({ _id: user.userID, userID: user.userID, fitID: 'fit-of-a-dead-instance', holder: 'dead', until })
  const fit = await post(app, 'optimize-schedule', { jwtToken: user.jwtToken })
  t.equal(fit.statusCode, 200)
  t.ok(Date.now() >= until.getTime(), 'it waited for the lease to run out, then fitted')
  t.equal(await databaseOf(app).collection('fitLeases').countDocuments(), 0)
})
