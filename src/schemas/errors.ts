import { Type, type TSchema } from '@sinclair/typebox'
import { REFUSAL_CODES, type RefusalCode } from '../domain/refusals.js'

export type ErrorStatus = 400 | 401 | 403 | 404 | 405 | 408 | 409 | 410 | 413 | 415 | 416 | 429 | 431 | 500 | 503

/**
 * The one place where each refusal gets its HTTP status, with what it means:
 * the error handler answers by it, the OpenAPI document lists the codes of
 * each status, and docs/api.md is checked against it by a test.
 */
export const REFUSALS: Record<RefusalCode, { status: ErrorStatus, meaning: string }> = {
  malformed_request: { status: 400, meaning: 'the request is not well-formed HTTP' },
  malformed_json: { status: 400, meaning: 'the body is not one JSON value' },
  invalid_text: { status: 400, meaning: 'the body is not valid UTF-8, or a string holds an unpaired surrogate' },
  invalid_field: { status: 400, meaning: 'a field is missing, of the wrong type, or out of its range' },
  unknown_operation: { status: 404, meaning: 'no operation at this path' },
  method_not_allowed: { status: 405, meaning: 'the operation exists with another method (see the Allow header)' },
  request_timeout: { status: 408, meaning: 'the request did not arrive whole in time; the connection is closed' },
  body_too_large: { status: 413, meaning: 'the body is over 1 MiB' },
  unsupported_content_type: { status: 415, meaning: 'the body is not sent as application/json' },
  unsupported_charset: { status: 415, meaning: 'the body is declared in a charset other than UTF-8' },
  unsupported_content_encoding: { status: 415, meaning: 'the body is compressed (a Content-Encoding other than identity)' },
  headers_too_large: { status: 431, meaning: 'the request headers are too large' },
  invalid_upload: { status: 400, meaning: 'upload-media: the form is not one jwtToken field followed by one non-empty file; import-flashcard-zip: not jwtToken, then folder and flashcardName, then one non-empty file' },
  media_too_large: { status: 413, meaning: 'a media file is over 20 MiB: the file of upload-media, or one in an archive to import' },
  unsupported_media: { status: 415, meaning: 'a media file (of upload-media, or in an archive to import), judged by its bytes, is not a PNG, JPEG, GIF or WebP image nor an MP3, Ogg, M4A or WAV sound' },
  archive_too_large: { status: 413, meaning: 'import-flashcard-zip: the archive is over 200 MiB; import-anki: the package is over 1 GiB' },
  not_a_zip: { status: 400, meaning: 'an archive to import is not a zip archive, or a damaged or encrypted one' },
  zip_bomb: { status: 400, meaning: 'an archive to import would expand past its limits: too many files, too many bytes in all, or a file far larger than it is stored' },
  unsafe_file_name: { status: 400, meaning: 'an archive to import names a file by a path that leads out of its folder (.., an absolute path, a drive letter), with a backslash or a control character, or names two files alike' },
  missing_cards_file: { status: 400, meaning: 'an archive to import holds no cards.csv' },
  missing_media: { status: 400, meaning: 'the cards of an archive to import show a media file that the archive does not hold; an Anki package\'s media map names a file the package lacks' },
  unsafe_media_name: { status: 400, meaning: 'get-import-status: the Anki package names a media file by a path (/ or \\, . or .., a drive letter, control characters)' },
  corrupt_collection: { status: 400, meaning: 'get-import-status: the Anki package holds no collection, or one SQLite cannot read or check as whole, or an unreadable media map' },
  unknown_schema: { status: 400, meaning: 'get-import-status: the Anki package is of a version or collection schema Anki never wrote (package versions 1 to 3, schemas 11 to 18 are read)' },
  invalid_token: { status: 401, meaning: 'the token is invalid, expired, revoked, or its account is gone' },
  wrong_credentials: { status: 401, meaning: 'login: no account with this email and password' },
  wrong_password: { status: 401, meaning: 'the password given to confirm a change is not the account\'s' },
  account_disabled: { status: 403, meaning: 'the account is disabled by the service\'s operator: login (with the right password) and its tokens are refused until it is enabled again' },
  email_taken: { status: 409, meaning: 'an account with this email exists' },
  invalid_link: { status: 400, meaning: 'reset-password, confirm-email-change: the token is not one the service mailed, or its account is gone' },
  link_used: { status: 410, meaning: 'reset-password, confirm-email-change: the link was used already, or a change to the account since it was sent ended it (its password reset or changed, its email changed, every session logged out)' },
  link_expired: { status: 410, meaning: 'reset-password, confirm-email-change: the link is more than an hour old' },
  invalid_name: { status: 400, meaning: 'a folder or flashcard name the naming rules refuse' },
  invalid_value: { status: 400, meaning: 'a value of the right type that the rules refuse (a time zone, a date, a separator)' },
  invalid_import: { status: 400, meaning: 'text to import that cannot be read as cards; the message names the line' },
  invalid_cloze: { status: 400, meaning: 'a cloze text that holds no deletion such as {{c1::answer}}' },
  wrong_card_kind: { status: 400, meaning: 'edit-card: cloze sent for a card of a front and back, or front for a card of a cloze note' },
  use_edit_note: { status: 400, meaning: 'edit-card: the card is one of an Anki note whose note type is not Basic (one card of Front and Back): change its note with edit-note' },
  nothing_to_change: { status: 400, meaning: 'an edit that names nothing to change' },
  invalid_move: { status: 400, meaning: 'a folder moved into itself or below itself' },
  too_deep: { status: 400, meaning: 'folders would nest more than 20 levels deep' },
  folder_not_found: { status: 404, meaning: 'no such folder of this user' },
  flashcard_not_found: { status: 404, meaning: 'no such flashcard of this user' },
  card_not_found: { status: 404, meaning: 'no such card in that flashcard of this user' },
  note_not_found: { status: 404, meaning: 'get-note, edit-note, delete-note: no such note of this user' },
  note_type_not_found: { status: 404, meaning: 'add-note, edit-note-type, delete-note-type: no such note type of this user (get-note-types lists them)' },
  goal_not_found: { status: 404, meaning: 'no such goal of this user' },
  import_not_found: { status: 404, meaning: 'get-import-status: no import of this id of this user' },
  nothing_to_undo: { status: 404, meaning: 'undo-review: there is no review to take back' },
  media_not_found: { status: 404, meaning: 'a media URL whose media is not there (removed, or never this user\'s)' },
  media_url_invalid: { status: 403, meaning: 'a media URL that is not as the service signed it' },
  media_url_expired: { status: 403, meaning: 'a media URL past its expiry: read the card again for a fresh one' },
  range_not_satisfiable: { status: 416, meaning: 'a media request for a byte range that does not lie within the file' },
  name_taken: { status: 409, meaning: 'a folder or flashcard of that name is already there; create-note-type, edit-note-type: the account has a note type of that name' },
  name_too_similar: { status: 409, meaning: 'a folder or flashcard with a name alike to this one (case, width, invisible characters) is already there' },
  not_a_folder: { status: 409, meaning: 'a folder path names a flashcard' },
  folder_full: { status: 409, meaning: 'the folder (or the top level) holds 1,000 folders and flashcards already' },
  quota_exceeded: { status: 409, meaning: 'the account would hold more than its quota of cards, folders and flashcards, goals, or bytes of media' },
  library_too_large: { status: 409, meaning: 'the folder tree would take more than 8 MiB' },
  note_type_in_use: { status: 409, meaning: 'edit-note-type: the change drops a field that holds text or a card template that has cards; delete-note-type: the note type has notes. Sent again with confirm: true, it goes ahead' },
  stock_note_type: { status: 409, meaning: 'delete-note-type: the note type is one of Anki\'s stock ones, which every account is offered and this one keeps none of' },
  note_type_too_large: { status: 409, meaning: 'edit-note-type: the change adds, drops or moves fields or templates of a note type with more than 10,000 notes, which it would change all at once; a change of CSS or template text has no such limit' },
  goal_final: { status: 409, meaning: 'the goal is completed or failed, which is final' },
  review_id_reused: { status: 409, meaning: 'the reviewID was used for another card' },
  not_enough_history: { status: 409, meaning: 'optimize-schedule: the review log is too short to fit parameters to; the message says how many more reviews it takes' },
  changed_meanwhile: { status: 409, meaning: 'another request changed the same thing at the same time; nothing was done: read again and retry' },
  export_too_large: { status: 409, meaning: 'export-anki: the export would hold more cards, text or reviews than one package is built with; export a folder or flashcard at a time' },
  too_many_attempts: { status: 429, meaning: 'too many login, register or reset attempts, or mails of links asked for; retry after Retry-After' },
  too_many_requests: { status: 429, meaning: 'this user has too many requests, or too many uploads, under way at once; retry after Retry-After' },
  too_many_connections: { status: 429, meaning: 'too many connections open from this address' },
  too_many_imports: { status: 429, meaning: 'import-anki: this account has 2 imports of Anki packages arriving, waiting or running, the most it may have at once; retry once one has ended (get-import-status), or after Retry-After' },
  service_overloaded: { status: 503, meaning: 'the service as a whole is saturated; retry after Retry-After' },
  database_unavailable: { status: 503, meaning: 'the database is unavailable or restarting; nothing was stored; retry after Retry-After' },
  internal_error: { status: 500, meaning: 'a failure of the service; the answer carries a requestId, the details are in the log' }
}

export function statusOf (code: RefusalCode): ErrorStatus {
  return REFUSALS[code].status
}

/** The codes answered with `status`. */
export function codesOf (status: number): RefusalCode[] {
  return REFUSAL_CODES.filter((code) => REFUSALS[code].status === status)
}

/** An error answer of one status: its sentence and one of that status's codes. */
export function errorResponse (status: number): TSchema {
  const codes = codesOf(status)
  return Type.Object({
    error: Type.String({ description: 'what went wrong and what to send instead' }),
    code: Type.Unsafe<RefusalCode>({ type: 'string', enum: codes, description: codes.map((code) => `${code}: ${REFUSALS[code].meaning}`).join('; ') }),
    requestId: Type.Optional(Type.String({ description: 'quote it when reporting an internal error' }))
  }, { title: `Error${status}`, description: `error (${status})` })
}
