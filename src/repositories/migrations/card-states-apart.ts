import { MongoBulkWriteError, type Db, type Document } from 'mongodb'
import { STATE_COPIES, STATE_FIELDS } from '../card-states.js'

/** How many states are copied in one write. */
const BATCH = 2000

/** A bulk write that failed only on documents already there (a run again after a cut-off). */
function onlyCopiesThere (error: unknown): boolean {
  return error instanceof MongoBulkWriteError && error.writeErrors !== undefined &&
    (Array.isArray(error.writeErrors) ? error.writeErrors : [error.writeErrors]).every((written) => written.code === 11000)
}

async function copy (states: ReturnType<Db['collection']>, batch: Document[]): Promise<void> {
  try {
    await states.insertMany(batch, { ordered: false })
  } catch (error) {
    if (!onlyCopiesThere(error)) throw error
  }
}

/**
 * Moves each learner's state of each card (schedule, standing, queue key, review bookkeeping) out
 * of `cards` into `cardStates` (repositories/card-states.ts), one document under each card's id,
 * with the copies of the card's fields that the queues read: every card that still holds its state
 * is copied, two thousand at a time, one write in flight while the next batch is read; the indexes
 * that served the state in `cards` go; then the state leaves the cards in one update. A run again
 * copies what is left (a state copied already stays as it is) and unsets what is left.
 */
export const cardStatesApart = {
  name: 'card-states-apart',
  run: async (db: Db, log: (message: string) => void): Promise<void> => {
    // a database that never held a card has nothing to move (and no indexes to drop)
    if ((await db.listCollections({ name: 'cards' }, { nameOnly: true }).toArray()).length === 0) return
    const cards = db.collection('cards')
    const states = db.collection('cardStates')
    const projection = Object.fromEntries([...STATE_FIELDS, ...STATE_COPIES].map((field) => [field, 1]))
    const seconds = (since: number): string => `${((performance.now() - since) / 1000).toFixed(1)} s`
    let started = performance.now()
    let copied = 0
    let batch: Document[] = []
    // one write in flight while the next batch is read
    let writing: Promise<void> = Promise.resolve()
    const send = async (sent: Document[]): Promise<void> => {
      await writing
      writing = copy(states, sent)
      // awaited by the next send or at the end; until then its failure is not unhandled
      writing.catch(() => {})
      copied += sent.length
    }
    for await (const card of cards.find({ isNew: { $exists: true } }, { projection, batchSize: BATCH })) {
      batch.push(card)
      if (batch.length < BATCH) continue
      await send(batch)
      batch = []
    }
    if (batch.length > 0) await send(batch)
    await writing
    log(`${copied} card states copied to cardStates in ${seconds(started)}`)
    started = performance.now()
    for (const name of ['user_queue', 'user_flag']) {
      if ((await cards.indexes()).some((index) => index.name === name)) await cards.dropIndex(name)
    }
    const { modifiedCount } = await cards.updateMany({ isNew: { $exists: true } }, { $unset: Object.fromEntries(STATE_FIELDS.map((field) => [field, ''])) })
    log(`${modifiedCount} cards without their states now, in ${seconds(started)}`)
  }
}
