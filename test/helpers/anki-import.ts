// import-anki through the API: the form, and waiting for the import to end.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import type { Db } from 'mongodb'
import { setTimeout as sleep } from 'node:timers/promises'
import { databaseOf, expectOk, flashcardPages, type TestUser } from './app.js'
import { FIXTURES, type ExpectedCard } from './anki.js'
import { formBody } from './media.js'

export interface ImportStatus {
  importID: string
  state: 'queued' | 'running' | 'done' | 'failed'
  percent: string
  cards: string
  notes: string
  reviews: string
  media: string
  warnings: string[]
  code?: string
  error?: string
  recovered?: string
}

export function fixture (name: string): Buffer {
  return readFileSync(join(FIXTURES, name))
}

/** Posts import-anki with the package and the fields given (folder: one field per name). */
export async function postImport (app: FastifyInstance, jwtToken: string, file: Buffer, fields: { folder?: string[], withScheduling?: string, updateNotes?: string, fileName?: string } = {}): Promise<LightMyRequestResponse> {
  const { payload, headers } = formBody([
    { name: 'jwtToken', value: jwtToken },
    ...(fields.folder ?? []).map((name) => ({ name: 'folder', value: name })),
    ...(fields.withScheduling === undefined ? [] : [{ name: 'withScheduling', value: fields.withScheduling }]),
    ...(fields.updateNotes === undefined ? [] : [{ name: 'updateNotes', value: fields.updateNotes }]),
    { name: 'file', file, filename: fields.fileName ?? 'deck.apkg', type: 'application/octet-stream' }
  ])
  return await app.inject({ method: 'POST', url: '/api/import-anki', payload, headers })
}

/** Waits for an import to end (done or failed); its last status. */
export async function importEnded (app: FastifyInstance, jwtToken: string, importID: string, timeoutMs = 300_000): Promise<ImportStatus> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const status = await expectOk<ImportStatus>(app, 'get-import-status', { jwtToken, importID })
    if (status.state === 'done' || status.state === 'failed') return status
    if (Date.now() > deadline) throw new Error(`the import did not end in ${timeoutMs} ms: ${JSON.stringify(status)}`)
    await sleep(50)
  }
}

/** Imports a package and waits for the import to end. */
export async function importAnki (app: FastifyInstance, jwtToken: string, file: Buffer, fields: { folder?: string[], withScheduling?: string, updateNotes?: string } = {}): Promise<ImportStatus> {
  const answer = await postImport(app, jwtToken, file, fields)
  if (answer.statusCode !== 202) throw new Error(`import-anki: expected 202, got ${answer.statusCode} ${answer.body}`)
  return await importEnded(app, jwtToken, answer.json<{ importID: string }>().importID)
}

// the fixture's collection counts its days five hours west of UTC, with a 04:00 rollover: a learner there
export const LEARNER = { timezone: 'America/Bogota' }
export const CALENDAR = { timezone: 'America/Bogota', dayStartHour: 4 }

export interface CardDetails {
  cardID: string
  front: string
  back: string
  format: string
  frontHtml: string
  backHtml: string
  noteID?: string
  clozeNumber?: string
  review_status: string
  due: string
  stability?: string
  difficulty?: string
  retrievability?: string
  tags?: string[]
}
export interface Flashcard { flashcardID: string, flashcardName: string, folder: string[], cards: CardDetails[] }

export function relative (actual: number, wanted: number): number {
  return Math.abs(actual - wanted) / Math.abs(wanted)
}

export function labelOf (card: ExpectedCard): string {
  return card.label ?? `${card.noteGuid}/${card.ord}`
}

/** Each imported card as get-flashcard shows it, by the Anki note guid and ord it came from. */
export async function importedCards (app: FastifyInstance, user: TestUser): Promise<Map<string, CardDetails & { flashcard: Flashcard }>> {
  const stored = await databaseOf(app).collection('cards').find({ userID: user.userID }, { projection: { flashcardID: 1, ankiGuid: 1, ankiOrd: 1 } }).toArray()
  const flashcards = new Map<string, Flashcard>()
  for (const flashcardID of new Set(stored.map((card) => card.flashcardID as string))) {
    const pages = await flashcardPages<CardDetails>(app, user.jwtToken, flashcardID)
    flashcards.set(flashcardID, { ...pages[0] as Flashcard, cards: pages.flatMap((page) => page.cards) })
  }
  const cards = new Map<string, CardDetails & { flashcard: Flashcard }>()
  for (const card of stored) {
    const flashcard = flashcards.get(card.flashcardID as string) as Flashcard
    const details = flashcard.cards.find((candidate) => candidate.cardID === card._id as unknown as string) as CardDetails
    cards.set(`${card.ankiGuid as string}/${card.ankiOrd as number}`, { ...details, flashcard })
  }
  return cards
}

/** The reviews a user's log holds: their own, one document each, and those in the histories imports brought, one document a card. */
export async function loggedReviews (db: Db, userID: string): Promise<number> {
  const [histories] = await db.collection('reviewHistories').aggregate<{ reviews: number }>([
    { $match: { userID } },
    // answers only: a manual change kept with them (rating null) is no review
    { $group: { _id: null, reviews: { $sum: { $size: { $filter: { input: '$reviews', cond: { $ne: ['$$this.rating', null] } } } } } } }
  ]).toArray()
  return await db.collection('reviews').countDocuments({ userID }) + (histories?.reviews ?? 0)
}

export async function countsOf (app: FastifyInstance, user: TestUser) {
  const db = databaseOf(app)
  return {
    cards: await db.collection('cards').countDocuments({ userID: user.userID }),
    staged: await db.collection('cards').countDocuments({ userID: { $regex: '^anki-import:' } }),
    // each card's learner's state, kept apart from it (repositories/card-states.ts)
    states: await db.collection('cardStates').countDocuments({ userID: user.userID }),
    stagedStates: await db.collection('cardStates').countDocuments({ userID: { $regex: '^anki-import:' } }),
    reviews: await loggedReviews(db, user.userID),
    media: await db.collection('media').countDocuments({ userID: user.userID }),
    files: await db.collection('media.files').countDocuments({}),
    unrecorded: await db.collection('media_unrecorded').countDocuments({}),
    activity: await db.collection('activity').countDocuments({ userID: user.userID }),
    trees: await db.collection('trees').countDocuments({ _id: user.userID as never, 'folders.0': { $exists: true } }),
    updates: await db.collection('importUpdates').countDocuments({}),
    // the notes an import wrote under the user, and those it staged
    notes: await db.collection('notes').countDocuments({ $or: [{ userID: user.userID }, { userID: { $regex: '^anki-import:' } }] })
  }
}

/** What an import leaves when it keeps nothing. */
export const NOTHING = { cards: 0, staged: 0, states: 0, stagedStates: 0, reviews: 0, media: 0, files: 0, unrecorded: 0, activity: 0, trees: 0, updates: 0, notes: 0 }
