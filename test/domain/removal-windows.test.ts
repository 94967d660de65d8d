// The windows a deleted account's documents are removed in: whatever the keys
// (below the epoch, before the account, clusters, ties, past now) and however
// often a window is too wide to read, the walk removes every key, each removal
// takes at most a batch (or the documents of one key), and it ends.
import { test } from 'tap'
import fc from 'fast-check'
import { afterRead, firstWalk, narrowed, windowOf, type KeyLayout, type KeyRange } from '../../src/domain/removal-windows.js'

const FLOOR = 1_000_000
const HORIZON = 50_000_000

function within (range: KeyRange, key: number): boolean {
  const above = range.fromIncluded ? key >= range.from : key > range.from
  const below = range.toIncluded ? key <= range.to : key < range.to
  return above && below
}

/**
 * Runs a walk over `keys` as the service does: reads each window's first keys,
 * removes what afterRead says; a window holding more than `readable` keys is
 * too wide to read, and is narrowed. What is left, and the removals' sizes.
 */
function walkOver (keys: readonly number[], layout: KeyLayout, batch: number, readable = Infinity): { left: number[], removals: number[][], steps: number } {
  let left = [...keys].sort((a, b) => a - b)
  const removals: number[][] = []
  let walk = firstWalk(layout)
  let steps = 0
  for (;;) {
    if (++steps > 5000) throw new Error(`no end after ${steps} steps, ${left.length} keys left`)
    const window = windowOf(walk, layout)
    const inWindow = left.filter((key) => within(window, key))
    if (inWindow.length > readable) {
      const narrower = narrowed(walk, window)
      if (narrower === null) throw new Error(`a window that cannot narrow holds ${inWindow.length} keys: ${JSON.stringify(window)}`)
      walk = narrower
      continue
    }
    const { removal, next } = afterRead(walk, layout, window, inWindow.slice(0, batch + 1), batch)
    const taken = left.filter((key) => within(removal, key))
    if (taken.some((key) => !within(window, key))) throw new Error(`a removal went past its window: ${JSON.stringify({ window, removal })}`)
    removals.push(taken)
    left = left.filter((key) => !within(removal, key))
    if (next === null) return { left, removals, steps }
    walk = next
  }
}

const keysAnywhere = fc.oneof(
  // scattered over every region: below the epoch, before the account, its life, past now
  fc.array(fc.integer({ min: -HORIZON, max: HORIZON * 3 }), { maxLength: 200 }),
  // a batch created at once, and ties of one key
  fc.tuple(fc.integer({ min: FLOOR, max: HORIZON }), fc.integer({ min: 1, max: 300 }), fc.integer({ min: 0, max: 3 }))
    .map(([start, count, step]) => Array.from({ length: count }, (_, n) => start + n * step)),
  // the boundaries themselves, and a dense stretch after a long gap
  fc.array(fc.oneof(fc.constantFrom(0, FLOOR - 1, FLOOR, HORIZON - 1, HORIZON, HORIZON + 1), fc.integer({ min: HORIZON - 500, max: HORIZON + 500 })), { maxLength: 200 })
)
const layouts = fc.record({ expected: fc.nat({ max: 100_000 }) }).map(({ expected }): KeyLayout => ({ origin: 0, floor: FLOOR, horizon: HORIZON, expected }))

test('the walk removes every key, at most a batch (or one key\'s documents) at a time, and ends', async (t) => {
  fc.assert(fc.property(keysAnywhere, layouts, fc.integer({ min: 1, max: 20 }), (keys, layout, batch) => {
    const { left, removals } = walkOver(keys, layout, batch)
    if (left.length > 0) throw new Error(`left ${JSON.stringify(left)}`)
    for (const taken of removals) {
      if (taken.length > batch && taken.some((key) => key !== taken[0])) throw new Error(`one removal took ${taken.length} keys of a batch of ${batch}: ${JSON.stringify(taken)}`)
    }
  }), { numRuns: 400 })
  t.pass('every run removed every key in bounded removals')
})

test('a window too wide to read is narrowed until it can be, and the walk still removes every key', async (t) => {
  // below the epoch is one window that cannot narrow, and so is one key: their keys must be readable at once
  const readableBelow = (keys: number[]): boolean => keys.filter((key) => key < 0).length <= 25 &&
    keys.every((key) => keys.filter((other) => other === key).length <= 25)
  fc.assert(fc.property(keysAnywhere.filter(readableBelow), layouts, fc.integer({ min: 1, max: 20 }), (keys, layout, batch) => {
    const { left } = walkOver(keys, layout, batch, 25)
    if (left.length > 0) throw new Error(`left ${JSON.stringify(left)}`)
  }), { numRuns: 300 })
  t.pass('every run removed every key')
})

test('an account\'s keys where they are expected take about one removal a batch, and one window past now', async (t) => {
  const keys = Array.from({ length: 10_000 }, (_, n) => FLOOR + Math.floor(n * (HORIZON - FLOOR) / 10_000))
  const { left, removals, steps } = walkOver(keys, { origin: 0, floor: FLOOR, horizon: HORIZON, expected: 10_000 }, 1000)
  t.same(left, [])
  t.ok(removals.filter((taken) => taken.length > 0).length <= 12, `${removals.filter((taken) => taken.length > 0).length} removals took keys`)
  t.ok(steps <= 16, `${steps} windows in all`)
})
