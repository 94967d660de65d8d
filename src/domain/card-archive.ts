/**
 * A flashcard as a zip archive: what export-flashcard-zip writes and
 * import-flashcard-zip reads. Pure rules, no I/O (services/card-archive.ts
 * reads and writes the zip itself).
 *
 *   cards.csv              the cards, as export-flashcard writes CSV
 *   media/<sha256>.<ext>   each media file the cards show, its bytes as uploaded
 *
 * In an html side, each image or sound of the user's media, `src="media:<mediaID>"`,
 * is written `src="media/<file name>"`, a path relative to cards.csv, so that the
 * unpacked folder reads as it is; an import turns each such path back into the
 * `media:<mediaID>` of the file it stored. Plain text sides are left as written:
 * they show no media.
 *
 * An archive packed again from its unpacked folder may hold that folder
 * itself: `Greetings/cards.csv` and `Greetings/media/...`; it is read the same.
 */
import { isClozeInput, type CardInput } from './card-content.js'
import { MAX_MEDIA_BYTES } from './media.js'

export const CARDS_FILE = 'cards.csv'
export const MEDIA_FOLDER = 'media/'

/**
 * How much an archive to import may hold, and expand to as it is read. The
 * most a valid cards.csv can take is 1,000 cards of two sides of 10,000
 * characters of four bytes each (about 80 MB); a media file is at most the
 * 20 MiB of one upload. The ratio is the Anki reader's (domain/anki/package.ts):
 * past 4 MiB, no entry may expand to more than 200 times its stored size.
 */
export const ARCHIVE_LIMITS = {
  /** the upload: the zip as sent */
  maxArchiveBytes: 200 * 1024 * 1024,
  /** files (and folders) in the zip */
  maxEntries: 10_000,
  maxCardsFileBytes: 100 * 1024 * 1024,
  maxMediaBytes: MAX_MEDIA_BYTES,
  /** every file of the zip together, as its central directory declares them */
  maxTotalBytes: 2 * 1024 * 1024 * 1024,
  maxRatio: 200,
  ratioFloorBytes: 4 * 1024 * 1024
} as const

export type ArchiveLimits = typeof ARCHIVE_LIMITS

/** The file extension a media file is named with in an archive, by the type it is served with. */
const EXTENSIONS: Readonly<Record<string, string>> = {
  'image/png': 'png',
  'image/apng': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'audio/mpeg': 'mp3',
  'audio/ogg': 'ogg',
  'audio/mp4': 'm4a',
  'audio/wav': 'wav'
}

/** A media file's name in an archive: its content hash, so that one content is one file, and the extension of its type. */
export function mediaFileName (sha256: string, contentType: string): string {
  return `${sha256}.${Object.hasOwn(EXTENSIONS, contentType) ? EXTENSIONS[contentType] as string : 'bin'}`
}

/**
 * Why an entry's name is not a place inside the archive's folder, or null: a
 * name that unpacks elsewhere (an absolute path, a drive letter, a `..`), or
 * that is read differently on another system (a backslash, `.`, an empty
 * part, a control character). Zip names use `/` between folders; a folder's
 * own entry ends with one.
 */
export function entryNameProblem (name: string): string | null {
  if (name === '') return 'an empty name'
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name)) return 'a control character'
  if (name.includes('\\')) return 'a backslash, which some systems read as a folder separator'
  if (name.startsWith('/')) return 'an absolute path'
  if (/^[A-Za-z]:/.test(name)) return 'a drive letter'
  const parts = (name.endsWith('/') ? name.slice(0, -1) : name).split('/')
  if (parts.some((part) => part === '..')) return 'a ".." that leads out of the archive\'s folder'
  if (parts.some((part) => part === '.' || part === '')) return 'a "." or an empty folder name'
  return null
}

/**
 * Where the archive's files are: '' when cards.csv is at its top, `<folder>/`
 * when the whole archive is one folder holding it (a folder packed again);
 * null when it holds no cards.csv there. Entries a Mac adds (`__MACOSX/`) do not count.
 */
export function archiveRoot (names: Iterable<string>): string | null {
  const tops = new Set<string>()
  let nested: string | null = null
  for (const name of names) {
    if (name === CARDS_FILE) return ''
    if (name.startsWith('__MACOSX/')) continue
    const slash = name.indexOf('/')
    tops.add(slash === -1 ? name : name.slice(0, slash + 1))
    if (slash !== -1 && name.slice(slash + 1) === CARDS_FILE) nested = name.slice(0, slash + 1)
  }
  return nested !== null && tops.size === 1 ? nested : null
}

const MEDIA_ID = /^media:([A-Za-z0-9_-]{1,128})$/

/** An HTML tag of an image or a sound, its attributes as written: quoted values may hold `>`. */
const MEDIA_TAG = /<(?:img|audio)(?=[\s/>])((?:[^>"']|"[^"]*"|'[^']*')*)>|<!--[\s\S]*?(?:-->|$)/gi
/** One attribute at a time, from where the last one ended: its name, then its value, quoted or not. */
const ATTRIBUTE = /[\s/]*([^\s"'>/=][^\s"'>/=]*)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]*)))?/y

const NAMED_REFERENCES: Readonly<Record<string, string>> = {
  amp: '&', lt: '<', gt: '>', quot: '"', apos: '\'', colon: ':', sol: '/', period: '.', lowbar: '_', hyphen: '-', dash: '-', tab: '\t', newline: '\n'
}

/** An attribute value as a browser (and the sanitizer) reads it: character references decoded. */
function decodeAttribute (value: string): string {
  if (!value.includes('&')) return value
  return value.replace(/&(?:#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6})|([A-Za-z]+));?/g, (reference, decimal?: string, hex?: string, name?: string) => {
    const code = decimal !== undefined ? Number(decimal) : hex !== undefined ? parseInt(hex, 16) : undefined
    if (code !== undefined) return code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff) ? String.fromCodePoint(code) : '\uFFFD'
    return NAMED_REFERENCES[(name ?? '').toLowerCase()] ?? reference
  })
}

/** A new attribute value, quoted as the old one was where it can be (so that the source changes no more than it must), else in double quotes. */
function attributeValue (value: string, quote: '"' | '\'' | ''): string {
  const plain = !/[&"'\s<>=`]/.test(value) && value !== ''
  if (plain || (quote !== '' && !value.includes('&') && !value.includes(quote))) return `${quote}${value}${quote}`
  return `"${value.replaceAll('&', '&amp;').replaceAll('"', '&quot;')}"`
}

/**
 * HTML source with the `src` of each image and sound element given the value
 * `replace` answers for it (the value as read: references decoded, spaces
 * around it trimmed), in the quotes it was written in (or none) where the new
 * value allows; one it answers null for is left as written. An element
 * in a comment is no element, and is left alone; of two `src`, the first
 * counts, as in a browser.
 */
export function rewriteMediaSources (html: string, replace: (source: string) => string | null): string {
  if (!/<(?:img|audio)/i.test(html)) return html
  return html.replace(MEDIA_TAG, (tag: string, attributes: string | undefined) => {
    if (attributes === undefined) return tag
    const start = tag.length - attributes.length - 1
    ATTRIBUTE.lastIndex = 0
    for (let match = ATTRIBUTE.exec(attributes); match !== null && match[0] !== ''; match = ATTRIBUTE.exec(attributes)) {
      if ((match[1] ?? '').toLowerCase() !== 'src') continue
      const written = match[2] ?? match[3] ?? match[4]
      if (written === undefined) return tag
      const replaced = replace(decodeAttribute(written).trim())
      if (replaced === null) return tag
      const quote = match[2] !== undefined ? '"' : match[3] !== undefined ? '\'' : ''
      const valueEnd = start + match.index + match[0].length
      const valueStart = valueEnd - written.length - 2 * quote.length
      return tag.slice(0, valueStart) + attributeValue(replaced, quote) + tag.slice(valueEnd)
    }
    return tag
  })
}

/** The media id a `src` names (`media:<mediaID>`), or null. */
export function mediaIdOf (source: string): string | null {
  return MEDIA_ID.exec(source)?.[1] ?? null
}

/** The file of the archive a `src` names (`media/<file name>`), or null for a source that is not one. */
export function archiveFileOf (source: string): string | null {
  return source.startsWith(MEDIA_FOLDER) ? source.slice(MEDIA_FOLDER.length) : null
}

/**
 * Cards as an archive writes them: in html sides, each `media:<mediaID>` that
 * `fileOf` names a file for becomes `media/<file name>`. A media the account
 * no longer holds keeps its `media:<mediaID>`, which shows nothing elsewhere.
 */
export function cardsForArchive (cards: readonly CardInput[], fileOf: (mediaID: string) => string | undefined): CardInput[] {
  const side = (html: string): string => rewriteMediaSources(html, (source) => {
    const mediaID = mediaIdOf(source)
    const file = mediaID === null ? undefined : fileOf(mediaID)
    return file === undefined ? null : MEDIA_FOLDER + file
  })
  return cards.map((card) => {
    if (card.format !== 'html') return card
    return isClozeInput(card)
      ? { ...card, cloze: side(card.cloze), back: side(card.back ?? '') }
      : { ...card, front: side(card.front), back: side(card.back) }
  })
}
