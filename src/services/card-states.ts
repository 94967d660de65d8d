import { buriedUntilAt, isBuriedAt, isOutOfQueues, queueKeyOf, BURIED, type StandingAction } from '../domain/card-states.js'
import { noCard, Refusal } from '../domain/refusals.js'
import type { StandingCard, StandingChange } from '../repositories/card-states.js'
import type { QueuePlace, UserDocument } from '../repositories/users.js'
import type { ServiceContext } from './context.js'
import { cardDetails, type UserMediaUrl } from './wire.js'

/**
 * What a change of standing asks for: whether the card is suspended, until when it is buried (null:
 * not buried), and whether that burial is one an Anki import brought as a sibling's.
 */
interface Standing { suspended: boolean, buriedUntil: Date | null, buriedAsSibling: boolean }

/** A card as a request names it. */
export interface CardRef { flashcardID: string, cardID: string }

/** A burial that has not ended is kept, as it came; one that has is forgotten. */
function burialOf (card: StandingCard, now: Date): Pick<Standing, 'buriedUntil' | 'buriedAsSibling'> {
  return card.buriedUntil !== undefined && isBuriedAt(card, now)
    ? { buriedUntil: card.buriedUntil, buriedAsSibling: card.buriedAsSibling === true }
    : { buriedUntil: null, buriedAsSibling: false }
}

/** What each change of standing but the flag makes of a card. */
const DECISIONS: Record<Exclude<StandingAction, 'flag'>, (card: StandingCard, now: Date, user: UserDocument) => Standing> = {
  // out of today's cards until unsuspended; the schedule is kept
  suspend: (card, now) => ({ suspended: true, ...burialOf(card, now) }),
  // back in its queue, where its schedule puts it (or still out while buried)
  unsuspend: (card, now) => ({ suspended: false, ...burialOf(card, now) }),
  // out of today's cards until the user's next day begins, in their calendar
  bury: (card, now, user) => ({ suspended: card.suspended === true, buriedUntil: buriedUntilAt(now, user), buriedAsSibling: false }),
  // back in its queue at once (unless suspended)
  unbury: (card) => ({ suspended: card.suspended === true, buriedUntil: null, buriedAsSibling: false })
}

/** The queue key a standing gives a card at `now`, with the standing. */
function changeOf (card: StandingCard, standing: Standing, now: Date): StandingChange {
  const isNew = queueKeyOf({ state: card.state, suspended: standing.suspended, ...(standing.buriedUntil === null ? {} : { buriedUntil: standing.buriedUntil }) }, now)
  return { isNew, ...standing }
}

/**
 * Suspending, burying and flagging cards, each reversible, one card or many
 * at once. A change of standing moves a card between its queue and the
 * outside of both queues (its `isNew` key, see domain/card-states.ts) in the
 * user's transaction: a card taken out needs nothing more, as a queue's start
 * stays a lower bound of what is left; a card put back lowers its queue's
 * start to it, and counts the write, as every write that places a card does
 * (users.placeCards); a card buried tells the account when it comes back
 * (users.noteBurial), so that the first read of today's cards after that puts
 * it back.
 */
export function cardStatesService (context: ServiceContext) {
  function mediaUrlOf (userID: string): UserMediaUrl {
    return (mediaID) => context.mediaUrl(userID, mediaID)
  }

  async function changeStanding (user: UserDocument, flashcardID: string, cardID: string, action: Exclude<StandingAction, 'flag'>) {
    const now = context.clock()
    const card = await context.userTransaction(user._id, async ({ cards, cardStates, users }) => {
      const card = await cards.findOne(user._id, flashcardID, cardID)
      if (card === null) throw noCard(flashcardID, cardID)
      const change = changeOf(card, DECISIONS[action](card, now, user), now)
      const changed = await cardStates.setStanding(user._id, flashcardID, cardID, change)
      if (changed === null) throw noCard(flashcardID, cardID)
      if (!isOutOfQueues(change.isNew) && isOutOfQueues(card.isNew)) {
        await users.placeCards(user._id, [{ isNew: change.isNew, due: card.due, createdOrder: card.createdOrder }])
      }
      if (change.isNew === BURIED && change.buriedUntil !== null) await users.noteBurial(user._id, change.buriedUntil)
      return changed
    })
    return cardDetails(card, user, mediaUrlOf(user._id), now)
  }

  return {
    async suspend (user: UserDocument, flashcardID: string, cardID: string) {
      return await changeStanding(user, flashcardID, cardID, 'suspend')
    },

    async unsuspend (user: UserDocument, flashcardID: string, cardID: string) {
      return await changeStanding(user, flashcardID, cardID, 'unsuspend')
    },

    async bury (user: UserDocument, flashcardID: string, cardID: string) {
      return await changeStanding(user, flashcardID, cardID, 'bury')
    },

    async unbury (user: UserDocument, flashcardID: string, cardID: string) {
      return await changeStanding(user, flashcardID, cardID, 'unbury')
    },

    /** A label, 0 (none) to 7: one document changed, nothing of the schedule. */
    async flag (user: UserDocument, flashcardID: string, cardID: string, flag: number) {
      const card = await context.repositories.cardStates.setFlag(user._id, flashcardID, cardID, flag)
      if (card === null) throw noCard(flashcardID, cardID)
      return cardDetails(card, user, mediaUrlOf(user._id), context.clock())
    },

    /**
     * One change of standing applied to many cards (the card browser's
     * selection), all or nothing: in one user transaction, the cards read by
     * id, every one checked to be the user's in the flashcard named before
     * anything is written, then one bulk write, the queues' starts lowered to
     * the cards put back and the earliest burial's end kept, as for one card.
     * How many cards were named (each once).
     */
    async changeMany (user: UserDocument, named: readonly CardRef[], action: StandingAction, flag?: number) {
      if (action === 'flag' && flag === undefined) throw new Refusal('invalid_field', 'body.flag is missing: send the flag to set, 0 (none) to 7, with action "flag"')
      if (action !== 'flag' && flag !== undefined) throw new Refusal('invalid_field', `body.flag is only for action "flag": send no flag with action "${action}"`)
      const refs = [...new Map(named.map((ref) => [ref.cardID, ref])).values()]
      const now = context.clock()
      await context.userTransaction(user._id, async ({ cardStates, users }) => {
        const found = new Map((await cardStates.standingsByIds(user._id, refs.map((ref) => ref.cardID))).map((card) => [card._id, card]))
        for (const ref of refs) {
          if (found.get(ref.cardID)?.flashcardID !== ref.flashcardID) throw noCard(ref.flashcardID, ref.cardID)
        }
        if (action === 'flag') {
          await cardStates.setStandings(user._id, refs.map((ref) => ({ ...ref, flag: flag ?? 0 })))
          return
        }
        const placed: QueuePlace[] = []
        let buriedUntil: Date | null = null
        const changes = refs.map((ref) => {
          const card = found.get(ref.cardID) as StandingCard
          const change = changeOf(card, DECISIONS[action](card, now, user), now)
          if (!isOutOfQueues(change.isNew) && isOutOfQueues(card.isNew)) placed.push({ isNew: change.isNew, due: card.due, createdOrder: card.createdOrder })
          if (change.isNew === BURIED && change.buriedUntil !== null && (buriedUntil === null || change.buriedUntil < buriedUntil)) buriedUntil = change.buriedUntil
          return { ...ref, standing: change }
        })
        await cardStates.setStandings(user._id, changes)
        await users.placeCards(user._id, placed)
        if (buriedUntil !== null) await users.noteBurial(user._id, buriedUntil)
      })
      return { changed: String(refs.length) }
    }
  }
}

export type CardStatesService = ReturnType<typeof cardStatesService>
