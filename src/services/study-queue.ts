import { userDay } from '../domain/calendar.js'
import { flashcardIDsIn, flashcardsWithPaths, flashcardWithPath, locateFolder } from '../domain/library-tree.js'
import { todayQueueRanges } from '../domain/queues.js'
import { Refusal } from '../domain/refusals.js'
import { CardState } from '../domain/scheduling.js'
import type { QueuedCard } from '../repositories/cards.js'
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
 * Today's cards to study, with their content, in the order to study them,
 * and how many are left in each queue: of the whole library (the cards of
 * get-today-cards, read as it reads them), or of one folder or flashcard. A
 * part's cards are its own learning and review cards due before the day ends
 * and its own new cards, each queue in its order, within what the daily
 * limits leave today across the whole library.
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
      ? await repositories.cards.queuesOfFlashcards(account._id, part, today.end, allowance)
      // a start stays where it is: the part's first card is not its queue's
      : await repositories.cards.todayQueue(account._id, todayQueueRanges(account.queueFrom, today.end, now), allowance, part)
    return { account, now, queues, tree }
  }

  return {
    async studyQueue (user: UserDocument, scope: StudyScope) {
      if (scope.folderID !== undefined && scope.flashcardID !== undefined) {
        throw new Refusal('invalid_field', 'body has both "folderID" and "flashcardID": send one of them to study a part of the library, or neither to study all of it')
      }
      const whole = scope.folderID === undefined && scope.flashcardID === undefined
      const { account, now, queues, tree, raising } = whole ? await readToday(context, user) : { ...await partQueues(user, scope), raising: Promise.resolve() }
      const ordered = [...queues.due, ...queues.new]
      const [contents] = await Promise.all([repositories.cards.withContentByIds(account._id, ordered.map((card) => card._id)), raising])
      const byID = new Map(contents.map((card) => [card._id, card]))
      const flashcards = flashcardsWithPaths(tree, new Set(ordered.map((card) => card.flashcardID)))
      const counts = { new: 0, learning: 0, review: 0 }
      const cards = []
      for (const queued of ordered) {
        const card = byID.get(queued._id)
        const flashcard = flashcards.get(queued.flashcardID)
        // deleted since the queues were read
        if (card === undefined || flashcard === undefined) continue
        const queue = queueOf(queued)
        counts[queue] += 1
        cards.push({
          flashcardID: queued.flashcardID,
          flashcardName: flashcard.name,
          folder: flashcard.folder,
          queue,
          ...cardDetails(card, account, (mediaID) => context.mediaUrl(account._id, mediaID), now)
        })
      }
      return {
        counts: { new: String(counts.new), learning: String(counts.learning), review: String(counts.review) },
        cards
      }
    }
  }
}

export type StudyQueueService = ReturnType<typeof studyQueueService>
