import type { AnyBulkWriteOperation, Db } from 'mongodb'
import type { CardDocument } from '../cards.js'
import type { UserDocument } from '../users.js'

type Card = Pick<CardDocument, '_id' | 'createdAt' | 'noteID' | 'ankiGuid' | 'ankiNoteID'>

/** How many cards get their ids in one write. */
const BATCH = 1000

/**
 * Gives the cards made before Anki ids were kept (storeNewCards hands them out now) the ids an
 * export writes, so that every export writes the same: an account's cards in creation order, each
 * its creation millisecond or, where cards share one, the one after the card before; a cloze note
 * made here the id of its first card, which its cards share (no other note's can be that id: a
 * basic card's note is its own id). The account keeps the last one (`lastAnkiID`), which ids handed
 * out later start past. The last id is written before the cards that take it: cut off between the
 * two, a run again gives the cards left ids past it, never one given already. A card an Anki import
 * brought has Anki's id, and is left as it is.
 */
export const ankiIdsOfCards = {
  name: 'anki-ids-of-cards',
  run: async (db: Db): Promise<void> => {
    const cards = db.collection<CardDocument>('cards')
    const users = db.collection<UserDocument>('users')
    for (const userID of await cards.distinct('userID', { ankiID: { $exists: false } })) {
      const account = await users.findOne({ _id: userID }, { projection: { lastAnkiID: 1 } })
      let last = account?.lastAnkiID ?? 0
      // the cloze notes whose first card a cut-off run reached
      const noteIDs = new Map((await cards.find({ userID, ankiNoteID: { $exists: true } }, { projection: { _id: 0, noteID: 1, ankiNoteID: 1 } }).toArray())
        .map((card) => [card.noteID as string, card.ankiNoteID as number]))
      const unnumbered = cards.find<Card>({ userID, ankiID: { $exists: false } }, { projection: { _id: 1, createdAt: 1, noteID: 1, ankiGuid: 1, ankiNoteID: 1 } })
        .sort({ createdOrder: 1, _id: 1 })
      let batch: Array<AnyBulkWriteOperation<CardDocument>> = []
      const write = async (): Promise<void> => {
        if (batch.length === 0) return
        await users.updateOne({ _id: userID }, { $max: { lastAnkiID: last } })
        await cards.bulkWrite(batch, { ordered: false })
        batch = []
      }
      for await (const card of unnumbered) {
        const ankiID = Math.max(card.createdAt.getTime(), last + 1)
        last = ankiID
        const set: Partial<CardDocument> = { ankiID }
        if (card.noteID !== undefined && card.ankiGuid === undefined && card.ankiNoteID === undefined) {
          let noteID = noteIDs.get(card.noteID)
          if (noteID === undefined) noteIDs.set(card.noteID, noteID = ankiID)
          set.ankiNoteID = noteID
        }
        batch.push({ updateOne: { filter: { _id: card._id }, update: { $set: set } } })
        if (batch.length === BATCH) await write()
      }
      await write()
    }
  }
}
