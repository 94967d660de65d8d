// Sending the answers given offline, once the network is back: in the order they were
// given, each with the reviewID it got when given, so that an answer sent twice (a reply
// lost on its way, two tabs sending at once) still counts once. One card's answers are
// checked against the card as the service has it now: a card changed elsewhere meanwhile
// (reviewed on another device, its schedule reset) or deleted makes its answers a
// conflict, kept for the learner to send anyway or drop, never sent blindly nor lost.
import { ApiError, SessionEndedError, callApi, serviceReachable } from './api.js'
import type { CardDetails, ErrorCode } from './api-types.js'
import { conflicts, moveToConflict, removeWaitingAnswer, updateWaitingAnswer, waitingAnswers, type WaitingAnswer } from './offline-store.js'
import { loadSession } from './session.js'

/** Failures after which the same answer is sent again later: nothing was decided about it. */
const TRY_AGAIN_LATER: ReadonlySet<ErrorCode> = new Set([
  'network_failure', 'unreadable_answer', 'database_unavailable', 'service_overloaded', 'internal_error',
  'too_many_requests', 'too_many_connections', 'request_timeout'
])

/**
 * How often answers still waiting are tried again while the page is open, whatever events it heard
 * (a page may miss the browser's `online` event): a try sends nothing while the browser says it is
 * offline (`navigator.onLine`), and one that fails leaves them for the next.
 */
const RETRY_MS = 15_000

export interface SyncState { online: boolean, waiting: number, conflicts: number, sending: boolean }

const listeners = new Set<(state: SyncState) => void>()
let sending: Promise<void> | null = null
let retryTimer: number | undefined

/** Calls `listener` with the state now and whenever it changes; the function returned stops it. */
export function watchSync (listener: (state: SyncState) => void): () => void {
  listeners.add(listener)
  void announce()
  return () => { listeners.delete(listener) }
}

/** Tells every listener the state as it is now. */
export async function announce (): Promise<SyncState> {
  const session = loadSession()
  const [waiting, kept] = session === null
    ? [[], []]
    : await Promise.all([waitingAnswers(session.userID), conflicts(session.userID)]).catch(() => [[], []])
  const state = { online: serviceReachable(), waiting: waiting.length, conflicts: kept.length, sending: sending !== null }
  for (const listener of listeners) listener(state)
  return state
}

/** Resolves once the sending under way, if any, is over: before the waiting answers are changed by hand (an undo). */
export async function sendingDone (): Promise<void> {
  await sending
}

/**
 * Sends the answers waiting, if any and if online; one sending at a time (a second call
 * while one runs gets the same one). Resolves when this sending is over, whatever came of it.
 */
export function sendWaitingAnswers (): Promise<void> {
  sending ??= sendAll().catch(() => {}).finally(() => {
    sending = null
    void announce().then((state) => {
      window.clearTimeout(retryTimer)
      // tried again while answers wait, offline too: a request that goes through is also how the
      // page learns it is back online, and a browser may never fire the `online` event it owes
      if (state.waiting > 0) retryTimer = window.setTimeout(() => { void sendWaitingAnswers() }, RETRY_MS)
    })
  })
  void announce()
  return sending
}

async function sendAll (): Promise<void> {
  const session = loadSession()
  if (session === null || !navigator.onLine) return
  const answers = await waitingAnswers(session.userID)
  if (answers.length === 0) return

  // each card's answers as the service will see them: checked once, before the first is sent
  const cardsNow = await cardsAsTheyAre(answers)
  const checked = new Set<string>()
  const inConflict = new Set<string>()
  for (const [index, answer] of answers.entries()) {
    const cardKey = `${answer.flashcardID}/${answer.cardID}`
    if (inConflict.has(cardKey)) continue
    if (!checked.has(cardKey)) {
      const now = cardsNow.get(cardKey)
      const later = answers.slice(index).filter((other) => other.flashcardID === answer.flashcardID && other.cardID === answer.cardID)
      if (now === undefined) {
        await moveToConflict({ userID: session.userID, reason: 'gone', answers: later })
        inConflict.add(cardKey)
        continue
      }
      if (answer.expectedDue !== null && !answer.attempted && Date.parse(now.due) !== answer.expectedDue) {
        await moveToConflict({ userID: session.userID, reason: 'changed', answers: later })
        inConflict.add(cardKey)
        continue
      }
      checked.add(cardKey)
    }
    try {
      if (!answer.attempted) {
        answer.attempted = true
        await updateWaitingAnswer(answer)
      }
      const review = await callApi('review-card', { flashcardID: answer.flashcardID, cardID: answer.cardID, rating: answer.rating, reviewID: answer.reviewID })
      if (answer.seq !== undefined) await removeWaitingAnswer(answer.seq)
      // the card's next waiting answer expects the card as this one left it, should the sending stop here
      const next = answers.slice(index + 1).find((other) => other.flashcardID === answer.flashcardID && other.cardID === answer.cardID)
      if (next !== undefined && next.expectedDue === null) {
        next.expectedDue = Date.parse(review.due)
        await updateWaitingAnswer(next)
      }
    } catch (error) {
      if (error instanceof SessionEndedError) return
      if (error instanceof ApiError && TRY_AGAIN_LATER.has(error.code)) return
      const refused = error instanceof ApiError && (error.code === 'card_not_found' || error.code === 'flashcard_not_found') ? 'gone' : 'refused'
      const later = answers.slice(index).filter((other) => other.flashcardID === answer.flashcardID && other.cardID === answer.cardID)
      await moveToConflict({ userID: session.userID, reason: refused, answers: later, message: error instanceof Error ? error.message : String(error) })
      inConflict.add(cardKey)
    }
    void announce()
  }
}

/** The card ids get-flashcard takes at once (its cardIDs hold at most as many as a page of cards). */
const CARDS_PER_READ = 1000

/**
 * The cards the answers are for, as the service has them now, by flashcardID/cardID; a deck
 * deleted meanwhile has none, nor has a card deleted meanwhile. Only those cards are read
 * (get-flashcard's cardIDs, as many as a page takes at a time), not every card of their decks.
 */
async function cardsAsTheyAre (answers: WaitingAnswer[]): Promise<Map<string, CardDetails>> {
  const found = new Map<string, CardDetails>()
  const byFlashcard = new Map<string, Set<string>>()
  for (const answer of answers) byFlashcard.set(answer.flashcardID, (byFlashcard.get(answer.flashcardID) ?? new Set()).add(answer.cardID))
  for (const [flashcardID, cardIDs] of byFlashcard) {
    const ids = [...cardIDs]
    try {
      for (let from = 0; from < ids.length; from += CARDS_PER_READ) {
        const chosen = ids.slice(from, from + CARDS_PER_READ)
        let cursor: string | undefined
        do {
          const flashcard = await callApi('get-flashcard', { flashcardID, cardIDs: chosen, ...(cursor === undefined ? {} : { cursor }) })
          for (const card of flashcard.cards) found.set(`${flashcardID}/${card.cardID}`, card)
          cursor = flashcard.nextCursor
        } while (cursor !== undefined)
      }
    } catch (error) {
      if (!(error instanceof ApiError && error.code === 'flashcard_not_found')) throw error
    }
  }
  return found
}
