import { userDay } from '../domain/calendar.js'
import { flashcardIDsIn, flashcardsWithPaths, flashcardWithPath, locateFolder } from '../domain/library-tree.js'
import { todayQueueRanges } from '../domain/queues.js'
import { Refusal } from '../domain/refusals.js'
import { CardState } from '../domain/scheduling.js'
import { CardPage } from '../domain/card-pages.js'
import { compareStudyPlaces, readStudyCursor, resumeAfter, studyCursorAfter, studyPagesOf, studyPlaceOf, type QueuePart, type StudyPlace } from '../domain/study-pages.js'
import type { QueuedCard } from '../repositories/card-states.js'
import type { UserDocument } from '../repositories/users.js'
import type { ServiceContext } from './context.js'
import { allowanceToday, readToday, withBurialsOver } from './today.js'
import { cardDetails } from './wire.js'

/** What to study: one folder (with everything below it), one flashcard, or, with neither, the whole library. */
export interface StudyScope { folderID?: string, flashcardID?: string }

/**
 * A part of the library estimated to hold at most this many cards is read
 * whole, by its flashcards (user_flashcard); a larger one through the user's
 * queues, from their starts, keeping its own cards. The first costs what the
 * part holds; the second what the queues hold before the part's cards are
 * found, little when the part holds much of the library.
 */
export const PART_READ_WHOLE_UP_TO = 10_000

/** The queue a card of the study queue is in, as a study header counts them (Anki's three numbers). */
export type StudyQueueName = 'new' | 'learning' | 'review'

function queueOf (card: QueuedCard): StudyQueueName {
  if (card.state === CardState.New) return 'new'
  return card.state === CardState.Review ? 'review' : 'learning'
}

/**
 * Today's cards to study, with their content, in the order to study them, a
 * page at a time, and how many are left in each queue: of the whole library
 * (the cards of get-today-cards, read as it reads them), or of one folder or
 * flashcard. A part's cards are its own learning and review cards due before
 * the day ends and its own new cards, each queue in its order, within what
 * the daily limits leave today across the whole library.
 */
export function studyQueueService (context: ServiceContext) {
  const { repositories } = context

  /** The cards of a part of the library, each queue within the allowance. */
  async function partQueues (user: UserDocument, scope: StudyScope) {
    const now = context.clock()
    const account = await withBurialsOver(context, user, now)
    const today = userDay(now, account)
    const [tree, allowance] = await Promise.all([repositories.trees.read(account._id), allowanceToday(repositories, account, today)])
    let part: string[]
    if (scope.flashcardID !== undefined) {
      flashcardWithPath(tree, scope.flashcardID)
      part = [scope.flashcardID]
    } else {
      const folder = locateFolder(tree, scope.folderID ?? '')
      if (folder === null) throw new Refusal('folder_not_found', `no folder ${scope.folderID ?? ''}`)
      part = flashcardIDsIn([folder.node])
    }
    const everyFlashcard = flashcardIDsIn(tree.folders).length
    const estimated = (account.usage?.cards ?? 0) * part.length / Math.max(1, everyFlashcard)
    const queues = estimated <= PART_READ_WHOLE_UP_TO
      ? await repositories.cardStates.queuesOfFlashcards(account._id, part, today.end, allowance)
      // a start stays where it is: the part's first card is not its queue's
      : await repositories.cardStates.todayQueue(account._id, todayQueueRanges(account.queueFrom, today.end, now), allowance, part)
    return { account, now, queues, tree }
  }

  return {
    /**
     * A page of the study queue of `scope`: the first, or the one after
     * `cursor` (domain/study-pages.ts), with the counts of the whole queue.
     * The queue is read whole without content, as get-today-cards reads it,
     * for its counts and its order; only the page's cards are read with their
     * content, by id, a few at a time as their sizes say, until it is full.
     */
    async studyQueue (user: UserDocument, scope: StudyScope, cursor?: string) {
      if (scope.folderID !== undefined && scope.flashcardID !== undefined) {
        throw new Refusal('invalid_field', 'body has both "folderID" and "flashcardID": send one of them to study a part of the library, or neither to study all of it')
      }
      const of = studyPagesOf(scope)
      const given = cursor === undefined ? null : readStudyCursor(cursor, of)
      const whole = scope.folderID === undefined && scope.flashcardID === undefined
      const { account, now, queues, tree, raising } = whole ? await readToday(context, user) : { ...await partQueues(user, scope), raising: Promise.resolve() }
      const today = userDay(now, account)
      const flashcards = flashcardsWithPaths(tree, new Set([...queues.due, ...queues.new].map((card) => card.flashcardID)))
      const entry = (part: QueuePart) => (card: QueuedCard) => {
        const flashcard = flashcards.get(card.flashcardID)
        // a card of a flashcard deleted since the queues were read is left out
        return flashcard === undefined ? [] : [{ card, flashcard, place: studyPlaceOf(part, card) }]
      }
      const ordered = [...queues.due.flatMap(entry('due')), ...queues.new.flatMap(entry('new'))].sort((a, b) => compareStudyPlaces(a.place, b.place))
      const after = resumeAfter(given, today.start)
      const from = after === null ? 0 : ordered.findIndex(({ place }) => compareStudyPlaces(place, after) > 0)
      const rest = from === -1 ? [] : ordered.slice(from)

      const mediaUrl = (mediaID: string) => context.mediaUrl(account._id, mediaID)
      const page = new CardPage<StudyQueueCard>()
      // how far `rest` is taken: the cards before `next` are on the page or deleted since the queues were read
      let next = 0
      let last: StudyPlace | null = null
      while (!page.more && next < rest.length) {
        const asked = rest.slice(next, next + page.wanted())
        const contents = new Map((await repositories.cards.withContentByIds(account._id, asked.map(({ card }) => card._id))).map((card) => [card._id, card]))
        for (const { card: queued, flashcard, place } of asked) {
          const card = contents.get(queued._id)
          if (card !== undefined) {
            const shown = { flashcardID: queued.flashcardID, flashcardName: flashcard.name, folder: flashcard.folder, queue: queueOf(queued), ...cardDetails(card, account, mediaUrl, now) }
            if (!page.add(shown, Buffer.byteLength(JSON.stringify(shown)) + 1)) break
            last = place
          }
          next += 1
        }
      }
      await raising
      return {
        counts: countsOf(ordered.map(({ card }) => card)),
        cards: page.cards,
        ...(page.more && last !== null
          ? { countsAfter: countsOf(rest.slice(next).map(({ card }) => card)), nextCursor: studyCursorAfter(of, today.start, last) }
          : {})
      }
    }
  }
}

/** A card of the study queue as the answer shows it. */
type StudyQueueCard = { flashcardID: string, flashcardName: string, folder: string[], queue: StudyQueueName } & ReturnType<typeof cardDetails>

/** How many cards of each queue, as the wire writes them. */
function countsOf (cards: readonly QueuedCard[]): Record<StudyQueueName, string> {
  const counts = { new: 0, learning: 0, review: 0 }
  for (const card of cards) counts[queueOf(card)] += 1
  return { new: String(counts.new), learning: String(counts.learning), review: String(counts.review) }
}

export type StudyQueueService = ReturnType<typeof studyQueueService>
