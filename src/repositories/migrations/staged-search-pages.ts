import type { Db } from 'mongodb'
import { STAGING_OWNER_PREFIX } from '../imports.js'

/**
 * Removes the search pages that Anki imports wrote for their staged cards: the cards were handed to
 * the account, which makes its own pages at its first search, and the staged ones were left under
 * the staging owner, read by no one (7.7 MB for an import of 100,000 cards). One delete over the
 * range of staging owners, by index user_flashcard_open's prefix; a run again finds none.
 */
export const stagedSearchPagesRemoved = {
  name: 'staged-search-pages-removed',
  run: async (db: Db): Promise<void> => {
    // every owner that starts with the prefix: up to the prefix with its last character's next
    const end = STAGING_OWNER_PREFIX.slice(0, -1) + String.fromCharCode(STAGING_OWNER_PREFIX.charCodeAt(STAGING_OWNER_PREFIX.length - 1) + 1)
    await db.collection<{ userID: string }>('searchPages').deleteMany({ userID: { $gte: STAGING_OWNER_PREFIX, $lt: end } })
  }
}
