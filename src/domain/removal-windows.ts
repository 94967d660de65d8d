/**
 * The windows in which a deleted account's documents of one collection are
 * removed: ranges of one key that an index of the collection leads with
 * after `userID` (a card's creation order, a review's instant), walked from
 * the lowest key up. Each window is first read for its first keys, which
 * says where a batch of documents ends in it; the removal then takes only
 * that batch. A read holds up no one, where a removal holds up every write
 * to its collection while it runs on the embedded database, and one
 * `deleteMany` of a whole account there would hold them up for as long as
 * it takes: each removal takes at most a batch (and the documents that share
 * its last key).
 */

/** Where a collection's keys lie for one account. */
export interface KeyLayout {
  /** the key below which only odd data lies (the epoch): everything under it is one window */
  origin: number
  /** the account's creation: documents made here lie at or above it; between origin and floor, one window */
  floor: number
  /** now: a window that reaches it takes everything above */
  horizon: number
  /** about how many documents lie between floor and horizon (the account's counts): sizes the first window there */
  expected: number
}

/** Keys from `from` up to `to`, each bound taken in or not; `from` may be -Infinity and `to` Infinity. */
export interface KeyRange {
  from: number
  fromIncluded: boolean
  to: number
  toIncluded: boolean
}

/**
 * Where a walk is: the next window starts at `from`, and spans `span` keys
 * unless a boundary comes first. One that reaches the horizon has no end
 * while `open`: not when the last window without an end held more than a
 * batch (a clock ahead of this one, an import's odd instants), where the walk
 * goes on in windows of the density seen until one comes back empty.
 */
export interface RemovalWalk {
  from: number
  fromIncluded: boolean
  span: number
  open: boolean
}

/** Documents one removal takes at most (but for the documents sharing its last key). */
export const REMOVAL_BATCH = 1000

/** How much wider a window may be than the one before it. */
const GROWTH = 8

/** The first window: everything below the origin. */
export function firstWalk (layout: KeyLayout): RemovalWalk {
  return { from: -Infinity, fromIncluded: true, span: spanAt(layout.origin, layout, 1), open: true }
}

/** The span of a window that starts at `from`: at the origin and the floor, what the layout says; elsewhere, `carried`. */
function spanAt (from: number, layout: KeyLayout, carried: number): number {
  if (from === layout.origin && layout.floor > layout.origin) return layout.floor - layout.origin
  if (from === layout.floor) {
    // as many keys as a batch takes at the density the account's counts give
    const batches = Math.max(1, layout.expected / REMOVAL_BATCH)
    return Math.max(1, Math.ceil((layout.horizon - layout.floor) / batches))
  }
  return carried
}

/** The window the walk reads next: it stops at the origin and at the floor, and has no end once it reaches the horizon. */
export function windowOf (walk: RemovalWalk, layout: KeyLayout): KeyRange {
  if (walk.from === -Infinity) return { from: -Infinity, fromIncluded: true, to: layout.origin, toIncluded: false }
  let to = walk.from + walk.span
  for (const boundary of [layout.origin, layout.floor]) {
    if (walk.from < boundary && to > boundary) to = boundary
  }
  return { from: walk.from, fromIncluded: walk.fromIncluded, to: to >= layout.horizon && walk.open ? Infinity : to, toIncluded: false }
}

/**
 * What to remove of `window`, given its first keys in order (at most
 * `batch` + 1 of them), and where the walk goes next (null: it is over).
 * A window holding a batch or less goes whole, and the next is sized from
 * the density seen; otherwise the removal stops before the key that begins
 * the next batch, and the walk takes up there with the span that held one.
 */
export function afterRead (walk: RemovalWalk, layout: KeyLayout, window: KeyRange, keys: readonly number[], batch = REMOVAL_BATCH): { removal: KeyRange, next: RemovalWalk | null } {
  const cut = keys[batch]
  if (cut === undefined) {
    if (window.to === Infinity) return { removal: window, next: null }
    const held = window.from === -Infinity ? walk.span : window.to - window.from
    const grown = keys.length === 0 ? held * GROWTH : Math.min(held * GROWTH, Math.ceil(held * batch / keys.length))
    return {
      removal: window,
      next: { from: window.to, fromIncluded: true, span: spanAt(window.to, layout, Math.max(1, grown)), open: walk.open || keys.length === 0 }
    }
  }
  // a window without an end held more than a batch: the next ones have ends until one is empty
  const open = walk.open && window.to !== Infinity
  if (cut > window.from) {
    const held = window.from === -Infinity ? walk.span : Math.max(1, cut - window.from)
    return {
      removal: { ...window, to: cut, toIncluded: false },
      next: { from: cut, fromIncluded: true, span: spanAt(cut, layout, held), open }
    }
  }
  // more than a batch share the window's first key: they go together, and the walk goes on past it
  return {
    removal: { from: cut, fromIncluded: true, to: cut, toIncluded: true },
    next: { from: cut, fromIncluded: false, span: walk.span, open }
  }
}

/**
 * The walk after a read of `window` that took too long: a narrower window (with an end, for one
 * that had none), or null when it cannot narrow (the window below the origin, or one key).
 */
export function narrowed (walk: RemovalWalk, window: KeyRange): RemovalWalk | null {
  if (walk.from === -Infinity) return null
  if (window.to === Infinity) return { ...walk, span: Math.max(1, Math.floor(walk.span / GROWTH)), open: false }
  const width = window.to - window.from
  if (width <= 1) return null
  return { ...walk, span: Math.max(1, Math.floor(width / GROWTH)) }
}
