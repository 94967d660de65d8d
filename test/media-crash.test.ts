// The service killed (SIGKILL, and its database with it, as in a power cut)
// in the middle of uploads and card deletions, then started again on the same
// data: every acknowledged upload is whole and served, nothing half-written
// is visible, and once the grace (made short here by configuration) has
// passed, no media that no card shows and no file that no record holds is
// left. The test gives cards their `media` list directly in the database, as
// formatted cards store it, so that it knows which card shows what.
import { createHash } from 'node:crypto'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { MongoClient, type Db } from 'mongodb'
import { test } from 'tap'
import { mediaLinks } from '../src/domain/media-links.js'
import { eventually } from './helpers/database-process.js'
import { samples } from './helpers/media.js'
import { call, startServiceProcess, stopped, type RunningService } from './helpers/service-process.js'

const GRACE_SECONDS = 3

/** Starts the service as `npm start` does, on the embedded database in `dataDir`, with a short media grace, sweeping every `sweepSeconds`. */
async function startService (dataDir: string, sweepSeconds: number): Promise<RunningService> {
  return await startServiceProcess(dataDir, {
    MEDIA_GRACE_SECONDS: String(GRACE_SECONDS),
    MEDIA_SWEEP_SECONDS: String(sweepSeconds),
    REQUEST_TIMEOUT_MS: '3000',
    UPLOAD_TIMEOUT_MS: '10000'
  })
}

interface Acknowledged { mediaID: string, sha256: string, bytes: number }

/** upload-media through HTTP, as a browser's FormData sends it: the acknowledged answer, or null for anything else (the service died). */
async function uploadOver (base: string, jwtToken: string, bytes: Buffer): Promise<Acknowledged | null> {
  const form = new FormData()
  form.append('jwtToken', jwtToken)
  form.append('file', new Blob([new Uint8Array(bytes)]), 'picture.png')
  try {
    const response = await fetch(`${base}/api/upload-media`, { method: 'POST', body: form, signal: AbortSignal.timeout(10_000) })
    if (response.status !== 201 && response.status !== 200) return null
    const answer = await response.json() as { mediaID: string }
    return { mediaID: answer.mediaID, sha256: createHash('sha256').update(bytes).digest('hex'), bytes: bytes.length }
  } catch {
    return null
  }
}

test('killed in the middle of uploads and card deletions: acknowledged uploads are whole, nothing half-written shows, nothing unreferenced outlives the grace', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'media-crash-test-'))
  t.teardown(() => rm(dataDir, { recursive: true, force: true }))
  const databasePidFile = join(dataDir, 'secantus', 'secantusd.pid')
  let service = await startService(dataDir, 1)
  t.teardown(async () => {
    if (service.process.exitCode === null && service.process.signalCode === null) {
      service.process.kill('SIGTERM')
      await stopped(service.process)
    }
  })

  const { jwtToken, userID } = (await call(service.base, 'register', { email: 'crash@example.com', password: 'long enough password' })).body as { jwtToken: string, userID: string }
  await call(service.base, 'create-folder', { jwtToken, path: ['Crash'] })
  const deck = (await call(service.base, 'create-flashcard', {
    jwtToken, folder: ['Crash'], flashcardName: 'Deck', cards: Array.from({ length: 12 }, (_, n) => ({ front: `q${n}`, back: `a${n}` }))
  })).body as { flashcardID: string, cardIDs: string[] }
  const client = new MongoClient(`${service.databaseUrl}/flashcards`)
  await client.connect()
  let db: Db = client.db()
  const cards = (): ReturnType<Db['collection']> => db.collection('cards')

  // media cards show: four that the deletions below take away (past their grace by then), four that stay shown
  const shown: Acknowledged[] = []
  for (let n = 0; n < 8; n++) {
    const media = await uploadOver(service.base, jwtToken, samples.png(50_000 + n))
    if (media === null) throw new Error('an upload before the crash failed')
    shown.push(media)
    await cards().updateOne({ _id: deck.cardIDs[n] as never }, { $set: { media: [media.mediaID] } })
  }
  const [released, kept] = [shown.slice(0, 4), shown.slice(4)]
  await sleep(GRACE_SECONDS * 1000 + 200)

  // the traffic: uploads of files from 10 kB to 1.5 MB from six clients, and the cards of the released media deleted meanwhile
  const acknowledged: Acknowledged[] = []
  let sending = true
  const uploader = async (): Promise<void> => {
    while (sending) {
      const media = await uploadOver(service.base, jwtToken, samples.png(10_000 + Math.floor(Math.random() * 1_500_000)))
      if (media !== null && sending) acknowledged.push(media)
    }
  }
  const uploaders = Array.from({ length: 6 }, uploader)
  const deletions = (async () => {
    for (const [n] of released.entries()) {
      await sleep(350)
      await call(service.base, 'delete-card', { jwtToken, flashcardID: deck.flashcardID, cardID: deck.cardIDs[n] }).catch(() => null)
    }
  })()
  await sleep(1500)
  const killedAfter = acknowledged.length
  // a power cut: the service, then its database, without a chance to close anything
  service.process.kill('SIGKILL')
  await stopped(service.process)
  const databasePid = Number(await readFile(databasePidFile, 'utf8').catch(() => '0'))
  if (databasePid > 0) {
    try { process.kill(databasePid, 'SIGKILL') } catch { /* gone already */ }
  }
  sending = false
  await Promise.all([...uploaders, deletions])
  await client.close()
  t.ok(killedAfter > 0, `uploads were acknowledged before the kill (${killedAfter}); uploads and deletions were under way`)

  // started again without sweeping, to see what the crash left before anything is cleaned up
  service = await startService(dataDir, 86_400)
  const after = new MongoClient(`${service.databaseUrl}/flashcards`)
  await after.connect()
  db = after.db()
  const secret = (await readFile(join(dataDir, 'jwt-secret'), 'utf8')).trim()
  const links = mediaLinks(secret, 3600)
  const fetchMedia = async (mediaID: string): Promise<{ status: number, sha256: string, bytes: number }> => {
    const response = await fetch(`${service.base}${links.urlOf(userID, mediaID, new Date()) as string}`)
    const body = Buffer.from(await response.arrayBuffer())
    return { status: response.status, sha256: createHash('sha256').update(body).digest('hex'), bytes: body.length }
  }

  // a deletion the kill cut off is sent again, as its client would
  for (const [n] of released.entries()) {
    const retried = await call(service.base, 'delete-card', { jwtToken, flashcardID: deck.flashcardID, cardID: deck.cardIDs[n] })
    t.ok(retried.status === 200 || retried.status === 404, `delete-card sent again: done now, or done before the kill (${retried.status})`)
  }

  // what was acknowledged is whole (those taken away by the deletions aside)
  const releasedIDs = new Set(released.map((media) => media.mediaID))
  let whole = 0
  for (const media of [...kept, ...acknowledged]) {
    const served = await fetchMedia(media.mediaID)
    if (served.status === 200 && served.sha256 === media.sha256 && served.bytes === media.bytes) whole += 1
    else t.fail(`acknowledged upload ${media.mediaID} is ${served.status === 200 ? 'not whole' : `answered ${served.status}`}`)
  }
  t.equal(whole, kept.length + acknowledged.length, `every acknowledged upload is whole and served (${whole})`)

  // every visible record is a whole file, and the quota counts exactly those
  const records = await db.collection<{ _id: string, sha256: string, bytes: number, fileId: unknown }>('media').find().toArray()
  for (const record of records) {
    const served = await fetchMedia(record._id)
    t.ok(served.status === 200 && served.sha256 === record.sha256 && served.bytes === record.bytes, `record ${record._id}: a whole file`)
  }
  const account = await db.collection('users').findOne({ _id: userID as never })
  t.equal(account?.usage?.mediaBytes, records.reduce((sum, record) => sum + record.bytes, 0), 'the quota counts exactly the recorded files')
  // and every GridFS file no record holds (an upload or a removal cut off) is listed for the sweep
  const held = new Set(records.map((record) => String(record.fileId)))
  const listed = new Set((await db.collection('media_unrecorded').find().toArray()).map((file) => String(file._id)))
  const owners = [...new Set([...(await db.collection('media.chunks').distinct('files_id')), ...(await db.collection('media.files').distinct('_id'))].map(String))]
  const loose = owners.filter((fileId) => !held.has(fileId))
  t.strictSame(loose.filter((fileId) => !listed.has(fileId)), [], `every file no record holds is listed for removal (${loose.length} such files, ${listed.size} listed)`)

  // and again, sweeping: once the grace has passed, the sweep leaves what cards show and nothing else
  await after.close()
  service.process.kill('SIGTERM')
  await stopped(service.process)
  service = await startService(dataDir, 1)
  const cleaned = new MongoClient(`${service.databaseUrl}/flashcards`)
  await cleaned.connect()
  t.teardown(() => cleaned.close())
  db = cleaned.db()
  const keptIDs = new Set(kept.map((media) => media.mediaID))
  const settled = await eventually(async () => {
    const left = await db.collection<{ _id: string }>('media').find().toArray()
    const unrecorded = await db.collection('media_unrecorded').countDocuments()
    const files = await db.collection('media.files').countDocuments()
    const chunkOwners = await db.collection('media.chunks').distinct('files_id')
    return left.length === keptIDs.size && left.every((record) => keptIDs.has(record._id)) && unrecorded === 0 && files === keptIDs.size && chunkOwners.length === keptIDs.size
  }, 30_000, 500)
  const state = {
    records: (await db.collection<{ _id: string }>('media').find().toArray()).map((record) => record._id),
    unrecorded: await db.collection('media_unrecorded').countDocuments(),
    files: await db.collection('media.files').countDocuments(),
    chunkOwners: (await db.collection('media.chunks').distinct('files_id')).length
  }
  t.ok(settled, `only the media cards show is left, with its files alone in GridFS (${JSON.stringify(state)})`)
  for (const media of kept) t.equal((await fetchMedia(media.mediaID)).status, 200, `media a card shows is kept (${media.mediaID})`)
  for (const media of released) t.equal((await fetchMedia(media.mediaID)).status, 404, `media whose card was deleted is gone (${media.mediaID})`)
  t.ok([...releasedIDs].every((mediaID) => !state.records.includes(mediaID)))
  t.equal((await db.collection('users').findOne({ _id: userID as never }))?.usage?.mediaBytes, kept.reduce((sum, media) => sum + media.bytes, 0), 'the quota counts what is left')
})
