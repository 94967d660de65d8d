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
}

export const DEFAULT_QUOTAS: Quotas = { cards: 200_000, nodes: 20_000, goals: 500 }

/** How much of each quota an account uses; kept on the account, changed in the transaction of every write. */
export type Usage = Quotas

export const QUOTA_NAMES: Record<keyof Quotas, string> = {
  cards: 'cards',
  nodes: 'folders and flashcards',
  goals: 'goals'
}
