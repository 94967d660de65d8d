/**
 * Why an Anki package is refused, by a stable code. Nothing of a refused package is kept: the reader
 * throws before handing anything on, or the caller drops what it was handed.
 */
export const ANKI_IMPORT_ERROR_CODES = [
  'not_a_zip', // not a zip archive, or a damaged one
  'zip_bomb', // an entry or the whole expands past the limits, or far beyond its compressed size
  'unsafe_media_name', // a media name that is a path: separators, `.`/`..`, a drive letter, control characters
  'missing_media', // the media map names an entry the archive lacks
  'corrupt_collection', // no collection, or one SQLite cannot read or check as whole
  'unknown_schema' // a collection schema or package version this reader does not know
] as const

export type AnkiImportErrorCode = typeof ANKI_IMPORT_ERROR_CODES[number]

export class AnkiImportError extends Error {
  override name = 'AnkiImportError'
  constructor (readonly code: AnkiImportErrorCode, message: string) {
    super(message)
  }
}
