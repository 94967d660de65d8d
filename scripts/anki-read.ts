// Reads an Anki package as an import would and says how long each part took and how much memory
// the process held at most: `node --import tsx scripts/anki-read.ts PACKAGE.apkg`. A package to try
// it on: `npm run anki-fixtures -- --large 100000 1000000 /tmp/large.apkg`.
import { readAnkiPackageFile } from '../src/anki/package-file.js'
import { nextDayAt } from '../src/domain/anki/days.js'
import { fsrsReplayer } from '../src/domain/anki/fsrs.js'
import { renderCard } from '../src/domain/anki/templates.js'

const path = process.argv[2]
if (path === undefined) {
  console.error('usage: node --import tsx scripts/anki-read.ts PACKAGE')
  process.exit(2)
}
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`
const started = performance.now()
let mediaBytes = 0
const pkg = await readAnkiPackageFile(path, { onMedia: ({ bytes }) => { mediaBytes += bytes.byteLength } })
const read = performance.now()
const { collection } = pkg

const decks = new Map(collection.decks.map((deck) => [deck.id, deck]))
const presets = new Map(collection.deckConfigs.map((config) => [config.id, config]))
const replayers = new Map<number, ReturnType<typeof fsrsReplayer>>()
const dayStart = nextDayAt(Date.now() / 1000, collection.timing.creationOffsetMinutesWest ?? 0, collection.timing.rolloverHour ?? 4)
let withState = 0
for (const card of collection.cards) {
  const deck = decks.get(card.originalDeckId !== 0 ? card.originalDeckId : card.deckId)
  const preset = presets.get(deck?.configId ?? 1) ?? collection.deckConfigs[0]
  if (preset === undefined) continue
  let replayer = replayers.get(preset.id)
  if (replayer === undefined) {
    replayer = fsrsReplayer({ params: preset.fsrsParams, historicalRetention: preset.historicalRetention, nextDayAt: dayStart, ignoreRevlogsBeforeDate: preset.ignoreRevlogsBeforeDate })
    replayers.set(preset.id, replayer)
  }
  if (replayer.memoryStateOf(card, collection.revlog.entriesOf(card.id)) !== undefined) withState++
}
const replayed = performance.now()

const notetypes = new Map(collection.notetypes.map((notetype) => [notetype.id, notetype]))
const notes = new Map(collection.notes.map((note) => [note.id, note]))
for (const card of collection.cards) {
  const note = notes.get(card.noteId)
  const notetype = notetypes.get(note?.notetypeId ?? -1)
  const template = notetype?.cloze === true ? notetype.templates[0] : notetype?.templates.find((candidate) => candidate.ord === card.ord)
  if (note === undefined || notetype === undefined || template === undefined) continue
  renderCard({
    fieldNames: notetype.fields.map((field) => field.name), fieldValues: note.fields, questionFormat: template.questionFormat,
    answerFormat: template.answerFormat, cloze: notetype.cloze, cardOrd: card.ord, tags: note.tags, notetypeName: notetype.name,
    deckName: decks.get(card.deckId)?.path.join('::') ?? '', templateName: template.name
  })
}
const rendered = performance.now()

console.log(`${path}: ${collection.notes.length} notes, ${collection.cards.length} cards, ${collection.revlog.length} revlog rows, ${pkg.media.length} media files (${mib(mediaBytes)})`)
console.log(`read (unzip, zstd, SQLite, rows): ${(read - started).toFixed(0)} ms`)
console.log(`FSRS replay of every card (${withState} with a memory state): ${(replayed - read).toFixed(0)} ms`)
console.log(`render every card: ${(rendered - replayed).toFixed(0)} ms`)
console.log(`most memory held: ${mib(process.resourceUsage().maxRSS * 1024)}; heap now ${mib(process.memoryUsage().heapUsed)}, outside the heap ${mib(process.memoryUsage().arrayBuffers)}`)
