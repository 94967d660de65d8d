import { test } from 'tap'
import { kindOfAnkiEntry, loggedFromAnkiRevlog } from '../../src/domain/anki-revlog.js'
import { trainingItems } from '../../src/domain/training-items.js'

const DAY = 86_400_000
/** Anki's days: blocks of 24 hours from the rollover, here 04:00 UTC */
const dayOf = (epochMs: number): number => Math.floor((epochMs - 4 * 3_600_000) / DAY)

test('each kind of revlog entry is read as rslib\'s training reads it', async (t) => {
  t.equal(kindOfAnkiEntry({ kind: 0, factor: 0 }), 'learning')
  t.equal(kindOfAnkiEntry({ kind: 1, factor: 2500 }), 'review')
  t.equal(kindOfAnkiEntry({ kind: 2, factor: 2300 }), 'relearning')
  t.equal(kindOfAnkiEntry({ kind: 3, factor: 2500 }), 'review', 'a filtered deck that reschedules')
  t.equal(kindOfAnkiEntry({ kind: 3, factor: 0 }), 'cram')
  t.equal(kindOfAnkiEntry({ kind: 4, factor: 0 }), 'reset', 'forget')
  t.equal(kindOfAnkiEntry({ kind: 4, factor: 2500 }), 'manual', 'set due date')
  t.equal(kindOfAnkiEntry({ kind: 5, factor: 2500 }), 'rescheduled')
})

test('a revlog gives the items Anki trains on: cram and set-due-date entries out, days counted from the rollover', async (t) => {
  const start = Date.parse('2025-01-01T10:00:00Z')
  const rows = [
    { id: start, cardId: 7, button: 3, factor: 0, kind: 0 },
    { id: start + 1 * DAY, cardId: 7, button: 3, factor: 2500, kind: 1 },
    { id: start + 3 * DAY, cardId: 7, button: 1, factor: 0, kind: 3 },
    { id: start + 4 * DAY, cardId: 7, button: 0, factor: 2500, kind: 4 },
    // 02:00 UTC is still the day before for a rollover at 04:00
    { id: Date.parse('2025-01-07T02:00:00Z'), cardId: 7, button: 3, factor: 2500, kind: 1 }
  ]
  const items = trainingItems(loggedFromAnkiRevlog(rows, dayOf)).items
  t.strictSame(items.map((item) => item.reviews.map((review) => `${review.rating}/${review.deltaT}`).join(' ')), ['3/0 3/1', '3/0 3/1 3/4'])
})
