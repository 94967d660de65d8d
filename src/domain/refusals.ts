/**
 * Every refusal the service answers, by its stable code: the closed list a
 * client branches on (docs/api.md lists it with each code's status). Codes
 * never change meaning; a new kind of refusal gets a new code.
 */
export const REFUSAL_CODES = [
  // the request itself
  'malformed_request',
  'malformed_json',
  'invalid_text',
  'invalid_field',
  'unknown_operation',
  'method_not_allowed',
  'request_timeout',
  'body_too_large',
  'unsupported_content_type',
  'unsupported_charset',
  'unsupported_content_encoding',
  'headers_too_large',
  // a media upload
  'invalid_upload',
  'media_too_large',
  'unsupported_media',
  // an archive to import
  'archive_too_large',
  'not_a_zip',
  'zip_bomb',
  'unsafe_file_name',
  'missing_cards_file',
  'missing_media',
  // an Anki package to import (the reader's codes: domain/anki/errors.ts)
  'unsafe_media_name',
  'corrupt_collection',
  'unknown_schema',
  // who is asking
  'invalid_token',
  'wrong_credentials',
  'wrong_password',
  'account_disabled',
  'email_taken',
  // a link the service mailed (password reset, change of email)
  'invalid_link',
  'link_used',
  'link_expired',
  // values the rules refuse
  'invalid_name',
  'invalid_value',
  'invalid_import',
  'invalid_cloze',
  'wrong_card_kind',
  'use_edit_note',
  'nothing_to_change',
  'invalid_move',
  'too_deep',
  // what is not there
  'folder_not_found',
  'flashcard_not_found',
  'card_not_found',
  'note_not_found',
  'note_type_not_found',
  'goal_not_found',
  'import_not_found',
  'nothing_to_undo',
  'media_not_found',
  // a media URL
  'media_url_invalid',
  'media_url_expired',
  'range_not_satisfiable',
  // what is there already, or full
  'name_taken',
  'name_too_similar',
  'not_a_folder',
  'folder_full',
  'quota_exceeded',
  'library_too_large',
  'goal_final',
  'note_type_in_use',
  'stock_note_type',
  'note_type_too_large',
  'review_id_reused',
  'not_enough_history',
  'changed_meanwhile',
  'export_too_large',
  // limits of one client
  'too_many_attempts',
  'too_many_requests',
  'too_many_connections',
  'too_many_imports',
  // the service
  'service_overloaded',
  'database_unavailable',
  'internal_error'
] as const

export type RefusalCode = typeof REFUSAL_CODES[number]

/**
 * A request the service refuses: the code a client branches on, and a
 * sentence a person can act on (what to send instead). Domain code, services
 * and plugins all refuse with it; the HTTP status of each code is decided in
 * one place (schemas/errors.ts).
 */
export class Refusal extends Error {
  override name = 'Refusal'
  constructor (readonly code: RefusalCode, message: string, readonly retryAfterSeconds?: number) {
    super(message)
  }
}

export const INVALID_TOKEN = 'invalid or expired token'

/** A token that is invalid, expired, forged, of an ended generation, or of an account that is gone: one answer for all. */
export function invalidToken (): Refusal {
  return new Refusal('invalid_token', INVALID_TOKEN)
}

/**
 * The account is disabled by the service's operator (npm run admin -- disable): its login, once the
 * password is right, and its tokens are refused until it is enabled again.
 */
export function accountDisabled (): Refusal {
  return new Refusal('account_disabled', 'this account is disabled: ask the service\'s operator to enable it')
}

/** Too many login, register or reset attempts, or mails asked for; the client may try again after `seconds`. */
export function tooManyAttempts (seconds: number): Refusal {
  return new Refusal('too_many_attempts', `too many attempts; retry in ${seconds} seconds`, seconds)
}

export function noCard (flashcardID: string, cardID: string): Refusal {
  return new Refusal('card_not_found', `no card ${cardID} in flashcard ${flashcardID}`)
}
