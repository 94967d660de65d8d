import { buriedUntilAt, isBuriedAt, isOutOfQueues, queueKeyOf, BURIED } from '../domain/card-states.js'
import { noCard } from '../domain/refusals.js'
import type { CardDocument } from '../repositories/cards.js'
import type { UserDocument } from '../repositories/users.js'
import type { ServiceContext } from './context.js'
import { cardDetails, type UserMediaUrl } from './wire.js'

/**
 * What a change of standing asks for: whether the card is suspended, until when it is buried (null:
 * not buried), and whether that burial is one an Anki import brought as a sibling's.
 */
interface Standing { suspended: boolean, buriedUntil: Date | null, buriedAsSibling: boolean }

/**
 * Suspending, burying and flagging a card, each reversible. A change of
 * standing moves the card between its queue and the outside of both queues
 * (its `isNew` key, see domain/card-states.ts) in the user's transaction: a
 * card taken out needs nothing more, as a queue's start stays a lower bound
 * of what is left; a card put back lowers its queue's start to it, and counts
 * the write, as every write that places a card does (users.placeCards); a
 * card buried tells the account when it comes back (users.noteBurial), so
 * that the first read of today's cards after that puts it back.
 */
export function cardStatesService (context: ServiceContext) {
  function mediaUrlOf (userID: string): UserMediaUrl {
    return (mediaID) => context.mediaUrl(userID, mediaID)
  }

  async function changeStanding (user: UserDocument, flashcardID: string, cardID: string, decide: (card: CardDocument, now: Date) => Standing) {
    const now = context.clock()
    const card = await context.userTransaction(user._id, async ({ cards, users }) => {
      const card = await cards.findOne(user._id, flashcardID, cardID)
      if (card === null) throw noCard(flashcardID, cardID)
      const standing = decide(card, now)
      const isNew = queueKeyOf({ state: card.state, suspended: standing.suspended, ...(standing.buriedUntil === null ? {} : { buriedUntil: standing.buriedUntil }) }, now)
      const changed = await cards.setStanding(user._id, flashcardID, cardID, { isNew, ...standing })
      if (changed === null) throw noCard(flashcardID, cardID)
      if (!isOutOfQueues(isNew) && isOutOfQueues(card.isNew)) {
        await users.placeCards(user._id, [{ isNew, due: card.due, createdOrder: card.createdOrder }])
      }
      if (isNew === BURIED && standing.buriedUntil !== null) await users.noteBurial(user._id, standing.buriedUntil)
      return changed
    })
    return cardDetails(card, user, mediaUrlOf(user._id), now)
  }

  /** A burial that has not ended is kept, as it came; one that has is forgotten. */
  const burialOf = (card: CardDocument, now: Date): Pick<Standing, 'buriedUntil' | 'buriedAsSibling'> =>
    card.buriedUntil !== undefined && isBuriedAt(card, now)
      ? { buriedUntil: card.buriedUntil, buriedAsSibling: card.buriedAsSibling === true }
      : { buriedUntil: null, buriedAsSibling: false }

  return {
    /** Out of today's cards until unsuspended; the schedule is kept. */
    async suspend (user: UserDocument, flashcardID: string, cardID: string) {
      return await changeStanding(user, flashcardID, cardID, (card, now) => ({ suspended: true, ...burialOf(card, now) }))
    },

    /** Back in its queue, where its schedule puts it (or still out while buried). */
    async unsuspend (user: UserDocument, flashcardID: string, cardID: string) {
      return await changeStanding(user, flashcardID, cardID, (card, now) => ({ suspended: false, ...burialOf(card, now) }))
    },

    /** Out of today's cards until the user's next day begins, in their calendar. */
    async bury (user: UserDocument, flashcardID: string, cardID: string) {
      return await changeStanding(user, flashcardID, cardID, (card, now) => ({ suspended: card.suspended === true, buriedUntil: buriedUntilAt(now, user), buriedAsSibling: false }))
    },

    /** Back in its queue at once (unless suspended). */
    async unbury (user: UserDocument, flashcardID: string, cardID: string) {
      return await changeStanding(user, flashcardID, cardID, (card) => ({ suspended: card.suspended === true, buriedUntil: null, buriedAsSibling: false }))
    },

    /** A label, 0 (none) to 7: one document changed, nothing of the schedule. */
    async flag (user: UserDocument, flashcardID: string, cardID: string, flag: number) {
      const card = await context.repositories.cards.setFlag(user._id, flashcardID, cardID, flag)
      if (card === null) throw noCard(flashcardID, cardID)
      return cardDetails(card, user, mediaUrlOf(user._id), context.clock())
    }
  }
}

export type CardStatesService = ReturnType<typeof cardStatesService>
