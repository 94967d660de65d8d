import { Readable } from 'node:stream'
import multipart from '@fastify/multipart'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { byteRange, entityTag, matchesEntityTag, MAX_MEDIA_BYTES } from '../domain/media.js'
import { Refusal } from '../domain/refusals.js'
import { formReader } from './forms.js'
import { refusals } from '../schemas/common.js'
import { MediaLink, MediaParams, UploadedMedia, UploadMediaForm } from '../schemas/media.js'

/** A file's bytes as the answer streams them, under the type its bytes showed (for the OpenAPI document: streams are not serialised). */
function mediaAnswer (description: string) {
  const bytes = Type.Unsafe<Readable>({ type: 'string', format: 'binary' })
  return { description, content: { 'image/*': { schema: bytes }, 'audio/*': { schema: bytes } } }
}

/** Room in a form for what is not the file: the token field and the parts' headers and boundaries. */
const FORM_ALLOWANCE = 16 * 1024

const form = formReader({
  after: 'one file',
  tooMuch: 'than the token and one file',
  own: (code) => code === 'FST_REQ_FILE_TOO_LARGE'
    ? new Refusal('media_too_large', `the file is larger than ${MAX_MEDIA_BYTES / 1024 / 1024} MiB, the most one upload may hold: send a smaller file`)
    : undefined
})
const { invalidForm, formRefusal } = form

/**
 * upload-media: one file as multipart/form-data, read as it arrives. The
 * token is a field before the file, so that the account is known, and its
 * limits applied, before any byte of the file is stored. Only this operation
 * takes multipart: its parser is registered in this scope alone.
 */
const media: FastifyPluginAsyncTypebox = async (app) => {
  await app.register(multipart, {
    // the file limit is checked as the bytes come (services/media.ts): one byte over it is enough to tell
    throwFileSizeLimit: false,
    limits: { fileSize: MAX_MEDIA_BYTES + 1, files: 1, fields: 1, parts: 2, fieldSize: 8 * 1024, headerPairs: 20 }
  })

  app.addHook('preParsing', async (request) => {
    const type = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase()
    if (type !== 'multipart/form-data') {
      throw new Refusal('unsupported_content_type', 'upload-media takes multipart/form-data: the field jwtToken, then the file')
    }
    // a body announced too large is refused before it is read
    if (Number(request.headers['content-length'] ?? 0) > MAX_MEDIA_BYTES + FORM_ALLOWANCE) {
      throw new Refusal('media_too_large', `the upload is larger than ${MAX_MEDIA_BYTES / 1024 / 1024} MiB, the most one file may hold: send a smaller file`)
    }
  })

  app.post('/upload-media', {
    // it reads its own token, from the form; the file may take UPLOAD_TIMEOUT_MS to arrive
    config: { public: true, upload: true },
    // the form is read part by part as it arrives, not as one body: the schema documents it
    validatorCompiler: () => () => true,
    schema: {
      summary: 'Upload an image or a sound, for cards to show by its mediaID',
      description: 'multipart/form-data: the field jwtToken first, then one file of at most 20 MiB. Its type is told from its bytes: ' +
        'PNG, JPEG, GIF or WebP images, MP3, Ogg, M4A or WAV sounds (415 otherwise). The same bytes uploaded again by the same user ' +
        'answer the same mediaID (200, counted once against the quota); new media answers 201.',
      tags: ['media'],
      consumes: ['multipart/form-data'],
      body: UploadMediaForm,
      response: { 200: UploadedMedia, 201: UploadedMedia, ...refusals(401, 409) }
    }
  }, async (request, reply) => {
    try {
      const { account, nextPart } = await form.open(app, request, reply)
      const file = await nextPart()
      if (file.done === true || file.value.type !== 'file') throw invalidForm('the form has no file after jwtToken')
      const uploaded = await app.services.media.upload(account, file.value.file, async () => {
        if ((await nextPart()).done !== true) throw invalidForm('the form holds more after the file')
      })
      return await reply.code(uploaded.created ? 201 : 200).send(uploaded.answer)
    } catch (error) {
      // the rest of a refused body is not read: the connection closes after the answer rather than take it in
      if (!request.raw.complete) void reply.header('connection', 'close')
      throw formRefusal(error)
    }
  })
}

export default media

/**
 * GET /media/<mediaID>?u=&e=&s=: a file through its signed URL, for a
 * browser's <img> or <audio>. Served with the type its bytes showed, as
 * inert content (nosniff, a sandbox policy), validated by its content hash
 * (the same ETag whatever the URL), and in byte ranges so that audio can seek.
 */
export const mediaFiles: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/media/:mediaID', {
    schema: {
      summary: 'A media file, through the signed URL a card read or upload-media gave',
      description: 'No token: the URL is signed for one user and expires. 400 for a query or path that is not a media URL\'s shape, 403 for a URL not as signed or expired, 404 for media that is not there. ' +
        'Answers 304 to If-None-Match with its ETag, and 206 to a Range of bytes (one range; 416 when it lies outside the file).',
      tags: ['media'],
      params: MediaParams,
      querystring: MediaLink,
      response: {
        200: mediaAnswer('the file'),
        206: mediaAnswer('the byte range asked for, with Content-Range'),
        304: Type.Null({ description: 'not modified: the ETag sent is the file\'s' }),
        ...refusals(400, 403, 404, 416, 500, 503)
      }
    }
  }, async (request, reply) => {
    const { mediaID } = request.params
    const { u, e, s } = request.query
    void reply.header('x-content-type-options', 'nosniff').header('content-security-policy', 'sandbox')
    const { media, expiresAt } = await app.services.media.find({ mediaID, userID: u, expiry: e, signature: s })
    const tag = entityTag(media.sha256)
    const fresh = Math.max(0, Math.floor((expiresAt.getTime() - app.clock().getTime()) / 1000))
    // a mediaID's bytes never change: a browser keeps them for as long as the URL lives, for this user only
    void reply.header('etag', tag).header('cache-control', `private, max-age=${fresh}, immutable`).header('accept-ranges', 'bytes')
    if (matchesEntityTag(request.headers['if-none-match'], tag)) return await reply.code(304).send(null)

    const ifRange = request.headers['if-range']
    const range = ifRange === undefined || ifRange === tag ? byteRange(request.headers.range, media.bytes) : null
    if (range === 'unsatisfiable') {
      void reply.header('content-range', `bytes */${media.bytes}`)
      throw new Refusal('range_not_satisfiable', `the range asked for lies outside the file of ${media.bytes} bytes: ask for bytes 0 to ${media.bytes - 1}`)
    }
    void reply.type(media.contentType)
    if (range === null) void reply.header('content-length', media.bytes)
    else void reply.code(206).header('content-range', `bytes ${range.start}-${range.end}/${media.bytes}`).header('content-length', range.end - range.start + 1)
    // HEAD: an empty stream keeps the length set above, where the file itself would be read only to be dropped
    const bytes = request.method === 'HEAD' ? Readable.from([]) : app.services.media.read(media, range)
    return await reply.send(bytes)
  })
}
