import type { AnyBulkWriteOperation, Db } from 'mongodb'
import { NO_CARD, type QueueStarts } from '../../domain/queues.js'
import { isOutOfQueues, type QueueKey } from '../../domain/card-states.js'

interface Account { _id: string, queueFrom?: QueueStarts }

/**
 * Gives every account the starts of its two queues of today's cards (see
 * domain/queues.ts), which accounts made before them lack: each queue starts
 * at the earliest due instant of its cards, or nowhere (NO_CARD) for a queue
 * without cards. Every write only lowers a start ($min), so a run again, or
 * one alongside an instance already serving (whose writes lower the starts
 * too), leaves each start at or below every card of its queue.
 */
export const queueStartsFromCards = {
  name: 'queue-starts-from-cards',
  run: async (db: Db): Promise<void> => {
    const firsts = db.collection('cards').aggregate<{ _id: { userID: string, isNew: QueueKey }, at: Date }>([
      { $group: { _id: { userID: '$userID', isNew: '$isNew' }, at: { $min: '$due' } } }
    ])
    const users = db.collection<Account>('users')
    let batch: Array<AnyBulkWriteOperation<Account>> = []
    for await (const { _id: { userID, isNew }, at } of firsts) {
      // suspended and buried cards are in neither queue (domain/card-states.ts)
      if (isOutOfQueues(isNew)) continue
      const queue = isNew ? 'new' : 'due'
      // the earliest instant may hold many cards: the start's order lets them all in
      batch.push({ updateOne: { filter: { _id: userID }, update: { $min: { [`queueFrom.${queue}.at`]: at, [`queueFrom.${queue}.order`]: -Infinity } } } })
      if (batch.length === 1000) {
        await users.bulkWrite(batch, { ordered: false })
        batch = []
      }
    }
    if (batch.length > 0) await users.bulkWrite(batch, { ordered: false })
    // the queues without cards, and the count of writes
    await users.updateMany({}, {
      $min: { 'queueFrom.new.at': NO_CARD, 'queueFrom.new.order': Infinity, 'queueFrom.due.at': NO_CARD, 'queueFrom.due.order': Infinity },
      $max: { 'queueFrom.writes': 0 }
    })
  }
}
