/**
 * A client tells a flashcard from a folder by these members (spec 2.2), so no
 * folder or flashcard may be called by them.
 */
export const RESERVED_NAMES: ReadonlySet<string> = new Set(['cards', 'flashcardID', 'flashcardName'])

export const MAX_NAME_LENGTH = 100

/** JSON-schema pattern of a name: any Unicode text without control characters. */
export const NAME_PATTERN = '^[^\\p{Cc}]+$'

export function reservedNameProblem (name: string): string | null {
  return RESERVED_NAMES.has(name)
    ? `"${name}" is reserved: a client tells a flashcard from a folder by its members cards, flashcardID and flashcardName`
    : null
}
