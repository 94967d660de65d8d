import { test } from 'tap'
import { MAX_MEDIA_BYTES } from '../../src/domain/media.js'
import { buildTestApp, databaseOf, post, registerUser } from '../helpers/app.js'
import { formBody, samples, sha256, storedMedia, upload, uploaded } from '../helpers/media.js'

const nothingStored = { records: 0, files: 0, chunks: 0, unrecorded: 0 }

test('upload-media keeps images and sounds typed by their bytes, and gives a URL that serves them as they were', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app)
  const kinds: Array<[keyof typeof samples, string]> = [
    ['png', 'image/png'], ['jpeg', 'image/jpeg'], ['gif', 'image/gif'], ['webp', 'image/webp'],
    ['mp3', 'audio/mpeg'], ['ogg', 'audio/ogg'], ['m4a', 'audio/mp4'], ['wav', 'audio/wav']
  ]
  let total = 0
  for (const [kind, type] of kinds) {
    const bytes = samples[kind](3000 + total % 7)
    // what the client says of the file is not read: a misleading name and type change nothing
    const response = await upload(app, user.jwtToken, bytes, { filename: 'notes.txt', type: 'text/plain' })
    t.equal(response.statusCode, 201, `${kind}: created`)
    const answer = response.json()
    t.match(answer, { mediaID: /^[0-9]{39}$/, url: new RegExp(`^/media/${answer.mediaID}\\?u=${user.userID}&e=[0-9]+&s=[A-Za-z0-9_-]{43}$`), contentType: type, bytes: String(bytes.length) }, kind)
    const served = await app.inject({ method: 'GET', url: answer.url })
    t.equal(served.statusCode, 200, `${kind}: served`)
    t.equal(served.headers['content-type'], type, `${kind}: with its sniffed type`)
    t.equal(sha256(served.rawPayload), sha256(bytes), `${kind}: byte for byte`)
    total += bytes.length
  }
  const account = await databaseOf(app).collection('users').findOne({ _id: user.userID as never })
  t.equal(account?.usage?.mediaBytes, total, 'the account counts every byte against its media quota')
  t.same(await storedMedia(app), { records: kinds.length, files: kinds.length, chunks: kinds.length, unrecorded: 0 }, 'one GridFS file each, none left unrecorded')
})

test('anything else is refused with 415 unsupported_media, whatever it is named or declared, and nothing is stored', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app)
  const refused: Array<[string, Buffer]> = [
    ['an SVG (scripts run in it)', samples.svg()],
    ['an HTML page', samples.html()],
    ['a PDF', samples.pdf()],
    ['an Ogg video', samples.oggVideo()],
    ['bytes of no known kind', Buffer.alloc(5000, 7)]
  ]
  for (const [what, bytes] of refused) {
    const response = await upload(app, user.jwtToken, bytes, { filename: 'picture.png', type: 'image/png' })
    t.equal(response.statusCode, 415, what)
    t.equal(response.json().code, 'unsupported_media', what)
    t.match(response.json().error, /PNG, JPEG, GIF or WebP images and MP3, Ogg, M4A or WAV sounds/, `${what}: the message says what is kept`)
  }
  // a large file refused at its first bytes
  const large = await upload(app, user.jwtToken, samples.pdf(2 * 1024 * 1024))
  t.equal(large.statusCode, 415)
  t.same(await storedMedia(app), nothingStored)
  const account = await databaseOf(app).collection('users').findOne({ _id: user.userID as never })
  t.notOk(account?.usage?.mediaBytes, 'nothing counted against the quota')
})

test('the same bytes uploaded again by the same user answer the same mediaID and count once; another user gets media of their own', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app)
  const other = await registerUser(app)
  const bytes = samples.jpeg(40_000)
  const first = await upload(app, user.jwtToken, bytes)
  const again = await upload(app, user.jwtToken, bytes)
  t.equal(first.statusCode, 201)
  t.equal(again.statusCode, 200, 'the second upload finds the first')
  t.equal(again.json().mediaID, first.json().mediaID)
  const theirs = await upload(app, other.jwtToken, bytes)
  t.equal(theirs.statusCode, 201)
  t.not(theirs.json().mediaID, first.json().mediaID, 'media is per user')
  const usage = async (userID: string): Promise<unknown> => (await databaseOf(app).collection('users').findOne({ _id: userID as never }))?.usage?.mediaBytes
  t.equal(await usage(user.userID), bytes.length, 'counted once')
  t.equal(await usage(other.userID), bytes.length)
  t.same(await storedMedia(app), { records: 2, files: 2, chunks: 2, unrecorded: 0 }, 'the second upload\'s copy is gone')
})

test('the form: the token first, then one file; anything else is refused before a byte is stored', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app)
  const image = samples.png(5000)
  const send = async (parts: Parameters<typeof formBody>[0]) => {
    const { payload, headers } = formBody(parts)
    return await app.inject({ method: 'POST', url: '/api/upload-media', payload, headers })
  }
  const cases: Array<[string, Parameters<typeof formBody>[0], number, string]> = [
    ['no token', [{ name: 'file', file: image }], 400, 'invalid_upload'],
    ['the token after the file', [{ name: 'file', file: image }, { name: 'jwtToken', value: user.jwtToken }], 400, 'invalid_upload'],
    ['another field first', [{ name: 'token', value: user.jwtToken }, { name: 'file', file: image }], 400, 'invalid_upload'],
    ['no file', [{ name: 'jwtToken', value: user.jwtToken }], 400, 'invalid_upload'],
    ['two files', [{ name: 'jwtToken', value: user.jwtToken }, { name: 'file', file: image }, { name: 'file', file: samples.gif() }], 400, 'invalid_upload'],
    ['a field after the file', [{ name: 'jwtToken', value: user.jwtToken }, { name: 'file', file: image }, { name: 'note', value: 'x' }], 400, 'invalid_upload'],
    ['an empty file', [{ name: 'jwtToken', value: user.jwtToken }, { name: 'file', file: Buffer.alloc(0) }], 400, 'invalid_upload'],
    ['a forged token', [{ name: 'jwtToken', value: 'not.a.token' }, { name: 'file', file: image }], 401, 'invalid_token']
  ]
  for (const [what, parts, status, code] of cases) {
    const response = await send(parts)
    t.equal(response.statusCode, status, what)
    t.equal(response.json().code, code, what)
  }
  const cut = formBody([{ name: 'jwtToken', value: user.jwtToken }, { name: 'file', file: image }])
  const truncated = await app.inject({ method: 'POST', url: '/api/upload-media', payload: cut.payload.subarray(0, cut.payload.length - 100), headers: cut.headers })
  t.equal(truncated.statusCode, 400, 'a form cut short')
  t.equal(truncated.json().code, 'invalid_upload')
  t.same(await storedMedia(app), nothingStored, 'nothing is stored for any of them')

  const json = await post(app, 'upload-media', { jwtToken: user.jwtToken, file: 'aGVsbG8=' })
  t.equal(json.statusCode, 415, 'a JSON body')
  t.equal(json.json().code, 'unsupported_content_type')
  const { payload, headers } = formBody([{ name: 'jwtToken', value: user.jwtToken }])
  const elsewhere = await app.inject({ method: 'POST', url: '/api/get-user', payload, headers })
  t.equal(elsewhere.statusCode, 415, 'the other operations still take JSON only')
  t.equal(elsewhere.json().code, 'unsupported_content_type')
})

test('a file of 20 MiB is kept; one byte more is 413 media_too_large, and nothing of it stays', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app)
  const largest = samples.png(MAX_MEDIA_BYTES)
  const kept = await upload(app, user.jwtToken, largest)
  t.equal(kept.statusCode, 201)
  t.equal(kept.json().bytes, String(MAX_MEDIA_BYTES))
  const served = await app.inject({ method: 'GET', url: kept.json().url })
  t.equal(sha256(served.rawPayload), sha256(largest), 'served whole')

  const tooLarge = await upload(app, user.jwtToken, samples.png(MAX_MEDIA_BYTES + 1))
  t.equal(tooLarge.statusCode, 413)
  t.equal(tooLarge.json().code, 'media_too_large')
  const announced = formBody([{ name: 'jwtToken', value: user.jwtToken }, { name: 'file', file: samples.png(MAX_MEDIA_BYTES + 100_000) }])
  const early = await app.inject({ method: 'POST', url: '/api/upload-media', payload: announced.payload, headers: announced.headers })
  t.equal(early.statusCode, 413, 'a body announced larger is refused before it is read')
  t.equal(early.json().code, 'media_too_large')
  t.same(await storedMedia(app), { records: 1, files: 1, chunks: Math.ceil(MAX_MEDIA_BYTES / (255 * 1024)), unrecorded: 0 }, 'only the first file is stored')
})

test('the media quota: an upload that would pass it is 409 quota_exceeded and stores nothing', async (t) => {
  const app = await buildTestApp(t, import.meta.filename, { quotas: { mediaBytes: 100_000 } })
  const user = await registerUser(app)
  await uploaded(app, user.jwtToken, samples.gif(60_000))
  const over = await upload(app, user.jwtToken, samples.gif(50_000))
  t.equal(over.statusCode, 409)
  t.equal(over.json().code, 'quota_exceeded')
  t.match(over.json().error, /100,000 bytes of media/)
  t.same(await storedMedia(app), { records: 1, files: 1, chunks: 1, unrecorded: 0 })
  const fits = await upload(app, user.jwtToken, samples.gif(40_000))
  t.equal(fits.statusCode, 201, 'what still fits is kept')
})
