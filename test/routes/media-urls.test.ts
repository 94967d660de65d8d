import { test } from 'tap'
import { mediaLinks } from '../../src/domain/media-links.js'
import { buildTestApp, registerUser, TEST_SECRET } from '../helpers/app.js'
import { samples, sha256, uploaded } from '../helpers/media.js'

/** The URL with one query parameter replaced. */
function withParameter (url: string, name: string, value: string): string {
  const parsed = new URL(url, 'http://service')
  parsed.searchParams.set(name, value)
  return `${parsed.pathname}${parsed.search}`
}

test('a media URL serves the file as inert content, with its ETag, privately cached for as long as the URL lives', async (t) => {
  let now = Date.parse('2026-03-01T10:20:00Z')
  const app = await buildTestApp(t, import.meta.filename, { clock: () => new Date(now) })
  const user = await registerUser(app)
  const bytes = samples.png(50_000)
  const media = await uploaded(app, user.jwtToken, bytes)

  const served = await app.inject({ method: 'GET', url: media.url })
  t.equal(served.statusCode, 200)
  t.equal(served.headers['content-type'], 'image/png')
  t.equal(served.headers['content-length'], String(bytes.length))
  t.equal(served.headers['x-content-type-options'], 'nosniff')
  t.equal(served.headers['content-security-policy'], 'sandbox', 'the file cannot run anything, even opened on its own')
  t.equal(served.headers.etag, `"${sha256(bytes)}"`, 'the ETag is the content hash')
  t.equal(served.headers['accept-ranges'], 'bytes')
  const maxAge = Number(/^private, max-age=(\d+), immutable$/.exec(String(served.headers['cache-control']))?.[1])
  const expiry = Number(new URL(media.url, 'http://service').searchParams.get('e'))
  t.equal(maxAge, expiry - now / 1000, 'kept by the browser alone, until the URL expires')
  t.ok(maxAge >= 3600 && maxAge <= 7200, `one to two hours (${maxAge} s)`)
  t.equal(sha256(served.rawPayload), sha256(bytes))

  const head = await app.inject({ method: 'HEAD', url: media.url })
  t.equal(head.statusCode, 200, 'HEAD')
  t.equal(head.headers['content-length'], String(bytes.length), 'HEAD gives the length')
  t.equal(head.rawPayload.length, 0, 'and no body')

  // a later read within the same hour gives the same URL, which the browser finds in its cache
  now += 20 * 60_000
  const sameHour = app.services.media
  t.ok(sameHour, 'the media service is there')
  const later = mediaLinks(TEST_SECRET, 3600).urlOf(user.userID, media.mediaID, new Date(now))
  t.equal(later, media.url, 'the same URL for every read within the hour')
  // a URL of another expiry: the same ETag, so that a revalidation finds the copy it holds
  now += 60 * 60_000
  const nextHour = mediaLinks(TEST_SECRET, 3600).urlOf(user.userID, media.mediaID, new Date(now)) as string
  t.not(nextHour, media.url)
  const revalidated = await app.inject({ method: 'GET', url: nextHour, headers: { 'if-none-match': served.headers.etag as string } })
  t.equal(revalidated.statusCode, 304, 'If-None-Match with the ETag: 304')
  t.equal(revalidated.headers.etag, served.headers.etag)
  t.equal(revalidated.rawPayload.length, 0, 'without the bytes')
  t.match(revalidated.headers['cache-control'], /^private, max-age=\d+, immutable$/)
  const listed = await app.inject({ method: 'GET', url: nextHour, headers: { 'if-none-match': 'W/"other", ' + String(served.headers.etag) } })
  t.equal(listed.statusCode, 304, 'the ETag among others, or weak, still matches')
  const changed = await app.inject({ method: 'GET', url: nextHour, headers: { 'if-none-match': '"other"' } })
  t.equal(changed.statusCode, 200, 'another ETag: the file')
})

test('byte ranges, so that audio can seek: 206 with Content-Range, 416 outside the file', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app)
  // larger than one GridFS chunk, so that ranges cross chunks
  const bytes = samples.mp3(700_000)
  const { url } = await uploaded(app, user.jwtToken, bytes)
  const ranged = async (range: string, extra: Record<string, string> = {}) => await app.inject({ method: 'GET', url, headers: { range, ...extra } })

  const cases: Array<[string, number, number]> = [
    ['bytes=0-99', 0, 99],
    ['bytes=261100-261200', 261_100, 261_200],
    ['bytes=600000-', 600_000, 699_999],
    ['bytes=-500', 699_500, 699_999],
    ['bytes=699000-800000', 699_000, 699_999]
  ]
  for (const [range, start, end] of cases) {
    const response = await ranged(range)
    t.equal(response.statusCode, 206, range)
    t.equal(response.headers['content-range'], `bytes ${start}-${end}/${bytes.length}`, `${range}: Content-Range`)
    t.equal(response.headers['content-length'], String(end - start + 1), `${range}: Content-Length`)
    t.equal(response.headers['content-type'], 'audio/mpeg')
    t.ok(response.rawPayload.equals(bytes.subarray(start, end + 1)), `${range}: exactly those bytes`)
  }
  for (const range of ['bytes=700000-', 'bytes=800000-900000', 'bytes=-0']) {
    const response = await ranged(range)
    t.equal(response.statusCode, 416, range)
    t.equal(response.json().code, 'range_not_satisfiable')
    t.equal(response.headers['content-range'], `bytes */${bytes.length}`)
  }
  for (const range of ['bytes=0-9,20-29', 'items=0-9', 'bytes=9-2']) {
    const response = await ranged(range)
    t.equal(response.statusCode, 200, `${range}: read as no range, the whole file`)
    t.equal(response.rawPayload.length, bytes.length)
  }
  const stale = await ranged('bytes=0-9', { 'if-range': '"an older version"' })
  t.equal(stale.statusCode, 200, 'If-Range of another version: the whole file')
})

test('a URL not as signed or past its expiry is 403; media of another user, or gone, is 404', async (t) => {
  let now = Date.parse('2026-03-01T10:20:00Z')
  const app = await buildTestApp(t, import.meta.filename, { clock: () => new Date(now) })
  const owner = await registerUser(app)
  const other = await registerUser(app)
  const media = await uploaded(app, owner.jwtToken, samples.webp(10_000))
  const theirs = await uploaded(app, other.jwtToken, samples.webp(10_000))
  const parsed = new URL(media.url, 'http://service')
  const signature = parsed.searchParams.get('s') as string

  const tampered: Array<[string, string]> = [
    ['another signature', withParameter(media.url, 's', signature.replace(/^./, (c) => c === 'A' ? 'B' : 'A'))],
    ['no signature', media.url.replace(/&s=.*$/, '')],
    ['a later expiry', withParameter(media.url, 'e', String(Number(parsed.searchParams.get('e')) + 3600))],
    ['another user', withParameter(media.url, 'u', other.userID)],
    ['another mediaID', media.url.replace(media.mediaID, theirs.mediaID)],
    ['a mediaID that is not one', media.url.replace(media.mediaID, 'picture.png')],
    ['a signature signed with another secret', mediaLinks('another-secret-that-is-long-enough-0123456789', 3600).urlOf(owner.userID, media.mediaID, new Date(now)) as string]
  ]
  for (const [what, url] of tampered) {
    const response = await app.inject({ method: 'GET', url })
    t.equal(response.statusCode, 403, what)
    t.equal(response.json().code, 'media_url_invalid', what)
    t.equal(response.headers['x-content-type-options'], 'nosniff', `${what}: the refusal is inert too`)
  }

  // a well-signed URL for one user of another user's media: as if there were none
  const crossed = mediaLinks(TEST_SECRET, 3600).urlOf(other.userID, media.mediaID, new Date(now)) as string
  const notTheirs = await app.inject({ method: 'GET', url: crossed })
  t.equal(notTheirs.statusCode, 404)
  t.equal(notTheirs.json().code, 'media_not_found')
  const unknown = await app.inject({ method: 'GET', url: mediaLinks(TEST_SECRET, 3600).urlOf(owner.userID, '9'.repeat(39), new Date(now)) as string })
  t.equal(unknown.statusCode, 404, 'media never uploaded')
  t.same(notTheirs.json(), unknown.json(), 'the two answers are the same: nothing tells another user\'s media from none')

  now += 2 * 3600 * 1000
  const expired = await app.inject({ method: 'GET', url: media.url })
  t.equal(expired.statusCode, 403, 'two hours later the URL has expired')
  t.equal(expired.json().code, 'media_url_expired')
})
