import { createHash, randomBytes } from 'node:crypto'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import type { Db } from 'mongodb'
import { databaseOf } from './app.js'

/**
 * Files of each kind the service keeps, and some it does not: the bytes a
 * sniffer reads at the start of such a file, then `size` bytes of random
 * content in all, so that every sample is different.
 */
function padded (start: Buffer, size: number): Buffer {
  return Buffer.concat([start, randomBytes(Math.max(0, size - start.length))])
}

function pngChunk (type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4)
  length.writeUInt32BE(data.length)
  return Buffer.concat([length, Buffer.from(type, 'latin1'), data, Buffer.alloc(4)])
}

export const samples = {
  png: (size = 2000): Buffer => {
    const header = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), pngChunk('IHDR', Buffer.alloc(13, 1))])
    const dataLength = Math.max(0, size - header.length - 12)
    return Buffer.concat([header, pngChunk('IDAT', randomBytes(dataLength))])
  },
  jpeg: (size = 2000): Buffer => padded(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01]), size),
  gif: (size = 2000): Buffer => padded(Buffer.from('GIF89a', 'latin1'), size),
  webp: (size = 2000): Buffer => padded(Buffer.concat([Buffer.from('RIFF', 'latin1'), Buffer.from([0, 0, 0, 0]), Buffer.from('WEBPVP8 ', 'latin1')]), size),
  // an ID3 tag, then the header of an MPEG-1 layer III frame
  mp3: (size = 2000): Buffer => padded(Buffer.concat([Buffer.from('ID3', 'latin1'), Buffer.from([3, 0, 0, 0, 0, 0, 0]), Buffer.from([0xff, 0xfb, 0x90, 0x64])]), size),
  ogg: (size = 2000): Buffer => padded(Buffer.concat([Buffer.from('OggS', 'latin1'), Buffer.alloc(24), Buffer.from('\u0001vorbis\u0000', 'latin1')]), size),
  m4a: (size = 2000): Buffer => padded(Buffer.concat([Buffer.from([0, 0, 0, 0x20]), Buffer.from('ftypM4A \u0000\u0000\u0000\u0000M4A mp42isom', 'latin1')]), size),
  wav: (size = 2000): Buffer => padded(Buffer.concat([Buffer.from('RIFF', 'latin1'), Buffer.from([0, 0, 0, 0]), Buffer.from('WAVEfmt ', 'latin1')]), size),
  // and what is refused
  svg: (): Buffer => Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'),
  html: (): Buffer => Buffer.from('<!doctype html><html><body><script>alert(document.cookie)</script></body></html>'),
  pdf: (size = 2000): Buffer => padded(Buffer.from('%PDF-1.7\n', 'latin1'), size),
  oggVideo: (size = 2000): Buffer => padded(Buffer.concat([Buffer.from('OggS', 'latin1'), Buffer.alloc(24), Buffer.from('\u0080theora', 'latin1')]), size)
}

export function sha256 (bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex')
}

/** A multipart/form-data body of these parts, in order, as a browser's FormData sends it. */
export function formBody (parts: ReadonlyArray<{ name: string, value: string } | { name: string, file: Buffer, filename?: string, type?: string }>): { payload: Buffer, headers: Record<string, string> } {
  const boundary = `----form${randomBytes(8).toString('hex')}`
  const pieces: Buffer[] = []
  for (const part of parts) {
    if ('value' in part) {
      pieces.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"\r\n\r\n${part.value}\r\n`))
    } else {
      pieces.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"; filename="${part.filename ?? 'picture.png'}"\r\n` +
        `Content-Type: ${part.type ?? 'image/png'}\r\n\r\n`), part.file, Buffer.from('\r\n'))
    }
  }
  pieces.push(Buffer.from(`--${boundary}--\r\n`))
  return { payload: Buffer.concat(pieces), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } }
}

export interface Uploaded { mediaID: string, url: string, contentType: string, bytes: string }

/** upload-media with the token first, then the file; the raw answer. */
export async function upload (app: FastifyInstance, jwtToken: string, file: Buffer, fields: { filename?: string, type?: string } = {}): Promise<LightMyRequestResponse> {
  const { payload, headers } = formBody([{ name: 'jwtToken', value: jwtToken }, { name: 'file', file, ...fields }])
  return await app.inject({ method: 'POST', url: '/api/upload-media', payload, headers })
}

/** upload-media that must succeed (200 or 201); its answer. */
export async function uploaded (app: FastifyInstance, jwtToken: string, file: Buffer): Promise<Uploaded> {
  const response = await upload(app, jwtToken, file)
  if (response.statusCode !== 201 && response.statusCode !== 200) throw new Error(`upload-media failed: ${response.statusCode} ${response.body}`)
  return response.json()
}

/** What GridFS and the service's media collections hold: for checks that nothing is left. */
export async function storedMedia (source: FastifyInstance | Db): Promise<{ records: number, files: number, chunks: number, unrecorded: number }> {
  const db = 'databaseClient' in source ? databaseOf(source) : source
  return {
    records: await db.collection('media').countDocuments(),
    files: await db.collection('media.files').countDocuments(),
    chunks: await db.collection('media.chunks').countDocuments(),
    unrecorded: await db.collection('media_unrecorded').countDocuments()
  }
}
