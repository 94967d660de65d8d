/**
 * A cursor's answer comes in batches of 101 documents unless told otherwise,
 * and each further batch is another round trip (getMore). Queries whose answer
 * is bounded ask for it in one batch; the server still caps a batch at 16 MiB.
 */
export function oneBatch (documents: number): { batchSize: number } {
  return { batchSize: Math.max(1, Math.min(documents, 100_000)) }
}

/** Enough for the folders of a large library and a day's flashcards in one batch. */
export const MAX_LIBRARY_ANSWER = 20_000
