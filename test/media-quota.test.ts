// The media quota under concurrent uploads: the bytes are charged in the
// transaction that records each file, so that however many uploads of one
// user run at once, the account never holds more than its quota.
import { test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { buildTestApp, databaseOf, registerUser } from './helpers/app.js'
import { samples, storedMedia, upload } from './helpers/media.js'

async function mediaUsage (app: FastifyInstance, userID: string): Promise<number> {
  return (await databaseOf(app).collection('users').findOne({ _id: userID as never }))?.usage?.mediaBytes ?? 0
}

test('many uploads of one user at once never pass the media quota', async (t) => {
  const size = 50_000
  const fits = 10
  const app = await buildTestApp(t, import.meta.filename, { quotas: { mediaBytes: fits * size + size / 2 } })
  const user = await registerUser(app)
  // every upload alone fits; together, only ten do
  const answers = await Promise.all(Array.from({ length: 40 }, async () => await upload(app, user.jwtToken, samples.png(size))))
  const statuses = answers.map((answer) => answer.statusCode)
  t.equal(statuses.filter((status) => status === 201).length, fits, `exactly ${fits} are kept (${JSON.stringify(statuses)})`)
  t.ok(answers.filter((answer) => answer.statusCode !== 201).every((answer) => answer.statusCode === 409 && answer.json().code === 'quota_exceeded'),
    'the others are 409 quota_exceeded')
  t.equal(await mediaUsage(app, user.userID), fits * size, 'the account counts exactly what it holds')
  t.same(await storedMedia(app), { records: fits, files: fits, chunks: fits, unrecorded: 0 }, 'and GridFS holds exactly those files: the refused ones left nothing')
})

test('the same bytes uploaded many times at once are kept once, counted once, all answered with one mediaID', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app)
  const bytes = samples.webp(300_000)
  const answers = await Promise.all(Array.from({ length: 12 }, async () => await upload(app, user.jwtToken, bytes)))
  t.same([...new Set(answers.map((answer) => answer.statusCode))].sort(), [200, 201], 'one created, the others found it')
  t.equal(answers.filter((answer) => answer.statusCode === 201).length, 1)
  t.equal(new Set(answers.map((answer) => answer.json().mediaID)).size, 1, 'one mediaID')
  t.equal(await mediaUsage(app, user.userID), bytes.length, 'counted once')
  t.same(await storedMedia(app), { records: 1, files: 1, chunks: 2, unrecorded: 0 }, 'one file in GridFS')
})

test('uploads of several users at once each count against their own quota only', async (t) => {
  const size = 40_000
  const app = await buildTestApp(t, import.meta.filename, { quotas: { mediaBytes: 3 * size } })
  const users = await Promise.all(Array.from({ length: 3 }, async () => await registerUser(app)))
  const answers = await Promise.all(users.flatMap((user) => Array.from({ length: 6 }, async () => ({ user, answer: await upload(app, user.jwtToken, samples.gif(size)) }))))
  for (const user of users) {
    const kept = answers.filter((item) => item.user === user && item.answer.statusCode === 201).length
    t.equal(kept, 3, 'each user keeps what their own quota holds')
    t.equal(await mediaUsage(app, user.userID), 3 * size)
  }
  t.same(await storedMedia(app), { records: 9, files: 9, chunks: 9, unrecorded: 0 })
})
