import { spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'tap'
import { buildApp } from '../../src/app.js'
import { ConfigError } from '../../src/config.js'
import { secantusBinaryPath } from '../../src/db/secantus-install.js'
import { databaseOf, buildTestApp, post, registerUser, TEST_SECRET } from '../helpers/app.js'

test('a server that cannot run transactions (a standalone, no replica set) stops start-up with a message', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'standalone-test-'))
  t.teardown(() => rm(dataDir, { recursive: true, force: true }))
  // the same server, told not to advertise its replica set: as a standalone mongod answers
  const server = spawn(secantusBinaryPath(), ['--standalone', '--port', '0', '--storage-path', dataDir, '--log-level', 'WARNING'], { stdio: ['ignore', 'pipe', 'pipe'] })
  t.teardown(() => { server.kill('SIGKILL') })
  const address = await new Promise<string>((resolve) => {
    let output = ''
    server.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString()
      const match = /listening on (127\.0\.0\.1:\d+)/.exec(output)
      if (match?.[1] !== undefined) resolve(match[1])
    })
  })

  const starting = buildApp({ mongodbUrl: `mongodb://${address}/standalone`, jwtSecret: TEST_SECRET })
  await t.rejects(starting, ConfigError)
  await t.rejects(starting, /standalone MongoDB, which cannot run transactions[\s\S]*replica set/)
})

test('a transaction stores all of its writes or none', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app)
  await post(app, 'create-folder', { jwtToken: user.jwtToken, path: ['Atomic'] })
  const flashcard = (await post(app, 'create-flashcard', { jwtToken: user.jwtToken, folder: ['Atomic'], flashcardName: 'Deck', cards: [{ front: 'q', back: 'a' }] })).json()

  // a card id that is already taken makes the second insert of the batch fail after the first went in
  const cards = databaseOf(app).collection<{ _id: string }>('cards')
  const before = await cards.countDocuments({})
  const states = databaseOf(app).collection<{ _id: string }>('cardStates')
  const statesBefore = await states.countDocuments({})
  await t.rejects(app.userTransaction(user.userID, async ({ cards: store }) => {
    const [existing] = await store.byFlashcard(user.userID, flashcard.flashcardID)
    const fresh = { ...existing!, _id: '9'.repeat(39) }
    await store.insertMany([fresh, existing!])
  }), { code: 11000 })
  t.equal(await cards.countDocuments({}), before, 'the card inserted before the failure is not stored')
  t.equal(await cards.countDocuments({ _id: '9'.repeat(39) }), 0)
  t.equal(await states.countDocuments({}), statesBefore, 'nor its state')
})
