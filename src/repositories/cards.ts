import type { ClientSession, Db } from 'mongodb'
import type { CardSchedule } from '../domain/scheduling.js'
import { nextSpan } from '../domain/queues.js'
import { comesBefore, placeOf, type CardPlace, type CreationBounds } from '../domain/card-pages.js'
import { oneBatch } from './batches.js'
import type { TextFormat } from '../domain/card-content.js'
import type { QueueKey } from '../domain/card-states.js'
import { searchTextOf } from '../domain/search-text.js'
import { joinStates, splitCard, STANDING_PROJECTION, TREE_PROJECTION, type CardStateDocument } from './card-states.js'
import { searchPagesRepository } from './search-pages.js'

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

/** What a tree of cards needs of a card. */
export type TreeCard = Pick<CardDocument, '_id' | 'flashcardID' | 'state' | 'scheduledDays' | 'learningSteps' | 'lastReview' | 'createdAt'>

/** A card's standing beside its schedule: suspended, buried, flagged. */
export type CardStandingFields = Pick<CardDocument, 'suspended' | 'buriedUntil' | 'flag'>

/** What get-all-cards needs of a card: the tree's fields, its content and its standing. */
export type ContentCard = TreeCard & CardContent & Partial<ClozeSibling> & Pick<CardDocument, 'createdOrder' | 'ankiOrd'> & CardStandingFields

/** What an Anki export reads of a card: all but the rendered sides and the review bookkeeping. */
export type ExportCard = Omit<CardDocument, 'html' | 'version' | 'lastReviewID'>

/** what get-all-cards and the study queue show of a card's content (its state read beside it) */
const CONTENT_PROJECTION = { _id: 1, createdOrder: 1, front: 1, back: 1, format: 1, html: 1, noteID: 1, clozeNumber: 1, ankiOrd: 1, noteTypeID: 1 } as const
/** what they show of its state */
const SHOWN_STATE_PROJECTION = { ...TREE_PROJECTION, ...STANDING_PROJECTION } as const
/** what an Anki export reads of a card's state: all but the review bookkeeping */
const EXPORTED_STATE = { version: 0, lastReviewID: 0 } as const
/** how many cards an export reads at a time, their states with them */
const EXPORT_BATCH = 1000

/** A card of the study queue: its content, standing, schedule's place and what the tree shows. */
export type StudyCard = ContentCard & Pick<CardDocument, 'due'>

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

/**
 * The user's cards: their content, note, flashcard and place in creation order, and their
 * making, moving and removal; the learner's state of each (schedule, standing, queue) is read and
 * written by card-states.ts. Every write of a card's text (insertMany, setContents,
 * removeCards, removeByFlashcards) also keeps the search pages in step
 * (search-pages.ts), in the same session: whatever writes cards, the text
 * searches read is the text the cards hold.
 */
export function cardsRepository (db: Db, session?: ClientSession) {
  const cards = db.collection<CardDocument>('cards')
  const states = db.collection<CardStateDocument>('cardStates')
  const search = searchPagesRepository(db, session)
  const inSession = { session }

  /** Cards read from `cards` made whole with their states (of `projection`'s fields, or all), in the order read. By _id. */
  async function withStates<Card extends { _id: string }> (userID: string, contents: readonly Card[], projection?: Readonly<Record<string, 0 | 1>>): Promise<Array<Card & CardStateDocument>> {
    if (contents.length === 0) return []
    const found = await states.find({ _id: { $in: contents.map((card) => card._id) }, userID }, { ...(projection === undefined ? {} : { projection }), ...oneBatch(contents.length + 1), session }).toArray()
    return joinStates(contents, found)
  }

  /** One card read from `cards` made whole with its state; null for none. */
  async function whole (userID: string, content: CardDocument | null): Promise<CardDocument | null> {
    return content === null ? null : (await withStates(userID, [content]))[0] ?? null
  }

  return {
    /**
     * Stores new cards with their search pages; `searchable: false` (an import's staged cards) writes
     * none: the account they are handed to makes its pages at its next search.
     */
    async insertMany (documents: CardDocument[], { searchable = true } = {}): Promise<void> {
      if (documents.length === 0) return
      const parts = documents.map(splitCard)
      await cards.insertMany(parts.map((part) => part.content as CardDocument), { ordered: true, session })
      await states.insertMany(parts.map((part) => part.state), { ordered: true, session })
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
      await states.deleteMany({ userID, flashcardID: { $in: [...flashcardIDs] } }, inSession)
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
      await states.deleteMany({ _id: { $in: [...cardIDs] }, userID, flashcardID }, inSession)
      return (await cards.deleteMany({ userID, flashcardID, _id: { $in: [...cardIDs] } }, inSession)).deletedCount
    },

    /** Moves cards of one flashcard into another, their schedules and places in creation order kept, their searchable text with them; how many moved. */
    async moveCards (userID: string, from: string, cardIDs: readonly string[], to: string): Promise<number> {
      if (cardIDs.length === 0 || from === to) return 0
      const moving = await cards.find({ userID, flashcardID: from, _id: { $in: [...cardIDs] } }, { session }).toArray()
      await search.remove(userID, from, moving.map((card) => card._id))
      const moved = (await cards.updateMany({ userID, flashcardID: from, _id: { $in: moving.map((card) => card._id) } }, { $set: { flashcardID: to } }, inSession)).modifiedCount
      await states.updateMany({ _id: { $in: moving.map((card) => card._id) }, userID, flashcardID: from }, { $set: { flashcardID: to } }, inSession)
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
      // a card given another template (an edit of its note type) orders new cards by it: its state keeps a copy
      const reordered = changes.flatMap(({ cardID, content }) => 'ankiOrd' in content && typeof content.ankiOrd === 'number' ? [{ cardID, ankiOrd: content.ankiOrd }] : [])
      if (reordered.length > 0) {
        await states.bulkWrite(reordered.map(({ cardID, ankiOrd }) => ({ updateOne: { filter: { _id: cardID, userID }, update: { $set: { ankiOrd } } } })), { ordered: false, session })
      }
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
        found.push(...await withStates(userID, await cards.find({ userID, noteID: { $in: noteIDs.slice(start, start + 5000) } }, inSession).toArray()))
      }
      return found
    },

    /** Every card of a note, in whichever flashcard, by its template (or cloze number). Index user_note. */
    async ofNoteAnywhere (userID: string, noteID: string): Promise<CardDocument[]> {
      return await withStates(userID, await cards.find({ userID, noteID }, inSession).sort({ ankiOrd: 1, clozeNumber: 1, _id: 1 }).toArray())
    },

    /** The cards of one cloze note, by number. Index user_flashcard, then the note. */
    async ofNote (userID: string, flashcardID: string, noteID: string): Promise<CardDocument[]> {
      return await withStates(userID, await cards.find({ userID, flashcardID, noteID }, inSession).sort({ clozeNumber: 1, _id: 1 }).toArray())
    },

    /** The cards of one flashcard in creation order. Index user_flashcard. */
    async byFlashcard (userID: string, flashcardID: string): Promise<CardDocument[]> {
      return await withStates(userID, await cards.find({ userID, flashcardID }, inSession).sort({ createdOrder: 1, _id: 1 }).toArray())
    },

    /**
     * A flashcard's cards in creation order from after a place (get-flashcard's pages), read as
     * readerInCreationOrder says: each window one range of index user_flashcard_order.
     */
    flashcardInCreationOrder (userID: string, flashcardID: string, after: CardPlace | null, bounds: CreationBounds): CreationOrderReader<CardDocument> {
      return readerInCreationOrder(async (window, limit) => await withStates(userID, await cards.find({ userID, flashcardID, ...window }, { ...oneBatch(limit), session })
        .sort({ createdOrder: 1, _id: 1 }).limit(limit).toArray()), after, bounds)
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
            const read = await withStates(userID, await cards.find({ _id: { $in: taken.map((place) => place.cardID) }, userID, flashcardID }, { ...oneBatch(taken.length), session }).toArray())
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
      return readerInCreationOrder(async (window, limit) => await withStates(userID, await cards.find({ userID, ...window }, { projection: CONTENT_PROJECTION, ...oneBatch(limit), session })
        .sort({ createdOrder: 1, _id: 1 }).limit(limit).toArray(), SHOWN_STATE_PROJECTION), after, bounds)
    },

    /** The creation order of the newest card of a flashcard, or null for one without cards. Index user_flashcard. */
    async lastCreatedOrder (userID: string, flashcardID: string): Promise<number | null> {
      const [last] = await cards.find({ userID, flashcardID }, { projection: { createdOrder: 1 }, session }).sort({ createdOrder: -1 }).limit(1).toArray()
      return last?.createdOrder ?? null
    },

    async findOne (userID: string, flashcardID: string, cardID: string): Promise<CardDocument | null> {
      return await whole(userID, await cards.findOne({ _id: cardID, userID, flashcardID }, inSession))
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
            await states.updateMany({ userID: from, flashcardID }, { $set: { userID } }, inSession)
            break
          }
          moved += (await cards.updateMany({ _id: { $in: ids.slice(0, batch) }, userID: from }, { $set: { userID } }, inSession)).modifiedCount
          await states.updateMany({ _id: { $in: ids.slice(0, batch) }, userID: from }, { $set: { userID } }, inSession)
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
        await states.deleteMany({ _id: { $in: ids }, userID: owner }, inSession)
        removed += (await cards.deleteMany({ _id: { $in: ids }, userID: owner }, inSession)).deletedCount
      }
    },

    /** These cards, those of the user only, whole, in no order. Index _id. */
    async byIds (userID: string, cardIDs: readonly string[]): Promise<CardDocument[]> {
      if (cardIDs.length === 0) return []
      return await withStates(userID, await cards.find({ _id: { $in: [...cardIDs] }, userID }, { ...oneBatch(cardIDs.length + 1), session }).toArray())
    },

    async findById (userID: string, cardID: string): Promise<CardDocument | null> {
      return await whole(userID, await cards.findOne({ _id: cardID, userID }, inSession))
    },

    /** Cards by id, with their content and standing, in no order: those not the user's are left out. Index _id. */
    async withContentByIds (userID: string, cardIDs: readonly string[]): Promise<StudyCard[]> {
      if (cardIDs.length === 0) return []
      const contents = await cards.find({ _id: { $in: [...cardIDs] }, userID }, { projection: CONTENT_PROJECTION, ...oneBatch(cardIDs.length + 1), session }).toArray()
      return await withStates(userID, contents, { ...SHOWN_STATE_PROJECTION, due: 1 })
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

    /**
     * Every card of the flashcards given, one at a time as the cursor reads
     * them, with its content as written and its schedule: what an Anki export
     * writes (the rendered sides are left out: the export renders them as
     * Anki needs them), a thousand at a time with their states. Index user_flashcard.
     */
    async * forExport (userID: string, flashcardIDs: readonly string[]): AsyncGenerator<ExportCard> {
      let batch: ExportCard[] = []
      for await (const card of cards.find({ userID, flashcardID: { $in: [...flashcardIDs] } }, { projection: { html: 0 }, batchSize: EXPORT_BATCH, session })) {
        batch.push(card)
        if (batch.length < EXPORT_BATCH) continue
        yield * await withStates(userID, batch, EXPORTED_STATE)
        batch = []
      }
      yield * await withStates(userID, batch, EXPORTED_STATE)
    }
  }
}

export type CardsRepository = ReturnType<typeof cardsRepository>
