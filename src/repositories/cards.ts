import type { ClientSession, Db, Filter, UpdateFilter } from 'mongodb'
import { CardState, type CardSchedule } from '../domain/scheduling.js'
import { firstSpan, nextSpan, NO_CARD, type QueueRange } from '../domain/queues.js'
import { comesBefore, placeOf, type CardPlace, type CreationBounds } from '../domain/card-pages.js'
import { oneBatch } from './batches.js'
import type { TextFormat } from '../domain/card-content.js'
import { BURIED, SUSPENDED, queueKeyAfterSchedule, type QueueKey } from '../domain/card-states.js'
import { searchTextOf } from '../domain/search-text.js'
import { searchPagesRepository } from './search-pages.js'
import { partsOf, type BrowsePlace } from '../domain/browse.js'
import type { BrowseOrder, BrowseSort, BrowseStanding } from '../domain/browse-options.js'

/** A card's text as written, and what is rendered from it when it is written. */
export interface CardContent {
  /** as written; of a card of a cloze note, the note's cloze text */
  front: string
  /** as written; of a card of a cloze note, the note's back extra */
  back: string
  /** absent on cards written before formats: text */
  format?: TextFormat
  /** the media its sides show, each once; absent on a card that shows none (index user_media holds only cards that have it) */
  media?: string[]
  /** the sides as sanitized HTML, media as media:<mediaID>, for an html or cloze card; absent for plain text, escaped when read */
  html?: RenderedHtml
  /** the note type an Anki import made the card from (repositories/note-types.ts), whose CSS styles it; absent for a card made here */
  noteTypeID?: string
}

export interface RenderedHtml {
  front: string
  back: string
  /** the rendering's version (RENDER_VERSION): sides of an older one are rendered again when read */
  version: number
}

/** A card of a cloze note: the note it shares with its siblings, and the number it asks for. */
export interface ClozeSibling {
  noteID: string
  clozeNumber: number
}

export interface CardDocument extends CardSchedule, CardContent, Partial<ClozeSibling> {
  _id: string
  userID: string
  flashcardID: string
  /**
   * which queue of today's cards holds the card, leading the queue index after
   * the user: true (new cards) mirrors state === New, false the others, and
   * 'suspended' or 'buried' a card out of both (domain/card-states.ts)
   */
  isNew: QueueKey
  /** suspended: never in today's cards until unsuspended; absent when not */
  suspended?: boolean
  /** while buried, the start of the user's day it comes back on; absent when not buried */
  buriedUntil?: Date
  /**
   * buried as a sibling (Anki's queue -2): by the answer to another card of its note (review-card),
   * or as an Anki import brought it; an export writes it back as one. Absent for a burial by the user
   */
  buriedAsSibling?: boolean
  /** Anki's flag, 1-7; absent for none */
  flag?: number
  /** creation order, for the new-card queue (time in ms x 1000 + position in its batch) */
  createdOrder: number
  createdAt: Date
  /**
   * when its content was last changed here (edit-card, a cloze note's edit or one of its cards
   * deleted); absent until then, the card's createdAt standing for it. Of a card of a note, the
   * note's `modified` is the one that counts. An export writes it, and an import compares it, as
   * Anki compares a note's modification time: the newer side's content wins
   */
  modified?: Date
  /** bumped by every review: a review only applies to the version it was computed from */
  version: number
  lastReviewID: string | null
  /** a card imported from Anki: its note's guid and its template's ord (or cloze number less one), which a later import of the same deck matches */
  ankiGuid?: string
  ankiOrd?: number
  /**
   * Anki's id of the card, which an export writes: the one an Anki import brought, or one handed
   * out when the card was made here (storeNewCards). Absent on a card made before the ids were kept,
   * which an export gives its creation time, made unique in the export's order
   */
  ankiID?: number
  /** the Anki id of the note of a cloze note's card made here, which its cards share (a basic card made here is a note of its own id) */
  ankiNoteID?: number
  /** the tags of the Anki note it came from; absent when it had none */
  tags?: string[]
}

/** What giving a card a new schedule reads of it. */
export type StudiedCard = Pick<CardDocument, '_id' | 'version' | 'state' | 'due' | 'lastReview' | 'stability' | 'difficulty' | 'scheduledDays'>

/** A new memory state and schedule for a card, over the version it was read at. */
export interface Rescheduled { _id: string, version: number, schedule: Pick<CardSchedule, 'stability' | 'difficulty' | 'due' | 'scheduledDays'> }

/** What a tree of cards needs of a card. */
export type TreeCard = Pick<CardDocument, '_id' | 'flashcardID' | 'state' | 'scheduledDays' | 'learningSteps' | 'lastReview' | 'createdAt'>

/** A card's standing beside its schedule: suspended, buried, flagged. */
export type CardStandingFields = Pick<CardDocument, 'suspended' | 'buriedUntil' | 'flag'>

/** What get-all-cards needs of a card: the tree's fields, its content and its standing. */
export type ContentCard = TreeCard & CardContent & Partial<ClozeSibling> & Pick<CardDocument, 'createdOrder' | 'ankiOrd'> & CardStandingFields

/** What an Anki export reads of a card: all but the rendered sides and the review bookkeeping. */
export type ExportCard = Omit<CardDocument, 'html' | 'version' | 'lastReviewID'>

/** A card of today's cards: what the tree needs, and its place in its queue. */
export type QueuedCard = TreeCard & Pick<CardDocument, 'due' | 'createdOrder' | 'clozeNumber' | 'ankiOrd'>

// only what a tree needs: every field less is less to decode for each of thousands of cards
const TREE_PROJECTION = {
  _id: 1, flashcardID: 1, state: 1, scheduledDays: 1, learningSteps: 1, lastReview: 1, createdAt: 1
} as const
// the card type (its cloze number or Anki template) orders today's new cards (domain/study-pages.ts)
const QUEUE_PROJECTION = { ...TREE_PROJECTION, due: 1, createdOrder: 1, clozeNumber: 1, ankiOrd: 1 } as const
const STANDING_PROJECTION = { suspended: 1, buriedUntil: 1, flag: 1 } as const
const CONTENT_PROJECTION = { ...TREE_PROJECTION, ...STANDING_PROJECTION, createdOrder: 1, front: 1, back: 1, format: 1, html: 1, noteID: 1, clozeNumber: 1, ankiOrd: 1, noteTypeID: 1 } as const
/** what a card of the study queue shows: its content, standing and place */
const STUDY_PROJECTION = { ...CONTENT_PROJECTION, due: 1 } as const

/** A card buried until `buriedUntil`, with what putting it back in its queue needs. */
export type BuriedCard = Pick<CardDocument, '_id' | 'state' | 'due' | 'createdOrder' | 'buriedUntil'>

/** What choosing a card's siblings to bury reads of each (domain/card-states.ts, siblingsToBury). */
export type SiblingOfCard = Pick<CardDocument, '_id' | 'isNew' | 'state' | 'due' | 'lastReview'>
const SIBLING_PROJECTION = { _id: 1, isNew: 1, state: 1, due: 1, lastReview: 1 } as const

/** How many cards a flashcard holds, and of them how many are due before the day's end and how many are new (in their queues). */
export interface FlashcardCounts { cards: number, due: number, new: number }

/** A card of the study queue: its content, standing, schedule's place and what the tree shows. */
export type StudyCard = ContentCard & Pick<CardDocument, 'due'>

/** Reads one window of a queue: the cards whose `due` and `createdOrder` match (either undefined: any), the first `wanted` in queue order. */
type WindowRead = (due: Date | Record<string, Date> | undefined, createdOrder: Record<string, number> | undefined, wanted: number) => Promise<QueuedCard[]>

function windowOf (due: Date | Record<string, Date> | undefined, createdOrder: Record<string, number> | undefined) {
  return { ...(due === undefined ? {} : { due }), ...(createdOrder === undefined ? {} : { createdOrder }) }
}

/**
 * The first `limit` cards of a queue in (due, createdOrder) order, read in
 * windows from its start: each window one range of the queue's index, whose
 * every card the database reads and sorts, so that what is read stays close
 * to what is returned. The windows follow each other without gap or overlap,
 * so their cards, each window's sorted, come in queue order; the cards
 * before the start are none, by what the start means.
 */
async function readQueue (range: QueueRange, limit: number, read: WindowRead): Promise<QueuedCard[]> {
  if (limit <= 0) return []
  const { start, end } = range
  if (start === undefined) return await read(end === null ? undefined : { $lt: end }, undefined, limit)
  const found: QueuedCard[] = []
  if (start.at.getTime() >= NO_CARD.getTime() || (end !== null && start.at.getTime() >= end.getTime())) return found
  let from = start.at
  // true once the cards at `from` itself have been read
  let pastFrom = false
  if (start.order !== -Infinity) {
    if (start.order !== Infinity) {
      // the start is a card of a batch created together: from there on, in creation order,
      // first about as many as wanted (a batch's creation orders follow each other), then the rest of that instant
      const firstOrders = start.order + 2 * limit
      found.push(...await read(from, { $gte: start.order, $lt: firstOrders }, limit))
      if (found.length < limit) found.push(...await read(from, { $gte: firstOrders }, limit - found.length))
    }
    pastFrom = true
  }
  let span = firstSpan(start)
  while (found.length < limit) {
    const to = from.getTime() + span
    const last = end === null ? to > range.horizon.getTime() : to >= end.getTime()
    const upTo = last ? end : new Date(to)
    const wanted = limit - found.length
    const window = await read({ [pastFrom ? '$gt' : '$gte']: from, ...(upTo === null ? {} : { $lt: upTo }) }, undefined, wanted)
    found.push(...window)
    if (last) break
    span = nextSpan(span, window.length, wanted - window.length)
    from = new Date(to)
    pastFrom = false
  }
  return found
}

/** Where a read in creation order looks: the cards of these createdOrders, those of one createdOrder after an id. */
type OrderWindow = { createdOrder: number | Record<string, number>, _id?: { $gt: string } }

/** Reads the first `limit` cards of a window in creation order (createdOrder, then _id). */
type OrderWindowRead<Card> = (window: OrderWindow, limit: number) => Promise<Card[]>

/** Cards in creation order, a few at a time. */
export interface CreationOrderReader<Card> {
  /** the next `wanted` cards; fewer only once the last card has been read */
  next: (wanted: number) => Promise<Card[]>
}

/**
 * Reads cards in creation order from after a place (or from the first), in
 * windows of createdOrder, as readQueue reads a queue in windows of due: a
 * query reads every card its filter matches whatever its limit (the embedded
 * database even on an index), so each window is sized to hold about the cards
 * still wanted, from the density seen, and grows through empty stretches. The
 * windows follow each other without gap or overlap; a window cut short by its
 * limit is taken up again after its last card returned (the rest of that
 * card's createdOrder by id, then above it), so no card is skipped or read twice.
 */
function readerInCreationOrder<Card extends Pick<CardDocument, '_id' | 'createdOrder'>> (
  read: OrderWindowRead<Card>, after: CardPlace | null, bounds: CreationBounds
): CreationOrderReader<Card> {
  // the cards of this createdOrder after this id are still to read
  let tie: CardPlace | null = after
  // then the windows go on from here: above it, or at it too once a window ended there; -Infinity before the floor's window
  let from = after === null ? -Infinity : after.createdOrder
  let fromIncluded = false
  // createdOrders per card seen: a batch created together has consecutive ones
  let unitsPerCard = 1
  let ended = false

  return {
    async next (wanted: number): Promise<Card[]> {
      const found: Card[] = []
      if (wanted <= 0 || ended) return found
      const takeUpAfter = (last: Card) => {
        tie = placeOf(last)
        from = last.createdOrder
        fromIncluded = false
      }
      if (tie !== null) {
        found.push(...await read({ createdOrder: tie.createdOrder, _id: { $gt: tie.cardID } }, wanted))
        tie = null
        const last = found.at(-1)
        if (last !== undefined && found.length >= wanted) {
          takeUpAfter(last)
          return found
        }
      }
      // the next window's span; when unknown, as many createdOrders as the cards wanted take at the density seen
      // (one more for a window that starts past `from`)
      let span: number | undefined
      while (found.length < wanted) {
        const asked = wanted - found.length
        const start = from
        const below = start === -Infinity
        span ??= Math.ceil(asked * unitsPerCard) + (fromIncluded ? 0 : 1)
        const to = below ? bounds.floor : start + span
        const last = !below && to >= bounds.horizon
        const bound = below ? {} : { [fromIncluded ? '$gte' : '$gt']: start }
        const window = await read({ createdOrder: { ...bound, ...(last ? {} : { $lt: to }) } }, asked)
        found.push(...window)
        const lastCard = window.at(-1)
        if (lastCard !== undefined && window.length >= asked) {
          // cut short by the limit: the window may hold more after its last card, as densely as its cards lie
          const firstCard = window[0]
          if (firstCard !== undefined && window.length > 1) unitsPerCard = Math.max(1, (lastCard.createdOrder - firstCard.createdOrder) / (window.length - 1))
          takeUpAfter(lastCard)
          return found
        }
        if (last) {
          ended = true
          return found
        }
        if (below) {
          span = undefined
        } else {
          if (window.length > 0) unitsPerCard = Math.max(1, span / window.length)
          span = nextSpan(span, window.length, asked - window.length)
        }
        from = to
        fromIncluded = true
      }
      return found
    }
  }
}

/** What browse-cards shows of a card: its flashcard, schedule, standing and what its sort field is taken from. */
export type BrowsedCard = Pick<CardDocument, '_id' | 'flashcardID' | 'state' | 'due' | 'scheduledDays' | 'difficulty' | 'lapses' | 'reps' | 'createdOrder' | 'isNew' | 'ankiOrd'> &
  CardContent & Partial<ClozeSibling> & CardStandingFields

const BROWSE_PROJECTION = {
  _id: 1, flashcardID: 1, state: 1, due: 1, scheduledDays: 1, difficulty: 1, lapses: 1, reps: 1, createdOrder: 1, isNew: 1,
  ...STANDING_PROJECTION, front: 1, back: 1, format: 1, html: 1, noteID: 1, clozeNumber: 1, ankiOrd: 1, noteTypeID: 1
} as const

/** Which of the user's cards a browse shows: those of some flashcards (absent: all), of one standing at `now`. */
export interface BrowseFilter { flashcardIDs?: readonly string[], standing?: BrowseStanding, now: Date }

/** Where the keys of a browse order lie: a first window takes everything below `floor`, a last one everything from `horizon` on. */
export interface KeyBounds { floor: number, horizon: number, firstSpan: number }

const EVERY_STATE = [CardState.New, CardState.Learning, CardState.Review, CardState.Relearning]
const EVERY_QUEUE_KEY: QueueKey[] = [true, false, SUSPENDED, BURIED]

/**
 * The query of a browse filter, and of one part of an order (new cards, the
 * others, or all): the states and queue keys allowed are intersected, so that
 * the queue key stays one equality or $in for user_queue to read by.
 */
function browseQuery (userID: string, filter: BrowseFilter, newCards: boolean | null): Record<string, unknown> | null {
  let states: number[] = EVERY_STATE
  let keys: QueueKey[] | null = null
  const keep = <T>(all: T[], allowed: readonly T[]): T[] => all.filter((value) => allowed.includes(value))
  if (newCards === true) {
    states = [CardState.New]
    keys = [true, SUSPENDED, BURIED]
  } else if (newCards === false) {
    states = keep(states, [CardState.Learning, CardState.Review, CardState.Relearning])
    keys = [false, SUSPENDED, BURIED]
  }
  const query: Record<string, unknown> = { userID }
  switch (filter.standing) {
    case 'new': states = keep(states, [CardState.New]); break
    case 'learning': states = keep(states, [CardState.Learning, CardState.Relearning]); break
    case 'review': states = keep(states, [CardState.Review]); break
    case 'suspended': keys = keep(keys ?? EVERY_QUEUE_KEY, [SUSPENDED]); break
    case 'buried':
      // a card both suspended and buried is out under suspension, and still buried
      keys = keep(keys ?? EVERY_QUEUE_KEY, [SUSPENDED, BURIED])
      query.buriedUntil = { $gt: filter.now }
      break
    case 'flagged': query.flag = { $gte: 1 }; break
    case undefined: break
  }
  if (states.length === 0 || keys?.length === 0) return null
  if (keys !== null) query.isNew = keys.length === 1 ? keys[0] : { $in: keys }
  if (states.length < EVERY_STATE.length) query.state = states.length === 1 ? states[0] : { $in: states }
  if (filter.flashcardIDs !== undefined) query.flashcardID = filter.flashcardIDs.length === 1 ? filter.flashcardIDs[0] : { $in: [...filter.flashcardIDs] }
  return query
}

/** A range of a browse order's key: from `low`, below `high`, either absent for none; `inclusive` says whether each end is in it. */
interface KeyWindow { low?: { at: number, inclusive: boolean }, high?: { at: number, inclusive: boolean } }

/** Reads the first `limit` cards of a window, or of one key after an id, in the order's direction. */
type KeyWindowRead<Card> = (window: KeyWindow | { key: number, afterID: string }, limit: number) => Promise<Card[]>

/**
 * The first `wanted` cards of an order after a place (or from its first), in
 * windows of its key, as readQueue reads a queue in windows of due: a query
 * reads every card its filter matches whatever its limit, so each window is
 * sized to hold about the cards still wanted, from the density seen, and grows
 * through empty stretches. The windows follow each other without gap or
 * overlap: below the floor, up from it, and from the horizon on. Descending,
 * the same windows are taken from the top down.
 */
async function readInKeyOrder<Card> (read: KeyWindowRead<Card>, after: { key: number, cardID: string } | null, bounds: KeyBounds,
  descending: boolean, wanted: number): Promise<Card[]> {
  const found: Card[] = []
  if (wanted <= 0) return found
  // positions go up in the order read: the key ascending, its negation descending
  const position = (key: number): number => descending ? -key : key
  const floor = descending ? -bounds.horizon : bounds.floor
  const horizon = descending ? -bounds.floor : bounds.horizon
  const windowOf = (from: number, included: boolean, to: number | null): KeyWindow => {
    const start = from === -Infinity ? undefined : { at: position(from), inclusive: included }
    const end = to === null ? undefined : { at: position(to), inclusive: false }
    return descending ? { ...(start === undefined ? {} : { high: start }), ...(end === undefined ? {} : { low: end }) } : { ...(start === undefined ? {} : { low: start }), ...(end === undefined ? {} : { high: end }) }
  }
  let from = -Infinity
  let included = false
  if (after !== null) {
    found.push(...await read({ key: after.key, afterID: after.cardID }, wanted))
    from = position(after.key)
  }
  let span = bounds.firstSpan
  while (found.length < wanted) {
    const asked = wanted - found.length
    const below = from === -Infinity
    const to = below || from < floor ? floor : from + span
    const last = !below && to >= horizon
    const window = await read(windowOf(from, included, last ? null : to), asked)
    found.push(...window)
    if (last || window.length >= asked) break
    if (!below && from >= floor) span = nextSpan(span, window.length, asked - window.length)
    from = to
    included = true
  }
  return found
}

/** A card's new standing: its queue key, whether it is suspended, until when it is buried (null: not) and whether as a sibling. */
export interface StandingChange { isNew: QueueKey, suspended: boolean, buriedUntil: Date | null, buriedAsSibling: boolean }

/** What a change of standing reads of a card. */
export type StandingCard = Pick<CardDocument, '_id' | 'flashcardID' | 'state' | 'due' | 'createdOrder' | 'isNew' | 'suspended' | 'buriedUntil' | 'buriedAsSibling' | 'flag'>

/** A change of one card's standing, or of its flag. */
export type CardChange = { cardID: string, flashcardID: string } & ({ standing: StandingChange } | { flag: number })

/** The update that gives a card a standing: what is not set is unset. */
function standingUpdate (standing: StandingChange): UpdateFilter<CardDocument> {
  const unset = {
    ...(standing.suspended ? {} : { suspended: '' as const }),
    ...(standing.buriedUntil === null ? { buriedUntil: '' as const } : {}),
    ...(standing.buriedAsSibling ? {} : { buriedAsSibling: '' as const })
  }
  return {
    $set: {
      isNew: standing.isNew,
      ...(standing.suspended ? { suspended: true } : {}),
      ...(standing.buriedUntil === null ? {} : { buriedUntil: standing.buriedUntil }),
      ...(standing.buriedAsSibling ? { buriedAsSibling: true } : {})
    },
    ...(Object.keys(unset).length === 0 ? {} : { $unset: unset })
  }
}

/** The update that gives a card a flag; 0 is none, kept as no field. */
function flagUpdate (flag: number): UpdateFilter<CardDocument> {
  return flag === 0 ? { $unset: { flag: '' } } : { $set: { flag } }
}

/** The cards of some flashcards read in two halves side by side (a core each on the embedded database), then put in creation order. */
async function inCreationOrder<Card extends Pick<CardDocument, '_id' | 'createdOrder'>> (
  flashcardIDs: readonly string[], read: (part: string[]) => Promise<Card[]>
): Promise<Card[]> {
  const half = Math.ceil(flashcardIDs.length / 2)
  const halves = [flashcardIDs.slice(0, half), flashcardIDs.slice(half)].filter((part) => part.length > 0)
  const found = (await Promise.all(halves.map(read))).flat()
  return found.sort((a, b) => a.createdOrder - b.createdOrder || (a._id < b._id ? -1 : a._id > b._id ? 1 : 0))
}

/**
 * The user's cards. Every write of a card's text (insertMany, setContents,
 * removeCards, removeByFlashcards) also keeps the search pages in step
 * (search-pages.ts), in the same session: whatever writes cards, the text
 * searches read is the text the cards hold.
 */
export function cardsRepository (db: Db, session?: ClientSession) {
  const cards = db.collection<CardDocument>('cards')
  const search = searchPagesRepository(db, session)
  const inSession = { session }

  /**
   * A window of a queue, only the cards of some flashcards: the filter in a
   * stage after the projection, so that the window is still read by
   * user_queue (with it in the first $match, the database would weigh
   * user_flashcard), and the window's cards are still its cards in order.
   */
  function withinRead (userID: string, isNew: boolean, within: readonly string[]): WindowRead {
    return async (due, createdOrder, wanted) => await cards.aggregate<QueuedCard>([
      { $match: { userID, isNew, ...windowOf(due, createdOrder) } },
      { $project: QUEUE_PROJECTION },
      { $match: { flashcardID: { $in: [...within] } } },
      { $sort: { due: 1, createdOrder: 1 } },
      { $limit: wanted }
    ], { ...oneBatch(wanted + 1), session }).toArray()
  }
  return {
    /**
     * Stores new cards with their search pages; `searchable: false` (an import's staged cards) writes
     * none: the account they are handed to makes its pages at its next search.
     */
    async insertMany (documents: CardDocument[], { searchable = true } = {}): Promise<void> {
      if (documents.length === 0) return
      await cards.insertMany(documents, { ordered: true, session })
      if (!searchable) return
      // the pages of each flashcard the cards are added to
      const byFlashcard = new Map<string, CardDocument[]>()
      for (const card of documents) {
        const added = byFlashcard.get(card.flashcardID)
        if (added === undefined) byFlashcard.set(card.flashcardID, [card])
        else added.push(card)
      }
      for (const [flashcardID, added] of byFlashcard) {
        await search.add(added[0]?.userID ?? '', flashcardID, added.map((card) => ({ cardID: card._id, text: searchTextOf(card) })))
      }
    },

    /** The Anki ids of these cloze notes made here, by noteID, as their cards keep them. Index user_note. */
    async ankiNoteIDsOf (userID: string, noteIDs: readonly string[]): Promise<Map<string, number>> {
      if (noteIDs.length === 0) return new Map()
      const found = await cards.find({ userID, noteID: { $in: [...noteIDs] }, ankiNoteID: { $exists: true } }, { projection: { _id: 0, noteID: 1, ankiNoteID: 1 }, session }).toArray()
      return new Map(found.map((card) => [card.noteID as string, card.ankiNoteID as number]))
    },

    /** The notes (kept from Anki imports, or made by add-note) that cards of these flashcards are of, each once. Index user_flashcard. */
    async keptNotesIn (userID: string, flashcardIDs: readonly string[]): Promise<string[]> {
      if (flashcardIDs.length === 0) return []
      const found = await cards.find({ userID, flashcardID: { $in: [...flashcardIDs] }, ankiGuid: { $exists: true } }, { projection: { _id: 0, noteID: 1 }, session }).toArray()
      return [...new Set(found.flatMap((card) => card.noteID === undefined ? [] : [card.noteID]))]
    },

    /** Of these notes, those no card of the user is of any more. Index user_note. */
    async notesWithoutCards (userID: string, noteIDs: readonly string[]): Promise<string[]> {
      const left = new Set<string>()
      for (let start = 0; start < noteIDs.length; start += 5000) {
        const batch = noteIDs.slice(start, start + 5000)
        for (const card of await cards.find({ userID, noteID: { $in: batch } }, { projection: { _id: 0, noteID: 1 }, session }).toArray()) {
          if (card.noteID !== undefined) left.add(card.noteID)
        }
      }
      return noteIDs.filter((noteID) => !left.has(noteID))
    },

    /** Removes every card of the flashcards asked for; how many there were. Index user_flashcard. */
    async removeByFlashcards (userID: string, flashcardIDs: readonly string[]): Promise<number> {
      if (flashcardIDs.length === 0) return 0
      await search.removeFlashcards(userID, flashcardIDs)
      return (await cards.deleteMany({ userID, flashcardID: { $in: [...flashcardIDs] } }, inSession)).deletedCount
    },

    /** How many cards a flashcard holds. Index user_flashcard. */
    countInFlashcard (userID: string, flashcardID: string): Promise<number> {
      return cards.countDocuments({ userID, flashcardID }, inSession)
    },

    /** Some `size` cards of a flashcard, with what removing them reads: their media and notes. Index user_flashcard. */
    someOfFlashcard (userID: string, flashcardID: string, size: number): Promise<Array<Pick<CardDocument, '_id' | 'media' | 'noteID' | 'ankiGuid'>>> {
      return cards.find({ userID, flashcardID }, { projection: { _id: 1, media: 1, noteID: 1, ankiGuid: 1 }, limit: size, session }).toArray()
    },

    /** Removes the cards asked for from one flashcard; how many there were. */
    async removeCards (userID: string, flashcardID: string, cardIDs: readonly string[]): Promise<number> {
      if (cardIDs.length === 0) return 0
      await search.remove(userID, flashcardID, cardIDs)
      return (await cards.deleteMany({ userID, flashcardID, _id: { $in: [...cardIDs] } }, inSession)).deletedCount
    },

    /** Moves cards of one flashcard into another, their schedules and places in creation order kept, their searchable text with them; how many moved. */
    async moveCards (userID: string, from: string, cardIDs: readonly string[], to: string): Promise<number> {
      if (cardIDs.length === 0 || from === to) return 0
      const moving = await cards.find({ userID, flashcardID: from, _id: { $in: [...cardIDs] } }, { session }).toArray()
      await search.remove(userID, from, moving.map((card) => card._id))
      const moved = (await cards.updateMany({ userID, flashcardID: from, _id: { $in: moving.map((card) => card._id) } }, { $set: { flashcardID: to } }, inSession)).modifiedCount
      await search.add(userID, to, moving.map((card) => ({ cardID: card._id, text: searchTextOf(card) })))
      return moved
    },

    /**
     * Gives cards new content (text, format, rendered sides, media), and leaves
     * their schedules alone. Rendered sides absent: none kept (plain text).
     * `modified`: the time of a change made here, which the cards keep (CardDocument.modified).
     */
    async setContents (userID: string, flashcardID: string, changes: ReadonlyArray<{ cardID: string, content: CardContent }>, modified?: Date): Promise<void> {
      if (changes.length === 0) return
      await cards.bulkWrite(changes.map(({ cardID, content }) => {
        const { html, media, ...rest } = content
        // a side without html, or without media, loses the field rather than keep the old one
        const unset: Partial<Record<'html' | 'media', ''>> = { ...(html === undefined ? { html: '' } : {}), ...(media === undefined ? { media: '' } : {}) }
        const set = { ...rest, ...(html === undefined ? {} : { html }), ...(media === undefined ? {} : { media }), ...(modified === undefined ? {} : { modified }) }
        return {
          updateOne: {
            filter: { _id: cardID, userID, flashcardID },
            update: Object.keys(unset).length === 0 ? { $set: set } : { $set: set, $unset: unset }
          }
        }
      }), { ordered: true, session })
      // a card of a cloze note is found by its answer side, which its number decides
      const numbers = await cards.find({ _id: { $in: changes.map((change) => change.cardID) }, userID, flashcardID }, { projection: { clozeNumber: 1 }, session }).toArray()
      const clozeNumber = new Map(numbers.map((card) => [card._id, card.clozeNumber]))
      await search.setTexts(userID, flashcardID, changes.map(({ cardID, content }) => {
        const number = clozeNumber.get(cardID)
        return { cardID, text: searchTextOf(number === undefined ? content : { ...content, clozeNumber: number }) }
      }))
    },

    /** Gives these cards of the user tags (none: they have none), as changed at `modified`. */
    async setTags (userID: string, cardIDs: readonly string[], tags: readonly string[], modified: Date): Promise<void> {
      if (cardIDs.length === 0) return
      await cards.updateMany({ _id: { $in: [...cardIDs] }, userID }, tags.length > 0 ? { $set: { tags: [...tags], modified } } : { $set: { modified }, $unset: { tags: '' } }, inSession)
    },

    /** Takes the tags off every card of a note (its note has none left). Index user_note. */
    async dropTags (userID: string, noteID: string): Promise<void> {
      await cards.updateMany({ userID, noteID, tags: { $exists: true } }, { $unset: { tags: '' } }, inSession)
    },

    /** Every card of these notes, in whichever flashcard, in no order. Index user_note. */
    async ofNotes (userID: string, noteIDs: readonly string[]): Promise<CardDocument[]> {
      const found: CardDocument[] = []
      for (let start = 0; start < noteIDs.length; start += 5000) {
        found.push(...await cards.find({ userID, noteID: { $in: noteIDs.slice(start, start + 5000) } }, inSession).toArray())
      }
      return found
    },

    /** Every card of a note, in whichever flashcard, by its template (or cloze number). Index user_note. */
    ofNoteAnywhere (userID: string, noteID: string): Promise<CardDocument[]> {
      return cards.find({ userID, noteID }, inSession).sort({ ankiOrd: 1, clozeNumber: 1, _id: 1 }).toArray()
    },

    /** The cards of one cloze note, by number. Index user_flashcard, then the note. */
    ofNote (userID: string, flashcardID: string, noteID: string): Promise<CardDocument[]> {
      return cards.find({ userID, flashcardID, noteID }, inSession).sort({ clozeNumber: 1, _id: 1 }).toArray()
    },

    /** The cards of one flashcard in creation order. Index user_flashcard. */
    byFlashcard (userID: string, flashcardID: string): Promise<CardDocument[]> {
      return cards.find({ userID, flashcardID }, inSession).sort({ createdOrder: 1, _id: 1 }).toArray()
    },

    /**
     * A flashcard's cards in creation order from after a place (get-flashcard's pages), read as
     * readerInCreationOrder says: each window one range of index user_flashcard_order.
     */
    flashcardInCreationOrder (userID: string, flashcardID: string, after: CardPlace | null, bounds: CreationBounds): CreationOrderReader<CardDocument> {
      return readerInCreationOrder(async (window, limit) => await cards.find({ userID, flashcardID, ...window }, { ...oneBatch(limit), session })
        .sort({ createdOrder: 1, _id: 1 }).limit(limit).toArray(), after, bounds)
    },

    /**
     * Some cards of a flashcard, in creation order from after a place (get-flashcard with
     * cardIDs): their places read first, then their content as many at a time as wanted.
     * A card deleted meanwhile is left out. By _id.
     */
    chosenInCreationOrder (userID: string, flashcardID: string, cardIDs: readonly string[], after: CardPlace | null): CreationOrderReader<CardDocument> {
      let places: CardPlace[] | undefined
      return {
        async next (wanted: number): Promise<CardDocument[]> {
          places ??= (await cards.find({ _id: { $in: [...cardIDs] }, userID, flashcardID }, { projection: { createdOrder: 1 }, ...oneBatch(cardIDs.length), session }).toArray())
            .map(placeOf).filter((place) => after === null || comesBefore(after, place)).sort((a, b) => comesBefore(a, b) ? -1 : 1)
          const found: CardDocument[] = []
          while (found.length < wanted && places.length > 0) {
            const taken = places.splice(0, wanted - found.length)
            const read = await cards.find({ _id: { $in: taken.map((place) => place.cardID) }, userID, flashcardID }, { ...oneBatch(taken.length), session }).toArray()
            found.push(...read.sort((a, b) => comesBefore(placeOf(a), placeOf(b)) ? -1 : 1))
          }
          return found
        }
      }
    },

    /**
     * All of a user's cards in creation order from after a place, with their content
     * (get-all-cards' pages), read as readerInCreationOrder says: each window one range
     * of index user_order.
     */
    libraryInCreationOrder (userID: string, after: CardPlace | null, bounds: CreationBounds): CreationOrderReader<ContentCard> {
      return readerInCreationOrder(async (window, limit) => await cards.find({ userID, ...window }, { projection: CONTENT_PROJECTION, ...oneBatch(limit), session })
        .sort({ createdOrder: 1, _id: 1 }).limit(limit).toArray(), after, bounds)
    },

    /** The creation order of the newest card of a flashcard, or null for one without cards. Index user_flashcard. */
    async lastCreatedOrder (userID: string, flashcardID: string): Promise<number | null> {
      const [last] = await cards.find({ userID, flashcardID }, { projection: { createdOrder: 1 }, session }).sort({ createdOrder: -1 }).limit(1).toArray()
      return last?.createdOrder ?? null
    },

    findOne (userID: string, flashcardID: string, cardID: string): Promise<CardDocument | null> {
      return cards.findOne({ _id: cardID, userID, flashcardID }, inSession)
    },

    /**
     * Applies a review computed from the card as read (its version): false
     * when the card changed since. In a transaction a concurrent change is a
     * write conflict and the transaction runs again; the version guards the
     * card outside one too.
     */
    async applyReview (card: CardDocument, schedule: CardSchedule, reviewID: string): Promise<boolean> {
      const result = await cards.updateOne(
        { _id: card._id, userID: card.userID, version: card.version },
        // a suspended or buried card stays out of the queues
        { $set: { ...schedule, isNew: queueKeyAfterSchedule(card.isNew, schedule.state), lastReviewID: reviewID, version: card.version + 1 } },
        inSession
      )
      return result.matchedCount === 1
    },

    /** Puts back the schedule a card had before its last review (undo), only while the card is as read: false otherwise. */
    async restoreSchedule (card: CardDocument, schedule: CardSchedule, lastReviewID: string | null): Promise<boolean> {
      const result = await cards.updateOne(
        { _id: card._id, userID: card.userID, version: card.version, lastReviewID: card.lastReviewID },
        { $set: { ...schedule, isNew: queueKeyAfterSchedule(card.isNew, schedule.state), lastReviewID, version: card.version + 1 } },
        inSession
      )
      return result.matchedCount === 1
    },

    /**
     * The media the cards of these flashcards show: what deleting them may
     * leave unused. Index user_flashcard; cards without media are read too
     * (only their _id-less projection), since a filter on `media` would make
     * the embedded database weigh index user_media as well, which costs more.
     */
    async mediaOf (userID: string, flashcardIDs: readonly string[]): Promise<string[]> {
      if (flashcardIDs.length === 0) return []
      const shown = await cards.find({ userID, flashcardID: { $in: [...flashcardIDs] } }, { projection: { _id: 0, media: 1 }, session }).toArray()
      return [...new Set(shown.flatMap((card) => card.media ?? []))]
    },

    /** Of these media ids, those a card of the user still shows. Index user_media: one range per id. */
    async referencedMedia (userID: string, mediaIDs: readonly string[]): Promise<Set<string>> {
      if (mediaIDs.length === 0) return new Set()
      const asked = new Set(mediaIDs)
      const shown = await cards.find({ userID, media: { $in: [...mediaIDs] } }, { projection: { _id: 0, media: 1 }, session }).toArray()
      return new Set(shown.flatMap((card) => card.media ?? []).filter((mediaID) => asked.has(mediaID)))
    },

    /** The user's cards imported from notes of these guids. Index user_flashcard (its prefix). */
    ofAnkiNotes (userID: string, guids: readonly string[]): Promise<Array<Pick<CardDocument, '_id' | 'flashcardID' | 'ankiGuid' | 'ankiOrd' | 'noteID' | 'modified' | 'createdAt'>>> {
      if (guids.length === 0) return Promise.resolve([])
      return cards.find({ userID, ankiGuid: { $in: [...guids] } }, { projection: { _id: 1, flashcardID: 1, ankiGuid: 1, ankiOrd: 1, noteID: 1, modified: 1, createdAt: 1 }, ...oneBatch(100_000), session }).toArray()
    },

    /**
     * The user's cards that no Anki note names (no `ankiGuid`): the cards made here, which an
     * export writes under guids of their own (domain/anki/export.ts, noteGuid). Every card of the
     * user is read (index user_flashcard's prefix), a few thousand at a time.
     */
    async * withoutAnkiNote (userID: string): AsyncGenerator<Pick<CardDocument, '_id' | 'noteID' | 'clozeNumber' | 'flashcardID' | 'modified' | 'createdAt'>> {
      yield * cards.find({ userID, ankiGuid: { $exists: false } }, { projection: { _id: 1, noteID: 1, clozeNumber: 1, flashcardID: 1, modified: 1, createdAt: 1 }, batchSize: 5000, session })
    },

    /**
     * Gives the cards staged under `from` to the user, a flashcard at a time, at most its `batch`
     * cards a write, so that each write stays short whatever the cards hold (one that rewrites
     * hundreds of megabytes of cards outlasts the database's answer time). The last `batch` of a
     * flashcard go in one update of the index user_flashcard's range, which on the embedded engine
     * is three times faster than an update of listed ids. How many moved. Repeating it moves what
     * is left.
     */
    async handOver (from: string, userID: string, flashcards: ReadonlyArray<{ flashcardID: string, batch: number }>): Promise<number> {
      let moved = 0
      for (const { flashcardID, batch } of flashcards) {
        for (;;) {
          const ids = (await cards.find({ userID: from, flashcardID }, { projection: { _id: 1 }, limit: batch + 1, session }).toArray()).map((card) => card._id)
          if (ids.length <= batch) {
            moved += (await cards.updateMany({ userID: from, flashcardID }, { $set: { userID } }, inSession)).modifiedCount
            break
          }
          moved += (await cards.updateMany({ _id: { $in: ids.slice(0, batch) }, userID: from }, { $set: { userID } }, inSession)).modifiedCount
        }
      }
      return moved
    },

    /** Removes the cards staged under `owner`, `batch` at a time. */
    async removeStaged (owner: string, batch = 2000): Promise<number> {
      let removed = 0
      for (;;) {
        const ids = (await cards.find({ userID: owner }, { projection: { _id: 1 }, limit: batch, session }).toArray()).map((card) => card._id)
        if (ids.length === 0) return removed
        removed += (await cards.deleteMany({ _id: { $in: ids }, userID: owner }, inSession)).deletedCount
      }
    },

    /** These cards, those of the user only, whole, in no order. Index _id. */
    byIds (userID: string, cardIDs: readonly string[]): Promise<CardDocument[]> {
      if (cardIDs.length === 0) return Promise.resolve([])
      return cards.find({ _id: { $in: [...cardIDs] }, userID }, { ...oneBatch(cardIDs.length + 1), session }).toArray()
    },

    findById (userID: string, cardID: string): Promise<CardDocument | null> {
      return cards.findOne({ _id: cardID, userID }, inSession)
    },

    /**
     * Every card of the user that is not new, with what rescheduling reads:
     * those out of the queues too (suspended, buried), whose schedules are
     * kept for when they come back. Index user_queue (its prefix, three keys).
     */
    studied (userID: string): Promise<StudiedCard[]> {
      return cards.find({ userID, isNew: { $in: [false, SUSPENDED, BURIED] }, state: { $ne: CardState.New } }, {
        projection: { _id: 1, version: 1, state: 1, due: 1, lastReview: 1, stability: 1, difficulty: 1, scheduledDays: 1 },
        ...oneBatch(10_000),
        session
      }).toArray()
    },

    /**
     * Gives cards new schedules, each only over the version it was read at,
     * and counts it as a change of the card: a card reviewed meanwhile keeps
     * its review's schedule. How many were changed.
     */
    async reschedule (userID: string, changes: readonly Rescheduled[]): Promise<number> {
      if (changes.length === 0) return 0
      const result = await cards.bulkWrite(changes.map(({ _id, version, schedule }) => ({
        updateOne: { filter: { _id, userID, version }, update: { $set: { ...schedule, version: version + 1 } } }
      })), { ordered: false, session })
      return result.modifiedCount
    },

    /**
     * Sets a card's standing (suspended, buried until, and the queue key they
     * and its schedule give: domain/card-states.ts); null for a removed part.
     * The card as it now is, or null when it is not the user's in that flashcard.
     */
    setStanding (userID: string, flashcardID: string, cardID: string, standing: StandingChange): Promise<CardDocument | null> {
      return cards.findOneAndUpdate({ _id: cardID, userID, flashcardID }, standingUpdate(standing), { returnDocument: 'after', session })
    },

    /** What a change of standing reads of these cards, those of the user only, in no order. Index _id. */
    standingsByIds (userID: string, cardIDs: readonly string[]): Promise<StandingCard[]> {
      if (cardIDs.length === 0) return Promise.resolve([])
      return cards.find({ _id: { $in: [...cardIDs] }, userID }, {
        projection: { _id: 1, flashcardID: 1, state: 1, due: 1, createdOrder: 1, isNew: 1, suspended: 1, buriedUntil: 1, buriedAsSibling: 1, flag: 1 },
        ...oneBatch(cardIDs.length + 1),
        session
      }).toArray()
    },

    /** Sets the standing of many cards (as setStanding) or their flag, in one bulk write; how many matched. */
    async setStandings (userID: string, changes: ReadonlyArray<CardChange>): Promise<number> {
      if (changes.length === 0) return 0
      const result = await cards.bulkWrite(changes.map((change) => ({
        updateOne: { filter: { _id: change.cardID, userID, flashcardID: change.flashcardID }, update: 'flag' in change ? flagUpdate(change.flag) : standingUpdate(change.standing) }
      })), { ordered: false, session })
      return result.matchedCount
    },

    /** Sets a card's flag (0: none); the card as it now is, or null when it is not the user's in that flashcard. */
    setFlag (userID: string, flashcardID: string, cardID: string, flag: number): Promise<CardDocument | null> {
      return cards.findOneAndUpdate({ _id: cardID, userID, flashcardID }, flagUpdate(flag), { returnDocument: 'after', session })
    },

    /**
     * The other cards of a card's note: those of its cloze note (index user_note) and those
     * imported from its Anki note, of the same guid (index user_anki_note), each once. Two
     * queries rather than one $or, which would make the embedded database scan the collection;
     * the card itself is left out here, as a filter on _id makes that database weigh the _id
     * index and read far more than the note's cards.
     */
    async siblingsOf (card: Pick<CardDocument, '_id' | 'userID' | 'noteID' | 'ankiGuid'>): Promise<SiblingOfCard[]> {
      const { userID } = card
      const read = (filter: { noteID: string } | { ankiGuid: string }) => cards.find({ userID, ...filter }, { projection: SIBLING_PROJECTION, session }).toArray()
      const [ofNote, ofAnkiNote] = await Promise.all([
        card.noteID === undefined ? [] : read({ noteID: card.noteID }),
        card.ankiGuid === undefined ? [] : read({ ankiGuid: card.ankiGuid })
      ])
      const siblings = new Map<string, SiblingOfCard>()
      for (const sibling of [...ofNote, ...ofAnkiNote]) if (sibling._id !== card._id) siblings.set(sibling._id, sibling)
      return [...siblings.values()]
    },

    /**
     * Buries cards as siblings of a card answered (Anki's queue -2), until `until`, each only while
     * it is still in a queue; how many were.
     */
    async burySiblings (userID: string, cardIDs: readonly string[], until: Date): Promise<number> {
      if (cardIDs.length === 0) return 0
      const result = await cards.updateMany(
        { _id: { $in: [...cardIDs] }, userID, isNew: { $in: [true, false] } },
        { $set: { isNew: BURIED, buriedUntil: until, buriedAsSibling: true } },
        inSession
      )
      return result.modifiedCount
    },

    /**
     * Ends the burials an answer gave its siblings (undo): of these cards, those still buried as
     * siblings until `until` lose that burial; the ones it kept out of the queues go back in the
     * queue their schedule says (one suspended since stays out). Those put back, with their place.
     */
    async unburySiblings (userID: string, cardIDs: readonly string[], until: Date): Promise<BuriedCard[]> {
      if (cardIDs.length === 0) return []
      const still = await cards.find({ _id: { $in: [...cardIDs] }, userID, buriedAsSibling: true, buriedUntil: until },
        { projection: { _id: 1, isNew: 1, state: 1, due: 1, createdOrder: 1, buriedUntil: 1 }, session }).toArray()
      if (still.length === 0) return []
      await cards.bulkWrite(still.map((card) => ({
        updateOne: {
          filter: { _id: card._id, userID, isNew: card.isNew, buriedUntil: until },
          update: {
            ...(card.isNew === BURIED ? { $set: { isNew: card.state === CardState.New } } : {}),
            $unset: { buriedUntil: '', buriedAsSibling: '' }
          }
        }
      })), { ordered: false, session })
      return still.filter((card) => card.isNew === BURIED).map(({ _id, state, due, createdOrder, buriedUntil }) => ({ _id, state, due, createdOrder, ...(buriedUntil === undefined ? {} : { buriedUntil }) }))
    },

    /** The user's buried cards (those also suspended are out under suspension, not here). Index user_queue, the prefix {userID, isNew: 'buried'}. */
    buried (userID: string): Promise<BuriedCard[]> {
      return cards.find({ userID, isNew: BURIED }, { projection: { _id: 1, state: 1, due: 1, createdOrder: 1, buriedUntil: 1 }, session }).toArray()
    },

    /** Puts buried cards back in the queue their schedule says, their burial over. */
    async returnFromBurial (userID: string, returned: ReadonlyArray<Pick<CardDocument, '_id' | 'state'>>): Promise<void> {
      if (returned.length === 0) return
      await cards.bulkWrite(returned.map((card) => ({
        updateOne: { filter: { _id: card._id, userID, isNew: BURIED }, update: { $set: { isNew: card.state === CardState.New }, $unset: { buriedUntil: '', buriedAsSibling: '' } } }
      })), { ordered: false, session })
    },

    /**
     * Per flashcard: its cards, those in the learning and review queue due
     * before `dueBefore`, and those in the new-card queue (suspended and
     * buried cards are in neither). One pass over the user's cards, by the
     * userID prefix of user_flashcard.
     */
    async countsByFlashcard (userID: string, dueBefore: Date): Promise<Map<string, FlashcardCounts>> {
      const groups = await cards.aggregate<FlashcardCounts & { _id: string }>([
        { $match: { userID } },
        {
          $group: {
            _id: '$flashcardID',
            cards: { $sum: 1 },
            due: { $sum: { $cond: [{ $and: [{ $eq: ['$isNew', false] }, { $lt: ['$due', dueBefore] }] }, 1, 0] } },
            new: { $sum: { $cond: [{ $eq: ['$isNew', true] }, 1, 0] } }
          }
        }
      ], inSession).toArray()
      return new Map(groups.map(({ _id, ...counts }) => [_id, counts]))
    },

    /**
     * Today's cards of some flashcards, each queue in its order and within its
     * allowance, read by user_flashcard: every card of those flashcards is
     * read by the database, which keeps those of each queue. For a part of
     * the library holding few of the user's cards; the queues of a large part
     * are read as the whole library's are, with a filter (todayQueue's `within`).
     */
    async queuesOfFlashcards (userID: string, flashcardIDs: readonly string[], dueBefore: Date, allowance: { reviews: number, newCards: number }): Promise<{ due: QueuedCard[], new: QueuedCard[] }> {
      const read = async (queue: object, limit: number): Promise<QueuedCard[]> => limit <= 0 || flashcardIDs.length === 0
        ? []
        : await cards.aggregate<QueuedCard>([
          { $match: { userID, flashcardID: { $in: [...flashcardIDs] } } },
          // the queue's filter in a stage of its own, after the projection: with the first, it would make the database weigh user_queue
          { $project: { ...QUEUE_PROJECTION, isNew: 1 } },
          { $match: queue },
          { $sort: { due: 1, createdOrder: 1 } },
          { $limit: limit },
          { $project: QUEUE_PROJECTION }
        ], { ...oneBatch(limit + 1), session }).toArray()
      const [due, fresh] = await Promise.all([
        read({ isNew: false, due: { $lt: dueBefore } }, allowance.reviews),
        read({ isNew: true }, allowance.newCards)
      ])
      return { due, new: fresh }
    },

    /**
     * The first `wanted` cards of a browse after a place (or from the first),
     * each with its place, in the order asked for: creation order by
     * user_order (user_flashcard_order for some flashcards), due by
     * user_queue, the queue keys of its part given as one $in.
     */
    async browse (userID: string, filter: BrowseFilter, sort: BrowseSort, order: BrowseOrder, after: BrowsePlace | null, wanted: number,
      bounds: Record<'createdOrder' | 'due', KeyBounds>): Promise<Array<{ card: BrowsedCard, place: BrowsePlace }>> {
      const found: Array<{ card: BrowsedCard, place: BrowsePlace }> = []
      const descending = order === 'desc'
      const direction = descending ? -1 : 1
      const parts = partsOf(sort).map((part, index) => ({ ...part, index }))
      if (descending) parts.reverse()
      for (const part of parts) {
        if (found.length >= wanted) break
        if (after !== null && (descending ? part.index > after.part : part.index < after.part)) continue
        const query = browseQuery(userID, filter, part.newCards)
        if (query === null) continue
        const keyOf = (card: BrowsedCard): number => part.key === 'due' ? card.due.getTime() : card.createdOrder
        const valueOf = (key: number): number | Date => part.key === 'due' ? new Date(key) : key
        const read: KeyWindowRead<BrowsedCard> = async (window, limit) => {
          let range: Record<string, unknown>
          if ('key' in window) {
            range = { [part.key]: valueOf(window.key), _id: { [descending ? '$lt' : '$gt']: window.afterID } }
          } else {
            const bound: Record<string, unknown> = {}
            if (window.low !== undefined) bound[window.low.inclusive ? '$gte' : '$gt'] = valueOf(window.low.at)
            if (window.high !== undefined) bound[window.high.inclusive ? '$lte' : '$lt'] = valueOf(window.high.at)
            range = Object.keys(bound).length === 0 ? {} : { [part.key]: bound }
          }
          return await cards.find({ ...query, ...range } as Filter<CardDocument>, {
            projection: BROWSE_PROJECTION, sort: { [part.key]: direction, _id: direction }, limit, ...oneBatch(limit + 1), session
          }).toArray() as BrowsedCard[]
        }
        const from = after !== null && after.part === part.index ? { key: after.key, cardID: after.cardID } : null
        const cardsOfPart = await readInKeyOrder(read, from, bounds[part.key], descending, wanted - found.length)
        found.push(...cardsOfPart.map((card) => ({ card, place: { part: part.index, key: keyOf(card), cardID: card._id } })))
      }
      return found
    },

    /** How many cards a browse filter shows. */
    async countBrowsed (userID: string, filter: BrowseFilter): Promise<number> {
      const query = browseQuery(userID, filter, null)
      return query === null ? 0 : await cards.countDocuments(query as Filter<CardDocument>, inSession)
    },

    /**
     * Every card a browse filter of a rare standing shows (suspended, buried,
     * flagged), in no order, so that a browse of them costs those cards and not
     * the library: suspended and buried cards by user_queue (their queue key
     * leads it after the user), flagged ones by user_flag, which holds only
     * them. Not hinted: on the embedded database a hint costs more than the
     * read. Null for another standing.
     */
    async browsedOfStanding (userID: string, filter: BrowseFilter): Promise<BrowsedCard[] | null> {
      if (filter.standing !== 'suspended' && filter.standing !== 'buried' && filter.standing !== 'flagged') return null
      const query = browseQuery(userID, filter, null)
      if (query === null) return []
      // one read for each queue key (buried: suspended ones too), an equality each, and the burial's end told here:
      // with $in, or a range of buriedUntil, the embedded database reads far more than these few cards
      const { buriedUntil, ...byKey } = query
      const keys = (byKey.isNew as { $in?: QueueKey[] } | undefined)?.$in ?? [byKey.isNew]
      const read = async (isNew: unknown): Promise<BrowsedCard[]> => await cards.find({ ...byKey, ...(isNew === undefined ? {} : { isNew }) } as Filter<CardDocument>,
        { projection: BROWSE_PROJECTION, session }).toArray() as BrowsedCard[]
      const found = (await Promise.all(keys.map(read))).flat()
      return buriedUntil === undefined ? found : found.filter((card) => card.buriedUntil !== undefined && card.buriedUntil > filter.now)
    },

    /** The cards of these ids that a browse filter shows, in no order (a search's cards). Index _id. */
    async browsedByIds (userID: string, filter: BrowseFilter, cardIDs: readonly string[]): Promise<BrowsedCard[]> {
      const query = browseQuery(userID, filter, null)
      if (query === null || cardIDs.length === 0) return []
      return await cards.find({ ...query, _id: { $in: [...cardIDs] } } as Filter<CardDocument>, { projection: BROWSE_PROJECTION, ...oneBatch(cardIDs.length + 1), session }).toArray() as BrowsedCard[]
    },

    /** Cards by id, with their content and standing, in no order: those not the user's are left out. Index _id. */
    withContentByIds (userID: string, cardIDs: readonly string[]): Promise<StudyCard[]> {
      if (cardIDs.length === 0) return Promise.resolve([])
      return cards.find({ _id: { $in: [...cardIDs] }, userID }, { projection: STUDY_PROJECTION, ...oneBatch(cardIDs.length + 1), session }).toArray()
    },

    /** The ids of one flashcard's cards, in no order. Index user_flashcard. */
    async idsOfFlashcard (userID: string, flashcardID: string): Promise<string[]> {
      const found = await cards.find({ userID, flashcardID }, { projection: { _id: 1 }, session }).toArray()
      return found.map((card) => card._id)
    },

    /** How many cards each of the user's flashcards holds (those with none are absent). Index user_flashcard. */
    async countByFlashcard (userID: string): Promise<Map<string, number>> {
      const groups = await cards.aggregate<{ _id: string, count: number }>([
        { $match: { userID } },
        { $group: { _id: '$flashcardID', count: { $sum: 1 } } }
      ], inSession).toArray()
      return new Map(groups.map((group) => [group._id, group.count]))
    },

    /** How many cards the user has in each state. Index user_flashcard (prefix). */
    async countByState (userID: string): Promise<Array<{ state: number, count: number }>> {
      const groups = await cards.aggregate<{ _id: number, count: number }>([
        { $match: { userID } },
        { $group: { _id: '$state', count: { $sum: 1 } } }
      ], inSession).toArray()
      return groups.map((group) => ({ state: group._id, count: group.count }))
    },

    /**
     * Today's cards: learning and review cards due before `dueBefore`, most
     * overdue first, then new cards in creation order, each within its
     * allowance and read from where the account says its queue starts. Two
     * reads side by side, each in windows of one range of index user_queue:
     * one query with $or would make the embedded database scan the collection.
     */
    async todayQueue (userID: string, queues: { due: QueueRange, new: QueueRange }, allowance: { reviews: number, newCards: number },
      within?: readonly string[]): Promise<{ due: QueuedCard[], new: QueuedCard[] }> {
      const [due, fresh] = await Promise.all([
        this.dueQueue(userID, queues.due, allowance.reviews, within),
        this.newQueue(userID, queues.new, allowance.newCards, within)
      ])
      return { due, new: fresh }
    },

    /**
     * Learning and review cards due before the range's end, most overdue
     * first; with `within`, only the cards of those flashcards. Index user_queue.
     */
    async dueQueue (userID: string, range: QueueRange, limit: number, within?: readonly string[]): Promise<QueuedCard[]> {
      if (within !== undefined) return await readQueue(range, limit, withinRead(userID, false, within))
      // the design keeps this one an aggregation: the cards due today, filtered in the database
      return await readQueue(range, limit, async (due, createdOrder, wanted) => await cards.aggregate<QueuedCard>([
        { $match: { userID, isNew: false, ...windowOf(due, createdOrder) } },
        // right after the $match: the sort is made as the cards are read
        { $sort: { due: 1, createdOrder: 1 } },
        { $limit: wanted },
        { $project: QUEUE_PROJECTION }
        // one more than wanted: a first batch of exactly the $limit leaves the cursor open, and asking for
        // the end of it would be one more round trip
      ], { ...oneBatch(wanted + 1), session }).toArray())
    },

    /** New cards in creation order (a new card is due from its creation); with `within`, only those of these flashcards. Index user_queue. */
    async newQueue (userID: string, range: QueueRange, limit: number, within?: readonly string[]): Promise<QueuedCard[]> {
      if (within !== undefined) return await readQueue(range, limit, withinRead(userID, true, within))
      return await readQueue(range, limit, async (due, createdOrder, wanted) => await cards.find(
        { userID, isNew: true, ...windowOf(due, createdOrder) },
        { projection: QUEUE_PROJECTION, sort: { due: 1, createdOrder: 1 }, limit: wanted, ...oneBatch(wanted), session }
      ).toArray())
    },

    /**
     * Every card of the flashcards given, in creation order, with what the
     * tree shows of it. Sorted here: no index gives a user's cards in that
     * order, so the database would sort them in memory too, and slower. The
     * flashcards are split in two halves read side by side: the embedded
     * database answers each on a core of its own. Index user_flashcard.
     */
    async ofFlashcards (userID: string, flashcardIDs: readonly string[]): Promise<Array<TreeCard & Pick<CardDocument, 'createdOrder'>>> {
      // in one batch each (the server still caps one at 16 MiB)
      return await inCreationOrder(flashcardIDs, async (part) => await cards.find(
        { userID, flashcardID: { $in: part } }, { projection: { ...TREE_PROJECTION, createdOrder: 1 }, ...oneBatch(100_000), session }).toArray())
    },

    /**
     * Every card of the flashcards given, one at a time as the cursor reads
     * them, with its content as written and its schedule: what an Anki export
     * writes (the rendered sides are left out: the export renders them as
     * Anki needs them). Index user_flashcard.
     */
    forExport (userID: string, flashcardIDs: readonly string[]): AsyncIterable<ExportCard> {
      return cards.find({ userID, flashcardID: { $in: [...flashcardIDs] } }, { projection: { html: 0, version: 0, lastReviewID: 0 }, session })
    }
  }
}

export type CardsRepository = ReturnType<typeof cardsRepository>
