import type { ClientSession, Db } from 'mongodb'
import { normaliseEmail, type UserSettings } from '../domain/accounts.js'
import type { LocalDay } from '../domain/calendar.js'
import type { SiblingBurying } from '../domain/card-states.js'
import type { QueueStart, QueueStarts } from '../domain/queues.js'
import type { Quotas, Usage } from '../domain/quotas.js'
import type { FitReport } from '../domain/schedule-fit.js'
import { refusingDuplicates } from './duplicate-key.js'

/** Reviews made on the user's current day, kept with the account so today's cards need no count query. */
export interface StudyDay {
  day: LocalDay
  /** the day's bounds in the calendar the reviews were made in; a settings change may move today's */
  start: Date
  end: Date
  reviews: number
  newCards: number
}

export interface UserDocument extends UserSettings {
  _id: string
  /** normalised (trimmed, lower case): the unique index makes emails case-insensitive */
  email: string
  passwordHash: string
  totalXp: number
  studyDay?: StudyDay
  /** how many reviews the account has recorded: orders the review log where instants tie */
  reviewCount?: number
  /** digests of the addresses the account logged in from lately (see knownAddress): let through when others guess at it */
  knownAddresses?: string[]
  /**
   * the last Anki id handed to a note or card made here (takeAnkiIDs): ids are handed out above it,
   * so no two of the account's are alike; absent before the first
   */
  lastAnkiID?: number
  /** tokens name the generation they were issued in; a new one (log out everywhere, a new password) ends the older ones */
  tokenGeneration?: number
  /** how much of each quota the account uses (see domain/quotas.ts); absent parts count as none */
  usage?: Partial<Usage>
  /** bumped by every transaction that changes the library, so that two of one user conflict (see lockForWrite) */
  writes?: number
  /** where each queue of today's cards starts (domain/queues.ts); absent only on an account the start-up migration has not reached */
  queueFrom?: QueueStarts
  /** the FSRS-6 parameters fitted to the user's reviews and adopted (optimize-schedule); absent: the defaults */
  fsrsParameters?: number[]
  /** the last fit of the user's parameters, adopted or not */
  scheduleFit?: FitReport
  /** the earliest instant a buried card of the account comes back (domain/card-states.ts); absent when none is buried */
  buriedUntil?: Date
  /** when the service's operator disabled the account (npm run admin -- disable); absent while it is enabled */
  disabledAt?: Date
  /**
   * when the account was deleted: its documents are being removed (services/account-deletion.ts), and
   * it is gone for every request and every write meanwhile; absent on a live account
   */
  deletingSince?: Date
  /** the instance removing a deleted account's documents, and until when it holds that work (it renews it as it goes) */
  removalHolder?: string
  removalUntil?: Date
  /** the account's cards were written before search, and their search pages are still to be made (services/search.ts) */
  searchPending?: boolean
  createdAt: Date
}

/** Where a write puts a card: in the new-card queue or the due one, at its due instant and creation order. */
export interface QueuePlace { isNew: boolean, due: Date, createdOrder: number }

/**
 * The parts of an account update that keep the start of a card's queue at or
 * before the card just placed, and count the write, so that no start raised
 * from a read made before it stands (see raiseQueueStarts).
 *
 * New cards are placed where they were created, at the end of the new-card
 * queue: the start's instant and order each go down to the card's, which
 * leaves them as they were unless the queue was empty or the card comes back
 * (undo) before its start. A card placed in the due queue has a creation
 * order unrelated to its due instant; lowering the start's order to it would
 * make the next read take the whole instant of the start again. The start's
 * instant goes down to one millisecond before the card's instead: the start
 * is either there already, or moves to an instant that holds no card, where
 * its order says nothing false.
 */
function queuePlacement (place: QueuePlace) {
  return {
    $min: place.isNew
      ? { 'queueFrom.new.at': place.due, 'queueFrom.new.order': place.createdOrder }
      : { 'queueFrom.due.at': new Date(place.due.getTime() - 1) },
    $inc: { 'queueFrom.writes': 1 }
  }
}

/**
 * queuePlacement for several cards at once: each start goes down to the
 * least instant (and, for new cards, the least creation order) among the
 * cards placed in its queue, which is at or before each of them.
 */
function queuePlacements (places: readonly QueuePlace[]) {
  const $min: Record<string, Date | number> = {}
  for (const place of places) {
    for (const [field, value] of Object.entries(queuePlacement(place).$min)) {
      const kept = $min[field]
      if (kept === undefined || value < kept) $min[field] = value
    }
  }
  return { $min, $inc: { 'queueFrom.writes': 1 } }
}

/**
 * An account not being deleted. Every read and write of an account goes
 * through it: a deleted account is gone for every request at once, and
 * every write of its user (which starts by writing the account) finds it
 * gone, while its documents are removed.
 */
const LIVE = { deletingSince: { $exists: false } } as const

function live (userID: string) {
  return { _id: userID, ...LIVE }
}

/** What a deleted account's email becomes: never an email (no @), so the address is free at once, and unique. */
export function deletedEmail (userID: string): string {
  return `deleted:${userID}`
}

export class EmailTakenError extends Error {
  override name = 'EmailTakenError'
}

export function usersRepository (db: Db, session?: ClientSession) {
  const users = db.collection<UserDocument>('users')
  const inSession = { session }
  const after = { returnDocument: 'after' as const, session }
  return {
    async insert (user: UserDocument): Promise<void> {
      await refusingDuplicates(() => users.insertOne(user, inSession), () => new EmailTakenError(user.email))
    },

    findByEmail (email: string): Promise<UserDocument | null> {
      return users.findOne({ email: normaliseEmail(email), ...LIVE }, inSession)
    },

    /**
     * Writes to the account inside a transaction, so that two transactions of
     * one user that change the library conflict and one of them runs again,
     * seeing what the other did: no flashcard lands in a folder deleted
     * meanwhile, two moves cannot make a loop, and nothing is written for an
     * account deleted meanwhile. False when the account is gone or being
     * deleted: nothing of its user may be written while its documents are
     * removed.
     */
    async lockForWrite (userID: string): Promise<boolean> {
      return (await users.updateOne({ ...live(userID) }, { $inc: { writes: 1 } }, inSession)).matchedCount === 1
    },

    /**
     * Adds to the account's usage, only while every part stays within its
     * quota: the name of the first quota it would pass, or null when it was
     * added (or the account is gone, which the caller's lock has ruled out).
     */
    async addToUsage (userID: string, added: Partial<Usage>, quotas: Quotas): Promise<keyof Quotas | null> {
      const parts = (Object.entries(added) as Array<[keyof Quotas, number]>).filter(([, amount]) => amount > 0)
      if (parts.length === 0) return null
      // more than the whole quota at once: the filter below matches an account that has no count yet
      const overAtOnce = parts.find(([part, amount]) => amount > quotas[part])
      if (overAtOnce !== undefined) return overAtOnce[0]
      const within = Object.fromEntries(parts.map(([part, amount]) => [`usage.${part}`, { $not: { $gt: quotas[part] - amount } }]))
      const increments = Object.fromEntries(parts.map(([part, amount]) => [`usage.${part}`, amount]))
      if ((await users.updateOne({ ...live(userID), ...within }, { $inc: increments }, inSession)).matchedCount === 1) return null
      const account = await users.findOne({ ...live(userID) }, { projection: { usage: 1 }, session })
      return parts.find(([part, amount]) => (account?.usage?.[part] ?? 0) + amount > quotas[part])?.[0] ?? null
    },

    /** How much of each quota the account uses; null when it is gone. */
    async usageOf (userID: string): Promise<Partial<Usage> | null> {
      const account = await users.findOne({ ...live(userID) }, { projection: { usage: 1 }, session })
      return account === null ? null : account.usage ?? {}
    },

    /** Takes back from the account's usage what a deletion freed. */
    async takeFromUsage (userID: string, freed: Partial<Usage>): Promise<void> {
      const parts = Object.entries(freed).filter(([, amount]) => amount > 0)
      if (parts.length === 0) return
      await users.updateOne({ ...live(userID) }, { $inc: Object.fromEntries(parts.map(([part, amount]) => [`usage.${part}`, -amount])) }, inSession)
    },

    /**
     * Adds a review's XP and counts it on its day, in one update on the common
     * path; the account as it now is, or null when it is gone. A review of a
     * new day starts the day's count afresh; one of a day before the counted
     * one (the time zone moved back) only adds XP. The same update keeps the
     * start of the due queue at or before the card's new due instant.
     */
    async recordReview (userID: string, review: { day: LocalDay, start: Date, end: Date, wasNew: boolean, xp: number, placed: QueuePlace }): Promise<UserDocument | null> {
      const counter = review.wasNew ? 'studyDay.newCards' : 'studyDay.reviews'
      const studyDay: StudyDay = { day: review.day, start: review.start, end: review.end, reviews: review.wasNew ? 0 : 1, newCards: review.wasNew ? 1 : 0 }
      const queue = queuePlacement(review.placed)
      return await users.findOneAndUpdate(
        { ...live(userID), 'studyDay.day': review.day },
        { $inc: { totalXp: review.xp, reviewCount: 1, [counter]: 1, ...queue.$inc }, $min: queue.$min },
        after
      ) ?? await users.findOneAndUpdate(
        // no day counted yet, or an earlier one ($not rather than $or, which would scan every account)
        { ...live(userID), 'studyDay.day': { $not: { $gte: review.day } } },
        { $inc: { totalXp: review.xp, reviewCount: 1, ...queue.$inc }, $min: queue.$min, $set: { studyDay } },
        after
      ) ?? await users.findOneAndUpdate({ ...live(userID) }, { $inc: { totalXp: review.xp, reviewCount: 1, ...queue.$inc }, $min: queue.$min }, after)
    },

    /**
     * Counts answers an import brought on the day `today` in that day's count, as if they were
     * made here (no XP): today's limits then leave what Anki's would. A day before the counted
     * one (the time zone moved back) is not counted.
     */
    async recordImportedDay (userID: string, today: { day: LocalDay, start: Date, end: Date }, done: { reviews: number, newCards: number }): Promise<void> {
      const counted = await users.updateOne(
        { ...live(userID), 'studyDay.day': today.day },
        { $inc: { 'studyDay.reviews': done.reviews, 'studyDay.newCards': done.newCards } },
        inSession
      )
      if (counted.matchedCount > 0) return
      const studyDay: StudyDay = { ...today, ...done }
      await users.updateOne({ ...live(userID), 'studyDay.day': { $not: { $gte: today.day } } }, { $set: { studyDay } }, inSession)
    },

    /**
     * Takes a review back out of the XP total and, if it was made today, out of
     * today's count; keeps the start of its queue at or before the card put
     * back (`restored`, absent when the card is gone).
     */
    async unrecordReview (userID: string, review: { day: LocalDay, wasNew: boolean, xp: number }, restored?: QueuePlace): Promise<number> {
      const counter = review.wasNew ? 'studyDay.newCards' : 'studyDay.reviews'
      const queue = restored === undefined ? undefined : queuePlacement(restored)
      const min = queue === undefined ? {} : { $min: queue.$min }
      const user = await users.findOneAndUpdate(
        { ...live(userID), 'studyDay.day': review.day, [counter]: { $gt: 0 } },
        { ...min, $inc: { totalXp: -review.xp, [counter]: -1, ...queue?.$inc } },
        after
      ) ?? await users.findOneAndUpdate({ ...live(userID) }, { ...min, $inc: { totalXp: -review.xp, ...queue?.$inc } }, after)
      return user?.totalXp ?? 0
    },

    /**
     * `count` Anki ids for notes and cards made now (Anki's ids are creation times in milliseconds):
     * the first of them, the rest following it. They start at `now`, or just past the last ones
     * handed out when those reach beyond it, so the account never gets one twice. In the caller's
     * user transaction, which makes them one request's at a time.
     */
    async takeAnkiIDs (userID: string, count: number, now: Date): Promise<number> {
      await users.updateOne({ ...live(userID) }, { $max: { lastAnkiID: now.getTime() - 1 } }, inSession)
      const user = await users.findOneAndUpdate({ ...live(userID) }, { $inc: { lastAnkiID: count } }, { ...after, projection: { lastAnkiID: 1 } })
      if (user?.lastAnkiID === undefined) throw new Error(`no account ${userID} to hand Anki ids to`)
      return user.lastAnkiID - count + 1
    },

    /**
     * Keeps the start of the new-card queue at or before cards just created
     * (`first` the first of them). The reach of the last read goes: the new
     * cards may lie within it, and a first window that wide would read them all.
     */
    async queueNewCards (userID: string, first: { due: Date, createdOrder: number }): Promise<void> {
      const { $min, $inc } = queuePlacement({ isNew: true, ...first })
      await users.updateOne({ ...live(userID) }, { $min, $inc, $unset: { 'queueFrom.new.reach': '' } }, inSession)
    },

    /**
     * Moves the starts of the queues to where a read of them found the cards
     * begin, only while no write has placed a card since the account was
     * read (`writes`, read with it, before the queues were). Every such write
     * counts itself in the same transaction as the card, so a card the read
     * did not see (committed after the account was read, or not yet) has
     * changed the count, and the start stays where it was, below that card.
     * Two reads raising at once both saw the same cards: either start holds.
     */
    async raiseQueueStarts (userID: string, writes: number, raised: { new?: QueueStart, due?: QueueStart }): Promise<void> {
      const changes = Object.fromEntries(Object.entries(raised).filter(([, start]) => start !== undefined).map(([queue, start]) => [`queueFrom.${queue}`, start]))
      if (Object.keys(changes).length === 0) return
      await users.updateOne({ ...live(userID), 'queueFrom.writes': writes }, { $set: changes }, inSession)
    },

    /** Keeps the report of a fit, and its parameters when they were adopted; the account as it now is, or null when it is gone. */
    recordFit (userID: string, report: FitReport, adopted?: number[]): Promise<UserDocument | null> {
      return users.findOneAndUpdate({ ...live(userID) }, { $set: { scheduleFit: report, ...(adopted === undefined ? {} : { fsrsParameters: adopted }) } }, after)
    },

    /** Adopts the FSRS parameters, desired retention and sibling burying an Anki collection's preset carries (an import). */
    async adoptImportedSchedule (userID: string, parameters: number[] | undefined, desiredRetention: number | undefined, siblingBurying?: SiblingBurying): Promise<void> {
      const set = {
        ...(parameters === undefined ? {} : { fsrsParameters: parameters }),
        ...(desiredRetention === undefined ? {} : { desiredRetention }),
        ...siblingBurying
      }
      if (Object.keys(set).length > 0) await users.updateOne({ ...live(userID) }, { $set: set }, inSession)
    },

    /** Schedules with the default parameters again; the account as it now is, or null when it is gone. */
    useDefaultParameters (userID: string): Promise<UserDocument | null> {
      return users.findOneAndUpdate({ ...live(userID) }, { $unset: { fsrsParameters: '' } }, after)
    },

    /** Keeps the start of the due queue at or before `due`, where cards given new schedules now fall due first. */
    async queueDueCards (userID: string, due: Date): Promise<void> {
      const { $min, $inc } = queuePlacement({ isNew: false, due, createdOrder: 0 })
      await users.updateOne({ ...live(userID) }, { $min, $inc }, inSession)
    },

    /**
     * Keeps the start of each queue at or before cards put back in it (an
     * unsuspended card, a card unburied), and counts the write: the same
     * rule as every write that places a card (see queuePlacement).
     */
    async placeCards (userID: string, places: readonly QueuePlace[]): Promise<void> {
      if (places.length === 0) return
      const { $min, $inc } = queuePlacements(places)
      await users.updateOne({ ...live(userID) }, { $min, $inc }, inSession)
    },

    /** Notes that a card of the account is buried until `until`: the account keeps the earliest such instant. */
    async noteBurial (userID: string, until: Date): Promise<void> {
      await users.updateOne({ ...live(userID) }, { $min: { buriedUntil: until } }, inSession)
    },

    /**
     * After buried cards came back: places them in their queues (as
     * placeCards), and keeps the instant the next buried card comes back
     * (null: none is buried). The account as it now is, or null when it is gone.
     */
    returnedFromBurial (userID: string, places: readonly QueuePlace[], next: Date | null): Promise<UserDocument | null> {
      const placed = places.length === 0 ? {} : queuePlacements(places)
      return users.findOneAndUpdate({ ...live(userID) }, {
        ...placed,
        ...(next === null ? { $unset: { buriedUntil: '' } } : { $set: { buriedUntil: next } })
      }, after)
    },

    /** The account's search pages are made: searches read them from now on. */
    /** Cards came without search pages (an import): the next search gives them theirs first. */
    async searchPagesPending (userID: string): Promise<void> {
      await users.updateOne({ ...live(userID) }, { $set: { searchPending: true } }, inSession)
    },

    async searchPagesMade (userID: string): Promise<void> {
      await users.updateOne({ ...live(userID) }, { $unset: { searchPending: '' } }, inSession)
    },

    findById (userID: string): Promise<UserDocument | null> {
      return users.findOne({ ...live(userID) }, inSession)
    },

    /** Changes some settings and returns the account as it now is; null when it is gone. */
    updateSettings (userID: string, changes: Partial<UserSettings>): Promise<UserDocument | null> {
      return users.findOneAndUpdate({ ...live(userID) }, { $set: changes }, after)
    },

    /** Gives the account another email; EmailTakenError when another account has it. False when the account is gone. */
    async changeEmail (userID: string, email: string): Promise<boolean> {
      const changed = await refusingDuplicates(
        () => users.updateOne({ ...live(userID) }, { $set: { email: normaliseEmail(email) } }, inSession),
        () => new EmailTakenError(email)
      )
      return changed.matchedCount === 1
    },

    /** Remembers an address the account logged in from; the most recent ones are kept. */
    async rememberAddress (userID: string, address: string, kept: number): Promise<void> {
      await users.updateOne({ ...live(userID), knownAddresses: { $ne: address } }, { $push: { knownAddresses: { $each: [address], $slice: -kept } } }, inSession)
    },

    /**
     * Starts a new token generation (and sets a new password hash, if given),
     * only while the account is still in generation `from`, the one the
     * request's token was issued in (an account without one is in 0). Of two
     * requests made with one token at once, only the first changes anything.
     * The new generation, or null when the account is in another generation
     * already or is gone.
     */
    async newTokenGeneration (userID: string, from: number, passwordHash?: string): Promise<number | null> {
      const user = await users.findOneAndUpdate(
        // generation 0: the field is 0 or not there yet (generations only grow)
        { ...live(userID), tokenGeneration: from === 0 ? { $not: { $gt: 0 } } : from },
        { $inc: { tokenGeneration: 1 }, ...(passwordHash === undefined ? {} : { $set: { passwordHash } }) },
        after
      )
      return user === null ? null : user.tokenGeneration ?? 0
    },

    /**
     * Disables the account and starts a new token generation in the same write: every token
     * issued before ends at once, on every instance (each request reads the account), and no
     * login that read the account before this write hands out a token that works. Only an enabled
     * account changes: the account now, or null when it was disabled already or is gone.
     */
    disable (userID: string, at: Date): Promise<UserDocument | null> {
      return users.findOneAndUpdate({ ...live(userID), disabledAt: { $exists: false } }, { $set: { disabledAt: at }, $inc: { tokenGeneration: 1 } }, after)
    },

    /** Enables a disabled account: the account now, or null when it was not disabled or is gone. */
    enable (userID: string): Promise<UserDocument | null> {
      return users.findOneAndUpdate({ ...live(userID), disabledAt: { $exists: true } }, { $unset: { disabledAt: '' } }, after)
    },

    /**
     * Deletes the account as a request sees it, in the caller's transaction:
     * marked as being deleted, its tokens ended (a new generation), its email
     * freed, and its removal held by `holder` until `until`. It writes the
     * account, so that any transaction of its user under way conflicts with
     * this one. False when it is gone or being deleted already.
     */
    async markDeleted (userID: string, at: Date, holder: string, until: Date): Promise<boolean> {
      const account = await users.findOne(live(userID), inSession)
      if (account === null) return false
      // written anew rather than updated, in the caller's transaction: the embedded database keeps
      // the unique index's hold on an email an update moves away from for as long as the document
      // lives, and the address would stay taken until the removal ends
      await users.deleteOne({ _id: userID }, inSession)
      await users.insertOne({
        ...account,
        email: deletedEmail(userID),
        tokenGeneration: (account.tokenGeneration ?? 0) + 1,
        writes: (account.writes ?? 0) + 1,
        deletingSince: at,
        removalHolder: holder,
        removalUntil: until
      }, inSession)
      return true
    },

    /** Deleted accounts whose removal no one holds now (its holder stopped, or let it go). Index removals. */
    async removalsDue (now: Date): Promise<string[]> {
      return (await users.find({ removalUntil: { $lte: now } }, { projection: { _id: 1 }, session }).toArray()).map((account) => account._id)
    },

    /** Takes a deleted account's removal over while no one holds it: the account, or null when another took it first or it is gone. */
    takeRemoval (userID: string, holder: string, now: Date, until: Date): Promise<UserDocument | null> {
      return users.findOneAndUpdate(
        { _id: userID, deletingSince: { $exists: true }, removalUntil: { $lte: now } },
        { $set: { removalHolder: holder, removalUntil: until } },
        after
      )
    },

    /** A deleted account whose removal `holder` holds: the account, or null when another took it over or it is gone. */
    heldRemoval (userID: string, holder: string): Promise<UserDocument | null> {
      return users.findOne({ _id: userID, deletingSince: { $exists: true }, removalHolder: holder }, inSession)
    },

    /** Holds a removal longer, or lets it go (`until` now); false when `holder` holds it no more. */
    async renewRemoval (userID: string, holder: string, until: Date): Promise<boolean> {
      return (await users.updateOne({ _id: userID, deletingSince: { $exists: true }, removalHolder: holder }, { $set: { removalUntil: until } }, inSession)).matchedCount === 1
    },

    /** Whether the account is still there, deleted or not. */
    async exists (userID: string): Promise<boolean> {
      return await users.countDocuments({ _id: userID }, { limit: 1, session }) > 0
    },

    /** Removes a deleted account's own document: the last of its removal. */
    async removeDeleted (userID: string): Promise<boolean> {
      return (await users.deleteOne({ _id: userID, deletingSince: { $exists: true } }, inSession)).deletedCount === 1
    }
  }
}

export type UsersRepository = ReturnType<typeof usersRepository>
