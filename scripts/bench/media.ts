// Media on a database of its own: a 100 KB image served from GridFS through
// its signed URL (under load, against a bare Fastify serving the same bytes),
// its 304 revalidation, an upload of a 5 MB image, and get-flashcard of a
// 100-card deck whose every card shows an image of its own (formatted cards,
// format 'html', the image as media:<id> in the front): each read signs a URL
// for each image.
import { randomBytes } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { post, timeInTurns } from './load.js'

export const MEDIA_EMAIL = 'bench-media@example.com'
export const MEDIA_PASSWORD = 'bench-media-password'
export const IMAGE_BYTES = 100 * 1024
export const UPLOAD_BYTES = 5 * 1024 * 1024
export const DECK_CARDS = 100

/** A PNG's signature and header, then random data: the sniffer reads it as PNG, and no two are alike. */
export function pngOf (size: number): Buffer {
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13])
  const header = Buffer.concat([signature, Buffer.from('IHDR', 'latin1'), Buffer.alloc(17, 1)])
  const length = Buffer.alloc(4)
  length.writeUInt32BE(size - header.length - 12)
  return Buffer.concat([header, length, Buffer.from('IDAT', 'latin1'), randomBytes(size - header.length - 12), Buffer.alloc(4)])
}

/** A multipart form of the token, then the file, as a browser sends it. */
function form (jwtToken: string, file: Buffer): FormData {
  const body = new FormData()
  body.append('jwtToken', jwtToken)
  body.append('file', new Blob([new Uint8Array(file)]), 'image.png')
  return body
}

export interface MediaSeed {
  /** the 100 KB image, bytes and id, uploaded again through the running service to have a URL it signed */
  image: Buffer
  withImages: string
  plain: string
}

async function inject (app: FastifyInstance, operation: string, payload: object): Promise<Record<string, unknown>> {
  const response = await app.inject({ method: 'POST', url: `/api/${operation}`, payload })
  if (response.statusCode >= 300) throw new Error(`${operation}: ${response.statusCode} ${response.body}`)
  return response.json()
}

/**
 * Registers the media user through the app, uploads an image for each card
 * of one deck, and makes that deck of formatted cards showing them; a second
 * deck of plain cards is its peer.
 */
export async function seedMedia (app: FastifyInstance): Promise<MediaSeed> {
  const { jwtToken } = await inject(app, 'register', { email: MEDIA_EMAIL, password: MEDIA_PASSWORD }) as { jwtToken: string }
  await inject(app, 'create-folder', { jwtToken, path: ['Media'] })
  const images: string[] = []
  for (let n = 0; n < DECK_CARDS; n++) {
    const request = new Request('http://bench/api/upload-media', { method: 'POST', body: form(jwtToken, pngOf(10 * 1024)) })
    const response = await app.inject({ method: 'POST', url: '/api/upload-media', headers: Object.fromEntries(request.headers), payload: Buffer.from(await request.arrayBuffer()) })
    if (response.statusCode !== 201) throw new Error(`upload-media: ${response.statusCode} ${response.body}`)
    images.push(response.json<{ mediaID: string }>().mediaID)
  }
  const illustrated = images.map((mediaID, n) => ({ front: `<p>card ${n}</p><img src="media:${mediaID}" alt="picture ${n}">`, back: `answer ${n}`, format: 'html' }))
  const withImages = await inject(app, 'create-flashcard', { jwtToken, folder: ['Media'], flashcardName: 'With images', cards: illustrated }) as { flashcardID: string }
  const cards = Array.from({ length: DECK_CARDS }, (_, n) => ({ front: `card ${n}`, back: `answer ${n}` }))
  const plain = await inject(app, 'create-flashcard', { jwtToken, folder: ['Media'], flashcardName: 'Plain', cards }) as { flashcardID: string }
  return { image: pngOf(IMAGE_BYTES), withImages: withImages.flashcardID, plain: plain.flashcardID }
}

export interface MediaFigures {
  /** the image's URL, as the service signed it */
  url: string
  revalidate: number[]
  upload: number[]
  withImages: number[]
  plain: number[]
}

/** Times GETs of `url` with `headers`, one after another, each to answer `status`. */
async function timeGets (url: string, headers: Record<string, string>, status: number, count: number, warmup: number): Promise<number[]> {
  const samples: number[] = []
  for (let n = 0; n < warmup + count; n++) {
    const started = performance.now()
    const response = await fetch(url, { headers })
    await response.arrayBuffer()
    const elapsed = performance.now() - started
    if (response.status !== status) throw new Error(`GET answered ${response.status}, not ${status}`)
    if (n >= warmup) samples.push(elapsed)
  }
  return samples
}

/** Uploads the image to have its URL, then times revalidation, 5 MB uploads and the two decks' get-flashcard. */
export async function measureMedia (origin: string, seed: MediaSeed, samples: number, warmup: number): Promise<MediaFigures> {
  const login = await post(`${origin}/api/login`, JSON.stringify({ email: MEDIA_EMAIL, password: MEDIA_PASSWORD }))
  if (login.status !== 200) throw new Error(`login: ${login.status} ${login.text}`)
  const { jwtToken } = JSON.parse(login.text) as { jwtToken: string }
  const uploadOne = async (bytes: Buffer): Promise<{ url: string }> => {
    const response = await fetch(`${origin}/api/upload-media`, { method: 'POST', body: form(jwtToken, bytes) })
    if (response.status !== 201 && response.status !== 200) throw new Error(`upload-media: ${response.status} ${await response.text()}`)
    return await response.json() as { url: string }
  }
  const { url } = await uploadOne(seed.image)
  const first = await fetch(`${origin}${url}`)
  const etag = first.headers.get('etag') ?? ''
  await first.arrayBuffer()
  const revalidate = await timeGets(`${origin}${url}`, { 'if-none-match': etag }, 304, samples, warmup)

  // a different image each time (the same bytes would be found, not stored), made before the clock starts
  const upload: number[] = []
  const uploads = Math.max(5, Math.round(samples / 3))
  for (let n = 0; n < uploads + 2; n++) {
    const bytes = pngOf(UPLOAD_BYTES)
    const started = performance.now()
    await uploadOne(bytes)
    if (n >= 2) upload.push(performance.now() - started)
  }

  const body = (flashcardID: string): string => JSON.stringify({ jwtToken, flashcardID })
  const cardsIn = (text: string): string | null => ((JSON.parse(text) as { cards: unknown[] }).cards.length === DECK_CARDS ? null : 'not every card')
  const imagesSigned = (text: string): string | null => cardsIn(text) ?? ((text.match(/src=\\"\/media\/\d+\?u=/g) ?? []).length === DECK_CARDS ? null : 'not every image has its signed URL')
  const [withImages, plain] = await timeInTurns([
    { url: `${origin}/api/get-flashcard`, body: body(seed.withImages), check: imagesSigned },
    { url: `${origin}/api/get-flashcard`, body: body(seed.plain), check: cardsIn }
  ], samples, warmup)
  return { url, revalidate, upload, withImages: withImages?.samples ?? [], plain: plain?.samples ?? [] }
}
