import { test } from 'tap'
import { firstSpan, nextSpan, NO_CARD, startAfterRead, startsAfterRead, todayQueueRanges, type QueuePlace, type QueueStart } from '../../src/domain/queues.js'

const T = Date.parse('2026-05-01T10:00:00Z')
const at = (ms: number): Date => new Date(T + ms)
const place = (ms: number, createdOrder: number): QueuePlace => ({ due: at(ms), createdOrder })
const whole = (ms: number, reach?: number): QueueStart => ({ at: at(ms), order: -Infinity, ...(reach === undefined ? {} : { reach }) })

test('a start moves up to the first card read', async (t) => {
  const read = [place(5000, 7), place(5000, 8), place(9000, 1)]
  t.strictSame(startAfterRead(whole(0), read, 3, null), { at: at(5000), order: -Infinity, reach: 4000 },
    'to its instant, any card there: the answer spans instants, so the instant is read whole')
  t.strictSame(startAfterRead(whole(0), read.slice(0, 2), 2, null), { at: at(5000), order: 7, reach: 0 },
    'to its exact place when the whole answer lies at that instant: a batch created together is entered at the right card')
  t.strictSame(startAfterRead(whole(0), read.slice(0, 2), 5, at(86_400_000)), { at: at(5000), order: -Infinity, reach: 86_395_000 },
    'a read that did not fill up went to the end: an answer at one instant, but the instant is small')
})

test('a queue read empty starts at the end read to', async (t) => {
  const end = at(3_600_000)
  t.strictSame(startAfterRead(whole(0), [], 10, end), { at: end, order: -Infinity }, 'the due queue: no card before today\'s end; one may lie at it')
  t.strictSame(startAfterRead(whole(0), [], 10, null), { at: NO_CARD, order: Infinity }, 'a queue read to its own end holds no card at all')
  t.equal(startAfterRead({ at: NO_CARD, order: Infinity }, [], 10, null), null, 'an empty queue stays as it is')
  t.equal(startAfterRead(whole(7_200_000), [], 10, end), null, 'a start past the end read to is not moved back')
})

test('a start never moves back, and is written only when it moves or the reach is far off', async (t) => {
  const tight: QueueStart = { at: at(5000), order: 7, reach: 0 }
  t.equal(startAfterRead(tight, [place(5000, 7), place(5000, 8)], 2, null), null, 'already there')
  t.strictSame(startAfterRead(tight, [place(5000, 7), place(9000, 1)], 2, null), { ...tight, reach: 4000 },
    'the answer now spans instants: its reach is kept, but not an order below the start\'s')
  t.strictSame(startAfterRead(tight, [place(5000, 9), place(5000, 10)], 2, null), { at: at(5000), order: 9, reach: 0 }, 'up within the instant')
  const known = whole(0, 1000)
  t.equal(startAfterRead(known, [place(0, 1), place(1200, 2)], 2, null), null, 'a reach within the slack of the known one')
  t.strictSame(startAfterRead(known, [place(0, 1), place(2000, 2)], 2, null), { ...known, reach: 2000 }, 'further than the first window went')
  t.strictSame(startAfterRead(known, [place(0, 1), place(100, 2)], 2, null), { ...known, reach: 100 }, 'far narrower')
})

test('both queues at once: a queue read for nothing, or from an unknown start, stays as it is', async (t) => {
  const end = at(86_400_000)
  const ranges = todayQueueRanges({ new: whole(0), due: whole(0), writes: 3 }, end, at(0))
  t.strictSame(startsAfterRead(ranges, { due: [], new: [] }, { reviews: 0, newCards: 5 }), { new: { at: NO_CARD, order: Infinity } })
  t.strictSame(startsAfterRead(ranges, { due: [], new: [] }, { reviews: 5, newCards: 0 }), { due: { at: end, order: -Infinity } })
  const partial = todayQueueRanges({ due: { at: at(0) } } as never, end, at(0))
  t.equal(partial.due.start, undefined, 'a start a write made part of, on an account the migration has not reached, is not known')
  t.strictSame(startsAfterRead(partial, { due: [], new: [] }, { reviews: 5, newCards: 5 }), {})
})

test('windows start from the reach known, or the smallest, and grow through empty stretches', async (t) => {
  t.equal(firstSpan(whole(0)), 1)
  t.equal(firstSpan(whole(0, 1000)), 1501, 'the reach and room for cards that left it')
  t.equal(nextSpan(10, 0, 20), 80, 'empty: eight times wider')
  t.equal(nextSpan(10, 5, 20), 60, 'from the density seen: 20 more at 5 per 10, with room')
  t.equal(nextSpan(10, 1, 1000), 160, 'at most sixteen times wider')
  t.equal(nextSpan(10, 50, 1), 10, 'never narrower')
})
