// Studying today's cards: one card at a time, its front, then its back with the
// four answers and the interval each would give; undo puts the last card back.
//
// Keys (never while typing in a field): Space shows the answer, 1-4 answer
// again / hard / good / easy, U undoes the last answer, R plays the side's sound again.
//
// A side is the HTML the service rendered (frontHtml, backHtml), put on the page through
// the allowlist again (card-html.ts). A cloze card's back is its whole text with the
// answer marked, shown in place of its front, as Anki shows it.
import { styleNoteType } from '../note-type-styles.js'
import { ApiError, callApi, serviceReachable } from '../api.js'
import { RATINGS, type EditedCard, type Rating, type ReviewPreview } from '../api-types.js'
import { cardSide, sideText } from '../card-html.js'
import { button, el, field, figure, focusIfLost, isTyping, plural, replaceChildren } from '../dom.js'
import { beginAction, clearError, reportFailure, showNotice } from '../messages.js'
import { addWaitingAnswer, conflicts, keepTodayCards, keptTodayCards, removeWaitingAnswer, settleConflict, waitingAnswers, type Conflict, type KeptCards } from '../offline-store.js'
import { announce as announceSync, sendWaitingAnswers, sendingDone, watchSync } from '../offline-sync.js'
import { deckPlace, readLibrary, type FolderEntry } from '../library-tree.js'
import { loadStudyCard, loadStudyQueue, newReviewID, sameScope, stateOf, type CardState, type StudyCard, type StudyQueuePage, type StudyScope } from '../today-cards.js'
import type { CardSource } from './card-editor.js'
import type { Screen } from './screen.js'
import { FLAGS, cardTools, studyCardEditor, type CardToolActions } from './study-card-tools.js'
import { noteEditor } from './note-editor.js'

const RATING_NAMES: Record<Rating, string> = { again: 'Again', hard: 'Hard', good: 'Good', easy: 'Easy' }

/**
 * A card answered "again" or still in its learning steps is due again within minutes;
 * like Anki's "learn ahead" limit, such a card comes back in this session.
 */
const LEARN_AHEAD_MS = 20 * 60 * 1000

/** Offline, a card answered "again" comes back after Anki's first learning step; the service schedules it for real once the answer is sent. */
const AGAIN_OFFLINE_MS = 60 * 1000

/**
 * The service gives today's queue a page at a time: once fewer cards than this are left
 * unanswered, the next page is asked for, while the learner goes on with those.
 */
const MORE_WHEN_LEFT = 20

/** What an answer earns (docs/api.md); offline, the page counts it before the service does. */
const XP_PER_REVIEW = 10

interface Answer {
  card: StudyCard
  xpGained: number
}

/** One sitting: the cards still to see and the answers given, latest last (for undo). */
class StudySitting {
  phase: 'loading' | 'front' | 'back' | 'done' | 'failed' = 'loading'
  queue: StudyCard[] = []
  current: StudyCard | undefined
  answers: Answer[] = []
  totalXp: string | undefined
  preview: ReviewPreview | undefined
  /** true while a review or an undo is on its way, so a second key press sends nothing */
  sending = false
  /** true while today's cards are being fetched */
  loading = false
  /** while the service holds more of today's cards than it gave: the cursor that asks for those after them */
  nextCursor: string | undefined
  /** how many cards of each state the service holds after those it gave, for the counts */
  later: Record<CardState, number> = { new: 0, learning: 0, review: 0 }
  /** true while the cards after those given are being fetched */
  fetchingMore = false
  /** asks for the cards after those given, when they run low (the screen sets it) */
  needsMore: () => void = () => {}
  /** when the cards studied offline were fetched, while the sitting studies them without the service */
  offlineSince: number | undefined
  /**
   * Whether the service holds a review to take back (its log is the user's, whatever
   * device made it): from the total XP, 10 a review, as last heard; an undo refused
   * with nothing_to_undo settles it.
   */
  undoable = false
  /** the showing (card and side) whose sound was last started, so that a redraw of the same side does not start it again */
  soundStarted: { card: StudyCard, phase: 'front' | 'back' } | undefined
  /**
   * Draws the sitting on the screen showing it. An answer may arrive after the user
   * left and came back: it must update the screen on show, not the one left.
   */
  redraw: (moveFocus?: boolean) => void = () => {}

  /** true while the card on show is being edited: the study keys wait */
  editing = false

  constructor (readonly userID: string, readonly scope: StudyScope) {}

  get xpGained (): number {
    return this.answers.reduce((sum, answer) => sum + answer.xpGained, 0)
  }

  get cardsStudied (): number {
    return new Set(this.answers.map((answer) => answer.card.cardID)).size
  }

  /**
   * Keeps the cards still to study in this browser (IndexedDB), the one on show first: what
   * a visit without a network studies, answers given since included.
   */
  keep (): void {
    const left = [...(this.current === undefined ? [] : [this.current]), ...this.queue]
    keepTodayCards(this.userID, this.scope, left).catch(() => {
      // a browser that keeps nothing (storage blocked) studies online only
    })
  }

  /** The next card to show: the first one due, or else the one due soonest (learning ahead). */
  takeNext (): void {
    const now = Date.now()
    let index = this.queue.findIndex((card) => card.dueAt <= now)
    if (index === -1 && this.queue.length > 0) {
      index = this.queue.reduce((soonest, card, at) => card.dueAt < (this.queue[soonest]?.dueAt ?? Infinity) ? at : soonest, 0)
    }
    this.current = index === -1 ? undefined : this.queue.splice(index, 1)[0]
    this.preview = undefined
    // none held, but more follow: the learner waits for them
    this.phase = this.current !== undefined ? 'front' : this.nextCursor === undefined ? 'done' : 'loading'
    this.needsMore()
  }

  /** Whether the cards held and not yet answered run low while the service holds more. */
  get runsLow (): boolean {
    if (this.nextCursor === undefined) return false
    const answered = new Set(this.answers.map((answer) => answer.card.cardID))
    return this.queue.filter((card) => !answered.has(card.cardID)).length < MORE_WHEN_LEFT
  }

  /**
   * Goes on with the next page of today's cards, after those held. A card held already is
   * not taken twice (one answered "again" comes on a later page once due past the end of
   * the page before), and one answered in this sitting only within the learn-ahead window.
   */
  addPage (page: StudyQueuePage): void {
    const now = Date.now()
    const held = new Set([...this.queue, ...(this.current === undefined ? [] : [this.current])].map((card) => card.cardID))
    const answered = new Set(this.answers.map((answer) => answer.card.cardID))
    this.queue.push(...page.cards.filter((card) => !held.has(card.cardID) && (!answered.has(card.cardID) || card.dueAt - now <= LEARN_AHEAD_MS)))
    this.nextCursor = page.nextCursor
    this.later = page.later
    if (this.current === undefined) this.takeNext()
    else this.needsMore()
  }

  /**
   * Studies `page`, the first page of today's cards as the service has them now. A card
   * answered in this sitting comes back only within the learn-ahead window, as it would
   * after its answer; `shown`, the card on show before, stays in front if it is still there.
   */
  refill (page: StudyQueuePage, shown: StudyCard | undefined): void {
    const now = Date.now()
    const answered = new Set(this.answers.map((answer) => answer.card.cardID))
    this.nextCursor = page.nextCursor
    this.later = page.later
    this.queue = page.cards.filter((card) => !answered.has(card.cardID) || card.dueAt - now <= LEARN_AHEAD_MS)
    const at = shown === undefined ? -1 : this.queue.findIndex((card) => card.cardID === shown.cardID)
    const [again] = at === -1 ? [] : this.queue.splice(at, 1)
    if (again === undefined) {
      this.takeNext()
      return
    }
    // a retry key the service has not confirmed stays with its card, so that answer counts once
    this.current = { ...again, reviewID: shown?.reviewID }
    this.preview = undefined
    this.phase = 'front'
    this.needsMore()
  }
}

// The sitting under way, kept while the user visits other screens so that coming back
// resumes it (not to be confused with the login Session of session.ts).
let currentSitting: StudySitting | undefined

/** What the address asks to study: #/study (everything), #/study/folder/<folderID> or #/study/deck/<flashcardID>. */
function scopeOfAddress (): StudyScope {
  const [, kind, id] = location.hash.replace(/^#\/?/, '').split('/')
  if (id !== undefined && /^\d+$/.test(id)) {
    if (kind === 'folder') return { kind: 'folder', folderID: id }
    if (kind === 'deck') return { kind: 'deck', flashcardID: id }
  }
  return { kind: 'all' }
}

function addressOf (scope: StudyScope): string {
  return scope.kind === 'folder' ? `#/study/folder/${scope.folderID}` : scope.kind === 'deck' ? `#/study/deck/${scope.flashcardID}` : '#/study'
}

export const showStudy: Screen = (container, { session }) => {
  const scope = scopeOfAddress()
  if (currentSitting?.userID !== session.userID || currentSitting.phase === 'done' || !sameScope(currentSitting.scope, scope)) {
    currentSitting = new StudySitting(session.userID, scope)
  }
  const sitting = currentSitting
  const heading = el('h1', { tabindex: -1 }, ['Study'])
  // what to study: everything, a folder or a deck, each with what it holds for today
  const choice = el('select', { id: 'study-choice', 'aria-describedby': 'study-choice-hint' }, [el('option', { value: '#/study' }, ['Everything due today'])])
  choice.addEventListener('change', () => { location.hash = choice.value })
  const choiceRow = el('div', { class: 'study-choice' }, [field('What to study', choice),
    el('p', { class: 'hint', id: 'study-choice-hint' }, ['A folder includes everything below it.'])])
  /**
   * Reads what each choice holds for today, again after every answer, undo or card put
   * aside, as the header's counts change: one read at a time, and one more after it when
   * something changed meanwhile.
   */
  let choiceRead: 'idle' | 'reading' | 'reading, then again' = 'idle'
  const readChoice = (): void => {
    if (!choice.isConnected) return
    if (choiceRead !== 'idle') {
      choiceRead = 'reading, then again'
      return
    }
    choiceRead = 'reading'
    callApi('get-library', {}).then((library) => {
      if (!choice.isConnected) return
      fillChoice(choice, readLibrary(library.folders), { due: Number(library.due), new: Number(library.new) }, scope)
      const chosen = choice.selectedOptions[0]
      if (scope.kind !== 'all' && chosen !== undefined) heading.textContent = `Study: ${chosen.dataset.name ?? ''}`
    }, () => {
      // offline, or the library unreadable: the sitting goes on with what it studies
    }).finally(() => {
      const again = choiceRead === 'reading, then again'
      choiceRead = 'idle'
      if (again) readChoice()
    })
  }
  const status = el('p', { class: 'study-status', id: 'study-status' })
  // Anki's three counts of the cards left, and how far the sitting has come
  const counts = el('p', { class: 'study-counts', id: 'study-counts', hidden: true })
  const progress = el('progress', { class: 'session-progress', id: 'session-progress', max: 1, value: 0, 'aria-label': 'This session', hidden: true })
  const stage = el('div', { class: 'study-stage', id: 'study-stage' })
  // answers given offline that the service could not take as they were, for the learner to decide on
  const conflictArea = el('section', { class: 'panel sync-conflicts', id: 'sync-conflicts', 'aria-labelledby': 'sync-conflicts-heading', hidden: true })
  // what changes on the stage, said in words; it stays while the stage is redrawn below it
  const announcer = el('p', { class: 'visually-hidden', id: 'study-announcer', 'aria-live': 'polite' })
  // the keys are told while there is a card to study, not on the screens before or after it
  const shortcutHelp = el('p', { class: 'hint shortcut-help', id: 'shortcut-help', hidden: true }, [
    el('span', {}, [el('kbd', {}, ['Space']), ' show answer']), ' · ',
    el('span', {}, [el('kbd', {}, ['1']), '–', el('kbd', {}, ['4']), ' again, hard, good, easy']), ' · ',
    el('span', {}, [el('kbd', {}, ['U']), ' undo']), ' · ',
    el('span', {}, [el('kbd', {}, ['R']), ' replay sound'])
  ])
  container.append(el('div', { class: 'study-screen' }, [
    el('div', { class: 'study-header' }, [heading, counts]), choiceRow, progress, status, conflictArea, announcer, stage, shortcutHelp
  ]))
  readChoice()
  const stopWatching = watchSync((state) => {
    if (state.conflicts === 0) {
      conflictArea.hidden = true
      conflictArea.replaceChildren()
      return
    }
    conflicts(sitting.userID).then((kept) => { drawConflicts(conflictArea, kept) }, () => {})
  })

  sitting.redraw = (moveFocus = true) => { render(sitting, { status, counts, progress, stage, announcer, shortcutHelp }, actions, moveFocus) }

  /**
   * Asks for the next page of today's cards once those held run low, while the learner
   * goes on with them. One request at a time; the answer to one asked before the queue
   * was read again (start) is dropped. A failure leaves the cursor for the next answer to
   * try again; a learner who waits for it is told, or, offline, ends the sitting with the
   * cards held, as a sitting begun offline does.
   */
  sitting.needsMore = () => {
    const cursor = sitting.nextCursor
    if (!sitting.runsLow || sitting.fetchingMore || cursor === undefined) return
    sitting.fetchingMore = true
    loadStudyQueue(sitting.scope, cursor).then((page) => {
      sitting.fetchingMore = false
      if (sitting.nextCursor !== cursor) {
        sitting.needsMore()
        return
      }
      const waiting = sitting.current === undefined
      sitting.addPage(page)
      sitting.keep()
      // the counts hardly move (the cards held go up by about what countsAfter goes down by) and are drawn with the next card:
      // drawn now, the stage would lose what is on it (an edit under way), so only a waiting learner's screen is
      if (waiting) sitting.redraw()
    }, (error: unknown) => {
      sitting.fetchingMore = false
      if (sitting.nextCursor !== cursor) {
        sitting.needsMore()
        return
      }
      if (sitting.current !== undefined) return
      if (error instanceof ApiError && error.code === 'network_failure') {
        sitting.nextCursor = undefined
        sitting.later = { new: 0, learning: 0, review: 0 }
        sitting.takeNext()
        sitting.redraw()
        return
      }
      sitting.phase = 'failed'
      sitting.redraw(false)
      reportFailure(error, stage.querySelector<HTMLElement>('#try-again'))
    })
  }

  /**
   * Reads today's cards and studies them. Also when the user comes back to a sitting:
   * cards may have been edited, deleted or added and settings changed meanwhile, so the
   * queue is read again; the answers and XP so far stay. Never while an answer or an
   * undo is on its way: its card must not be replaced under it.
   */
  const start = () => {
    if (sitting.loading || sitting.sending) return
    sitting.loading = true
    const shown = sitting.current
    sitting.phase = 'loading'
    // the queue is read again from its head: a page on its way after the old cursor is dropped
    sitting.nextCursor = undefined
    sitting.redraw(false)
    // the total XP says whether there is a review to take back; without it, undo stays offered
    const undoable = callApi('get-stats', {}).then((stats) => Number(stats.total_xp) > 0, () => true)
    Promise.all([loadStudyQueue(sitting.scope), undoable]).then(([page, canUndo]) => {
      clearError()
      sitting.offlineSince = undefined
      sitting.undoable = canUndo || sitting.answers.length > 0
      sitting.refill(page, shown)
      sitting.keep()
      sitting.redraw()
    }, async (error: unknown) => {
      // no network: today's cards as this browser kept them, answers given since included
      const kept = error instanceof ApiError && error.code === 'network_failure'
        ? keptFor(sitting.scope, await keptTodayCards(sitting.userID).catch(() => undefined))
        : undefined
      if (kept !== undefined) {
        sitting.offlineSince = kept.fetchedAt
        sitting.undoable = (await waitingAnswers(sitting.userID).catch(() => [])).length > 0
        sitting.refill({ cards: kept.cards, later: { new: 0, learning: 0, review: 0 } }, shown)
        sitting.redraw()
        return
      }
      sitting.phase = 'failed'
      sitting.redraw(false)
      reportFailure(error, stage.querySelector<HTMLElement>('#try-again'))
    }).finally(() => { sitting.loading = false })
  }

  const showAnswer = () => {
    const card = sitting.current
    if (sitting.phase !== 'front' || card === undefined) return
    sitting.phase = 'back'
    sitting.redraw()
    // the intervals are asked for when the back is shown, as the card stands now; offline, the answers go without them
    if (!serviceReachable() || card.waitingOffline === true) {
      fillIntervals(null)
      return
    }
    callApi('preview-review', { flashcardID: card.flashcardID, cardID: card.cardID }).then((preview) => {
      // no clearError here: the intervals may come after an answer already failed, whose error stays
      if (sitting.current !== card || sitting.phase !== 'back') return
      sitting.preview = preview
      fillIntervals(preview)
    }, (error: unknown) => {
      if (sitting.current !== card) return
      if (error instanceof ApiError && error.code === 'network_failure') fillIntervals(null)
      else reportFailure(error, stage.querySelector<HTMLElement>('.rating-buttons'))
    })
  }

  /**
   * Keeps an answer that cannot reach the service now, with its reviewID, to be sent in
   * order when the network is back (offline-sync.ts), and goes on with the next card.
   * `attempted`: a request with it has left, and may have reached the service.
   */
  const answerOffline = async (card: StudyCard, rating: Rating, reviewID: string, attempted: boolean): Promise<void> => {
    await addWaitingAnswer({
      userID: sitting.userID,
      reviewID,
      flashcardID: card.flashcardID,
      cardID: card.cardID,
      rating,
      answeredAt: Date.now(),
      expectedDue: card.waitingOffline === true ? null : card.dueAt,
      front: sideText(card.frontHtml),
      attempted
    })
    sitting.answers.push({ card, xpGained: XP_PER_REVIEW })
    sitting.undoable = true
    if (rating === 'again') sitting.queue.push({ ...showAgain(card, Date.now() + AGAIN_OFFLINE_MS, 'learning'), waitingOffline: true })
    sitting.takeNext()
    sitting.keep()
    // with a network, the service may be back: sending is how the page finds out; without
    // one, the sending returns at once and sets the next try
    void sendWaitingAnswers()
  }

  const answer = (rating: Rating) => {
    const card = sitting.current
    if (sitting.phase !== 'back' || card === undefined || sitting.sending) return
    sitting.sending = true
    setAnswering(true)
    card.reviewID ??= newReviewID()
    const reviewID = card.reviewID
    const finish = () => {
      sitting.sending = false
      if (sitting.current === card && sitting.phase === 'back') setAnswering(false)
      else sitting.redraw()
    }
    if (!serviceReachable()) {
      answerOffline(card, rating, reviewID, false).catch((error: unknown) => {
        reportFailure(error, document.querySelector<HTMLElement>('#study-stage .rating-buttons'))
      }).finally(finish)
      return
    }
    callApi('review-card', { flashcardID: card.flashcardID, cardID: card.cardID, rating, reviewID })
      .then((review) => {
        clearError()
        sitting.answers.push({ card, xpGained: Number(review.xp_gained) })
        sitting.totalXp = review.total_xp
        sitting.undoable = true
        // the siblings this answer buried are out of today's cards: not shown next, as Anki keeps them apart
        const buried = new Set(review.buriedSiblings ?? [])
        if (buried.size > 0) sitting.queue = sitting.queue.filter((queued) => !buried.has(queued.cardID))
        const dueAt = Date.parse(review.due)
        if (dueAt - Date.now() <= LEARN_AHEAD_MS) {
          sitting.queue.push(showAgain(card, dueAt, stateOf(review.review_status)))
        }
        sitting.takeNext()
        sitting.keep()
        readChoice()
      }, async (error: unknown) => {
        // the network went while the answer was on its way: it is kept and sent later, with the same reviewID
        if (error instanceof ApiError && error.code === 'network_failure') {
          await answerOffline(card, rating, reviewID, true)
          return
        }
        // a card deleted meanwhile, or its deck, cannot be answered: go on with the others
        if (error instanceof ApiError && (error.code === 'card_not_found' || error.code === 'flashcard_not_found')) {
          showNotice('That card was deleted meanwhile, so its answer was not kept. Here is the next one.')
          sitting.takeNext()
          return
        }
        // said beside the answer buttons, which stay for the answer to be given again
        reportFailure(error, document.querySelector<HTMLElement>('#study-stage .rating-buttons'))
      })
      .catch((error: unknown) => { reportFailure(error, document.querySelector<HTMLElement>('#study-stage .rating-buttons')) })
      .finally(finish)
  }

  /**
   * Takes back the latest answer still waiting to be sent, if any: it never reaches the
   * service. True when there was one.
   */
  const undoWaiting = async (): Promise<boolean> => {
    await sendingDone()
    const waiting = await waitingAnswers(sitting.userID).catch(() => [])
    const last = waiting.at(-1)
    if (last?.seq === undefined) return false
    await removeWaitingAnswer(last.seq)
    const at = sitting.answers.map((given) => given.card.cardID).lastIndexOf(last.cardID)
    const [taken] = at === -1 ? [] : sitting.answers.splice(at, 1)
    sitting.undoable = waiting.length > 1 || sitting.offlineSince === undefined
    void announceSync()
    if (taken === undefined) {
      showNotice(`Undone: your answer to "${shorten(last.front)}", given offline, will not be sent.`)
      return true
    }
    const current = sitting.current
    sitting.queue = sitting.queue.filter((queued) => queued.cardID !== last.cardID)
    if (current !== undefined && current.cardID !== last.cardID) sitting.queue.unshift(current)
    sitting.current = { ...taken.card, reviewID: undefined }
    sitting.preview = undefined
    sitting.phase = 'front'
    sitting.keep()
    showNotice(`Undone: the card "${shorten(sideText(taken.card.frontHtml))}" is back.`)
    return true
  }

  const undo = () => {
    if (sitting.sending || sitting.phase === 'loading' || sitting.phase === 'failed') return
    if (!sitting.undoable) {
      showNotice('There is no answer left to undo.')
      return
    }
    sitting.sending = true
    setAnswering(true)
    // the service takes back the user's latest review, whether this sitting made it or not
    // (a reload, another device); the card comes back from the flashcard undo-review names.
    // An answer still waiting to be sent is later than any the service has: it goes first.
    undoWaiting().then(async (undoneHere) => {
      if (undoneHere) return
      if (!serviceReachable()) {
        showNotice('Offline, only answers not yet sent can be undone. Undo again once you are online.')
        return
      }
      const undone = await callApi('undo-review', {})
      clearError()
      sitting.totalXp = undone.total_xp
      sitting.undoable = Number(undone.total_xp) > 0
      const at = sitting.answers.map((answer) => answer.card.cardID).lastIndexOf(undone.cardID)
      const [taken] = at === -1 ? [] : sitting.answers.splice(at, 1)
      const card = taken?.card ?? await loadStudyCard(undone.flashcardID, undone.cardID)
      if (card === undefined) {
        showNotice('Undid the latest review. Its card has been deleted since, so it cannot be shown again.')
        return
      }
      // the card is shown again now, in front of the others, and only once
      const current = sitting.current
      sitting.queue = sitting.queue.filter((queued) => queued.cardID !== undone.cardID)
      if (current !== undefined && current.cardID !== undone.cardID) sitting.queue.unshift(current)
      sitting.current = showAgain(card, Date.parse(undone.due), stateOf(undone.review_status))
      sitting.preview = undefined
      sitting.phase = 'front'
      sitting.keep()
      readChoice()
      showNotice(`Undone: the card "${shorten(sideText(card.frontHtml))}" is back.`)
    }).catch((error: unknown) => error).then((failure) => {
      sitting.sending = false
      const nothingLeft = failure instanceof ApiError && failure.code === 'nothing_to_undo'
      if (nothingLeft) sitting.undoable = false
      sitting.redraw()
      if (nothingLeft) {
        showNotice('There is no answer left to undo.')
      } else if (failure !== undefined) {
        // said beside the undo button, drawn again above
        reportFailure(failure, document.getElementById('undo-button'))
      }
    })
  }

  /** A change to the card on show; what it answers, or undefined when it failed (said beside the card's tools). */
  const changeCard = async <T>(change: (card: StudyCard) => Promise<T>): Promise<{ card: StudyCard, result: T } | undefined> => {
    const card = sitting.current
    if (card === undefined || sitting.sending || (sitting.phase !== 'front' && sitting.phase !== 'back')) return undefined
    sitting.sending = true
    setAnswering(true)
    try {
      return { card, result: await change(card) }
    } catch (error) {
      sitting.redraw(false)
      reportFailure(error, stage.querySelector<HTMLElement>('.card-tools'))
      return undefined
    } finally {
      sitting.sending = false
      setAnswering(false)
    }
  }

  /** The card on show is put aside (buried, suspended, deleted): the next one comes. */
  const putAside = (card: StudyCard) => {
    sitting.queue = sitting.queue.filter((queued) => queued.cardID !== card.cardID)
    if (sitting.current?.cardID === card.cardID) sitting.takeNext()
    sitting.keep()
    sitting.redraw()
    readChoice()
  }

  /** A card put aside comes back in front, as it was. */
  const bringBack = (card: StudyCard) => {
    const current = sitting.current
    if (current !== undefined && current.cardID !== card.cardID) sitting.queue.unshift(current)
    sitting.current = { ...card, reviewID: undefined }
    sitting.preview = undefined
    sitting.phase = 'front'
    sitting.keep()
    sitting.redraw()
    readChoice()
  }

  const setAside = (operation: 'bury-card' | 'suspend-card', back: 'unbury-card' | 'unsuspend-card', told: string) => {
    void changeCard(async (card) => await callApi(operation, { flashcardID: card.flashcardID, cardID: card.cardID })).then((done) => {
      if (done === undefined) return
      putAside(done.card)
      showNotice(told, {
        label: 'Undo',
        run: () => {
          callApi(back, { flashcardID: done.card.flashcardID, cardID: done.card.cardID }).then(() => {
            bringBack(done.card)
            showNotice(`Undone: the card "${shorten(sideText(done.card.frontHtml))}" is back.`)
          }, (error: unknown) => { reportFailure(error, stage.querySelector<HTMLElement>('.card-tools') ?? stage) })
        }
      })
    })
  }

  const tools: CardToolActions = {
    edit: () => {
      if (sitting.current === undefined || sitting.sending || (sitting.phase !== 'front' && sitting.phase !== 'back')) return
      sitting.editing = true
      sitting.redraw()
    },
    bury: () => { setAside('bury-card', 'unbury-card', 'Card buried until tomorrow.') },
    suspend: () => { setAside('suspend-card', 'unsuspend-card', 'Card suspended: it will not come up until you unsuspend it.') },
    flag: (flag) => {
      void changeCard(async (card) => await callApi('flag-card', { flashcardID: card.flashcardID, cardID: card.cardID, flag })).then((done) => {
        if (done === undefined) return
        done.card.flag = Number(done.result.flag)
        sitting.keep()
        sitting.redraw(false)
        showNotice(done.card.flag === 0 ? 'Flag taken off.' : `Flagged ${FLAGS[done.card.flag]?.toLowerCase() ?? ''}.`)
      })
    },
    remove: () => {
      void changeCard(async (card) => await callApi('delete-card', { flashcardID: card.flashcardID, cardID: card.cardID })).then((done) => {
        if (done === undefined) return
        putAside(done.card)
        showNotice('Card deleted. Its reviews still count.')
      })
    }
  }

  /** Saves the card on show as edited; it shows at once as the service now renders it. */
  const saveEdit = async (card: StudyCard, edited: CardSource): Promise<EditedCard> => {
    const ids = { flashcardID: card.flashcardID, cardID: card.cardID }
    return await callApi('edit-card', edited.kind === 'cloze'
      ? { ...ids, cloze: edited.front, back: edited.back, format: edited.format }
      : { ...ids, front: edited.front, back: edited.back, format: edited.format })
  }

  const editDone = async (card: StudyCard, changed: EditedCard | null) => {
    sitting.editing = false
    if (changed !== null) {
      if ('cardID' in changed) {
        Object.assign(card, { front: changed.front, back: changed.back, format: changed.format, frontHtml: changed.frontHtml, backHtml: changed.backHtml })
      } else {
        // a cloze note's edit: the card is read again, and is gone when its number was taken out
        const now = await loadStudyCard(card.flashcardID, card.cardID).catch(() => undefined)
        if (now === undefined) {
          putAside(card)
          showNotice('Cloze note saved; this card\'s deletion was taken out of it, so the card is gone.')
          return
        }
        Object.assign(card, { front: now.front, back: now.back, format: now.format, frontHtml: now.frontHtml, backHtml: now.backHtml })
      }
      sitting.keep()
      showNotice('Card saved; it keeps its schedule.')
    }
    sitting.redraw()
  }

  /** A note saved from the card on show: the card is read again, as every card of the note changed. */
  const noteSaved = async (card: StudyCard) => {
    sitting.editing = false
    const now = await loadStudyCard(card.flashcardID, card.cardID).catch(() => undefined)
    if (now !== undefined) {
      Object.assign(card, { front: now.front, back: now.back, format: now.format, frontHtml: now.frontHtml, backHtml: now.backHtml })
      sitting.keep()
    }
    sitting.redraw()
  }

  const actions = { showAnswer, answer, undo, start, tools, edit: { save: saveEdit, done: editDone, noteSaved } }

  const onKey = (event: KeyboardEvent) => {
    if (event.repeat || event.ctrlKey || event.metaKey || event.altKey || isTyping(event.target) || sitting.editing) return
    // Anki's keys for the card on show: E edits it, - buries it, @ suspends it
    const tool = { e: tools.edit, E: tools.edit, '-': tools.bury, '@': tools.suspend }[event.key]
    if (tool !== undefined && (sitting.phase === 'front' || sitting.phase === 'back')) {
      event.preventDefault()
      beginAction(null)
      tool()
      return
    }
    // on a focused button, Space and Enter press that button
    const onControl = event.target instanceof HTMLButtonElement || event.target instanceof HTMLAnchorElement
    // a study key is an action as a press is: what was said about the last one goes
    if (/^[ 1-4uU]$/.test(event.key) && !(event.key === ' ' && onControl)) beginAction(null)
    if (event.key === ' ' && !onControl) {
      event.preventDefault()
      showAnswer()
      return
    }
    const rating = /^[1-4]$/.test(event.key) ? RATINGS[Number(event.key) - 1] : undefined
    if (rating !== undefined) {
      event.preventDefault()
      answer(rating)
    } else if (event.key === 'u' || event.key === 'U') {
      event.preventDefault()
      undo()
    } else if (event.key === 'r' || event.key === 'R') {
      event.preventDefault()
      replaySound(stage, sitting.phase)
    }
  }
  document.addEventListener('keydown', onKey)

  // back on this screen: the sitting goes on with today's cards as they are now
  if (sitting.loading || sitting.sending) sitting.redraw(false)
  else start()

  return () => {
    sitting.redraw = () => {}
    stopWatching()
    document.removeEventListener('keydown', onKey)
  }
}

interface Actions {
  tools: CardToolActions
  edit: { save: (card: StudyCard, edited: CardSource) => Promise<EditedCard>, done: (card: StudyCard, changed: EditedCard | null) => Promise<void>, noteSaved: (card: StudyCard) => Promise<void> }
  showAnswer: () => void
  answer: (rating: Rating) => void
  undo: () => void
  start: () => void
}

interface StudyElements {
  status: HTMLElement
  counts: HTMLElement
  progress: HTMLProgressElement
  stage: HTMLElement
  announcer: HTMLElement
  shortcutHelp: HTMLElement
}

function render (sitting: StudySitting, { status, counts, progress, stage, announcer, shortcutHelp }: StudyElements, actions: Actions, moveFocus: boolean): void {
  announce(announcer, sitting)
  const studying = sitting.phase === 'front' || sitting.phase === 'back'
  shortcutHelp.hidden = !studying
  drawCounts(counts, progress, sitting, studying)
  const left = sitting.queue.length + (sitting.current === undefined ? 0 : 1) + STATES.reduce((sum, state) => sum + sitting.later[state], 0)
  status.textContent = sitting.phase === 'front' || sitting.phase === 'back'
    ? `${plural(left, 'card')} left · ${plural(sitting.answers.length, 'answer')} · ${sitting.xpGained} XP this session`
    : ''

  // offered even before this sitting's first answer: after a reload, the last answer is still the service's to take back
  const undoButton = button('Undo last answer', actions.undo, { class: 'quiet-button', id: 'undo-button', 'aria-keyshortcuts': 'U', disabled: sitting.sending || !sitting.undoable })

  switch (sitting.phase) {
    case 'loading':
      replaceChildren(stage, [el('p', { class: 'loading' }, ["Loading today's cards…"])])
      return
    case 'failed':
      replaceChildren(stage, [
        el('p', {}, ["Today's cards could not be loaded."]),
        button('Try again', actions.start, { class: 'primary', id: 'try-again' })
      ])
      // the button pressed is gone: the focus goes on to the one that can set it right
      focusIfLost(stage.querySelector<HTMLElement>('#try-again'))
      return
    case 'done': {
      replaceChildren(stage, [endOfSession(sitting, actions), el('div', { class: 'undo-row' }, [undoButton])])
      if (moveFocus) stage.querySelector<HTMLElement>('h2')?.focus()
      return
    }
    case 'front':
    case 'back': {
      const card = sitting.current
      if (card === undefined) return
      if (sitting.editing && card.noteID !== undefined) {
        // a card of a note: its fields are edited, and every card of it changes
        const holder = el('section', { class: 'panel study-editor', id: 'study-editor', 'aria-labelledby': 'study-editor-heading' }, [
          el('h2', { id: 'study-editor-heading', tabindex: -1 }, ['Edit this note']),
          el('p', { class: 'loading' }, ['Loading the note…'])
        ])
        replaceChildren(stage, [holder])
        noteEditor(card.noteID, {
          attributes: { class: 'stacked-form study-edit-form', id: 'study-edit-form' },
          saved: async () => { await actions.edit.noteSaved(card) },
          cancel: () => { actions.edit.done(card, null).catch((error: unknown) => { reportFailure(error) }) }
        }).then((form) => {
          holder.lastElementChild?.replaceWith(form)
          form.querySelector<HTMLElement>('textarea')?.focus()
        }, (error: unknown) => {
          // a card imported before notes were kept has no note: it is edited as a card
          if (error instanceof ApiError && error.code === 'note_not_found') {
            delete card.noteID
            sitting.redraw()
            return
          }
          reportFailure(error)
          actions.edit.done(card, null).catch(() => {})
        })
        return
      }
      if (sitting.editing) {
        replaceChildren(stage, [studyCardEditor(card, async (edited) => await actions.edit.save(card, edited), (changed) => {
          actions.edit.done(card, changed).catch((error: unknown) => { reportFailure(error) })
        })])
        return
      }
      const region = cardView(card, sitting.phase === 'back')
      const controls = sitting.phase === 'front'
        ? el('div', { class: 'study-actions' }, [
          el('button', { type: 'button', class: 'primary show-answer', id: 'show-answer', 'aria-keyshortcuts': 'Space' },
            ['Show answer ', el('kbd', {}, ['Space'])], { click: actions.showAnswer })
        ])
        : el('div', { class: 'study-actions rating-buttons', role: 'group', 'aria-label': 'How well did you know it?' },
          RATINGS.map((rating, index) => el('button', {
            type: 'button',
            class: `rating rating-${rating}`,
            'data-rating': rating,
            'aria-keyshortcuts': String(index + 1),
            disabled: sitting.sending
          }, [
            el('span', { class: 'rating-name' }, [RATING_NAMES[rating]]),
            el('span', { class: 'interval', 'data-rating': rating }, [sitting.preview?.[rating].interval ?? '…']),
            el('kbd', {}, [String(index + 1)])
          ], { click: () => { actions.answer(rating) } })))
      replaceChildren(stage, [region, controls, el('div', { class: 'undo-row' }, [undoButton]), cardTools(card, actions.tools, sitting.sending)])
      if (moveFocus && sitting.phase === 'back') {
        region.focus({ preventScroll: true })
        showAnswerSide(region)
      } else if (moveFocus) {
        region.focus()
      }
      // a side's own sound starts when the side is shown, once a showing (the front's is not heard again on turning the card)
      const started = sitting.soundStarted
      if (started?.card !== card || started.phase !== sitting.phase) {
        sitting.soundStarted = { card, phase: sitting.phase }
        playSound(sideSound(stage, sitting.phase))
      }
    }
  }
}

function cardView (card: StudyCard, showBack: boolean): HTMLElement {
  const { noteTypeID } = card
  if (noteTypeID !== undefined) styleNoteType(noteTypeID)
  // a card of an imported note type: its content in <div class="card">, as Anki's, for the note type's CSS to style
  const shown = (html: string) => html === '' ? '(no back)' : noteTypeID === undefined ? cardSide(html) : el('div', { class: 'card' }, [cardSide(html, { classes: true })])
  const side = (id: string, classes: string, label: string, html: string) => el('div', { class: `card-face ${classes}`, id }, [
    el('h2', { class: 'face-label' }, [label]),
    el('div', {
      class: `card-text card-html format-${card.format}${noteTypeID === undefined ? '' : ' card-styled'}`,
      ...(noteTypeID === undefined ? {} : { 'data-note-type': noteTypeID })
    }, [shown(html)])
  ])
  const source = el('p', { class: 'card-source' }, [
    deckPlace(card.folder, card.flashcardName),
    card.flag > 0 && el('span', { class: `card-flag flag-${card.flag}`, id: 'card-flag-mark' }, [`${FLAGS[card.flag] ?? ''} flag`])
  ])
  if (card.cloze) {
    return el('section', { class: 'study-card', id: 'study-card', tabindex: -1, 'aria-label': 'Cloze card' }, [
      source,
      showBack ? side('card-back', 'card-answer', 'Answer', card.backHtml) : side('card-front', 'card-front', 'Question', card.frontHtml)
    ])
  }
  return el('section', { class: 'study-card', id: 'study-card', tabindex: -1, 'aria-label': 'Card' }, [
    source,
    side('card-front', 'card-front', 'Front', card.frontHtml),
    showBack && side('card-back', 'card-back', 'Back', card.backHtml)
  ])
}

/**
 * Brings the answer into view above the answer's buttons, which stay at the bottom of the
 * screen; again as its pictures arrive and make it taller, as long as it is on show.
 */
function showAnswerSide (region: HTMLElement): void {
  const answer = region.querySelector<HTMLElement>('#card-back')
  if (answer === null) return
  const bringIntoView = () => { if (answer.isConnected) answer.scrollIntoView({ block: 'nearest' }) }
  bringIntoView()
  for (const image of answer.querySelectorAll('img')) {
    if (!image.complete) image.addEventListener('load', bringIntoView, { once: true })
  }
}

/** The first sound of a side: of the front, or of the back once turned (a cloze card's answer). */
function sideSound (stage: HTMLElement, phase: StudySitting['phase']): HTMLAudioElement | null {
  return stage.querySelector<HTMLAudioElement>(phase === 'back' ? '#card-back audio' : '#card-front audio')
}

/** Starts a sound from its beginning. A browser may refuse a sound no key or click started: its play control is still there, and R. */
function playSound (audio: HTMLAudioElement | null): void {
  if (audio === null) return
  audio.currentTime = 0
  audio.play().catch(() => {})
}

/** R, as in Anki: the side's sound again, from its beginning; on a back without a sound, the front's. */
function replaySound (stage: HTMLElement, phase: StudySitting['phase']): void {
  if (phase === 'front' || phase === 'back') playSound(sideSound(stage, phase) ?? sideSound(stage, 'front'))
}

/** The interval each answer would give; null offline, where the service cannot be asked. */
function fillIntervals (preview: ReviewPreview | null): void {
  for (const rating of RATINGS) {
    const interval = document.querySelector(`#study-stage .interval[data-rating="${rating}"]`)
    if (interval !== null) interval.textContent = preview === null ? 'offline' : preview[rating].interval
  }
}

const REASONS: Record<Conflict['reason'], string> = {
  changed: 'the card was reviewed or changed elsewhere meanwhile',
  gone: 'the card has been deleted meanwhile',
  refused: 'the service refused it'
}

/** The answers given offline that the service did not take as they were, each with what can be done about it. */
function drawConflicts (area: HTMLElement, kept: Conflict[]): void {
  area.hidden = kept.length === 0
  const time = new Intl.DateTimeFormat(undefined, { dateStyle: 'short', timeStyle: 'short' })
  const settle = (conflict: Conflict, resend: boolean) => {
    settleConflict(conflict, resend).then(async () => {
      showNotice(resend ? 'Your answer is sent, as given.' : 'Your answer is dropped; the card stays as it is.')
      if (resend) await sendWaitingAnswers()
      else await announceSync()
    }).catch((error: unknown) => { reportFailure(error) })
  }
  replaceChildren(area, [
    el('h2', { id: 'sync-conflicts-heading' }, ['Answers given offline to check']),
    el('ul', { class: 'conflict-list' }, kept.map((conflict) => {
      const first = conflict.answers[0]
      const given = conflict.answers.map((answer) => RATING_NAMES[answer.rating]).join(', then ')
      const when = first === undefined ? '' : ` on ${time.format(first.answeredAt)}`
      return el('li', { class: `conflict conflict-${conflict.reason}` }, [
        el('p', {}, [
          el('strong', {}, [`"${shorten(first?.front ?? '')}"`]),
          `: your answer ${given}${when} was not recorded: ${REASONS[conflict.reason]}${conflict.message === undefined ? '' : ` (${conflict.message})`}.`
        ]),
        el('div', { class: 'button-row' }, conflict.reason === 'changed'
          ? [
              button('Send my answer anyway', () => { settle(conflict, true) }, { class: 'primary' }),
              button('Drop my answer', () => { settle(conflict, false) })
            ]
          : [button('Dismiss', () => { settle(conflict, false) })])
      ])
    }))
  ])
}

/** While an answer or an undo is on its way, its buttons cannot be pressed again. */
function setAnswering (sending: boolean): void {
  for (const control of document.querySelectorAll<HTMLButtonElement>('#study-stage .rating, #check-more')) control.disabled = sending
  const undoButton = document.querySelector<HTMLButtonElement>('#undo-button')
  if (undoButton !== null) undoButton.disabled = sending || currentSitting?.undoable !== true
  document.getElementById('study-stage')?.setAttribute('aria-busy', String(sending))
}

const STATES: CardState[] = ['new', 'learning', 'review']

/**
 * The cards left by state, the one on show included and marked, as Anki's header shows
 * them, those the service holds after the ones given too; a card answered "again" comes
 * back as learning. The bar: answers given against answers given and cards left.
 */
function drawCounts (counts: HTMLElement, progress: HTMLProgressElement, sitting: StudySitting, studying: boolean): void {
  counts.hidden = !studying
  progress.hidden = !studying && sitting.answers.length === 0
  const left = [...sitting.queue, ...(sitting.current === undefined ? [] : [sitting.current])]
  const leftCount = left.length + STATES.reduce((sum, state) => sum + sitting.later[state], 0)
  const total = sitting.answers.length + leftCount
  progress.max = Math.max(1, total)
  progress.value = sitting.phase === 'done' ? progress.max : sitting.answers.length
  progress.setAttribute('aria-valuetext', `${plural(sitting.answers.length, 'answer')} given, ${plural(leftCount, 'card')} left`)
  replaceChildren(counts, STATES.map((state) => {
    const count = left.filter((card) => card.state === state).length + sitting.later[state]
    const onShow = studying && sitting.current?.state === state
    return el('span', { class: `count count-${state}`, id: `count-${state}`, 'data-count': count, 'aria-current': onShow ? 'true' : null }, [
      el('span', { class: 'count-number' }, [String(count)]), ` ${state}`
    ])
  }))
}

/** Says what the stage now shows: a card's front or back, or the end of the sitting. */
function announce (announcer: HTMLElement, sitting: StudySitting): void {
  const card = sitting.current
  let words = ''
  if (sitting.phase === 'done') words = sitting.answers.length === 0 ? 'Nothing to study right now.' : 'Session complete.'
  else if (sitting.phase === 'front' && card !== undefined) words = `${card.cloze ? 'Question' : 'Front'}: ${sideText(card.frontHtml)}`
  else if (sitting.phase === 'back' && card !== undefined) {
    const back = sideText(card.backHtml)
    words = `${card.cloze ? 'Answer' : 'Back'}: ${back === '' ? '(no back)' : back}`
  }
  // the same words again would be read again
  if (announcer.textContent !== words) announcer.textContent = words
}

function endOfSession (sitting: StudySitting, actions: Actions): HTMLElement {
  const nothingStudied = sitting.answers.length === 0
  return el('section', { class: 'panel session-end', id: 'session-end', 'aria-labelledby': 'session-end-heading' }, [
    el('h2', { id: 'session-end-heading', tabindex: -1 }, [nothingStudied ? 'Nothing to study right now' : 'Session complete']),
    nothingStudied
      ? el('p', {}, ['No cards are due. Add cards in the library, or come back later.'])
      : el('dl', { class: 'figures' }, [
        figure('Cards studied', String(sitting.cardsStudied), 'cards-studied'),
        figure('Answers given', String(sitting.answers.length), 'answers-given'),
        figure('XP gained this session', String(sitting.xpGained), 'session-xp'),
        figure('Total XP', sitting.totalXp ?? '–', 'total-xp')
      ]),
    el('div', { class: 'button-row' }, [
      button('Check for more cards', actions.start, { class: 'primary', id: 'check-more', disabled: sitting.sending }),
      el('a', { href: '#/progress', class: 'button-link' }, ['See your progress']),
      el('a', { href: '#/library', class: 'button-link' }, ['Go to the library'])
    ])
  ])
}

/**
 * The choices of what to study: everything, then every folder and deck in the library's
 * order, each with its due and new cards today; the one studied now chosen.
 */
function fillChoice (choice: HTMLSelectElement, folders: FolderEntry[], all: { due: number, new: number }, scope: StudyScope): void {
  const today = (counts: { due: number, new: number }) => ` (${counts.due} due, ${counts.new} new)`
  const options: HTMLOptionElement[] = [el('option', { value: '#/study', 'data-name': 'everything' }, [`Everything${today(all)}`])]
  const add = (folder: FolderEntry, depth: number) => {
    const indent = '\u00a0\u00a0'.repeat(depth)
    options.push(el('option', { value: addressOf({ kind: 'folder', folderID: folder.folderID }), 'data-name': folder.name }, [`${indent}${folder.name}${today(folder)}`]))
    for (const inner of folder.folders) add(inner, depth + 1)
    for (const deck of folder.flashcards) {
      options.push(el('option', { value: addressOf({ kind: 'deck', flashcardID: deck.flashcardID }), 'data-name': deck.flashcardName }, [`${indent}\u00a0\u00a0${deck.flashcardName} (deck)${today(deck)}`]))
    }
  }
  for (const folder of folders) add(folder, 0)
  const shown = [...choice.options]
  if (shown.length === options.length && shown.every((option, index) => option.value === options[index]?.value)) {
    // the same choices with new counts: the list, perhaps open, stays as it is
    shown.forEach((option, index) => { option.textContent = options[index]?.textContent ?? '' })
    return
  }
  replaceChildren(choice, options)
  choice.value = addressOf(scope)
}

/**
 * The cards kept for offline that `scope` can study: all of them when kept for it (or
 * when everything is asked for), a deck's own out of a wider scope; none otherwise.
 */
function keptFor (scope: StudyScope, kept: KeptCards | undefined): KeptCards | undefined {
  if (kept === undefined || sameScope(scope, kept.scope) || scope.kind === 'all') return kept
  if (scope.kind === 'deck' && kept.scope.kind !== 'deck') return { ...kept, cards: kept.cards.filter((card) => card.flashcardID === scope.flashcardID) }
  return undefined
}

/** The card for another showing: a new answer to it gets a new retry key. */
function showAgain (card: StudyCard, dueAt: number, state: CardState): StudyCard {
  return { ...card, dueAt, state, reviewID: undefined }
}

function shorten (text: string): string {
  return text.length > 40 ? `${text.slice(0, 39)}…` : text
}
