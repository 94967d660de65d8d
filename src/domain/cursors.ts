// The opaque cursors of the paged reads (get-flashcard and get-all-cards, get-study-queue,
// browse-cards): base64url of a small JSON object. Each read says what its object holds
// and checks it; this is the encoding they share.

/** A cursor of `fields`, opaque to the client. */
export function encodeCursor (fields: Record<string, unknown>): string {
  return Buffer.from(JSON.stringify(fields), 'utf8').toString('base64url')
}

/** The object a cursor holds, or null when it is not base64url of a JSON object. */
export function decodeCursor (cursor: string): Record<string, unknown> | null {
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) return null
  let read: unknown
  try {
    read = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))
  } catch {
    return null
  }
  return typeof read === 'object' && read !== null && !Array.isArray(read) ? read as Record<string, unknown> : null
}
