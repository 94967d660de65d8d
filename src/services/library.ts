import { setTimeout as sleep } from 'node:timers/promises'
import { newId } from '../domain/ids.js'
import { cardsMadeBy, isClozeInput, type CardInput, type TextFormat } from '../domain/card-content.js'
import { basicSides, clozeSides, RENDER_VERSION, renderingOf, sideHtml, type RenderOptions } from '../domain/card-html.js'
import { editedFields, isBasicNoteType, madeHereFields, stockOfMadeHere } from '../domain/notes.js'
import type { ImportedContent } from '../domain/anki-import.js'
import { quotedName } from '../domain/names.js'
import { clozeNumbers, clozeSource, parseCloze, withoutDeletion } from '../domain/cloze.js'
import { cardTextProblem, MAX_CARDS_PER_REQUEST } from '../domain/limits.js'
import {
  addFlashcard, createFolderPath, describePath, flashcardIDsIn, flashcardWithPath, moveFlashcard, moveFolder, removeFlashcard,
  removeFolder, renameFlashcard, renameFolder, treeCardValue, treeJson, type FolderNode, type LibraryTree
} from '../domain/library-tree.js'
import { CardPage, CREATED_ORDERS_PER_MS, creationBounds, cursorAfter, LIBRARY_PAGES, placeOf, placeOfCursor, type CardPlace } from '../domain/card-pages.js'
import { newSchedule } from '../domain/scheduling.js'
import type { Repositories } from '../repositories/index.js'
import type { CardContent, CardDocument, ClozeSibling, CreationOrderReader } from '../repositories/cards.js'
import type { UserDocument } from '../repositories/users.js'
import { storeNewCards, addToUsageWithinQuotas, type ServiceContext } from './context.js'
import { cardDetails, cardLeaves, contentLeafOf, type UserMediaUrl } from './wire.js'
import { mediaShownBy, releaseMedia, removeFilesAfterwards } from './media.js'
import { noCard, Refusal } from '../domain/refusals.js'
import type { FolderOutline } from '../schemas/library-manage.js'
import { allowanceToday, withBurialsOver } from './today.js'
import {
  deckNamesOf, editKeptNote, NOTE_BATCH, noteOf, noteTypeShown, noteTypeDeletionStep, planNoteTypeEdit, renderNotesAgain, rewriteNote,
  type MadeHereNote, type NoteTypeEdited, type NoteTypePlan
} from './notes.js'
import type { NoteTypeChange } from '../domain/note-types.js'
import type { NoteTypeRenderService } from './note-type-renders.js'
import { userDay } from '../domain/calendar.js'

/** A card as a request writes it: {front, back}, or a cloze note {cloze, back?}; either with its format. */
export interface CardWriting {
  front?: string
  back?: string
  cloze?: string
  format?: TextFormat
}

export interface NewFlashcard {
  folder: readonly string[]
  flashcardName: string
  description: string
  cards: readonly CardWriting[]
}

/** What a card keeps of its content: the text as written, and the sides rendered from it (html and cloze cards) with the media they show. */
export function storedContent (front: string, back: string, format: TextFormat, clozeNumber?: number, options: RenderOptions = {}): CardContent {
  // every card's content is made here, whichever door it came by: the sizes the request schemas check hold for all
  const problem = cardTextProblem(clozeNumber === undefined ? 'the front' : 'the cloze text', front) ?? cardTextProblem('the back', back)
  if (problem !== null) throw new Refusal('invalid_field', `${problem}: shorten it`)
  const sides = clozeNumber === undefined ? basicSides(front, back, format, options) : clozeSides(front, back, format, clozeNumber, options)
  // only a card that shows media has the field: index user_media holds only those
  const content: CardContent = { front, back, format, ...(sides.media.length > 0 ? { media: sides.media } : {}) }
  if (format === 'html' || clozeNumber !== undefined) content.html = { front: sides.front, back: sides.back, version: RENDER_VERSION }
  return content
}

/**
 * The content of a card an Anki note makes (an import's, or a note's of notes.ts), as every card's is
 * made: its sides rendered from the note, through storedContent, with its note type's class names.
 */
export function storedNoteContent (made: ImportedContent, noteTypeID: string): CardContent {
  const options = renderingOf({ noteTypeID })
  return made.kind === 'cloze'
    ? storedContent(made.cloze, made.back, 'html', made.clozeNumber, options)
    : storedContent(made.front, made.back, 'html', undefined, options)
}

/** New cards come after the cards a flashcard holds already, even within one millisecond of them. */
export async function placeAfterLast (cards: Repositories['cards'], userID: string, flashcardID: string, documents: CardDocument[]): Promise<void> {
  const last = await cards.lastCreatedOrder(userID, flashcardID)
  const first = documents[0]?.createdOrder ?? 0
  if (last !== null && first <= last) {
    for (const card of documents) card.createdOrder += last + 1 - first
  }
}

/** A new card, never reviewed, `position` in its batch's creation order. */
export function cardDocument (userID: string, flashcardID: string, content: CardContent, sibling: ClozeSibling | null, now: Date, position: number): CardDocument {
  return {
    _id: newId(),
    userID,
    flashcardID,
    ...content,
    ...sibling,
    ...newSchedule(now),
    isNew: true,
    createdOrder: now.getTime() * CREATED_ORDERS_PER_MS + position,
    createdAt: now,
    version: 0,
    lastReviewID: null
  }
}

/** The cards of a cloze note's numbers, new and never reviewed, from `position` on in the creation order. */
function noteCards (userID: string, flashcardID: string, note: { noteID: string, cloze: string, back: string, format: TextFormat }, numbers: readonly number[], now: Date, position: number): CardDocument[] {
  return numbers.map((clozeNumber, index) => cardDocument(
    userID, flashcardID, storedContent(note.cloze, note.back, note.format, clozeNumber), { noteID: note.noteID, clozeNumber }, now, position + index))
}

/** Card documents for new, never reviewed cards, in the order given: one for a card, one per number (in increasing order) for a cloze note. */
export function newCards (userID: string, flashcardID: string, cards: readonly CardInput[], now: Date): CardDocument[] {
  const documents: CardDocument[] = []
  for (const card of cards) {
    const format = card.format ?? 'text'
    if (isClozeInput(card)) {
      const note = { noteID: newId(), cloze: card.cloze, back: card.back ?? '', format }
      documents.push(...noteCards(userID, flashcardID, note, clozeNumbers(parseCloze(card.cloze)), now, documents.length))
    } else {
      documents.push(cardDocument(userID, flashcardID, storedContent(card.front, card.back, format), null, now, documents.length))
    }
  }
  return documents
}

function noDeletion (where: string): Refusal {
  return new Refusal('invalid_cloze', `${where} holds no cloze deletion: write each answer as {{c1::answer}} or {{c1::answer::hint}}, numbered from 1; each number makes a card`)
}

function tooManyCards (where: string, made: number): Refusal {
  return new Refusal('invalid_field',
    `${where} would make ${made.toLocaleString('en')} cards (a cloze note makes one for each number), and a request makes at most ${MAX_CARDS_PER_REQUEST.toLocaleString('en')}: send them in several requests`)
}

/**
 * The cards of a request as the service reads them: each either a card of a
 * front and a back or a cloze note, never both, a cloze note with at least
 * one deletion; at most MAX_CARDS_PER_REQUEST cards made in all.
 */
function cardInputs (cards: readonly CardWriting[], where: string): CardInput[] {
  let made = 0
  const inputs = cards.map((card, position): CardInput => {
    const at = `${where}.${position}`
    const format = card.format === undefined ? {} : { format: card.format }
    if (card.cloze !== undefined) {
      if (card.front !== undefined) {
        throw new Refusal('invalid_field', `${at} has both "front" and "cloze": send {front, back} for a card, or {cloze, back?} for a cloze note`)
      }
      const note = { cloze: card.cloze, back: card.back ?? '', ...format }
      const count = cardsMadeBy(note)
      if (count === 0) throw noDeletion(`${at}.cloze`)
      made += count
      return note
    }
    if (card.front === undefined) throw new Refusal('invalid_field', `${at} is missing the field "front": send {front, back}, or {cloze} for a cloze note`)
    if (card.back === undefined) throw new Refusal('invalid_field', `${at} is missing the field "back": send it (/docs shows every field)`)
    made += 1
    return { front: card.front, back: card.back, ...format }
  })
  if (made > MAX_CARDS_PER_REQUEST) throw tooManyCards(where, made)
  return inputs
}

/** The bytes of a value's JSON. */
function jsonBytes (value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value))
}

/**
 * One page of cards read in creation order: each card as `show` gives it (or
 * left out, undefined), until the page holds MAX_CARDS_PER_PAGE cards or
 * MAX_PAGE_BYTES of their JSON as `bytesOf` measures it, read a few at a time
 * as the sizes seen say. `last`: the place of the page's last card when more
 * cards follow it, null when it is the last page.
 */
async function pageOfCards<Card extends { _id: string, createdOrder: number }, Shown> (reader: CreationOrderReader<Card>,
  show: (card: Card) => Shown | undefined, bytesOf: (shown: Shown) => number): Promise<{ cards: Shown[], last: CardPlace | null }> {
  const page = new CardPage<Shown>()
  let last: CardPlace | null = null
  while (!page.more) {
    const wanted = page.wanted()
    const read = await reader.next(wanted)
    for (const card of read) {
      const shown = show(card)
      if (shown === undefined) continue
      if (!page.add(shown, bytesOf(shown))) break
      last = placeOf(card)
    }
    if (read.length < wanted) break
  }
  return { cards: page.cards, last: page.more ? last : null }
}

/**
 * Folders, flashcards and their cards. Every change runs in the user's
 * transaction: the tree is read, edited and written back in one update
 * guarded by its version, together with the card writes and the quota
 * counts, so all of a change is stored or none of it.
 */
/**
 * How many cards a transaction of a large deletion removes (thinOut): small enough that, on the
 * embedded database, a transaction deleting them and their notes in a large account does not then
 * stall on the account's own update (larger batches did; see the commit that set it).
 */
const REMOVAL_BATCH = 500

export interface LargeDeletionSettings {
  /** how long delete-folder and delete-flashcard wait for a deletion past one transaction before they answer, the rest going on behind the answer */
  waitMs: number
  /** how long an instance holds such a deletion without renewing it (it renews it between batches); past that, another instance takes it over */
  leaseMs: number
  /** how often a request for a deletion another instance holds looks whether it is over */
  pollMs: number
}

export const DEFAULT_LARGE_DELETION_SETTINGS: LargeDeletionSettings = { waitMs: 15_000, leaseMs: 60_000, pollMs: 250 }

/** Who runs the deletions that go on behind their answers: this instance's name (their leases name it), and where they tell of a failure. */
export interface LargeDeletionRuntime {
  instance: string
  log: { warn: (details: object, message: string) => void }
}

/** The lease of a large deletion held here was taken over by another instance: this one stops and waits for that one. */
class Overtaken extends Error {}

/** What the answers of delete-folder and delete-flashcard are: strings by name. */
type DeletionAnswer = Record<string, string>

export function libraryService (context: ServiceContext, renders: NoteTypeRenderService, deletionSettings: LargeDeletionSettings = DEFAULT_LARGE_DELETION_SETTINGS,
  runtime: LargeDeletionRuntime = { instance: newId(), log: { warn: () => {} } }) {
  const { instance, log } = runtime
  /**
   * the large deletions under way here, run or waited for, by user and the folder or flashcard deleted: a second
   * request for one waits on it; `waiting`, the requests waiting for it now
   */
  const deletions = new Map<string, { work: Promise<unknown>, waiting: number }>()
  let closed = false

  function stopping (): Refusal {
    return new Refusal('service_overloaded', 'the service is stopping: delete it again in a moment (the cards deleted so far stay deleted)', 5)
  }

  function leaseUntil (): Date {
    return new Date(Date.now() + deletionSettings.leaseMs)
  }

  /**
   * Runs a deletion, waiting for it at most `waitMs` when it is `large` (past one transaction) or
   * under way already: its answer once done, or `underWay()`'s, the deletion going on behind the
   * answer (a connection silent too long is closed, by the service or a proxy). A deletion of the
   * same thing already under way, here or on another instance (its lease), is waited for rather
   * than begun again: its last step, run twice, would find the deck gone. A refusal, met before
   * anything is deleted, is answered as it is.
   */
  async function behindAnswer<T extends DeletionAnswer> (userID: string, key: string, large: boolean, run: (lease: string | null) => Promise<T>,
    underWay: () => T): Promise<T> {
    let running = deletions.get(key)
    if (running === undefined) {
      if (!large && await context.repositories.deletionLeases.read(key) === null) return await run(null)
      const entry = { work: settle(userID, key, run).finally(() => { deletions.delete(key) }), waiting: 0 }
      deletions.set(key, entry)
      // a failure is the answer of the requests waiting for it (the error handler logs it with them); once every one
      // is answered, it has no request left to tell: the log has it; the deck is there with fewer cards, to delete again
      entry.work.catch((error: unknown) => {
        if (entry.waiting === 0 && !(error instanceof Refusal)) log.warn({ err: error, key }, 'a deletion going on behind its answer failed; what it had not deleted is still there')
      })
      running = entry
    }
    const work = running.work as Promise<T>
    running.waiting += 1
    try {
      const waited = await Promise.race([work.then((answer) => ({ answer })), sleep(deletionSettings.waitMs, null, { ref: false })])
      return waited === null ? underWay() : waited.answer
    } finally {
      running.waiting -= 1
    }
  }

  /**
   * Runs the deletion `key` to its end, wherever it runs: here, holding its lease, or on the
   * instance that holds it, waited for until it ends (its answer, as that instance stored it with
   * its last transaction), gives it back (stopped or failed) or lets it run out (died): then it is
   * taken over here, and goes on from what is left. Leases run on the wall clock: they are about
   * processes, not the user's days.
   */
  async function settle<T extends DeletionAnswer> (userID: string, key: string, run: (lease: string) => Promise<T>): Promise<T> {
    const leases = context.repositories.deletionLeases
    for (;;) {
      if (closed) throw stopping()
      let other = await leases.acquire(key, userID, instance, new Date(), leaseUntil())
      if (other === null) {
        try {
          return await run(key)
        } catch (error) {
          if (error instanceof Overtaken) continue
          await leases.release(key, instance).catch(() => {})
          throw error
        }
      }
      while (other !== null && other.answer === undefined && other.until.getTime() > Date.now()) {
        await sleep(deletionSettings.pollMs, null, { ref: false })
        if (closed) throw stopping()
        other = await leases.read(key)
      }
      // the answer of the instance that ended it; a record's answer is the one its deletion gave, of this kind
      if (other?.answer !== undefined) return other.answer as T
    }
  }

  /**
   * Reads the user's tree, lets `edit` change it, and writes back what the
   * edit changed, in the user's transaction. An edit that changed nothing (a
   * move to where it is, a rename to its own name) writes nothing, so that
   * such a request leaves the stored data as it was. Once committed, the
   * edited tree is the stored one, and the next request need not read it.
   */
  async function editTree<T> (userID: string, edit: (tree: LibraryTree, repositories: Repositories) => Promise<T> | T): Promise<T> {
    const { result, tree } = await context.userTransaction(userID, async (repositories) => {
      const tree = await repositories.trees.openForEdit(userID)
      const result = await edit(tree, repositories)
      await repositories.trees.save(userID, tree)
      return { result, tree }
    })
    context.repositories.trees.committed(userID, tree)
    return result
  }

  /**
   * Deletes the cards of flashcards about to be deleted a batch at a time, each batch its own
   * transaction, until what is left of them all fits the one transaction that deletes the
   * flashcards themselves: a folder of 100,000 cards deleted in one transaction does not fit the
   * database's cache ("Transaction is too large"). Each batch takes its notes (those it leaves
   * without cards), its media (those no card shows any more) and its share of the quota with it.
   * Cut off, it leaves the flashcards with fewer cards, to be deleted again. The deletion's `lease`,
   * when it holds one, is pushed on before each batch. How many it deleted.
   */
  async function thinOut (userID: string, flashcardIDs: readonly string[], counted: readonly number[], lease: string | null): Promise<number> {
    const left = [...counted]
    let total = left.reduce((sum, count) => sum + count, 0)
    let deleted = 0
    for (const [index, flashcardID] of flashcardIDs.entries()) {
      while (total > REMOVAL_BATCH && (left[index] as number) > 0) {
        // closing: the batches done stay done; the rest waits for the deletion to be asked again
        if (closed) throw stopping()
        if (lease !== null && !await context.repositories.deletionLeases.renew(lease, instance, leaseUntil())) throw new Overtaken()
        const { removed, unusedFiles } = await context.userTransaction(userID, async (repositories) => {
          const batch = await repositories.cards.someOfFlashcard(userID, flashcardID, REMOVAL_BATCH)
          const removed = await repositories.cards.removeCards(userID, flashcardID, batch.map((card) => card._id))
          const keptNotes = [...new Set(batch.flatMap((card) => card.noteID !== undefined && card.ankiGuid !== undefined ? [card.noteID] : []))]
          await repositories.notes.remove(userID, await repositories.cards.notesWithoutCards(userID, keptNotes))
          await repositories.users.takeFromUsage(userID, { cards: removed })
          return { removed, unusedFiles: await releaseMedia(context, repositories, userID, [...new Set(batch.flatMap((card) => card.media ?? []))]) }
        })
        await removeFilesAfterwards(context, unusedFiles)
        if (removed === 0) break
        deleted += removed
        total -= removed
        left[index] = (left[index] as number) - removed
      }
    }
    return deleted
  }

  /** How many cards each of these flashcards holds. */
  async function cardCounts (userID: string, flashcardIDs: readonly string[]): Promise<number[]> {
    return await Promise.all(flashcardIDs.map(async (flashcardID) => await context.repositories.cards.countInFlashcard(userID, flashcardID)))
  }

  /**
   * Flashcards deleted whole, with what `detach` takes out of the tree (a folder with everything in
   * it, or one flashcard): their cards first, past what one transaction holds (`counted`, by
   * flashcard), then in one transaction the tree's change with the rest of the cards, the notes left
   * without cards (a note with cards in other flashcards stays), the quota of the nodes and cards,
   * the media no card shows any more, and the end of the deletion's `lease` with its answer, which
   * `answerOf` makes of how many cards went and what `detach` said.
   */
  async function deleteWhole<Removed extends { flashcardIDs: readonly string[], nodes: number }, T extends DeletionAnswer> (userID: string,
    flashcardIDs: readonly string[], counted: readonly number[], lease: string | null, detach: (tree: LibraryTree) => Removed,
    answerOf: (cards: number, removed: Removed) => T): Promise<T> {
    const thinned = await thinOut(userID, flashcardIDs, counted, lease)
    const { answer, unusedFiles } = await editTree(userID, async (tree, repositories) => {
      // first, so that of two instances reaching the end of one deletion the one that lost its lease finds the deck as it was, not gone
      if (lease !== null && !await repositories.deletionLeases.renew(lease, instance, leaseUntil())) throw new Overtaken()
      const { cards, users } = repositories
      const removed = detach(tree)
      const shown = await mediaShownBy(repositories, userID, removed.flashcardIDs)
      const notes = await cards.keptNotesIn(userID, removed.flashcardIDs)
      const deleted = await cards.removeByFlashcards(userID, removed.flashcardIDs)
      await repositories.notes.remove(userID, await cards.notesWithoutCards(userID, notes))
      await users.takeFromUsage(userID, { nodes: removed.nodes, cards: deleted })
      const answer = answerOf(thinned + deleted, removed)
      if (lease !== null) await repositories.deletionLeases.end(lease, instance, answer, new Date())
      return { answer, unusedFiles: await releaseMedia(context, repositories, userID, shown) }
    })
    await removeFilesAfterwards(context, unusedFiles)
    return answer
  }

  function mediaUrlOf (userID: string): UserMediaUrl {
    return (mediaID) => context.mediaUrl(userID, mediaID)
  }

  /**
   * Deletes these cards, all or nothing (delete-card, delete-cards): in one user transaction,
   * every card checked to be the user's in the flashcard named before anything is written; a
   * cloze note losing some of its cards loses their deletions from its text, once for all of
   * them, and its other cards keep their schedules; then the media only they showed go.
   */
  async function deleteChosen (userID: string, chosen: ReadonlyArray<{ flashcardID: string, cardID: string }> | ((repositories: Repositories) => Promise<ReadonlyArray<{ flashcardID: string, cardID: string }>>)): Promise<string[]> {
    let deletedIDs: string[] = []
    const unusedFiles = await context.userTransaction(userID, async (repositories) => {
      const { cards, users } = repositories
      // the cards named, or those a lookup in the same transaction names
      const refs = typeof chosen === 'function' ? await chosen(repositories) : chosen
      deletedIDs = refs.map((ref) => ref.cardID)
      const found = new Map((await cards.byIds(userID, refs.map((ref) => ref.cardID))).map((card) => [card._id, card]))
      const byFlashcard = new Map<string, string[]>()
      const notes = new Map<string, { card: CardDocument, numbers: number[] }>()
      for (const ref of refs) {
        const card = found.get(ref.cardID)
        if (card?.flashcardID !== ref.flashcardID) throw noCard(ref.flashcardID, ref.cardID)
        byFlashcard.set(ref.flashcardID, [...(byFlashcard.get(ref.flashcardID) ?? []), ref.cardID])
        if (card.noteID !== undefined && card.clozeNumber !== undefined) {
          const key = `${card.flashcardID}/${card.noteID}`
          const note = notes.get(key) ?? { card, numbers: [] }
          note.numbers.push(card.clozeNumber)
          notes.set(key, note)
        }
      }
      // a note kept whole (notes) keeps its text, as Anki keeps a note whose card is deleted: its other cards stay as they are
      const documented = new Set((await repositories.notes.byIds(userID, [...new Set([...notes.values()].map(({ card }) => card.noteID as string))])).map((note) => note._id))
      for (const { card, numbers } of notes.values()) {
        if (documented.has(card.noteID as string)) continue
        const kept = (await cards.ofNote(userID, card.flashcardID, card.noteID as string)).filter((sibling) => !found.has(sibling._id))
        if (kept.length === 0) continue
        const cloze = clozeSource(numbers.reduce((parts, number) => withoutDeletion(parts, number), parseCloze(card.front)))
        const format = card.format ?? 'text'
        await cards.setContents(userID, card.flashcardID, kept.map((sibling) => ({
          cardID: sibling._id,
          content: storedContent(cloze, card.back, format, sibling.clozeNumber, renderingOf(sibling))
        })), context.clock())
      }
      let deleted = 0
      for (const [flashcardID, cardIDs] of byFlashcard) deleted += await cards.removeCards(userID, flashcardID, cardIDs)
      // a note an Anki import kept (or add-note made) goes with its last card
      const keptNotes = [...new Set([...found.values()].flatMap((card) => card.noteID !== undefined && card.ankiGuid !== undefined ? [card.noteID] : []))]
      await repositories.notes.remove(userID, await cards.notesWithoutCards(userID, keptNotes))
      await users.takeFromUsage(userID, { cards: deleted })
      return await releaseMedia(context, repositories, userID, [...new Set([...found.values()].flatMap((card) => card.media ?? []))])
    })
    await removeFilesAfterwards(context, unusedFiles)
    return deletedIDs
  }


  /** A cloze note's new text, back extra or format, given to every card of it, in the caller's transaction. */
  async function editClozeNote (repositories: Repositories, user: UserDocument, flashcardID: string,
    note: { noteID: string, cloze: string, back: string, format: TextFormat }, mediaUrl: UserMediaUrl) {
    const { cards, users } = repositories
    const userID = user._id
    const numbers = clozeNumbers(parseCloze(note.cloze))
    if (numbers.length === 0) throw noDeletion('body.cloze')
    const siblings = await cards.ofNote(userID, flashcardID, note.noteID)
    const numbered = new Set(siblings.map((sibling) => sibling.clozeNumber))
    const wanted = new Set(numbers)
    const kept = siblings.filter((sibling) => wanted.has(sibling.clozeNumber as number))
    const removed = siblings.filter((sibling) => !wanted.has(sibling.clozeNumber as number))
    const newNumbers = numbers.filter((number) => !numbered.has(number))
    if (newNumbers.length > MAX_CARDS_PER_REQUEST) throw tooManyCards('body.cloze', newNumbers.length)

    const changes = kept.map((sibling) => ({ cardID: sibling._id, content: storedContent(note.cloze, note.back, note.format, sibling.clozeNumber, renderingOf(sibling)) }))
    await cards.setContents(userID, flashcardID, changes, context.clock())
    if (removed.length > 0) {
      const deleted = await cards.removeCards(userID, flashcardID, removed.map((sibling) => sibling._id))
      await users.takeFromUsage(userID, { cards: deleted })
    }
    const added = noteCards(userID, flashcardID, note, newNumbers, context.clock(), 0)
    if (added.length > 0) {
      await placeAfterLast(cards, userID, flashcardID, added)
      await storeNewCards({ cards, users }, userID, added)
      await addToUsageWithinQuotas(context, users, userID, { cards: added.length })
    }
    const keptNow = kept.map((sibling, index) => ({ ...sibling, ...changes[index]?.content }))
    const noteNow = [...keptNow, ...added].sort((a, b) => (a.clozeNumber ?? 0) - (b.clozeNumber ?? 0))
    return {
      noteID: note.noteID,
      cards: noteNow.map((card) => cardDetails(card, user, mediaUrl, context.clock())),
      kept: kept.map((card) => card._id),
      added: added.map((card) => card._id),
      removed: removed.map((card) => card._id)
    }
  }

  /**
   * Edits a note made here, in the caller's transaction: its fields are HTML (madeHereFields), so a
   * card of plain text stays plain only while its fields hold no markup; a cloze note changes as
   * edit-card changes it (a card whose number is gone is deleted, a new number makes a card).
   */
  async function editMadeHereNote (repositories: Repositories, user: UserDocument, noteID: string, made: MadeHereNote,
    change: { fields?: Record<string, string>, tags?: string[] }) {
    const first = made.cards[0] as CardDocument
    const tags = change.tags ?? first.tags ?? []
    const [front, back] = editedFields(stockOfMadeHere(made.kind), madeHereFields(first), change.fields ?? {}, tags) as [string, string]
    const format: TextFormat = (first.format ?? 'text') === 'text' && !/[<>&]/.test(front + back) ? 'text' : 'html'
    const now = context.clock()
    let result = { cardIDs: made.cards.map((card) => card._id), added: [] as string[], removed: [] as string[] }
    if (change.fields !== undefined && Object.keys(change.fields).length > 0) {
      if (made.kind === 'basic') {
        if (front.trim() === '') throw new Refusal('invalid_field', 'the note\'s Front would be empty, and a card made here needs a front: write one, or delete the note')
        const content = storedContent(front, back, format, undefined, renderingOf(first))
        await repositories.cards.setContents(user._id, first.flashcardID, [{ cardID: first._id, content }], now)
      } else {
        const edited = await editClozeNote(repositories, user, first.flashcardID, { noteID, cloze: front, back, format }, mediaUrlOf(user._id))
        result = { cardIDs: [...edited.kept, ...edited.added], added: edited.added, removed: edited.removed }
      }
    }
    if (change.tags !== undefined) await repositories.cards.setTags(user._id, result.cardIDs, tags, now)
    return { noteID, ...result }
  }

  return {
    /** Creates a folder with any missing parents; 409 when it exists already. */
    async createFolder (userID: string, path: readonly string[]) {
      const { folder, created } = await editTree(userID, async (tree, { users }) => {
        const made = createFolderPath(tree, path, newId)
        await addToUsageWithinQuotas(context, users, userID, { nodes: made.added })
        return made
      })
      if (!created) throw new Refusal('name_taken', `the folder ${describePath(path)} already exists`)
      return { folderID: folder.id, path: [...path] }
    },

    /** Creates a flashcard and its cards in an existing folder: all or nothing. */
    async createFlashcard (userID: string, flashcard: NewFlashcard) {
      const { folder, flashcardName, description } = flashcard
      const cards = cardInputs(flashcard.cards, 'body.cards')
      const now = context.clock()
      const flashcardID = newId()
      const documents = newCards(userID, flashcardID, cards, now)
      await editTree(userID, async (tree, { cards: cardStore, users }) => {
        addFlashcard(tree, folder, { id: flashcardID, name: flashcardName, description })
        await storeNewCards({ cards: cardStore, users }, userID, documents)
        await addToUsageWithinQuotas(context, users, userID, { nodes: 1, cards: documents.length })
      })
      return { flashcardID, cardIDs: documents.map((card) => card._id) }
    },

    async renameFolder (userID: string, folderID: string, name: string) {
      const path = await editTree(userID, (tree) => renameFolder(tree, folderID, name))
      return { folderID, path }
    },

    /** Moves a folder with everything in it; the subtree moves as one value, so nothing below it changes. */
    async moveFolder (userID: string, folderID: string, parentID: string) {
      const path = await editTree(userID, (tree) => moveFolder(tree, folderID, parentID))
      return { folderID, path }
    },

    /** Stops the deletions going on behind their answers after their current batch, what they deleted staying deleted. */
    async close (): Promise<void> {
      closed = true
      await Promise.allSettled([...deletions.values()].map((entry) => entry.work))
    },

    /**
     * Deletes a folder with its subfolders, flashcards and cards; the review
     * log stays, for statistics and goals. Media that only its cards showed,
     * past its grace, goes in the same transaction. Past one transaction of
     * cards, the answer comes within `waitMs` (behindAnswer).
     */
    async deleteFolder (userID: string, folderID: string) {
      const outline = removeFolder(structuredClone(await context.repositories.trees.read(userID)), folderID)
      const counted = await cardCounts(userID, outline.flashcardIDs)
      const total = counted.reduce((sum, count) => sum + count, 0)
      return await behindAnswer(userID, `${userID}/${folderID}`, total > REMOVAL_BATCH, async (lease) => await deleteWhole(userID, outline.flashcardIDs, counted, lease, (tree) => {
        const removed = removeFolder(tree, folderID)
        return { ...removed, nodes: removed.folders + removed.flashcardIDs.length }
      }, (cards, removed) => ({ folderID, folders: String(removed.folders), flashcards: String(removed.flashcardIDs.length), cards: String(cards) })), () => ({
        folderID, folders: String(outline.folders), flashcards: String(outline.flashcardIDs.length), cards: String(total), underWay: 'true' as const
      }))
    },

    async renameFlashcard (userID: string, flashcardID: string, name: string) {
      await editTree(userID, (tree) => { renameFlashcard(tree, flashcardID, name) })
      return { flashcardID, flashcardName: name }
    },

    async moveFlashcard (userID: string, flashcardID: string, folderID: string) {
      const folder = await editTree(userID, (tree) => moveFlashcard(tree, flashcardID, folderID))
      return { flashcardID, folderID, folder }
    },

    async deleteFlashcard (userID: string, flashcardID: string) {
      flashcardWithPath(await context.repositories.trees.read(userID), flashcardID)
      const counted = await cardCounts(userID, [flashcardID])
      const total = counted[0] ?? 0
      return await behindAnswer(userID, `${userID}/${flashcardID}`, total > REMOVAL_BATCH, async (lease) => await deleteWhole(userID, [flashcardID], counted, lease, (tree) => {
        removeFlashcard(tree, flashcardID)
        return { flashcardIDs: [flashcardID], nodes: 1 }
      }, (cards) => ({ flashcardID, cards: String(cards) })), () => ({
        flashcardID, cards: String(total), underWay: 'true' as const
      }))
    },
    /**
     * A flashcard with its folder path and a page of its cards, content and schedule, in
     * creation order: the first page, or the one after `cursor`; with `cardIDs`, only those
     * of its cards. `nextCursor` when more follow.
     */
    async getFlashcard (user: UserDocument, flashcardID: string, options: { cursor?: string, cardIDs?: readonly string[] } = {}) {
      const { trees, cards } = context.repositories
      const after = options.cursor === undefined ? null : placeOfCursor(options.cursor, flashcardID)
      const { flashcard, folder } = flashcardWithPath(await trees.read(user._id), flashcardID)
      const now = context.clock()
      const reader = options.cardIDs === undefined
        ? cards.flashcardInCreationOrder(user._id, flashcardID, after, creationBounds(user.createdAt, now))
        : cards.chosenInCreationOrder(user._id, flashcardID, [...new Set(options.cardIDs)], after)
      const mediaUrl = mediaUrlOf(user._id)
      const page = await pageOfCards(reader, (card) => cardDetails(card, user, mediaUrl, now), (shown) => jsonBytes(shown) + 1)
      return {
        flashcardID,
        flashcardName: flashcard.name,
        description: flashcard.description,
        folder,
        cards: page.cards,
        ...(page.last === null ? {} : { nextCursor: cursorAfter(flashcardID, page.last) })
      }
    },

    /**
     * Adds new, never reviewed cards after those a flashcard holds, a cloze
     * note's cards together in the order of their numbers: all or nothing.
     */
    async addCards (userID: string, flashcardID: string, texts: readonly CardWriting[]) {
      const documents = newCards(userID, flashcardID, cardInputs(texts, 'body.cards'), context.clock())
      await context.userTransaction(userID, async ({ trees, cards, users }) => {
        flashcardWithPath(await trees.read(userID), flashcardID)
        await placeAfterLast(cards, userID, flashcardID, documents)
        await storeNewCards({ cards, users }, userID, documents)
        await addToUsageWithinQuotas(context, users, userID, { cards: documents.length })
      })
      return { cardIDs: documents.map((card) => card._id) }
    },

    /**
     * Changes a card's text or format; its schedule stays. For a card of a
     * cloze note, the text is the note's, and the whole note changes in one
     * transaction: every card whose number is still there gets the new text
     * and keeps its schedule, a card whose number is gone is deleted, and a new
     * number gets a new card.
     */
    async editCard (user: UserDocument, change: { flashcardID: string, cardID: string } & CardWriting) {
      const { flashcardID, cardID, front, back, cloze, format } = change
      if (front === undefined && back === undefined && cloze === undefined && format === undefined) {
        throw new Refusal('nothing_to_change', 'body has none of "front", "back", "cloze" and "format": send what to change')
      }
      const mediaUrl = mediaUrlOf(user._id)
      return await context.userTransaction(user._id, async (repositories) => {
        const card = await repositories.cards.findOne(user._id, flashcardID, cardID)
        if (card === null) throw noCard(flashcardID, cardID)
        const kept = card.noteID === undefined || card.ankiGuid === undefined ? null : await repositories.notes.findById(user._id, card.noteID)
        const noteType = kept === null ? null : await repositories.noteTypes.findById(user._id, kept.noteTypeID)
        if (kept !== null && noteType !== null) {
          // a card of a note an Anki import kept: its sides are made from the note's fields
          if (!isBasicNoteType(noteType) || cloze !== undefined) {
            throw new Refusal('use_edit_note', `card ${cardID} is a card of an Anki note of the note type ${quotedName(noteType.name)}, made from the note's fields: ` +
              `change them with edit-note {"noteID": "${kept._id}", "fields": {…}}`)
          }
          const written = format ?? card.format ?? 'html'
          const asField = (text: string | undefined): string | undefined => text === undefined ? undefined : written === 'text' ? sideHtml(text, 'text') : text
          const changes = Object.fromEntries(Object.entries({ Front: asField(front), Back: asField(back) }).filter(([, value]) => value !== undefined)) as Record<string, string>
          const fields = editedFields(noteType, kept.fields, changes, kept.tags)
          const cards = await repositories.cards.ofNoteAnywhere(user._id, kept._id)
          const edited = (await rewriteNote(repositories, user._id, { note: kept, noteType, cards }, fields, kept.tags, context.clock(), await deckNamesOf(repositories, user._id))).find((one) => one._id === cardID) ?? card
          return cardDetails(edited, user, mediaUrl, context.clock())
        }
        if (card.noteID === undefined || card.clozeNumber === undefined) {
          if (cloze !== undefined) {
            throw new Refusal('wrong_card_kind',
              `card ${cardID} has a front and a back, not a cloze text: send front or back; for a cloze note, add a card {cloze} and delete this one`)
          }
          const content = storedContent(front ?? card.front, back ?? card.back, format ?? card.format ?? 'text', undefined, renderingOf(card))
          await repositories.cards.setContents(user._id, flashcardID, [{ cardID, content }], context.clock())
          return cardDetails({ ...card, ...content, html: content.html }, user, mediaUrl, context.clock())
        }
        if (front !== undefined) {
          throw new Refusal('wrong_card_kind',
            `card ${cardID} is a card of a cloze note: send cloze (the note's text, which every card of the note shares) rather than front`)
        }
        const note = { noteID: card.noteID, cloze: cloze ?? card.front, back: back ?? card.back, format: format ?? card.format ?? 'text' }
        return await editClozeNote(repositories, user, flashcardID, note, mediaUrl)
      })
    },

    /**
     * Deletes one card. A card of a cloze note takes its deletion out of the
     * note's text (its answer stays there as text, its hint goes), so that the
     * note's other cards, which keep their schedules, show what is left.
     */
    async deleteCard (userID: string, flashcardID: string, cardID: string) {
      await deleteChosen(userID, [{ flashcardID, cardID }])
      return { flashcardID, cardID }
    },

    /**
     * Moves cards into another flashcard (the card browser's selection), all or nothing: each
     * keeps its schedule, standing and history. A card of a cloze note made here takes the
     * note's other cards with it, as its cards are kept together in one flashcard; a card of an
     * Anki note moves alone, as in Anki. How many cards moved.
     */
    async moveCards (userID: string, named: ReadonlyArray<{ flashcardID: string, cardID: string }>, toFlashcardID: string) {
      return await context.userTransaction(userID, async ({ trees, cards, notes }) => {
        flashcardWithPath(await trees.read(userID), toFlashcardID)
        const found = new Map((await cards.byIds(userID, named.map((ref) => ref.cardID))).map((card) => [card._id, card]))
        // a cloze note with no document of its own (made here, or imported before notes were kept) is found within its flashcard: its cards go together
        const documented = new Set((await notes.byIds(userID, [...new Set([...found.values()].flatMap((card) => card.noteID === undefined ? [] : [card.noteID]))])).map((note) => note._id))
        const bySource = new Map<string, Set<string>>()
        const take = (flashcardID: string, cardID: string): void => {
          const set = bySource.get(flashcardID) ?? new Set<string>()
          set.add(cardID)
          bySource.set(flashcardID, set)
        }
        for (const ref of named) {
          const card = found.get(ref.cardID)
          if (card?.flashcardID !== ref.flashcardID) throw noCard(ref.flashcardID, ref.cardID)
          take(card.flashcardID, card._id)
          if (card.noteID !== undefined && card.clozeNumber !== undefined && !documented.has(card.noteID)) {
            for (const sibling of await cards.ofNote(userID, card.flashcardID, card.noteID)) take(sibling.flashcardID, sibling._id)
          }
        }
        let moved = 0
        for (const [from, cardIDs] of bySource) moved += await cards.moveCards(userID, from, [...cardIDs], toFlashcardID)
        return { moved: String(moved), toFlashcardID }
      })
    },

    /**
     * Changes the fields named of a note (the others stay) and, when given, its tags: a kept note's
     * (editKeptNote), or a note made here, whose fields are its card's sides (or its cloze text and
     * back extra), written as edit-card writes them.
     */
    async editNote (user: UserDocument, change: { noteID: string, fields?: Record<string, string>, tags?: string[] }) {
      if (change.fields === undefined && change.tags === undefined) {
        throw new Refusal('nothing_to_change', 'body has neither "fields" nor "tags": send what to change')
      }
      return await context.userTransaction(user._id, async (repositories) => {
        const found = await noteOf(repositories, user._id, change.noteID)
        return 'kept' in found
          ? await editKeptNote(context, repositories, user._id, found.kept, change)
          : await editMadeHereNote(repositories, user, change.noteID, found.made, change)
      })
    },

    /** Deletes a note with every card of it, each as delete-card deletes one; its reviews stay in the log. */
    async deleteNote (userID: string, noteID: string) {
      const cardIDs = await deleteChosen(userID, async (repositories) => {
        const found = await noteOf(repositories, userID, noteID)
        if ('made' in found) return found.made.cards.map((card) => ({ flashcardID: card.flashcardID, cardID: card._id }))
        const cards = await repositories.cards.ofNoteAnywhere(userID, noteID)
        // a note without cards goes by itself; one with cards goes with its last
        if (cards.length === 0) await repositories.notes.remove(userID, [noteID])
        return cards.map((card) => ({ flashcardID: card.flashcardID, cardID: card._id }))
      })
      return { noteID, cardIDs }
    },

    /**
     * Changes a note type and every note and card of it, in one transaction (changeNoteType); the
     * cards of templates it drops go as delete-card takes one, a note with them when they were its last.
     */
    async editNoteType (userID: string, noteTypeID: string, change: NoteTypeChange, confirm: boolean) {
      const result: NoteTypeEdited & { plan?: NoteTypePlan, run?: string } = { noteType: null as unknown as NoteTypeEdited['noteType'], dropped: [], added: [], notes: 0 }
      const removed = await deleteChosen(userID, async (repositories) => {
        const plan = await planNoteTypeEdit(context, repositories, userID, noteTypeID, change, confirm)
        Object.assign(result, { noteType: plan.noteType, plan, dropped: [], added: [], notes: 0 })
        if (plan.reshapes) {
          // a reshaping changes every note and card at once, with the note type (a bounded number of
          // them), and ends a rendering of an earlier edit still under way
          for await (const notes of repositories.notes.ofNoteType(userID, noteTypeID, NOTE_BATCH)) await renderNotesAgain(context, repositories, userID, plan, notes, result)
          await repositories.noteTypes.endRendering(userID, noteTypeID)
        } else if (plan.rendersAgain) {
          // new template text: the cards rendered again 500 notes to a transaction, as many as there are
          const rendering = renders.begin()
          await repositories.noteTypes.beginRendering(userID, noteTypeID, rendering)
          result.run = rendering.run
        }
        return result.dropped
      })
      const rendered = result.run === undefined ? { done: true, notes: result.notes } : await renders.runFor(userID, noteTypeID, result.run)
      return {
        ...noteTypeShown(result.noteType),
        notes: String(rendered.notes),
        ...(rendered.done ? {} : { underWay: 'true' as const }),
        added: result.added,
        removed
      }
    },

    /** Deletes a note type; one with notes only with `confirm`, its notes and cards going with it, each card as delete-card takes one. */
    async deleteNoteType (userID: string, noteTypeID: string, confirm: boolean) {
      // its notes' cards a batch at a time, each batch one transaction (a note type of 100,000 notes
      // would not fit one); the note type goes in the step that finds no note left. Cut off, it is
      // left with fewer notes, to delete again.
      const removed: string[] = []
      let gone = false
      while (!gone) {
        const step = await deleteChosen(userID, async (repositories) => {
          const cards = await noteTypeDeletionStep(repositories, userID, noteTypeID, confirm)
          gone = cards.length === 0 && await repositories.noteTypes.findById(userID, noteTypeID) === null
          return cards
        })
        removed.push(...step)
      }
      return { noteTypeID, removed }
    },

    /**
     * Deletes many cards at once (the card browser's selection), all or
     * nothing, each as deleteCard deletes one (deleteChosen). How many cards
     * were deleted (each named, once).
     */
    async deleteCards (userID: string, named: ReadonlyArray<{ flashcardID: string, cardID: string }>) {
      const refs = [...new Map(named.map((ref) => [ref.cardID, ref])).values()]
      await deleteChosen(userID, refs)
      return { deleted: String(refs.length) }
    },

    /**
     * The user's folders and flashcards with their ids and card counts: what a
     * client needs to name a folder or flashcard in an edit, which the tree of
     * the published interface (keyed by names) does not give. Each folder and
     * flashcard, and the whole library, also says how many cards studying it
     * today would give: its learning and review cards due before the day
     * ends, and its new cards, each within what the daily limits leave today
     * across the whole library.
     */
    async outline (user: UserDocument) {
      const { trees, cardStates } = context.repositories
      const now = context.clock()
      const account = await withBurialsOver(context, user, now)
      const today = userDay(now, account)
      const [tree, counts, allowance] = await Promise.all([
        trees.read(account._id), cardStates.countsByFlashcard(account._id, today.end), allowanceToday(context.repositories, account, today)
      ])
      const studied = (raw: { due: number, new: number }) => ({
        due: String(Math.min(raw.due, allowance.reviews)),
        new: String(Math.min(raw.new, allowance.newCards))
      })
      const folderOutline = (folder: FolderNode): { outline: FolderOutline, raw: { due: number, new: number } } => {
        const raw = { due: 0, new: 0 }
        const flashcards = folder.flashcards.map((flashcard) => {
          const counted = counts.get(flashcard.id) ?? { cards: 0, due: 0, new: 0 }
          raw.due += counted.due
          raw.new += counted.new
          return {
            flashcardID: flashcard.id,
            flashcardName: flashcard.name,
            description: flashcard.description,
            cards: String(counted.cards),
            ...studied(counted)
          }
        })
        const folders = folder.folders.map((child) => {
          const { outline, raw: below } = folderOutline(child)
          raw.due += below.due
          raw.new += below.new
          return outline
        })
        return { outline: { folderID: folder.id, name: folder.name, ...studied(raw), folders, flashcards }, raw }
      }
      const raw = { due: 0, new: 0 }
      const folders = tree.folders.map((folder) => {
        const { outline, raw: below } = folderOutline(folder)
        raw.due += below.due
        raw.new += below.new
        return outline
      })
      return { ...studied(raw), folders }
    },

    /**
     * The whole library in the shape of the published tree (docs/interface.md), as JSON text: every folder (an empty one
     * as {}), every flashcard, every card. Without `content`, the cards' text is not even read: it is most of what a card
     * holds. With it, each card with its text and the HTML to show, a page at a time: `{library, nextCursor?}`, the
     * library's cards in creation order, the first page with every folder and flashcard, the next ones with only those
     * that hold their cards.
     */
    async allCards (user: UserDocument, options: { content: boolean, cursor?: string } = { content: false }): Promise<string> {
      const { trees, cards, cardStates } = context.repositories
      if (!options.content) {
        if (options.cursor !== undefined) {
          throw new Refusal('invalid_field', 'body.cursor pages get-all-cards with content: true only; without content the answer is the whole library at once: send no cursor')
        }
        const tree = await trees.read(user._id)
        return treeJson(tree, cardLeaves(await cardStates.ofFlashcards(user._id, flashcardIDsIn(tree.folders)), user), { includeEmpty: true })
      }
      const after = options.cursor === undefined ? null : placeOfCursor(options.cursor, LIBRARY_PAGES)
      const tree = await trees.read(user._id)
      const inTree = new Set(flashcardIDsIn(tree.folders))
      const now = context.clock()
      const leafOf = contentLeafOf(user, mediaUrlOf(user._id), now)
      // a card of a flashcard the tree lacks has no place to show (treeJson would leave it out too)
      const page = await pageOfCards(cards.libraryInCreationOrder(user._id, after, creationBounds(user.createdAt, now)),
        (card) => inTree.has(card.flashcardID) ? leafOf(card) : undefined,
        (leaf) => jsonBytes(leaf.id) + jsonBytes(treeCardValue(leaf)) + 2)
      const library = treeJson(tree, page.cards, { includeEmpty: after === null })
      return page.last === null ? `{"library":${library}}` : `{"library":${library},"nextCursor":${JSON.stringify(cursorAfter(LIBRARY_PAGES, page.last))}}`
    }
  }
}

export type LibraryService = ReturnType<typeof libraryService>
