import type { Collection, Db, Document } from 'mongodb'
import { oneWriteInFlight } from '../batches.js'
import { STATE_COPIES, STATE_FIELDS } from '../card-states.js'
import { onlyDuplicateKeys } from '../duplicate-key.js'

/** How many states are written at a time. */
const BATCH = 2000

/** Writes states; those already there (a run again after a cut-off) stay as they are. */
async function copy (states: Collection, batch: Document[]): Promise<void> {
  try {
    await states.insertMany(batch, { ordered: false })
  } catch (error) {
    if (!onlyDuplicateKeys(error)) throw error
  }
}

/**
 * Copies each learner's state of each card (schedule, standing, queue key, review bookkeeping)
 * from `cards` to `cardStates` (repositories/card-states.ts), one document under each card's id,
 * with the copies of the card's fields that the queues read: every card written before the
 * states were apart (it holds `isNew`), two thousand at a time, one write in flight while the
 * next batch is read. The indexes that served the state in `cards` go. The old fields stay in those
 * cards, read by nothing: a card made whole takes every state field from its state
 * (card-states.ts, joinStates), and taking them out of a million cards, in one update or a
 * batch at a time, took the embedded database many minutes more than the copy. A run again copies
 * every such card again, and a state written already stays as it is.
 */
export const cardStatesApart = {
  name: 'card-states-apart',
  run: async (db: Db, log: (message: string) => void): Promise<void> => {
    // a database that never held a card has nothing to copy (and no indexes to drop)
    if ((await db.listCollections({ name: 'cards' }, { nameOnly: true }).toArray()).length === 0) return
    const cards = db.collection('cards')
    const states = db.collection('cardStates')
    const started = performance.now()
    const projection = Object.fromEntries([...STATE_FIELDS, ...STATE_COPIES].map((field) => [field, 1]))
    let copied = 0
    const writes = oneWriteInFlight()
    const send = async (sent: Document[]): Promise<void> => {
      await writes.write(async () => { await copy(states, sent) })
      copied += sent.length
    }
    let batch: Document[] = []
    for await (const card of cards.find({ isNew: { $exists: true } }, { projection, batchSize: BATCH })) {
      batch.push(card)
      if (batch.length < BATCH) continue
      await send(batch)
      batch = []
    }
    if (batch.length > 0) await send(batch)
    await writes.finished()
    for (const name of ['user_queue', 'user_flag']) {
      if ((await cards.indexes()).some((index) => index.name === name)) await cards.dropIndex(name)
    }
    log(`${copied} card states copied to cardStates in ${((performance.now() - started) / 1000).toFixed(1)} s`)
  }
}
