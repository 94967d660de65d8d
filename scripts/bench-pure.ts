// `npm run bench:pure`: the pure parts of the hot paths, in process, with no
// database and no HTTP: pruning and serialising today's tree (what
// get-today-cards does after its queries) and scheduling reviews (what
// review-card does between its reads and writes). Prints figures; asserts nothing.
import { cpus, loadavg, platform, release } from 'node:os'
import { newId } from '../src/domain/ids.js'
import { TOP_LEVEL, treeFromNodes, treeJson, type CardLeaf, type ParentLinkedNode as LibraryNode } from '../src/domain/library-tree.js'
import { newSchedule, RATINGS, scheduleReview, type CardSchedule } from '../src/domain/scheduling.js'

const TREE_ITERATIONS = 200
const TREE_WARMUP = 50
const REVIEWS = 10_000
const REVIEW_WARMUP = 1000
const DAY = 24 * 60 * 60 * 1000

function percentile (sorted: readonly number[], share: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)] ?? NaN
}

function summary (label: string, timings: readonly number[]): string {
  const sorted = [...timings].sort((a, b) => a - b)
  const mean = timings.reduce((sum, value) => sum + value, 0) / timings.length
  return `${label.padEnd(36)} mean ${mean.toFixed(3)} ms  p50 ${percentile(sorted, 0.5).toFixed(3)} ms  p99 ${percentile(sorted, 0.99).toFixed(3)} ms`
}

// ---- today's tree: 100 folders (4 top-level, 16 below them, 80 three levels down),
// 500 flashcards with 10 due cards each; 10 of the deepest folders hold none and are pruned

function library (): { folders: LibraryNode[], flashcards: LibraryNode[], cards: CardLeaf[] } {
  const folders: LibraryNode[] = []
  const leaves: LibraryNode[] = []
  for (let a = 1; a <= 4; a++) {
    const top: LibraryNode = { _id: newId(), kind: 'folder', parentID: TOP_LEVEL, name: `Subject ${a}` }
    folders.push(top)
    for (let b = 1; b <= 4; b++) {
      const middle: LibraryNode = { _id: newId(), kind: 'folder', parentID: top._id, name: `Topic ${a}.${b}` }
      folders.push(middle)
      for (let c = 1; c <= 5; c++) {
        const leaf: LibraryNode = { _id: newId(), kind: 'folder', parentID: middle._id, name: `Unit ${a}.${b}.${c}` }
        folders.push(leaf)
        leaves.push(leaf)
      }
    }
  }
  const flashcards = Array.from({ length: 500 }, (_, n): LibraryNode => ({
    _id: newId(),
    kind: 'flashcard',
    parentID: (leaves[n % 70] as LibraryNode)._id,
    name: `Set ${n + 1}`
  }))
  const cards = Array.from({ length: 5000 }, (_, n): CardLeaf => ({
    id: newId(),
    flashcardID: (flashcards[n % flashcards.length] as LibraryNode)._id,
    last_review: `${String(1 + n % 28).padStart(2, '0')}/${String(1 + n % 12).padStart(2, '0')}/2025`,
    review_status: `${1 + n % 60}.0`
  }))
  return { folders, flashcards, cards }
}

function benchTree (): void {
  const { folders, flashcards, cards } = library()
  const { tree } = treeFromNodes([...folders, ...flashcards])
  let bytes = 0
  const total: number[] = []
  for (let n = 0; n < TREE_WARMUP + TREE_ITERATIONS; n++) {
    const started = performance.now()
    const json = treeJson(tree, cards)
    const finished = performance.now()
    bytes = json.length
    if (n < TREE_WARMUP) continue
    total.push(finished - started)
  }
  console.log(`Today's tree: ${folders.length} folders, ${flashcards.length} flashcards, ${cards.length.toLocaleString('en')} due cards -> ` +
    `${bytes.toLocaleString('en')} bytes of JSON; ${TREE_ITERATIONS} calls after ${TREE_WARMUP} warm-up calls`)
  console.log(`  ${summary('treeJson (prune, sort, write JSON)', total)}`)
}

// ---- scheduling: 10,000 reviews over a mix of new cards and cards in review

function schedules (count: number, now: Date): CardSchedule[] {
  return Array.from({ length: count }, (_, n): CardSchedule => {
    if (n % 4 === 0) return newSchedule(new Date(now.getTime() - DAY))
    const interval = 1 + n % 90
    const lastReview = new Date(now.getTime() - (interval + n % 5) * DAY)
    return {
      state: 2,
      due: new Date(lastReview.getTime() + interval * DAY),
      stability: interval * 1.1,
      difficulty: 3 + n % 6,
      elapsedDays: interval,
      scheduledDays: interval,
      learningSteps: 0,
      reps: 3 + n % 10,
      lapses: n % 3,
      lastReview
    }
  })
}

function benchScheduling (): void {
  const now = new Date()
  const cards = schedules(REVIEWS, now)
  let checksum = 0
  for (let n = 0; n < REVIEW_WARMUP; n++) {
    checksum += scheduleReview(cards[n] as CardSchedule, RATINGS[n % 4] ?? 'good', now, { desiredRetention: 0.9 }).scheduledDays
  }
  const started = performance.now()
  for (let n = 0; n < REVIEWS; n++) {
    checksum += scheduleReview(cards[n] as CardSchedule, RATINGS[n % 4] ?? 'good', now, { desiredRetention: 0.9 }).scheduledDays
  }
  const elapsed = performance.now() - started
  console.log(`Scheduling (FSRS via ts-fsrs, desired retention 0.9): ${REVIEWS.toLocaleString('en')} reviews after ${REVIEW_WARMUP.toLocaleString('en')} warm-up reviews, ` +
    'ratings again/hard/good/easy in turn, a quarter of the cards new')
  console.log(`  ${(elapsed * 1000 / REVIEWS).toFixed(2)} µs per review, ${elapsed.toFixed(1)} ms in all (checksum ${checksum})`)
}

const cpu = cpus()
console.log(`Machine: ${cpu[0]?.model.trim() ?? 'unknown CPU'}, ${cpu.length} cores, ${platform()} ${release()}, Node ${process.version}, ` +
  `load average ${loadavg().map((value) => value.toFixed(1)).join(' ')} (other work on the machine shows in the figures)\n`)
benchTree()
console.log()
benchScheduling()
