// import-anki's refusals: every package the issue names is failed with its code, and nothing of it is stored.
import tap, { test } from 'tap'
import { buildTestApp, registerUser } from '../helpers/app.js'
import { expected } from '../helpers/anki.js'
import { countsOf, fixture, importAnki, LEARNER, NOTHING } from '../helpers/anki-import.js'

// every import starts a worker thread of its own: on a machine busy with other tests, a file of them takes minutes
tap.setTimeout(600_000)

test('every package the issue names is refused with its code, and nothing of it is stored', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  for (const [name, code] of Object.entries(expected.refusals)) {
    const user = await registerUser(app, LEARNER)
    const status = await importAnki(app, user.jwtToken, fixture(`refused/${name}`))
    t.equal(status.state, 'failed', name)
    t.equal(status.code, code, `${name}: ${code}`)
    t.ok((status.error ?? '').length > 10, `${name}: a sentence: ${status.error ?? ''}`)
    t.same(await countsOf(app, user), NOTHING, `${name}: nothing stored`)
  }
})

test('over the card quota or the media quota: failed with quota_exceeded saying the room needed, nothing stored', async (t) => {
  const cardsApp = await buildTestApp(t, import.meta.filename, { quotas: { cards: 10 } })
  const few = await registerUser(cardsApp, LEARNER)
  const refused = await importAnki(cardsApp, few.jwtToken, fixture('collection.apkg'))
  t.equal(refused.code, 'quota_exceeded')
  t.match(refused.error, /room for 10 more/)
  t.same(await countsOf(cardsApp, few), NOTHING)

  const mediaApp = await buildTestApp(t, import.meta.filename, { quotas: { mediaBytes: 100 } })
  const small = await registerUser(mediaApp, LEARNER)
  const over = await importAnki(mediaApp, small.jwtToken, fixture('collection.apkg'))
  t.equal(over.code, 'quota_exceeded')
  t.match(over.error, /room for 100 bytes more: delete at least [0-9,]+ bytes/)
  t.same(await countsOf(mediaApp, small), NOTHING)
})
