/**
 * A client tells a flashcard from a folder by these members (spec 2.2), so no
 * folder or flashcard may be called by them.
 */
export const RESERVED_NAMES: ReadonlySet<string> = new Set(['cards', 'flashcardID', 'flashcardName'])

export const MAX_NAME_LENGTH = 100

/**
 * JSON-schema pattern of a name: any Unicode text without control characters.
 * The control characters (\p{Cc}) are spelled out as ranges, since property
 * escapes are not understood by every client's regex engine (Python's re).
 */
export const NAME_PATTERN = '^[^\\u0000-\\u001f\\u007f-\\u009f]+$'

export function reservedNameProblem (name: string): string | null {
  return RESERVED_NAMES.has(name)
    ? `"${name}" is reserved: a client tells a flashcard from a folder by its members cards, flashcardID and flashcardName`
    : null
}
