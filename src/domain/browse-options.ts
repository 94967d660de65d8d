// What browse-cards offers (domain/browse.ts): its sorts, standings and page, apart
// from the cursor's code so that the page's types (web/) can read them.

export const BROWSE_SORTS = ['created', 'due'] as const
export type BrowseSort = typeof BROWSE_SORTS[number]

export const BROWSE_ORDERS = ['asc', 'desc'] as const
export type BrowseOrder = typeof BROWSE_ORDERS[number]

export const BROWSE_STANDINGS = ['new', 'learning', 'review', 'suspended', 'buried', 'flagged'] as const
export type BrowseStanding = typeof BROWSE_STANDINGS[number]

/** The most rows of one page of browse-cards. */
export const BROWSE_PAGE_ROWS = 500

/** The longest sortField, in characters, … included. */
export const SORT_FIELD_LENGTH = 120
