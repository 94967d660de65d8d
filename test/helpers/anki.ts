// The Anki fixtures (made by `npm run anki-fixtures`) and what Anki reported about them.
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { readAnkiPackageFile, type AnkiPackage } from '../../src/anki/package-file.js'
import type { AnkiCard, AnkiCollection, AnkiDeck } from '../../src/domain/anki/collection.js'

export const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'anki')

interface Memory { stability: number | null, difficulty: number | null }

export interface ExpectedCard {
  label: string | null
  noteGuid: string
  ord: number
  deck: string
  type: number
  queue: number
  due: number
  dueDay: string | null
  interval: number
  factor: number
  reps: number
  lapses: number
  stored: Memory & { desiredRetention: number | null, decay: number | null }
  computed: Memory & { desiredRetention: number, decay: number | null }
  whenShown: { stability: number, difficulty: number } | null
  revlogCount: number
  question: string
  answer: string
}

export interface Expected {
  creationStamp: number
  creationDate: string
  rolloverHour: number
  utcOffsetMinutesWest: number
  exportedAt: number
  revlogCount: number
  decks: Record<string, { preset: string, desiredRetention: number | null }>
  presets: Record<string, { fsrsParams6: number[], fsrsParams5: number[], desiredRetention: number, historicalRetention: number }>
  notes: Record<string, { notetype: string, fields: string[], tags: string[] }>
  cards: ExpectedCard[]
  media: Record<string, string>
  genanki: { media: Record<string, string> }
  refusals: Record<string, string>
  packages: string[]
  customTemplates: { front: string, back: string }
}

export const expected = JSON.parse(readFileSync(join(FIXTURES, 'expected.json'), 'utf8')) as Expected

export interface ReadFixture {
  pkg: AnkiPackage
  /** media name -> SHA-1 of the bytes handed to onMedia */
  media: Map<string, string>
}

/** Reads a fixture package, recording each media file's digest as it is handed over. */
export async function readFixture (name: string): Promise<ReadFixture> {
  const media = new Map<string, string>()
  const pkg = await readAnkiPackageFile(join(FIXTURES, name), {
    onMedia: ({ name, bytes }) => { media.set(name, createHash('sha1').update(bytes).digest('hex')) }
  })
  return { pkg, media }
}

export function deckName (deck: AnkiDeck): string {
  return deck.path.join('::')
}

/** The card the fixture script recorded as `expectedCard`, in a collection read back. */
export function cardFor (collection: AnkiCollection, expectedCard: ExpectedCard): AnkiCard {
  const note = collection.notes.find((candidate) => candidate.guid === expectedCard.noteGuid)
  const card = collection.cards.find((candidate) => candidate.noteId === note?.id && candidate.ord === expectedCard.ord)
  if (card === undefined) throw new Error(`no card ${expectedCard.noteGuid}/${expectedCard.ord}`)
  return card
}
