import { BSON, type AnyBulkWriteOperation, type Collection, type Db, type Document } from 'mongodb'
import { nestingGuarded } from '../db/nesting-guard.js'
import { newId } from '../domain/ids.js'
import { nodeCount, RECOVERED_FOLDER, treeFromNodes, type ParentLinkedNode } from '../domain/library-tree.js'
import { activityId, type DayActivityDocument } from './activity.js'
import type { TreeDocument } from './trees.js'
import { queueStartsFromCards } from './migrations/queue-starts.js'
import { searchPagesPending } from './migrations/search-pages.js'

interface MigrationDocument { _id: string, doneAt: Date }

/** MongoDB's limit on one document, less room for the update that carries it. */
const MAX_DOCUMENT_BYTES = 16 * 1024 * 1024 - 16 * 1024

/**
 * Brings data written by an earlier version up to what this one reads; each
 * step runs once per database and is recorded in `migrations`. A step is
 * idempotent: cut off half-way, it runs again whole at the next start.
 */
const MIGRATIONS: Array<{ name: string, run: (db: Db, log: (message: string) => void) => Promise<void> }> = [
  {
    // the daily counts were added after reviews were logged: count the log once
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
  queueStartsFromCards,
  searchPagesPending
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

export async function migrate (unguarded: Db, log: (message: string) => void): Promise<void> {
  // what a migration writes passes the nesting guard, as every repository's writes do
  const db = nestingGuarded(unguarded)
  const done = db.collection<MigrationDocument>('migrations')
  for (const migration of MIGRATIONS) {
    if (await done.findOne({ _id: migration.name }) !== null) continue
    const startedAt = Date.now()
    await migration.run(db, log)
    await done.updateOne({ _id: migration.name }, { $set: { doneAt: new Date() } }, { upsert: true })
    log(`migration ${migration.name} done in ${Date.now() - startedAt} ms`)
  }
}
