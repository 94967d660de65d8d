/**
 * What media the service keeps, and how a stored file is read back: pure
 * rules, no I/O. Files are typed by their bytes (services/media.ts sniffs
 * them), never by a name or a header a client chose.
 */

/** The most one uploaded file may hold. */
export const MAX_MEDIA_BYTES = 20 * 1024 * 1024

/** How many bytes of a file's start are read to tell its type: what the sniffer itself reads at most. */
export const SNIFF_BYTES = 4100

/**
 * Each kind of file kept, by the extension the sniffer names it with, and
 * the Content-Type it is served with. Ogg comes in several codecs; M4A's
 * sniffed `audio/x-m4a` is served as the registered `audio/mp4`.
 */
const SERVED_TYPES: Readonly<Record<string, string>> = {
  png: 'image/png',
  // an animated PNG is a PNG that browsers also animate
  apng: 'image/apng',
  jpg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  mp3: 'audio/mpeg',
  ogg: 'audio/ogg',
  oga: 'audio/ogg',
  opus: 'audio/ogg',
  spx: 'audio/ogg',
  m4a: 'audio/mp4',
  wav: 'audio/wav'
}

export const ACCEPTED_MEDIA = 'PNG, JPEG, GIF or WebP images and MP3, Ogg, M4A or WAV sounds'

/** The Content-Type a file of the sniffed kind is kept and served with, or null for a kind the service does not keep. */
export function servedType (sniffedExtension: string | undefined): string | null {
  if (sniffedExtension === undefined) return null
  return Object.hasOwn(SERVED_TYPES, sniffedExtension) ? SERVED_TYPES[sniffedExtension] ?? null : null
}

/** The bytes of a file to send: from `start` through `end`, both counted. */
export interface ByteRange { start: number, end: number }

/**
 * The one byte range a Range header asks of a file of `size` bytes: null
 * when the whole file is to be sent (no header, a unit other than bytes, a
 * header that is not well-formed, several ranges), 'unsatisfiable' when the
 * range lies outside the file (RFC 9110 14.1.2). A header the server cannot
 * read is ignored rather than refused, as the RFC allows.
 */
export function byteRange (header: string | undefined, size: number): ByteRange | 'unsatisfiable' | null {
  if (header === undefined) return null
  const match = /^bytes=\s*(\d*)\s*-\s*(\d*)\s*$/.exec(header)
  if (match === null) return null
  const [, first = '', last = ''] = match
  if (first === '' && last === '') return null
  if (first === '') {
    // the last N bytes
    const length = Number(last)
    if (length === 0 || size === 0) return 'unsatisfiable'
    return { start: Math.max(0, size - length), end: size - 1 }
  }
  const start = Number(first)
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1)
  if (last !== '' && Number(last) < start) return null
  if (start >= size) return 'unsatisfiable'
  return { start, end }
}

/** The strong validator of a file's content: its SHA-256, the same whatever URL it is fetched by. */
export function entityTag (sha256: string): string {
  return `"${sha256}"`
}

/** Whether an If-None-Match header names this tag (weak comparison, as RFC 9110 13.1.2 asks for it), or is `*`. */
export function matchesEntityTag (header: string | undefined, tag: string): boolean {
  if (header === undefined) return false
  return header.split(',').some((candidate) => {
    const trimmed = candidate.trim()
    return trimmed === '*' || trimmed.replace(/^W\//, '') === tag
  })
}
