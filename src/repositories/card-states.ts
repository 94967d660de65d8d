import type { ClientSession, Db, Filter, UpdateFilter } from 'mongodb'
import { CardState, type CardSchedule } from '../domain/scheduling.js'
import { firstSpan, nextSpan, NO_CARD, type QueueRange } from '../domain/queues.js'
import { oneBatch } from './batches.js'
import { BURIED, SUSPENDED, queueKeyAfterSchedule, type QueueKey } from '../domain/card-states.js'
import { partsOf, type BrowsePlace } from '../domain/browse.js'
import type { BrowseOrder, BrowseSort, BrowseStanding } from '../domain/browse-options.js'
import type { CardContent, CardDocument, CardStandingFields, ClozeSibling, TreeCard } from './cards.js'

/** The fields of a card that are its learner's state: its schedule, its standing, its queue's key and the review bookkeeping. */
export const STATE_FIELDS = [
  'state', 'due', 'stability', 'difficulty', 'elapsedDays', 'scheduledDays', 'learningSteps', 'reps', 'lapses', 'lastReview',
  'isNew', 'suspended', 'buriedUntil', 'buriedAsSibling', 'flag', 'version', 'lastReviewID'
] as const satisfies ReadonlyArray<keyof CardDocument>

/**
 * The card's own fields a state keeps a copy of, so that the queues, counts and the browser's
 * orders read states alone: whose it is, the flashcard it is in, when it was made and its place
 * in creation order, and its card type (cloze number, Anki template), which orders new cards.
 */
export const STATE_COPIES = ['userID', 'flashcardID', 'createdAt', 'createdOrder', 'clozeNumber', 'ankiOrd'] as const satisfies ReadonlyArray<keyof CardDocument>

type StateField = typeof STATE_FIELDS[number]
type StateCopy = typeof STATE_COPIES[number]

/** A learner's state of a card, in `cardStates` under the card's id. */
export type CardStateDocument = Pick<CardDocument, '_id' | StateField | StateCopy>

/** A card as `cards` keeps it: everything but its learner's state. */
export type CardContentDocument = Omit<CardDocument, StateField>

const STATE_KEYS: ReadonlySet<string> = new Set(STATE_FIELDS)

/** A card made whole, split into what `cards` keeps and its learner's state. */
export function splitCard (card: CardDocument): { content: CardContentDocument, state: CardStateDocument } {
  const content: Record<string, unknown> = {}
  const state: Record<string, unknown> = { _id: card._id }
  for (const [key, value] of Object.entries(card)) {
    if (value === undefined) continue
    if (STATE_KEYS.has(key)) state[key] = value
    else content[key] = value
  }
  for (const key of STATE_COPIES) if (card[key] !== undefined) state[key] = card[key]
  return { content: content as CardContentDocument, state: state as CardStateDocument }
}

/**
 * Cards made whole again: each card's content with its learner's state (the state's fields, none
 * from the content: a card written before the states were apart still holds its old ones, which
 * migration 7 left there, and a field its state no longer has is not taken from them), in the
 * content's order. A card without a state is left out: one made or removed in the same instant
 * as the read, outside its transaction.
 */
export function joinStates<Card extends { _id: string }, State extends { _id: string }> (contents: readonly Card[], states: readonly State[]): Array<Card & State> {
  const byID = new Map(states.map((state) => [state._id, state]))
  return contents.flatMap((content) => {
    const state = byID.get(content._id)
    if (state === undefined) return []
    const whole: Record<string, unknown> = { ...content, ...state }
    if ('isNew' in content) for (const field of STATE_FIELDS) if (!(field in state)) delete whole[field]
    return [whole as Card & State]
  })
}

/** What giving a card a new schedule reads of it. */
export type StudiedCard = Pick<CardDocument, '_id' | 'version' | 'state' | 'due' | 'lastReview' | 'stability' | 'difficulty' | 'scheduledDays'>

/** A new memory state and schedule for a card, over the version it was read at. */
export interface Rescheduled { _id: string, version: number, schedule: Pick<CardSchedule, 'stability' | 'difficulty' | 'due' | 'scheduledDays'> }

/** A card of today's cards: what the tree needs, and its place in its queue. */
export type QueuedCard = TreeCard & Pick<CardDocument, 'due' | 'createdOrder' | 'clozeNumber' | 'ankiOrd'>

// only what a tree needs: every field less is less to decode for each of thousands of cards
export const TREE_PROJECTION = {
  _id: 1, flashcardID: 1, state: 1, scheduledDays: 1, learningSteps: 1, lastReview: 1, createdAt: 1
} as const
export const STANDING_PROJECTION = { suspended: 1, buriedUntil: 1, flag: 1 } as const

// the card type (its cloze number or Anki template) orders today's new cards (domain/study-pages.ts)
const QUEUE_PROJECTION = { ...TREE_PROJECTION, due: 1, createdOrder: 1, clozeNumber: 1, ankiOrd: 1 } as const

/** A card buried until `buriedUntil`, with what putting it back in its queue needs. */
export type BuriedCard = Pick<CardDocument, '_id' | 'state' | 'due' | 'createdOrder' | 'buriedUntil'>

/** What choosing a card's siblings to bury reads of each (domain/card-states.ts, siblingsToBury). */
export type SiblingOfCard = Pick<CardDocument, '_id' | 'isNew' | 'state' | 'due' | 'lastReview'>
const SIBLING_PROJECTION = { _id: 1, isNew: 1, state: 1, due: 1, lastReview: 1 } as const

/** How many cards a flashcard holds, and of them how many are due before the day's end and how many are new (in their queues). */
export interface FlashcardCounts { cards: number, due: number, new: number }

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

/** What browse-cards chooses and orders a card by: its flashcard, schedule and standing. */
export type BrowsedCard = Pick<CardDocument, '_id' | 'flashcardID' | 'state' | 'due' | 'scheduledDays' | 'difficulty' | 'lapses' | 'reps' | 'createdOrder' | 'isNew' | 'ankiOrd' | 'clozeNumber'> &
  CardStandingFields

/** What browse-cards shows of a card: those, and what its sort field is taken from. */
export type BrowsedRow = BrowsedCard & CardContent & Partial<ClozeSibling>

/** what the browser reads of a card's state, by which it filters and orders */
const BROWSE_PROJECTION = {
  _id: 1, flashcardID: 1, state: 1, due: 1, scheduledDays: 1, difficulty: 1, lapses: 1, reps: 1, createdOrder: 1, isNew: 1,
  ...STANDING_PROJECTION, clozeNumber: 1, ankiOrd: 1
} as const
/** and of its content, for the page's cards only */
const BROWSED_CONTENT = { _id: 1, front: 1, back: 1, format: 1, html: 1, noteID: 1, noteTypeID: 1 } as const

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
 * Each learner's state of each card: its schedule, its standing (suspended, buried, flagged) and the
 * key that places it in today's queues (index user_queue). Every read and write of a card's state
 * is here, apart from its content (cards.ts), so that the state can move to a collection of its own,
 * one document per learner and card, as shared folders need; for now it is kept in the card.
 */
export function cardStatesRepository (db: Db, session?: ClientSession) {
  const states = db.collection<CardDocument>('cardStates')
  const cards = db.collection<CardDocument>('cards')
  const inSession = { session }

  /** A state made whole with its card's content; null for none. */
  async function whole (userID: string, state: CardDocument | null): Promise<CardDocument | null> {
    if (state === null) return null
    const content = await cards.findOne({ _id: state._id, userID }, inSession)
    return content === null ? null : joinStates([content], [state])[0] ?? null
  }


  /**
   * A window of a queue, only the cards of some flashcards: the filter in a
   * stage after the projection, so that the window is still read by
   * user_queue (with it in the first $match, the database would weigh
   * user_flashcard), and the window's cards are still its cards in order.
   */
  function withinRead (userID: string, isNew: boolean, within: readonly string[]): WindowRead {
    return async (due, createdOrder, wanted) => await states.aggregate<QueuedCard>([
      { $match: { userID, isNew, ...windowOf(due, createdOrder) } },
      { $project: QUEUE_PROJECTION },
      { $match: { flashcardID: { $in: [...within] } } },
      { $sort: { due: 1, createdOrder: 1 } },
      { $limit: wanted }
    ], { ...oneBatch(wanted + 1), session }).toArray()
  }

  return {
    /**
     * Applies a review computed from the card as read (its version): false
     * when the card changed since. In a transaction a concurrent change is a
     * write conflict and the transaction runs again; the version guards the
     * card outside one too.
     */
    async applyReview (card: CardDocument, schedule: CardSchedule, reviewID: string): Promise<boolean> {
      const result = await states.updateOne(
        { _id: card._id, userID: card.userID, version: card.version },
        // a suspended or buried card stays out of the queues
        { $set: { ...schedule, isNew: queueKeyAfterSchedule(card.isNew, schedule.state), lastReviewID: reviewID, version: card.version + 1 } },
        inSession
      )
      return result.matchedCount === 1
    },

    /** Puts back the schedule a card had before its last review (undo), only while the card is as read: false otherwise. */
    async restoreSchedule (card: CardDocument, schedule: CardSchedule, lastReviewID: string | null): Promise<boolean> {
      const result = await states.updateOne(
        { _id: card._id, userID: card.userID, version: card.version, lastReviewID: card.lastReviewID },
        { $set: { ...schedule, isNew: queueKeyAfterSchedule(card.isNew, schedule.state), lastReviewID, version: card.version + 1 } },
        inSession
      )
      return result.matchedCount === 1
    },

    /**
     * Every card of the user that is not new, with what rescheduling reads:
     * those out of the queues too (suspended, buried), whose schedules are
     * kept for when they come back. Index user_queue (its prefix, three keys).
     */
    studied (userID: string): Promise<StudiedCard[]> {
      return states.find({ userID, isNew: { $in: [false, SUSPENDED, BURIED] }, state: { $ne: CardState.New } }, {
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
      const result = await states.bulkWrite(changes.map(({ _id, version, schedule }) => ({
        updateOne: { filter: { _id, userID, version }, update: { $set: { ...schedule, version: version + 1 } } }
      })), { ordered: false, session })
      return result.modifiedCount
    },

    /**
     * Sets a card's standing (suspended, buried until, and the queue key they
     * and its schedule give: domain/card-states.ts); null for a removed part.
     * The card as it now is, or null when it is not the user's in that flashcard.
     */
    async setStanding (userID: string, flashcardID: string, cardID: string, standing: StandingChange): Promise<CardDocument | null> {
      return await whole(userID, await states.findOneAndUpdate({ _id: cardID, userID, flashcardID }, standingUpdate(standing), { returnDocument: 'after', session }))
    },

    /** What a change of standing reads of these cards, those of the user only, in no order. Index _id. */
    standingsByIds (userID: string, cardIDs: readonly string[]): Promise<StandingCard[]> {
      if (cardIDs.length === 0) return Promise.resolve([])
      return states.find({ _id: { $in: [...cardIDs] }, userID }, {
        projection: { _id: 1, flashcardID: 1, state: 1, due: 1, createdOrder: 1, isNew: 1, suspended: 1, buriedUntil: 1, buriedAsSibling: 1, flag: 1 },
        ...oneBatch(cardIDs.length + 1),
        session
      }).toArray()
    },

    /** Sets the standing of many cards (as setStanding) or their flag, in one bulk write; how many matched. */
    async setStandings (userID: string, changes: ReadonlyArray<CardChange>): Promise<number> {
      if (changes.length === 0) return 0
      const result = await states.bulkWrite(changes.map((change) => ({
        updateOne: { filter: { _id: change.cardID, userID, flashcardID: change.flashcardID }, update: 'flag' in change ? flagUpdate(change.flag) : standingUpdate(change.standing) }
      })), { ordered: false, session })
      return result.matchedCount
    },

    /** Sets a card's flag (0: none); the card as it now is, or null when it is not the user's in that flashcard. */
    async setFlag (userID: string, flashcardID: string, cardID: string, flag: number): Promise<CardDocument | null> {
      return await whole(userID, await states.findOneAndUpdate({ _id: cardID, userID, flashcardID }, flagUpdate(flag), { returnDocument: 'after', session }))
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
      // the note's cards are found by their content, then their states by id
      const read = async (filter: { noteID: string } | { ankiGuid: string }) => (await cards.find({ userID, ...filter }, { projection: { _id: 1 }, session }).toArray()).map((sibling) => sibling._id)
      const [ofNote, ofAnkiNote] = await Promise.all([
        card.noteID === undefined ? [] : read({ noteID: card.noteID }),
        card.ankiGuid === undefined ? [] : read({ ankiGuid: card.ankiGuid })
      ])
      const ids = [...new Set([...ofNote, ...ofAnkiNote])].filter((id) => id !== card._id)
      if (ids.length === 0) return []
      return await states.find({ _id: { $in: ids }, userID }, { projection: SIBLING_PROJECTION, ...oneBatch(ids.length + 1), session }).toArray()
    },

    /**
     * Buries cards as siblings of a card answered (Anki's queue -2), until `until`, each only while
     * it is still in a queue; how many were.
     */
    async burySiblings (userID: string, cardIDs: readonly string[], until: Date): Promise<number> {
      if (cardIDs.length === 0) return 0
      const result = await states.updateMany(
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
      const still = await states.find({ _id: { $in: [...cardIDs] }, userID, buriedAsSibling: true, buriedUntil: until },
        { projection: { _id: 1, isNew: 1, state: 1, due: 1, createdOrder: 1, buriedUntil: 1 }, session }).toArray()
      if (still.length === 0) return []
      await states.bulkWrite(still.map((card) => ({
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
      return states.find({ userID, isNew: BURIED }, { projection: { _id: 1, state: 1, due: 1, createdOrder: 1, buriedUntil: 1 }, session }).toArray()
    },

    /** Puts buried cards back in the queue their schedule says, their burial over. */
    async returnFromBurial (userID: string, returned: ReadonlyArray<Pick<CardDocument, '_id' | 'state'>>): Promise<void> {
      if (returned.length === 0) return
      await states.bulkWrite(returned.map((card) => ({
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
      const groups = await states.aggregate<FlashcardCounts & { _id: string }>([
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
        : await states.aggregate<QueuedCard>([
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
          return await states.find({ ...query, ...range } as Filter<CardDocument>, {
            projection: BROWSE_PROJECTION, sort: { [part.key]: direction, _id: direction }, limit, ...oneBatch(limit + 1), session
          }).toArray() as BrowsedCard[]
        }
        const from = after !== null && after.part === part.index ? { key: after.key, cardID: after.cardID } : null
        const cardsOfPart = await readInKeyOrder(read, from, bounds[part.key], descending, wanted - found.length)
        found.push(...cardsOfPart.map((card) => ({ card, place: { part: part.index, key: keyOf(card), cardID: card._id } })))
      }
      return found
    },

    /** The cards a browse chose, with what the browser shows of their content, in the order given. By _id. */
    async withBrowsedContent (userID: string, found: readonly BrowsedCard[]): Promise<BrowsedRow[]> {
      if (found.length === 0) return []
      const contents = await cards.find({ _id: { $in: found.map((card) => card._id) }, userID }, { projection: BROWSED_CONTENT, ...oneBatch(found.length + 1), session }).toArray()
      // in the browse's order; the content read holds no state field, old or new
      const byID = new Map(contents.map((content) => [content._id, content]))
      return found.flatMap((card) => {
        const content = byID.get(card._id)
        return content === undefined ? [] : [{ ...content, ...card } as BrowsedRow]
      })
    },

    /** How many cards a browse filter shows. */
    async countBrowsed (userID: string, filter: BrowseFilter): Promise<number> {
      const query = browseQuery(userID, filter, null)
      return query === null ? 0 : await states.countDocuments(query as Filter<CardDocument>, inSession)
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
      const read = async (isNew: unknown): Promise<BrowsedCard[]> => await states.find({ ...byKey, ...(isNew === undefined ? {} : { isNew }) } as Filter<CardDocument>,
        { projection: BROWSE_PROJECTION, session }).toArray() as BrowsedCard[]
      const found = (await Promise.all(keys.map(read))).flat()
      return buriedUntil === undefined ? found : found.filter((card) => card.buriedUntil !== undefined && card.buriedUntil > filter.now)
    },

    /** The cards of these ids that a browse filter shows, in no order (a search's cards). Index _id. */
    async browsedByIds (userID: string, filter: BrowseFilter, cardIDs: readonly string[]): Promise<BrowsedCard[]> {
      const query = browseQuery(userID, filter, null)
      if (query === null || cardIDs.length === 0) return []
      return await states.find({ ...query, _id: { $in: [...cardIDs] } } as Filter<CardDocument>, { projection: BROWSE_PROJECTION, ...oneBatch(cardIDs.length + 1), session }).toArray() as BrowsedCard[]
    },

    /** How many cards the user has in each state. Index user_flashcard (prefix). */
    async countByState (userID: string): Promise<Array<{ state: number, count: number }>> {
      const groups = await states.aggregate<{ _id: number, count: number }>([
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
      return await readQueue(range, limit, async (due, createdOrder, wanted) => await states.aggregate<QueuedCard>([
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
      return await readQueue(range, limit, async (due, createdOrder, wanted) => await states.find(
        { userID, isNew: true, ...windowOf(due, createdOrder) },
        { projection: QUEUE_PROJECTION, sort: { due: 1, createdOrder: 1 }, limit: wanted, ...oneBatch(wanted), session }
      ).toArray())
    },

    /**
     * Every card of the flashcards given, in creation order, with what the
     * tree shows of it. Sorted here: no index gives a user's cards in that
     * order, so the database would sort them in memory too, and slower. The
     * flashcards are split in two halves read side by side: the embedded
     * database answers each on a core of its own. Index user_flashcard_order (its prefix).
     */
    async ofFlashcards (userID: string, flashcardIDs: readonly string[]): Promise<Array<TreeCard & Pick<CardDocument, 'createdOrder'>>> {
      // in one batch each (the server still caps one at 16 MiB)
      return await inCreationOrder(flashcardIDs, async (part) => await states.find(
        { userID, flashcardID: { $in: part } }, { projection: { ...TREE_PROJECTION, createdOrder: 1 }, ...oneBatch(100_000), session }).toArray())
    }
  }
}

export type CardStatesRepository = ReturnType<typeof cardStatesRepository>
