import type { Repositories } from '../repositories/index.js'
import type { CardDocument } from '../repositories/cards.js'
import { quotaText, type Quotas, type Usage } from '../domain/quotas.js'
import { Refusal } from '../domain/refusals.js'
import type { MediaLinks } from '../domain/media-links.js'
import type { MailMessage } from '../domain/account-links.js'

/** How media is kept, as the services need it. */
export interface MediaContext {
  /** media no card shows is kept at least this long after its last upload */
  graceSeconds: number
  /** the longest an upload's bytes may take to arrive (the request time-out): its file is never removed as unrecorded before that and the grace have passed */
  uploadWindowMs: number
  /** signs and checks media URLs */
  links: MediaLinks
}

/**
 * The address a card shows for one of the user's media (`media:<mediaID>` in
 * its HTML): the URL a browser loads it by, signed and expiring
 * (domain/media-links.ts); null for what is not a media id, whose element is
 * then left out. It only signs: whether the user holds the media is checked
 * when the URL is served (404 otherwise).
 */
export type MediaUrl = (userID: string, mediaID: string) => string | null

/**
 * Mail, sent off the request path: `compose` runs once the request that
 * posts it has been answered, and the mail it makes, if any, is sent then.
 * An answer therefore never waits on the mail server, and never tells by
 * its timing what `compose` found.
 */
export interface Outbox {
  post: (compose: () => Promise<MailMessage | null>) => void
}

/** What the mailed links need: where mail goes out, and the address users reach the service at (the links' start). */
export interface MailContext {
  outbox: Outbox
  publicUrl: string
}

/** What the services need of the running service: the data, its transactions, the clock, the quotas and the media's addresses. */
export interface ServiceContext {
  /** calls outside any transaction */
  repositories: Repositories
  /** runs `work` as one transaction: all of its writes are stored, or none */
  transaction: <T>(work: (repositories: Repositories) => Promise<T>) => Promise<T>
  /** a transaction that starts by writing the user's account: two of one user run one after the other; 401 when the account is gone */
  userTransaction: <T>(userID: string, work: (repositories: Repositories) => Promise<T>) => Promise<T>
  /** the service's notion of "now"; tests give a fixed or moving clock */
  clock: () => Date
  quotas: Quotas
  mediaUrl: MediaUrl
  media: MediaContext
}

/** Adds to the account's usage inside its transaction, or refuses (409) naming the quota it would pass. */
export async function addToUsageWithinQuotas (context: ServiceContext, users: Repositories['users'], userID: string, added: Partial<Usage>): Promise<void> {
  const over = await users.addToUsage(userID, added, context.quotas)
  if (over !== null) {
    throw new Refusal('quota_exceeded', `an account may hold at most ${quotaText(over, context.quotas)}, and this would pass it: delete some first`)
  }
}

/**
 * Gives cards made here the Anki ids an export writes, kept from now on so that every export writes
 * the same (users.takeAnkiIDs): each card one, and a cloze note made here one for its cards to
 * share, the one its cards have already when a card is added to it. A card an Anki import brought
 * keeps Anki's.
 */
async function giveAnkiIDs ({ cards, users }: Pick<Repositories, 'cards' | 'users'>, userID: string, documents: readonly CardDocument[]): Promise<void> {
  const unnumbered = documents.filter((card) => card.ankiID === undefined)
  if (unnumbered.length === 0) return
  // a cloze note made here has no note document to keep its id: its cards do (a kept note's cards carry its guid)
  const clozeNotes = [...new Set(unnumbered.flatMap((card) => card.noteID !== undefined && card.ankiGuid === undefined && card.ankiNoteID === undefined ? [card.noteID] : []))]
  const noteIDs = await cards.ankiNoteIDsOf(userID, clozeNotes)
  const newNotes = clozeNotes.filter((noteID) => !noteIDs.has(noteID))
  const made = new Date(Math.max(...unnumbered.map((card) => card.createdAt.getTime())))
  let next = await users.takeAnkiIDs(userID, unnumbered.length + newNotes.length, made)
  for (const noteID of newNotes) noteIDs.set(noteID, next++)
  for (const card of unnumbered) {
    card.ankiID = next++
    const noteID = card.noteID === undefined || card.ankiGuid !== undefined ? undefined : noteIDs.get(card.noteID)
    if (noteID !== undefined && card.ankiNoteID === undefined) card.ankiNoteID = noteID
  }
}

/**
 * Stores cards just created, in the caller's transaction, with their Anki ids, and keeps the start
 * of the user's new-card queue at or before them: a card stored without that
 * could lie before the start, where today's cards never look.
 */
export async function storeNewCards ({ cards, users }: Pick<Repositories, 'cards' | 'users'>, userID: string, documents: readonly CardDocument[]): Promise<void> {
  if (documents.length === 0) return
  // the ids go on copies: callers make their cards before their transaction, which a write conflict runs again, and
  // cards given ids by the attempt that was undone would take them again, past the counter that undoing put back
  const stored = documents.map((card) => ({ ...card }))
  await giveAnkiIDs({ cards, users }, userID, stored)
  await cards.insertMany(stored)
  const due = Math.min(...documents.map((card) => card.due.getTime()))
  const createdOrder = Math.min(...documents.map((card) => card.createdOrder))
  await users.queueNewCards(userID, { due: new Date(due), createdOrder })
}
