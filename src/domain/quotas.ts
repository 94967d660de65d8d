/**
 * What one account may hold. Chosen so that a heavy real user (100,000 cards
 * in a few thousand flashcards) fits with room to spare, while one account
 * cannot grow without bound at the expense of everyone sharing the database.
 */
export interface Quotas {
  cards: number
  /** folders and flashcards together */
  nodes: number
  goals: number
  /** bytes of media (images and audio) stored, each file counted once however many cards show it */
  mediaBytes: number
}

export const DEFAULT_QUOTAS: Quotas = { cards: 200_000, nodes: 20_000, goals: 500, mediaBytes: 1024 ** 3 }

/** How much of each quota an account uses; kept on the account, changed in the transaction of every write. */
export type Usage = Quotas

export const QUOTA_NAMES: Record<keyof Quotas, string> = {
  cards: 'cards',
  nodes: 'folders and flashcards',
  goals: 'goals',
  mediaBytes: 'bytes of media'
}

/** A quota as a person reads it: "200,000 cards", "1 GiB of media". */
export function quotaText (part: keyof Quotas, quotas: Quotas): string {
  const limit = quotas[part]
  if (part === 'mediaBytes') {
    for (const [unit, size] of [['GiB', 1024 ** 3], ['MiB', 1024 ** 2], ['KiB', 1024]] as const) {
      if (limit >= size && limit % size === 0) return `${(limit / size).toLocaleString('en')} ${unit} of media`
    }
  }
  return `${limit.toLocaleString('en')} ${QUOTA_NAMES[part]}`
}
