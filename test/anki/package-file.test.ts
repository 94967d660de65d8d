import { join } from 'node:path'
import { test } from 'tap'
import { readAnkiPackageFile } from '../../src/anki/package-file.js'
import { AnkiImportError } from '../../src/domain/anki/errors.js'
import { cardFor, deckName, expected, FIXTURES, readFixture } from '../helpers/anki.js'

for (const name of expected.packages) {
  test(`${name} reads to the notes, cards, decks, presets and media Anki exported`, async (t) => {
    const { pkg, media } = await readFixture(name)
    const collection = pkg.collection
    t.equal(collection.schemaVersion, name.startsWith('legacy') ? 11 : 18, 'schema version')

    const decks = new Map(collection.decks.map((deck) => [deckName(deck), deck]))
    t.same([...decks.keys()].sort(), Object.keys(expected.decks).sort(), 'every deck, nested by its path')
    t.same(decks.get('A::B::C')?.path, ['A', 'B', 'C'])
    const presets = new Map(collection.deckConfigs.map((config) => [config.id, config]))
    for (const [name, deck] of Object.entries(expected.decks)) {
      const read = decks.get(name)
      t.equal(presets.get(read?.configId ?? -1)?.name, deck.preset, `${name} uses the preset ${deck.preset}`)
      t.equal(read?.desiredRetention === undefined ? null : Math.round(read.desiredRetention * 100), deck.desiredRetention, `${name}'s own desired retention`)
    }
    for (const [presetName, preset] of Object.entries(expected.presets)) {
      const read = collection.deckConfigs.find((config) => config.name === presetName)
      const params = preset.fsrsParams6.length > 0 ? preset.fsrsParams6 : preset.fsrsParams5
      t.equal(read?.fsrsParams.length, params.length, `${presetName}: its FSRS parameters`)
      read?.fsrsParams.forEach((value, index) => t.ok(Math.abs(value - (params[index] as number)) < 1e-6, `${presetName} w[${index}]`))
      t.ok(Math.abs((read?.desiredRetention ?? 0) - preset.desiredRetention) < 1e-6, `${presetName}: desired retention`)
      t.ok(Math.abs((read?.historicalRetention ?? 0) - preset.historicalRetention) < 1e-6, `${presetName}: historical retention`)
    }

    const notetypes = new Map(collection.notetypes.map((notetype) => [notetype.id, notetype]))
    t.equal(collection.notes.length, Object.keys(expected.notes).length, 'every note')
    for (const note of collection.notes) {
      const want = expected.notes[note.guid]
      t.same({ notetype: notetypes.get(note.notetypeId)?.name, fields: note.fields, tags: note.tags }, want, `note ${note.guid}`)
    }

    t.equal(collection.cards.length, expected.cards.length, 'every card')
    const deckById = new Map(collection.decks.map((deck) => [deck.id, deckName(deck)]))
    for (const want of expected.cards) {
      const card = cardFor(collection, want)
      t.same({
        deck: deckById.get(card.deckId), type: card.type, queue: card.queue, due: card.due, interval: card.interval,
        factor: card.factor, reps: card.reps, lapses: card.lapses, revlogCount: collection.revlog.entriesOf(card.id).length
      }, {
        deck: want.deck, type: want.type, queue: want.queue, due: want.due, interval: want.interval,
        factor: want.factor, reps: want.reps, lapses: want.lapses, revlogCount: want.revlogCount
      }, `card ${want.label ?? want.noteGuid}/${want.ord}`)
      t.same(card.memoryState === undefined ? null : card.memoryState,
        want.stored.stability === null ? null : { stability: want.stored.stability, difficulty: want.stored.difficulty },
        `card ${want.label ?? want.noteGuid}: the memory state Anki stored`)
    }
    t.equal(collection.revlog.length, expected.revlogCount, 'every revlog row')

    t.equal(collection.timing.creationStamp, expected.creationStamp)
    t.equal(collection.timing.rolloverHour, expected.rolloverHour)
    t.equal(collection.timing.creationOffsetMinutesWest, expected.utcOffsetMinutesWest)

    // an .apkg carries the media its notes use; a .colpkg, the whole media folder
    const wanted = Object.entries(expected.media).filter(([mediaName]) => name.endsWith('.colpkg') || mediaName !== 'unused-but-kept.png')
    t.same(Object.fromEntries([...media].sort()), Object.fromEntries(wanted.sort()), 'media: names and bytes')
  })
}

test('the suspended and both kinds of buried card keep their queues', async (t) => {
  const { pkg } = await readFixture('collection.apkg')
  const queueOf = (label: string) => {
    const want = expected.cards.find((card) => card.label === label)
    if (want === undefined) throw new Error(label)
    return cardFor(pkg.collection, want).queue
  }
  t.equal(queueOf('suspended/0'), -1)
  t.equal(queueOf('userburied/0'), -3)
  t.equal(queueOf('siblings/1'), -2)
})

test('a genanki deck reads: its collection.anki2, notes, deck path and media', async (t) => {
  const { pkg, media } = await readFixture('genanki.apkg')
  t.equal(pkg.layout.collectionEntry, 'collection.anki2')
  t.same(pkg.collection.notes.map((note) => note.guid).sort(), ['genanki-guid-1', 'genanki-guid-2'])
  t.ok(pkg.collection.decks.some((deck) => deck.path.join('/') === 'Shared/Country Capitals'))
  t.same(Object.fromEntries(media), expected.genanki.media)
})

test('a current package is read from collection.anki21b, not the collection.anki2 left for old clients', async (t) => {
  const { pkg } = await readFixture('collection.apkg')
  t.same(pkg.layout, { version: 3, collectionEntry: 'collection.anki21b', zstd: true })
  const { pkg: legacy } = await readFixture('legacy-anki21.apkg')
  t.same(legacy.layout, { version: 2, collectionEntry: 'collection.anki21', zstd: false })
  const { pkg: oldest } = await readFixture('legacy-anki2.apkg')
  t.same(oldest.layout, { version: 1, collectionEntry: 'collection.anki2', zstd: false })
})

for (const [name, code] of Object.entries(expected.refusals)) {
  test(`refused/${name} is refused with ${code}, before any media is handed on`, async (t) => {
    const handed: string[] = []
    try {
      await readAnkiPackageFile(join(FIXTURES, 'refused', name), { onMedia: ({ name }) => { handed.push(name) } })
      t.fail('read without refusal')
    } catch (error) {
      t.ok(error instanceof AnkiImportError, String(error))
      t.equal((error as AnkiImportError).code, code, (error as Error).message)
    }
    t.same(handed, [], 'no media handed on')
  })
}

test('media files are handed on one at a time: the next is read only once the last is taken', async (t) => {
  let holding = 0
  let most = 0
  const names: string[] = []
  await readAnkiPackageFile(join(FIXTURES, 'collection.colpkg'), {
    onMedia: async ({ name }) => {
      holding++
      most = Math.max(most, holding)
      names.push(name)
      await new Promise((resolve) => setTimeout(resolve, 5))
      holding--
    }
  })
  t.equal(names.length, Object.keys(expected.media).length)
  t.equal(most, 1)
})
