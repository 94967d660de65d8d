// What the page keeps in the browser to study without a network (IndexedDB): today's
// cards as last fetched, the CSS of the account's note types, the answers given offline that the service has not yet got
// (each with its reviewID, in the order given), and the answers the service could not
// take as they were (conflicts), kept until the learner decides. Everything is per user
// and is removed when the user logs out (forgetEverything).
import type { Rating } from './api-types.js'
import type { StudyCard, StudyScope } from './today-cards.js'

const DATABASE = 'flashcards-offline'
const VERSION = 2

/** An answer given offline, waiting to be sent as review-card. */
export interface WaitingAnswer {
  /** the order answers were given in, which is the order they are sent in */
  seq?: number
  userID: string
  reviewID: string
  flashcardID: string
  cardID: string
  rating: Rating
  /** when it was given (ms since the epoch) */
  answeredAt: number
  /**
   * When the card was due as the page knew it at the answer: had the card changed
   * elsewhere meanwhile (reviewed on another device, its schedule reset), the service's
   * due differs, and the answer is a conflict. null for an answer after another one of
   * the same card still waiting (the service's due after that one is not known yet), and
   * for an answer the learner chose to send whatever the card's state.
   */
  expectedDue: number | null
  /** the card's front as text, to name it to the learner */
  front: string
  /**
   * True once a request with this answer has left: it may have reached the service, whose
   * due for the card then is this answer's own doing, so the card is not checked against
   * expectedDue; the reviewID makes sending it again safe.
   */
  attempted: boolean
}

/** Answers the service did not take as they were, and why, until the learner decides. */
export interface Conflict {
  seq?: number
  userID: string
  /** 'changed': the card changed elsewhere meanwhile; 'gone': it was deleted; 'refused': the service refused the answer */
  reason: 'changed' | 'gone' | 'refused'
  /** the answers of one card, in the order given */
  answers: WaitingAnswer[]
  /** the service's words, for 'refused' */
  message?: string
}

/** Today's cards as last fetched, to study from when the network is gone. */
export interface KeptCards { userID: string, scope: StudyScope, cards: StudyCard[], fetchedAt: number }

let opened: Promise<IDBDatabase> | null = null

function database (): Promise<IDBDatabase> {
  opened ??= new Promise<IDBDatabase>((resolve, reject) => {
    const request = indexedDB.open(DATABASE, VERSION)
    request.onupgradeneeded = () => {
      const db = request.result
      // a database of an earlier version has some of the stores already
      const has = (name: string): boolean => db.objectStoreNames.contains(name)
      if (!has('todayCards')) db.createObjectStore('todayCards', { keyPath: 'userID' })
      if (!has('waiting')) db.createObjectStore('waiting', { keyPath: 'seq', autoIncrement: true }).createIndex('userID', 'userID')
      if (!has('conflicts')) db.createObjectStore('conflicts', { keyPath: 'seq', autoIncrement: true }).createIndex('userID', 'userID')
      if (!has('noteTypeStyles')) db.createObjectStore('noteTypeStyles', { keyPath: 'userID' })
    }
    request.onsuccess = () => {
      // another tab deleting the database (a logout there) must not wait on this one
      request.result.onversionchange = () => {
        request.result.close()
        opened = null
      }
      resolve(request.result)
    }
    request.onerror = () => { reject(request.error ?? new Error('IndexedDB could not be opened')) }
  }).catch((error: unknown) => {
    opened = null
    throw error
  })
  return opened
}

type StoreName = 'todayCards' | 'waiting' | 'conflicts' | 'noteTypeStyles'

/** Runs `work` in one transaction and resolves with its result once the transaction is committed. */
async function inTransaction<T> (stores: StoreName[], mode: IDBTransactionMode, work: (transaction: IDBTransaction) => IDBRequest<T> | undefined): Promise<T | undefined> {
  const db = await database()
  return await new Promise<T | undefined>((resolve, reject) => {
    const transaction = db.transaction(stores, mode)
    const request = work(transaction)
    transaction.oncomplete = () => { resolve(request?.result) }
    transaction.onerror = () => { reject(transaction.error ?? new Error('IndexedDB transaction failed')) }
    transaction.onabort = () => { reject(transaction.error ?? new Error('IndexedDB transaction aborted')) }
  })
}

export async function keepTodayCards (userID: string, scope: StudyScope, cards: StudyCard[]): Promise<void> {
  // the retry keys belong to answers under way in this page, not to the copy
  const kept: KeptCards = { userID, scope, cards: cards.map(({ reviewID: _unsent, ...card }) => card), fetchedAt: Date.now() }
  await inTransaction(['todayCards'], 'readwrite', (transaction) => transaction.objectStore('todayCards').put(kept))
}

/** The CSS of the account's note types as last read, for the cards studied without a network. */
export interface KeptNoteTypeStyles { userID: string, styles: Array<{ noteTypeID: string, css: string }> }

export async function keepNoteTypeStyles (kept: KeptNoteTypeStyles): Promise<void> {
  await inTransaction(['noteTypeStyles'], 'readwrite', (transaction) => transaction.objectStore('noteTypeStyles').put(kept))
}

export async function keptNoteTypeStyles (userID: string): Promise<KeptNoteTypeStyles | undefined> {
  return await inTransaction<KeptNoteTypeStyles | undefined>(['noteTypeStyles'], 'readonly', (transaction) => transaction.objectStore('noteTypeStyles').get(userID))
}

export async function keptTodayCards (userID: string): Promise<KeptCards | undefined> {
  return await inTransaction<KeptCards | undefined>(['todayCards'], 'readonly', (transaction) => transaction.objectStore('todayCards').get(userID))
}

export async function addWaitingAnswer (answer: WaitingAnswer): Promise<void> {
  await inTransaction(['waiting'], 'readwrite', (transaction) => transaction.objectStore('waiting').add(answer))
}

/** The user's answers still to send, oldest first. */
export async function waitingAnswers (userID: string): Promise<WaitingAnswer[]> {
  const all = await inTransaction<WaitingAnswer[]>(['waiting'], 'readonly', (transaction) => transaction.objectStore('waiting').index('userID').getAll(userID))
  return (all ?? []).sort((a, b) => (a.seq ?? 0) - (b.seq ?? 0))
}

export async function removeWaitingAnswer (seq: number): Promise<void> {
  await inTransaction(['waiting'], 'readwrite', (transaction) => transaction.objectStore('waiting').delete(seq))
}

export async function updateWaitingAnswer (answer: WaitingAnswer): Promise<void> {
  await inTransaction(['waiting'], 'readwrite', (transaction) => transaction.objectStore('waiting').put(answer))
}

/** Moves answers from the waiting ones to a conflict, in one transaction: an answer is always in one place. */
export async function moveToConflict (conflict: Conflict): Promise<void> {
  await inTransaction(['waiting', 'conflicts'], 'readwrite', (transaction) => {
    for (const answer of conflict.answers) {
      if (answer.seq !== undefined) transaction.objectStore('waiting').delete(answer.seq)
    }
    const answers = conflict.answers.map(({ seq: _waitingSeq, ...answer }) => answer)
    return transaction.objectStore('conflicts').add({ ...conflict, answers })
  })
}

export async function conflicts (userID: string): Promise<Conflict[]> {
  const all = await inTransaction<Conflict[]>(['conflicts'], 'readonly', (transaction) => transaction.objectStore('conflicts').index('userID').getAll(userID))
  return (all ?? []).sort((a, b) => (a.seq ?? 0) - (b.seq ?? 0))
}

/** Ends a conflict: its answers are dropped, or (`resend`) waiting again, to be sent whatever the card's state. */
export async function settleConflict (conflict: Conflict, resend: boolean): Promise<void> {
  await inTransaction(['waiting', 'conflicts'], 'readwrite', (transaction) => {
    if (conflict.seq !== undefined) transaction.objectStore('conflicts').delete(conflict.seq)
    if (!resend) return undefined
    // sent whatever the card's state now: no due to expect
    for (const waiting of conflict.answers.map(({ seq: _conflictSeq, ...answer }) => answer)) {
      transaction.objectStore('waiting').add({ ...waiting, expectedDue: null })
    }
    return undefined
  })
}

/** Removes everything the page keeps in this browser: its database and its copy of the page's files. */
export async function forgetEverything (): Promise<void> {
  const db = await opened?.catch(() => undefined)
  db?.close()
  opened = null
  await new Promise<void>((resolve) => {
    const request = indexedDB.deleteDatabase(DATABASE)
    request.onsuccess = () => { resolve() }
    request.onerror = () => { resolve() }
    // another tab still holds it open: it closes on versionchange, and the deletion goes on
    request.onblocked = () => {}
  })
  if (typeof caches !== 'undefined') {
    for (const name of await caches.keys()) {
      if (name.startsWith('flashcards-')) await caches.delete(name)
    }
  }
}
