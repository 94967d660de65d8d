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

/**
 * Writes one at a time while the caller makes the next batch: the database and this thread work
 * side by side. `write` waits for the write in flight, then sends the next; `finished` waits for
 * the last and fails as it failed; `settled` waits for it whatever came of it (before a clean-up,
 * which a write still in flight would land after). A failure is met at the next write or
 * `finished`; until then it is no unhandled rejection.
 */
export function oneWriteInFlight () {
  let writing: Promise<unknown> = Promise.resolve()
  return {
    async write (send: () => Promise<unknown>): Promise<void> {
      await writing
      writing = send()
      writing.catch(() => {})
    },
    async finished (): Promise<void> {
      await writing
    },
    async settled (): Promise<void> {
      await writing.catch(() => {})
    }
  }
}
