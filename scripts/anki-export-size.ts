// `node --import tsx scripts/anki-export-size.ts [CARDS] [TEXT_CHARACTERS] [REVIEWS]`: builds the
// collection of an export at the given size with the domain writer, as export-anki does (no
// database: the cards and reviews are made here), and prints the time it took, the peak memory of
// the process and the size of the collection file. Defaults: export-anki's limits (EXPORT_LIMITS),
// the largest export the service builds.
import { loadSqlEngine } from '../src/anki/sql-engine.js'
import { ankiDays, EXPORT_LIMITS, noteFields, noteGuid, revlogRow, scheduleRow } from '../src/domain/anki/export.js'
import { CollectionWriter } from '../src/domain/anki/writer.js'
import { CardState, type CardSchedule } from '../src/domain/scheduling.js'

const [cards = EXPORT_LIMITS.cards, text = EXPORT_LIMITS.textCharacters, reviews = EXPORT_LIMITS.reviews] = process.argv.slice(2).map(Number)
const DAY = 86_400_000
const now = new Date()
const calendar = { timezone: 'Europe/Paris', dayStartHour: 4 }
const days = ankiDays(calendar, '2024-01-01', now)

let peak = 0
const sample = () => { peak = Math.max(peak, process.memoryUsage().rss) }
const sampler = setInterval(sample, 50)
const started = performance.now()

const sql = await loadSqlEngine()
const writer = new CollectionWriter(sql, days.timing, now)
writer.addDeck({ id: 2, path: ['Big'] })
const perSide = Math.max(1, Math.floor(text / cards / 2))
const side = (index: number) => `card ${index} `.padEnd(perSide, 'x')
const schedule: CardSchedule = {
  state: CardState.Review, due: new Date(now.getTime() + 5 * DAY), stability: 12.5, difficulty: 5.2, elapsedDays: 3,
  scheduledDays: 9, learningSteps: 0, reps: 6, lapses: 1, lastReview: new Date(now.getTime() - 4 * DAY)
}
for (let index = 0; index < cards; index++) {
  const id = 1_600_000_000_000 + index
  writer.addNote({ id, guid: noteGuid(String(index)), kind: 'basic', fields: noteFields({ front: side(index), back: side(index) }, () => null), modified: 0 })
  writer.addCard({ id, noteId: id, deckId: 2, ord: 0, modified: 0, flags: 0, ...scheduleRow(schedule, 0, days, 0.9) })
  if (index % 10_000 === 0) sample()
}
for (let index = 0; index < reviews; index++) {
  writer.addRevlog(revlogRow({ rating: 'good', reviewedAt: new Date(1_600_000_000_000 + index), before: schedule, after: schedule }, 1_600_000_000_000 + index, 1_600_000_000_000 + (index % cards)))
  if (index % 10_000 === 0) sample()
}
const collection = writer.finish(1)
sample()
clearInterval(sampler)
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`
console.log(JSON.stringify({
  cards, textCharacters: perSide * 2 * cards, reviews,
  seconds: Number(((performance.now() - started) / 1000).toFixed(1)),
  peakRss: mib(peak), collectionFile: mib(collection.byteLength)
}))
