// What an Anki package (.apkg, .colpkg) holds and in which form, from the names and bytes of its
// zip entries. Anki's own rules (rslib/src/import_export/package/meta.rs, media.rs): the `meta`
// entry gives the package version; without it, `collection.anki21` is preferred to
// `collection.anki2`. The latest version zstd-compresses the collection, the media map and each
// media file, and its map is protobuf; older ones store them as they are, the map as JSON.
import { AnkiImportError } from './errors.js'
import { decodeMediaEntries, decodePackageMetadata } from './protobuf.js'

export const PACKAGE_VERSIONS = {
  legacy1: 1, // collection.anki2, schema 11
  legacy2: 2, // collection.anki21, schema 11
  latest: 3 // collection.anki21b, schema 18, zstd
} as const

export interface PackageLayout {
  version: number
  /** the zip entry holding the collection's SQLite file */
  collectionEntry: 'collection.anki2' | 'collection.anki21' | 'collection.anki21b'
  /** whether the collection, the media map and the media files are zstd frames */
  zstd: boolean
}

/** The package's layout, from its `meta` entry (absent in old packages) and its entry names. */
export function packageLayout (meta: Uint8Array | undefined, entryNames: ReadonlySet<string>): PackageLayout {
  let version: number
  if (meta === undefined) {
    version = entryNames.has('collection.anki21') ? PACKAGE_VERSIONS.legacy2 : PACKAGE_VERSIONS.legacy1
  } else {
    try {
      version = decodePackageMetadata(meta).version
    } catch {
      throw new AnkiImportError('corrupt_collection', 'the package\'s meta entry cannot be read')
    }
  }
  const collectionEntry = version === PACKAGE_VERSIONS.legacy1
    ? 'collection.anki2'
    : version === PACKAGE_VERSIONS.legacy2
      ? 'collection.anki21'
      : version === PACKAGE_VERSIONS.latest ? 'collection.anki21b' : undefined
  if (collectionEntry === undefined) {
    throw new AnkiImportError('unknown_schema', `package version ${version} is not one Anki writes (1 to 3); export it again from a current Anki`)
  }
  if (!entryNames.has(collectionEntry)) {
    throw new AnkiImportError('corrupt_collection', `the package has no ${collectionEntry}`)
  }
  return { version, collectionEntry, zstd: version === PACKAGE_VERSIONS.latest }
}

export interface MediaMapEntry {
  /** the zip entry holding the file's bytes: its number */
  entry: string
  /** the file's name as notes refer to it, NFC */
  name: string
  /** the size and SHA-1 the latest map declares (the legacy map has neither) */
  size?: number
  sha1?: Uint8Array
}

/**
 * The media map, checked: every name is a plain file name and every entry it names is in the
 * archive. `bytes` is the map as stored (after zstd decoding in the latest layout); a package
 * without a map has no media.
 */
export function mediaMap (bytes: Uint8Array | undefined, layout: PackageLayout, entryNames: ReadonlySet<string>): MediaMapEntry[] {
  if (bytes === undefined) return []
  const entries: MediaMapEntry[] = []
  if (layout.zstd) {
    let decoded: ReturnType<typeof decodeMediaEntries>
    try {
      decoded = decodeMediaEntries(bytes)
    } catch {
      throw new AnkiImportError('corrupt_collection', 'the package\'s media map cannot be read')
    }
    decoded.entries.forEach((entry, index) => {
      entries.push({ entry: String(index), name: safeMediaName(entry.name), size: entry.size, sha1: entry.sha1 })
    })
  } else {
    let map: unknown
    try {
      map = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes))
    } catch {
      throw new AnkiImportError('corrupt_collection', 'the package\'s media map is not JSON')
    }
    if (map === null || typeof map !== 'object' || Array.isArray(map)) {
      throw new AnkiImportError('corrupt_collection', 'the package\'s media map is not an object')
    }
    for (const [entry, name] of Object.entries(map)) {
      if (!/^[0-9]+$/.test(entry) || typeof name !== 'string') {
        throw new AnkiImportError('corrupt_collection', 'the package\'s media map holds an entry that is not a number and a name')
      }
      entries.push({ entry, name: safeMediaName(name) })
    }
  }
  const names = new Set<string>()
  for (const { entry, name } of entries) {
    if (!entryNames.has(entry)) {
      throw new AnkiImportError('missing_media', `the media map names ${JSON.stringify(name)}, whose file (entry ${entry}) is not in the package`)
    }
    if (names.has(name)) {
      throw new AnkiImportError('corrupt_collection', `the media map names ${JSON.stringify(name)} twice`)
    }
    names.add(name)
  }
  return entries
}

/**
 * A media name as a plain file name, NFC (as Anki normalises names), or a refusal: a name that is a
 * path (with `/` or `\`, `.` or `..`, a drive letter such as `C:`, or empty) or holds control
 * characters is never a name to store a file under, whatever system later sees it.
 */
export function safeMediaName (name: string): string {
  const normalised = name.normalize('NFC')
  // eslint-disable-next-line no-control-regex
  const unsafe = normalised === '' || normalised === '.' || normalised === '..' || /[/\\\u0000-\u001f\u007f]/.test(normalised) ||
    /^[A-Za-z]:/.test(normalised)
  if (unsafe) {
    throw new AnkiImportError('unsafe_media_name', `the media name ${JSON.stringify(name)} is a path, not a file name`)
  }
  return normalised
}

/** How far an archive may expand as it is read. */
export interface ExpansionLimits {
  /** the most files (entries) the archive may hold: its directory is held in memory while it is read */
  maxEntries: number
  /** the most the `meta` entry and the media map may expand to: they are read whole */
  maxIndexBytes: number
  /** the most one entry (the collection, the map, a media file) may expand to */
  maxEntryBytes: number
  /** the most all entries together may expand to */
  maxTotalBytes: number
  /** the most an entry may expand to, as a multiple of its stored size, once past `ratioFloorBytes` */
  maxRatio: number
  ratioFloorBytes: number
}

export const DEFAULT_EXPANSION_LIMITS: ExpansionLimits = {
  maxEntries: 250_000,
  maxIndexBytes: 64 * 1024 * 1024,
  maxEntryBytes: 1024 * 1024 * 1024,
  maxTotalBytes: 4 * 1024 * 1024 * 1024,
  maxRatio: 200,
  ratioFloorBytes: 4 * 1024 * 1024
}

/** Throws `zip_bomb` when an entry that came from `storedBytes` has reached `expandedBytes`. */
export function checkExpansion (name: string, storedBytes: number, expandedBytes: number, limits: ExpansionLimits): void {
  if (expandedBytes > limits.maxEntryBytes) {
    throw new AnkiImportError('zip_bomb', `the entry ${name} expands past ${limits.maxEntryBytes} bytes`)
  }
  if (expandedBytes > limits.ratioFloorBytes && expandedBytes > Math.max(1, storedBytes) * limits.maxRatio) {
    throw new AnkiImportError('zip_bomb', `the entry ${name} expands more than ${limits.maxRatio} times its stored size`)
  }
}
