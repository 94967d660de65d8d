// What import-anki puts on disk goes when the import ends, however it ends: each instance keeps the
// packages in a folder of its own in the temporary folder, and removes the folders of instances
// gone (and those of the flat layout before) at start, never a live instance's.
import { randomUUID } from 'node:crypto'
import { request as httpRequest } from 'node:http'
import type { AddressInfo } from 'node:net'
import { mkdir, mkdtemp, readdir, rm, stat, utimes, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join, relative, sep } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { MongoClient } from 'mongodb'
import tap, { test } from 'tap'
import { newId } from '../../src/domain/ids.js'
import { buildTestApp, databaseOf, registerUser, testDatabaseUrl } from '../helpers/app.js'
import { fixture, importAnki, importEnded, LEARNER, postImport } from '../helpers/anki-import.js'
import { formBody } from '../helpers/media.js'

// every import starts a worker thread of its own: on a machine busy with other tests, a file of them takes minutes
tap.setTimeout(600_000)

const INSTANCE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/** What the directory holds besides the instances' own folders and heartbeats: files and folders, relative to it. */
async function leftIn (directory: string): Promise<string[]> {
  let entries
  for (;;) {
    try {
      entries = await readdir(directory, { recursive: true, withFileTypes: true })
      break
    } catch (error) {
      // a folder removed while it was being listed: list again
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
    }
  }
  return entries
    .map((entry) => relative(directory, join(entry.parentPath, entry.name)))
    .filter((path) => {
      const [top, below, ...deeper] = path.split(sep)
      if (top === undefined || !INSTANCE.test(top)) return true
      return below !== undefined && (below !== 'heartbeat' || deeper.length > 0)
    })
    .sort()
}

async function until (what: string, check: () => Promise<boolean>, withinMs = 30_000): Promise<void> {
  const deadline = Date.now() + withinMs
  while (!await check()) {
    if (Date.now() > deadline) throw new Error(`not in ${withinMs} ms: ${what}`)
    await sleep(50)
  }
}

async function started (app: Parameters<typeof postImport>[0], jwtToken: string, file: Buffer): Promise<string> {
  const answer = await postImport(app, jwtToken, file)
  if (answer.statusCode !== 202) throw new Error(`import-anki: expected 202, got ${answer.statusCode} ${answer.body}`)
  return answer.json<{ importID: string }>().importID
}

test('every way an import ends leaves nothing of it in the temporary folder', async (t) => {
  const directory = await mkdtemp(join(tmpdir(), 'anki-import-files-'))
  t.teardown(() => rm(directory, { recursive: true, force: true }))
  const mongodbUrl = testDatabaseUrl(import.meta.filename)
  const app = await buildTestApp(t, import.meta.filename, { mongodbUrl, quotas: { cards: 100 }, imports: { directory } })
  const user = await registerUser(app, LEARNER)

  t.equal((await importAnki(app, user.jwtToken, fixture('collection.apkg'))).state, 'done', 'a small import, kept in one transaction')
  t.same(await leftIn(directory), [], 'done: nothing left')
  t.equal((await importAnki(app, user.jwtToken, fixture('refused/not-a-zip.apkg'))).code, 'not_a_zip', 'a package that is no zip')
  t.same(await leftIn(directory), [], 'failed: nothing left')
  t.equal((await importAnki(app, user.jwtToken, fixture('history.apkg'))).code, 'quota_exceeded', 'a package over the card quota')
  t.same(await leftIn(directory), [], 'refused over quota: nothing left')
  t.equal((await postImport(app, user.jwtToken, fixture('collection.apkg'), { folder: ['Nowhere'] })).statusCode, 404, 'a folder that is not there')
  t.same(await leftIn(directory), [], 'refused at once: nothing left')

  // an upload cut off mid-way
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { payload, headers } = formBody([
    { name: 'jwtToken', value: user.jwtToken },
    { name: 'file', file: Buffer.alloc(2 * 1024 * 1024, 7), filename: 'deck.apkg', type: 'application/octet-stream' }
  ])
  const upload = httpRequest(`http://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/import-anki`, {
    method: 'POST', headers: { ...headers, 'content-length': String(payload.length) }
  })
  upload.on('error', () => {})
  upload.write(payload.subarray(0, 512 * 1024))
  const imports = databaseOf(app).collection('imports')
  await until('the package arrives', async () => (await leftIn(directory)).some((path) => path.endsWith('package')))
  upload.destroy()
  await until('the cut-off upload is cleaned away', async () => (await leftIn(directory)).length === 0 && await imports.countDocuments({ userID: user.userID, state: { $nin: ['done', 'failed'] } }) === 0, 10_000)
    .then(() => t.pass('cut off: nothing left, and its place given back'), (error: Error) => t.fail(error.message))

  // an instance closed with an import running and one waiting, and another started on the same folder
  const closing = await buildTestApp(t, import.meta.filename, { mongodbUrl, imports: { directory, leaseMs: 1000 } })
  const other = await registerUser(closing, LEARNER)
  const cut = [await started(closing, other.jwtToken, fixture('history.apkg')), await started(closing, other.jwtToken, fixture('collection.apkg'))]
  t.not((await leftIn(directory)).length, 0, 'the closing instance holds packages')
  await closing.close()
  t.same(await leftIn(directory), [], 'closed: its packages went with it')
  const restarted = await buildTestApp(t, import.meta.filename, { mongodbUrl, imports: { directory, leaseMs: 1000 } })
  for (const importID of cut) {
    const status = await importEnded(restarted, other.jwtToken, importID)
    t.ok(status.state === 'done' || status.recovered === 'cleaned', `an import of the closed instance ended: ${status.state}`)
  }
  t.same(await leftIn(directory), [], 'recovered by the next instance: nothing left')
})

/** A folder holding `files` (paths below it), each with its change time at `changed` when given. */
async function folder (path: string, files: string[], changed?: Date): Promise<void> {
  for (const file of files) {
    await mkdir(dirname(join(path, file)), { recursive: true })
    await writeFile(join(path, file), 'bytes')
  }
  if (changed === undefined) return
  for (const file of files) {
    await utimes(join(path, file), changed, changed)
    await utimes(dirname(join(path, file)), changed, changed)
  }
  await utimes(path, changed, changed)
}

async function exists (path: string): Promise<boolean> {
  return await stat(path).then(() => true, () => false)
}

test('at start, an instance removes the folders of instances gone and of the layout before, and keeps a live instance\'s and a held import\'s', async (t) => {
  const directory = await mkdtemp(join(tmpdir(), 'anki-import-start-'))
  t.teardown(() => rm(directory, { recursive: true, force: true }))
  const mongodbUrl = testDatabaseUrl(import.meta.filename)
  const longAgo = new Date(Date.now() - 30 * 60_000)

  const gone = join(directory, randomUUID())
  await folder(gone, ['heartbeat', `${newId()}/package`], longAgo)
  // a live instance: its heartbeat is fresh, whatever the age of the package it is receiving
  const live = join(directory, randomUUID())
  const liveImport = newId()
  await folder(live, [`${liveImport}/package`], longAgo)
  await writeFile(join(live, 'heartbeat'), 'beat')
  // the flat layout of the version before: one left behind, one whose import waits under a live lease
  const leftBehind = join(directory, newId())
  await folder(leftBehind, ['package'], longAgo)
  const heldID = newId()
  const held = join(directory, heldID)
  await folder(held, ['package'], longAgo)
  const notOurs = join(directory, 'notes')
  await folder(notOurs, ['kept.txt'], longAgo)

  const client = new MongoClient(mongodbUrl)
  await client.connect()
  t.teardown(() => client.close())
  const imports = client.db().collection<{ _id: string, [field: string]: unknown }>('imports')
  const record = (id: string, state: string, holder: string, leaseEnds: Date, path: string, userID = 'learner-of-the-version-before') => ({
    _id: id, userID, state, percent: 0, counts: { cards: 0, notes: 0, reviews: 0, media: 0 }, warnings: [],
    request: { folder: [], withScheduling: true, fileName: 'deck.apkg', path }, holder, until: leaseEnds, createdAt: longAgo, updatedAt: longAgo
  })
  await imports.insertOne(record(heldID, 'queued', 'an instance of the version before', new Date(Date.now() + 3600_000), join(held, 'package')))

  const app = await buildTestApp(t, import.meta.filename, { mongodbUrl, imports: { directory, leaseMs: 1000 } })
  t.notOk(await exists(gone), 'a gone instance\'s folder is removed')
  t.notOk(await exists(leftBehind), 'a folder of the layout before, whose import is not held, is removed')
  t.ok(await exists(join(held, 'package')), 'one whose import waits under a live lease is kept')
  t.same((await readdir(live, { recursive: true })).sort(), ['heartbeat', liveImport, join(liveImport, 'package')].sort(), 'a live instance\'s folder is left as it is')
  t.ok(await exists(join(notOurs, 'kept.txt')), 'what is not an import\'s is not touched')
  const own = (await readdir(directory)).filter((name) => INSTANCE.test(name) && join(directory, name) !== live)
  t.equal(own.length, 1, 'the instance has a folder of its own')
  const beat = await stat(join(directory, own[0] ?? '', 'heartbeat')).then((heartbeat) => heartbeat.mtimeMs, () => 0)
  t.ok(Date.now() - beat < 60_000, 'with its heartbeat, fresh')

  // uploads a gone instance was receiving hold their account's places until an instance gives them back
  const user = await registerUser(app, LEARNER)
  const arriving = [newId(), newId()]
  for (const id of arriving) {
    await imports.insertOne(record(id, 'uploading', randomUUID(), new Date(Date.now() - 60_000), join(gone, id, 'package'), user.userID))
  }
  await until('the abandoned uploads are given back', async () => await imports.countDocuments({ _id: { $in: arriving } }) === 0, 15_000)
    .then(() => t.pass('abandoned uploads removed'), (error: Error) => t.fail(error.message))
  t.equal((await postImport(app, user.jwtToken, fixture('collection.apkg'))).statusCode, 202, 'and the account imports again')
})
