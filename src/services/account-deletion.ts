import type { ObjectId } from 'mongodb'
import { CREATED_ORDERS_PER_MS } from '../domain/card-pages.js'
import { afterRead, firstWalk, narrowed, REMOVAL_BATCH, windowOf, type KeyLayout, type RemovalWalk } from '../domain/removal-windows.js'
import { invalidToken } from '../domain/refusals.js'
import { isTimeLimit, WINDOWED, type WindowedCollection } from '../repositories/user-data.js'
import type { UserDocument } from '../repositories/users.js'
import type { ServiceContext } from './context.js'
import { removeFilesAfterwards } from './media.js'

export interface DeletionSettings {
  /** how long an instance holds the removal of a deleted account's documents without renewing it; past that, any instance takes it over */
  leaseMs: number
}

export const DEFAULT_DELETION_SETTINGS: DeletionSettings = { leaseMs: 60_000 }

/** Who removes: this instance's name (the holder of the removals it takes), and where it tells what it did. */
export interface DeletionRuntime {
  instance: string
  log: { info: (details: object, message: string) => void, warn: (details: object, message: string) => void }
}

/** What a removal took: how many documents of each collection, the account's own (`users`) last. */
export type Removed = Record<string, number>

/** Collections that go after the others: the imports name what reviewHistories and importUpdates are removed by. */
const LAST = ['imports']

/** Where a windowed collection's keys lie for this account: its creation, now, and how many it counts. */
function layoutOf (collection: WindowedCollection, account: UserDocument, now: Date): KeyLayout {
  const registered = account.createdAt instanceof Date && Number.isFinite(account.createdAt.getTime()) ? account.createdAt.getTime() : 0
  const units = WINDOWED[collection].instants ? 1 : CREATED_ORDERS_PER_MS
  return {
    origin: 0,
    floor: registered * units,
    horizon: (now.getTime() + 1) * units,
    expected: collection === 'reviews' ? account.reviewCount ?? 0 : account.usage?.cards ?? 0
  }
}

/**
 * Deleting an account, at any size. One short transaction deletes it as
 * every request sees it (users.markDeleted: gone for every request and
 * write, its tokens ended, its email free) and lists its media files for
 * removal; its documents are then removed outside any transaction, a
 * collection at a time, each write bounded (domain/removal-windows.ts), the
 * account's own document last. The instance that marked it holds that
 * removal; should it stop, any instance takes it over once the hold has run
 * out (finishLeft), and carries it to its end: every step can run again, or
 * at the same time on two instances, with the same outcome.
 */
export function accountDeletionService (context: Pick<ServiceContext, 'repositories' | 'transaction' | 'clock'>, runtime: DeletionRuntime,
  settings: DeletionSettings = DEFAULT_DELETION_SETTINGS) {
  const { repositories, clock } = context
  const until = (): Date => new Date(clock().getTime() + settings.leaseMs)
  /** the removals under way here, by userID */
  const running = new Map<string, Promise<unknown>>()
  let closed = false

  /** Marks the account deleted and lists its media files; the files, or null when it is gone or being deleted already. */
  async function mark (userID: string): Promise<ObjectId[] | null> {
    return await context.transaction(async ({ users, media }) => {
      // first: any transaction of the user under way conflicts here, and runs again to find the account gone
      if (!await users.markDeleted(userID, clock(), runtime.instance, until())) return null
      return await media.removeRecords(await media.allOf(userID), clock())
    })
  }

  /**
   * Removes the user's documents of a windowed collection, a window at a time, telling `removed`
   * how many each took. False when the removal stopped first (`holding` said so).
   */
  async function removeInWindows (collection: WindowedCollection, account: UserDocument, holding: () => Promise<boolean>,
    removed: (count: number) => void): Promise<boolean> {
    const layout = layoutOf(collection, account, clock())
    let walk: RemovalWalk | null = firstWalk(layout)
    while (walk !== null) {
      if (!await holding()) return false
      const window = windowOf(walk, layout)
      let keys: number[]
      try {
        keys = await repositories.userData.firstKeys(collection, account._id, window, REMOVAL_BATCH + 1)
      } catch (error) {
        const narrower: RemovalWalk | null = isTimeLimit(error) ? narrowed(walk, window) : null
        if (narrower === null) throw error
        walk = narrower
        continue
      }
      const { removal, next } = afterRead(walk, layout, window, keys)
      if (keys.length > 0) removed(await repositories.userData.removeRange(collection, account._id, removal))
      walk = next
    }
    return true
  }

  /**
   * Removes a deleted account's documents while this instance holds its removal (renewing the
   * hold as it goes), and the account's own document last, counting in `removed` what it
   * removed. False when it stopped first: `keepGoing` said so (the app closes), or another
   * instance holds it now.
   */
  async function removeHeld (account: UserDocument, files: readonly ObjectId[], keepGoing: () => boolean, removed: Removed): Promise<boolean> {
    const userID = account._id
    let renewedAt = Date.now()
    const holding = async (): Promise<boolean> => {
      if (!keepGoing()) return false
      if (Date.now() - renewedAt < settings.leaseMs / 4) return true
      renewedAt = Date.now()
      return await repositories.users.renewRemoval(userID, runtime.instance, until())
    }
    const add = (collection: string, count: number): void => {
      if (count > 0) removed[collection] = (removed[collection] ?? 0) + count
    }
    await removeFilesAfterwards(context, files)
    const collections = (await repositories.userData.collections()).filter((name) => name !== 'users')
      .sort((a, b) => Number(LAST.includes(a)) - Number(LAST.includes(b)))
    for (const collection of collections) {
      if (collection in WINDOWED && !await removeInWindows(collection as WindowedCollection, account, holding, (count) => add(collection, count))) return false
      if (collection === 'reviewHistories' || collection === 'importUpdates') {
        // an import's part at a time: its histories are one document a card
        for (const importID of await repositories.userData.importsOf(userID)) {
          if (!await holding()) return false
          add(collection, await repositories.userData.removeImported(collection, userID, importID))
        }
      }
      if (!await holding()) return false
      // what the windows did not reach (a key of another type, or none), and every collection of few documents a user
      add(collection, await repositories.userData.removeAll(collection, userID))
    }
    if (!await holding()) return false
    if (await repositories.users.removeDeleted(userID)) add('users', 1)
    return true
  }

  /**
   * Runs a removal this instance holds, and tells what came of it. Stopped by closing, it lets the
   * removal go (its hold ends now), so that another instance takes it over at once; so does a
   * failure, for the next look of any instance.
   */
  async function runHeld (userID: string, files: readonly ObjectId[]): Promise<Removed | null> {
    const account = await repositories.users.heldRemoval(userID, runtime.instance)
    if (account === null) return null
    try {
      const removed: Removed = {}
      if (await removeHeld(account, files, () => !closed, removed)) {
        runtime.log.info({ userID, removed }, 'the documents of a deleted account are removed')
        return removed
      }
      if (closed) await repositories.users.renewRemoval(userID, runtime.instance, clock())
      return null
    } catch (error) {
      await repositories.users.renewRemoval(userID, runtime.instance, clock()).catch(() => false)
      throw error
    }
  }

  /** Runs `work` for the user as this instance's removal under way, unless one is under way here already. */
  function track (userID: string, work: () => Promise<Removed | null>): Promise<Removed | null> | null {
    if (running.has(userID)) return null
    const done = work().finally(() => running.delete(userID))
    running.set(userID, done.catch(() => {}))
    return done
  }

  return {
    /**
     * delete-account: the account is deleted for every request once this returns (401 for its
     * token from then on, its email free); its documents are removed after, in the background.
     * 401 when it is gone or being deleted already.
     */
    async deleteAccount (userID: string): Promise<void> {
      const files = await mark(userID)
      if (files === null) throw invalidToken()
      // closing: another instance takes it over at once
      if (closed) {
        await repositories.users.renewRemoval(userID, runtime.instance, clock())
        return
      }
      void track(userID, async () => await runHeld(userID, files))
        ?.catch((error: unknown) => { runtime.log.warn({ err: error, userID }, 'the removal of a deleted account\'s documents failed; it is taken up again shortly') })
    },

    /**
     * The operator's delete (npm run admin): marks the account and removes its documents, and
     * returns once they are all gone, with what it removed itself. Should another instance take
     * the removal over (this one was too slow to renew its hold), it is waited for, or taken back
     * when that one stops. Null when the account is gone or being deleted already.
     */
    async deleteAndWait (userID: string, pollMs = 1000): Promise<Removed | null> {
      let files = await mark(userID)
      if (files === null) return null
      const removed: Removed = {}
      for (;;) {
        const account = await repositories.users.heldRemoval(userID, runtime.instance) ??
          await repositories.users.takeRemoval(userID, runtime.instance, clock(), until())
        if (account !== null && await removeHeld(account, files, () => true, removed)) return removed
        files = []
        if (!await repositories.users.exists(userID)) return removed
        await new Promise((resolve) => setTimeout(resolve, pollMs))
      }
    },

    /**
     * Takes over the removals no one holds (their instance stopped, or let them go) and carries
     * each to its end, one after another. Run at start and then now and again. How many it finished.
     */
    async finishLeft (): Promise<number> {
      let finished = 0
      for (const userID of await repositories.users.removalsDue(clock())) {
        if (closed) break
        const taken = track(userID, async () => {
          if (await repositories.users.takeRemoval(userID, runtime.instance, clock(), until()) === null) return null
          return await runHeld(userID, [])
        })
        if (taken !== null && await taken !== null) finished += 1
      }
      return finished
    },

    /** Stops the removals under way here after the step each is at, letting them go for another instance. */
    async close (): Promise<void> {
      closed = true
      await Promise.all(running.values())
    }
  }
}

export type AccountDeletionService = ReturnType<typeof accountDeletionService>
