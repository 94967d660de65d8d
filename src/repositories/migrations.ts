import { randomUUID } from 'node:crypto'
import { hostname } from 'node:os'
import { setTimeout as sleep } from 'node:timers/promises'
import { BSON, type AnyBulkWriteOperation, type Collection, type Db, type Document } from 'mongodb'
import { nestingGuarded } from '../db/nesting-guard.js'
import { newId } from '../domain/ids.js'
import { nodeCount, RECOVERED_FOLDER, treeFromNodes, type ParentLinkedNode } from '../domain/library-tree.js'
import { activityId, type DayActivityDocument } from './activity.js'
import type { TreeDocument } from './trees.js'
import { migrationLockRepository } from './migration-lock.js'
import { queueStartsFromCards } from './migrations/queue-starts.js'
import { searchPagesPending } from './migrations/search-pages.js'
import { stagedSearchPagesRemoved } from './migrations/staged-search-pages.js'
import { cardStatesApart } from './migrations/card-states-apart.js'

/** A step done; `number` is absent from the records of versions that named steps only. */
interface MigrationDocument { _id: string, number?: number, doneAt: Date }

/**
 * One step of the migrations: its number says when it runs (1, 2, 3...), its
 * name is its record's _id. It must be idempotent: cut off half-way (its
 * instance died, or lost the lock), it runs again whole, on another instance
 * perhaps, and is recorded done only once it has finished.
 */
export interface MigrationStep {
  number: number
  name: string
  run: (db: Db, log: (message: string) => void) => Promise<void>
}

/** MongoDB's limit on one document, less room for the update that carries it. */
const MAX_DOCUMENT_BYTES = 16 * 1024 * 1024 - 16 * 1024

/**
 * Brings data written by an earlier version up to what this one reads; each
 * step runs once per database and is recorded in `migrations`. A new step is
 * appended with the next number: a database runs the steps it lacks in
 * number order.
 */
export const MIGRATIONS: readonly MigrationStep[] = [
  {
    // the daily counts were added after reviews were logged: count the log once
    number: 1,
    name: 'activity-from-review-log',
    run: async (db) => {
      const counted = db.collection('reviews').aggregate<{ _id: { userID: string, day: string }, reviews: number, xp: number }>([
        { $group: { _id: { userID: '$userID', day: '$day' }, reviews: { $sum: 1 }, xp: { $sum: '$xp' } } }
      ])
      await writeInBatches(db.collection<DayActivityDocument>('activity'), (async function * () {
        for await (const { _id: { userID, day }, reviews, xp } of counted) {
          yield { replaceOne: { filter: { _id: activityId(userID, day) }, replacement: { userID, day, reviews, xp }, upsert: true } }
        }
      })())
    }
  },
  {
    // the quotas' counts were added after accounts held data: count it once
    number: 2,
    name: 'usage-from-data',
    run: async (db) => {
      const [cards, linkedNodes, treeNodes, goals] = await Promise.all([
        countsByUser(db, 'cards'), countsByUser(db, 'library'), nodesByUser(db), countsByUser(db, 'goals')
      ])
      // folders and flashcards are in the one collection or the other, depending on the version that stored them
      const nodes = new Map([...linkedNodes, ...[...treeNodes].map(([userID, count]) => [userID, count + (linkedNodes.get(userID) ?? 0)] as const)])
      const users = db.collection<{ _id: string }>('users')
      const userIDs = new Set([...cards.keys(), ...nodes.keys(), ...goals.keys()])
      await writeInBatches(users, [...userIDs].map((userID) => ({
        updateOne: { filter: { _id: userID }, update: { $set: { usage: { cards: cards.get(userID) ?? 0, nodes: nodes.get(userID) ?? 0, goals: goals.get(userID) ?? 0 } } } }
      })))
    }
  },
  {
    // folders and flashcards were one document each, linked to their parent: fold each user's into one tree
    number: 3,
    name: 'library-to-trees',
    run: async (db, log) => {
      const library = db.collection<ParentLinkedNode & { userID: string }>('library')
      const users = db.collection<{ _id: string }>('users')
      const trees = db.collection<TreeDocument>('trees')
      let recovered = 0
      const recoveredUsers: string[] = []
      const tooLarge: string[] = []
      await writeInBatches(trees, (async function * () {
        let userID: string | null = null
        let nodes: ParentLinkedNode[] = []
        async function * treeOfUser (owner: string): AsyncGenerator<AnyBulkWriteOperation<TreeDocument>> {
          const built = treeFromNodes(nodes, newId)
          const document = { userID: owner, version: 1, folders: built.tree.folders }
          if (BSON.calculateObjectSize(document) > MAX_DOCUMENT_BYTES) {
            // kept as it was, for someone to shorten: the service could not store it as one document
            tooLarge.push(owner)
            return
          }
          if (built.recovered > 0) {
            recovered += built.recovered
            recoveredUsers.push(owner)
          }
          // only where the user has no tree yet: a run again (cut off, or started twice) never
          // overwrites a tree the service has edited since
          yield { updateOne: { filter: { _id: owner }, update: { $setOnInsert: document }, upsert: true } }
        }
        // the old collection's unique index (userID, parentID, name) gives every user's records together
        for await (const node of library.find({}, { sort: { userID: 1, parentID: 1, name: 1 } })) {
          if (node.userID !== userID) {
            if (userID !== null) yield * treeOfUser(userID)
            userID = node.userID
            nodes = []
          }
          nodes.push(node)
        }
        if (userID !== null) yield * treeOfUser(userID)
      })())
      // the folder that took records in counts toward the account's folders and flashcards:
      // counted from the stored tree, so that a run again counts the same
      for (const owner of recoveredUsers) {
        const stored = await trees.findOne({ _id: owner }, { projection: { folders: 1 } })
        if (stored !== null) await users.updateOne({ _id: owner }, { $set: { 'usage.nodes': nodeCount(stored) } })
      }
      if (recovered > 0) log(`migration library-to-trees: ${recovered} folders or flashcards had lost their place (a missing parent, or parents in a loop); they are in a top-level folder "${RECOVERED_FOLDER}" of their owner`)
      if (tooLarge.length > 0) {
        // never lost: the old records stay for someone to look at
        log(`migration library-to-trees: the folders and flashcards of ${tooLarge.length} users (${tooLarge.slice(0, 10).join(', ')}) are too large for one document: the collection library is kept, with their records`)
        return
      }
      await library.drop().catch((error: unknown) => {
        if ((error as { codeName?: string }).codeName !== 'NamespaceNotFound') throw error
      })
    }
  },
  { number: 4, ...queueStartsFromCards },
  { number: 5, ...searchPagesPending },
  { number: 6, ...stagedSearchPagesRemoved },
  { number: 7, ...cardStatesApart }
]

/** Sends the writes a thousand to a bulk write, in any order. */
async function writeInBatches<T extends Document> (collection: Collection<T>, operations: Iterable<AnyBulkWriteOperation<T>> | AsyncIterable<AnyBulkWriteOperation<T>>): Promise<void> {
  let batch: Array<AnyBulkWriteOperation<T>> = []
  for await (const operation of operations) {
    batch.push(operation)
    if (batch.length === 1000) {
      await collection.bulkWrite(batch, { ordered: false })
      batch = []
    }
  }
  if (batch.length > 0) await collection.bulkWrite(batch, { ordered: false })
}

/** How many folders and flashcards each user's tree holds. */
async function nodesByUser (db: Db): Promise<Map<string, number>> {
  const counts = new Map<string, number>()
  for await (const tree of db.collection<TreeDocument>('trees').find({}, { projection: { folders: 1 } })) {
    counts.set(tree._id, nodeCount(tree))
  }
  return counts
}

/** How many documents each user has in a collection. */
async function countsByUser (db: Db, collection: string): Promise<Map<string, number>> {
  const groups = await db.collection(collection).aggregate<{ _id: string, count: number }>([{ $group: { _id: '$userID', count: { $sum: 1 } } }]).toArray()
  return new Map(groups.map((group) => [group._id, group.count]))
}

export interface MigrationOptions {
  /** the steps, numbered 1, 2, 3... in order (tests pass steps of their own) */
  steps: readonly MigrationStep[]
  /** the lock holds this long past its holder's last renewal: how soon the run of an instance that died is taken over */
  leaseMs: number
  /** how long an instance waits for another's run before its start fails */
  waitMs: number
}

export const DEFAULT_MIGRATION_OPTIONS: MigrationOptions = {
  steps: MIGRATIONS,
  leaseMs: 30_000,
  // a waiting instance that gives up is started again by its process manager, and waits again
  waitMs: 5 * 60_000
}

/** The steps not recorded done, in number order. Records by name alone (earlier versions) count. */
async function pendingSteps (records: Collection<MigrationDocument>, steps: readonly MigrationStep[]): Promise<MigrationStep[]> {
  const done = new Set((await records.find({ _id: { $in: steps.map((step) => step.name) } }, { projection: { _id: 1 } }).toArray()).map((record) => record._id))
  return steps.filter((step) => !done.has(step.name))
}

/** A list out of order would run a step before one it relies on, or record two steps as one. */
function checkNumbering (steps: readonly MigrationStep[]): void {
  steps.forEach((step, index) => {
    if (step.number !== index + 1) throw new Error(`migration ${step.name} is number ${step.number} at place ${index + 1}: steps are numbered 1, 2, 3... in order`)
  })
  if (new Set(steps.map((step) => step.name)).size !== steps.length) throw new Error('two migrations share a name: a step is recorded by its name')
}

/**
 * Runs the steps this database lacks, one run at a time whatever the number
 * of instances starting on it: the run holds a lock in `migrations`, and the
 * others wait until every step is recorded, so that none serves data a step
 * has half changed. A holder that dies stops renewing its lease; once the
 * lease has run out, a waiting instance takes the lock over and runs the
 * steps still pending, the cut-off one again whole. Past `waitMs` of
 * waiting, start fails rather than hangs.
 */
export async function migrate (unguarded: Db, log: (message: string) => void, options: Partial<MigrationOptions> = {}): Promise<void> {
  const { steps, leaseMs, waitMs } = { ...DEFAULT_MIGRATION_OPTIONS, ...options }
  checkNumbering(steps)
  // what a migration writes passes the nesting guard, as every repository's writes do
  const db = nestingGuarded(unguarded)
  const records = db.collection<MigrationDocument>('migrations')
  const lock = migrationLockRepository(db)
  const holder = randomUUID()
  const host = `${hostname()} (pid ${process.pid})`
  const leaseFrom = (): Date => new Date(Date.now() + leaseMs)
  const giveUpAt = Date.now() + waitMs
  /** the instance this one waits for, once it has had to */
  let waitingFor = null as { holder: string, host: string } | null

  /** Runs the pending steps while holding the lock; false when another instance took it over meanwhile. */
  async function runHolding (): Promise<boolean> {
    let lost = false
    let step: string | undefined
    // renewed well within the lease, so that a slow answer or two does not lose it
    const renewal = setInterval(() => {
      lock.renew(holder, leaseFrom(), step).then((kept) => { lost ||= !kept }, (error: unknown) => {
        log(`migrations: the lock could not be renewed (${error instanceof Error ? error.message : String(error)}); trying again`)
      })
    }, leaseMs / 3)
    try {
      // read again under the lock: another instance may have finished steps since the last look
      for (const migration of await pendingSteps(records, steps)) {
        step = `${migration.number} ${migration.name}`
        if (lost || !await lock.renew(holder, leaseFrom(), step)) {
          lost = true
          break
        }
        const startedAt = Date.now()
        await migration.run(db, log)
        // recorded even when the lock was lost meanwhile: the step has finished whole
        await records.updateOne({ _id: migration.name }, { $set: { number: migration.number, doneAt: new Date() } }, { upsert: true })
        log(`migration ${migration.number} ${migration.name} done in ${Date.now() - startedAt} ms`)
      }
    } finally {
      clearInterval(renewal)
      // a lock not given back (the database away) frees itself when its lease runs out
      await lock.release(holder).catch(() => {})
    }
    if (lost) log(`migrations: another instance took the lock over during step ${step}; waiting for it`)
    return !lost
  }

  for (;;) {
    const held = await lock.held(new Date())
    if (held === null) {
      if ((await pendingSteps(records, steps)).length === 0) {
        if (waitingFor !== null) log(`migrations: every step is done (the last run by ${waitingFor.host}); ${host} starts`)
        return
      }
      if (await lock.acquire(holder, host, new Date(), leaseFrom())) {
        if (waitingFor !== null) log(`migrations: ${waitingFor.host} no longer holds the lock, with steps left; ${host} runs them`)
        if (await runHolding()) return
      }
      // taken by another instance between the two looks, or taken from this one: see who holds it
      continue
    }
    if (waitingFor?.holder !== held.holder) {
      waitingFor = { holder: held.holder, host: held.host }
      log(`migrations: ${host} waits for ${held.host}, which holds the lock since ${held.since.toISOString()}${held.step === undefined ? '' : ` (step ${held.step})`}`)
    }
    if (Date.now() >= giveUpAt) {
      throw new Error(`migrations: waited ${Math.round(waitMs / 1000)} s for ${held.host}, which has held the migration lock since ${held.since.toISOString()}` +
        `${held.step === undefined ? '' : ` and runs step ${held.step}`}; this instance does not start on data a migration is changing.\n` +
        'Start it again once that run has finished (its log says "migration ... done" for each step), or give it longer to wait (MIGRATION_WAIT_SECONDS).')
    }
    await sleep(Math.min(1000, leaseMs / 3))
  }
}
