import type { Db } from 'mongodb'

/**
 * Marks every account that exists when search comes as waiting for its
 * search pages (see services/search.ts): its cards were written without
 * them. Reading every card's text at start-up would take minutes at a
 * million cards; the first search of an account makes its pages instead,
 * from its own cards. Accounts registered after this step write every card's
 * page as they write the card, and are never marked. One update of the
 * accounts, whatever the number of cards; a run again marks accounts whose
 * pages are made already, which only makes them again.
 */
export const searchPagesPending = {
  name: 'search-pages-pending',
  run: async (db: Db): Promise<void> => {
    await db.collection<{ _id: string }>('users').updateMany({}, { $set: { searchPending: true } })
  }
}
