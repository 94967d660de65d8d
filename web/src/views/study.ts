// Studying today's cards: one card at a time, its front, then its back with the
// four answers and the interval each would give; undo puts the last card back.
//
// Keys (never while typing in a field): Space shows the answer, 1-4 answer
// again / hard / good / easy, U undoes the last answer, R plays the side's sound again.
//
// A side is the HTML the service rendered (frontHtml, backHtml), put on the page through
// the allowlist again (card-html.ts). A cloze card's back is its whole text with the
// answer marked, shown in place of its front, as Anki shows it.
import { ApiError, callApi } from '../api.js'
import { RATINGS, type Rating, type ReviewPreview } from '../api-types.js'
import { cardSide, sideText } from '../card-html.js'
import { button, el, figure, focusIfLost, isTyping, plural, replaceChildren } from '../dom.js'
import { pathText } from '../library-tree.js'
import { clearError, reportFailure, showNotice } from '../messages.js'
import { loadStudyCard, loadTodayCards, newReviewID, type StudyCard } from '../today-cards.js'
import type { Screen } from './screen.js'

const RATING_NAMES: Record<Rating, string> = { again: 'Again', hard: 'Hard', good: 'Good', easy: 'Easy' }

/**
 * A card answered "again" or still in its learning steps is due again within minutes;
 * like Anki's "learn ahead" limit, such a card comes back in this session.
 */
const LEARN_AHEAD_MS = 20 * 60 * 1000

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
  /** the showing (card and side) whose sound was last started, so that a redraw of the same side does not start it again */
  soundStarted: { card: StudyCard, phase: 'front' | 'back' } | undefined
  /**
   * Draws the sitting on the screen showing it. An answer may arrive after the user
   * left and came back: it must update the screen on show, not the one left.
   */
  redraw: (moveFocus?: boolean) => void = () => {}

  constructor (readonly userID: string) {}

  get xpGained (): number {
    return this.answers.reduce((sum, answer) => sum + answer.xpGained, 0)
  }

  get cardsStudied (): number {
    return new Set(this.answers.map((answer) => answer.card.cardID)).size
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
    this.phase = this.current === undefined ? 'done' : 'front'
  }

  /**
   * Studies `cards`, today's cards as the service has them now. A card answered in this
   * sitting comes back only within the learn-ahead window, as it would after its answer;
   * `shown`, the card on show before, stays in front if it is still there.
   */
  refill (cards: StudyCard[], shown: StudyCard | undefined): void {
    const now = Date.now()
    const answered = new Set(this.answers.map((answer) => answer.card.cardID))
    this.queue = cards.filter((card) => !answered.has(card.cardID) || card.dueAt - now <= LEARN_AHEAD_MS)
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
  }
}

// The sitting under way, kept while the user visits other screens so that coming back
// resumes it (not to be confused with the login Session of session.ts).
let currentSitting: StudySitting | undefined

export const showStudy: Screen = (container, { session }) => {
  if (currentSitting?.userID !== session.userID || currentSitting.phase === 'done') {
    currentSitting = new StudySitting(session.userID)
  }
  const sitting = currentSitting
  const heading = el('h1', { tabindex: -1 }, ['Study'])
  const status = el('p', { class: 'study-status', id: 'study-status' })
  const stage = el('div', { class: 'study-stage', id: 'study-stage' })
  // what changes on the stage, said in words; it stays while the stage is redrawn below it
  const announcer = el('p', { class: 'visually-hidden', id: 'study-announcer', 'aria-live': 'polite' })
  container.append(el('div', { class: 'study-screen' }, [heading, status, announcer, stage,
    el('p', { class: 'hint shortcut-help' }, [
      el('span', {}, [el('kbd', {}, ['Space']), ' show answer']), ' · ',
      el('span', {}, [el('kbd', {}, ['1']), '–', el('kbd', {}, ['4']), ' again, hard, good, easy']), ' · ',
      el('span', {}, [el('kbd', {}, ['U']), ' undo']), ' · ',
      el('span', {}, [el('kbd', {}, ['R']), ' replay sound'])
    ])]))

  sitting.redraw = (moveFocus = true) => { render(sitting, { status, stage, announcer }, actions, moveFocus) }

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
    sitting.redraw(false)
    loadTodayCards().then((cards) => {
      clearError()
      sitting.refill(cards, shown)
      sitting.redraw()
    }, (error: unknown) => {
      sitting.phase = 'failed'
      sitting.redraw(false)
      reportFailure(error)
    }).finally(() => { sitting.loading = false })
  }

  const showAnswer = () => {
    const card = sitting.current
    if (sitting.phase !== 'front' || card === undefined) return
    sitting.phase = 'back'
    sitting.redraw()
    // the intervals are asked for when the back is shown, as the card stands now
    callApi('preview-review', { flashcardID: card.flashcardID, cardID: card.cardID }).then((preview) => {
      if (sitting.current !== card || sitting.phase !== 'back') return
      clearError()
      sitting.preview = preview
      fillIntervals(preview)
    }, (error: unknown) => {
      if (sitting.current === card) reportFailure(error)
    })
  }

  const answer = (rating: Rating) => {
    const card = sitting.current
    if (sitting.phase !== 'back' || card === undefined || sitting.sending) return
    sitting.sending = true
    setAnswering(true)
    card.reviewID ??= newReviewID()
    callApi('review-card', { flashcardID: card.flashcardID, cardID: card.cardID, rating, reviewID: card.reviewID })
      .then((review) => {
        clearError()
        sitting.answers.push({ card, xpGained: Number(review.xp_gained) })
        sitting.totalXp = review.total_xp
        const dueAt = Date.parse(review.due)
        if (dueAt - Date.now() <= LEARN_AHEAD_MS) {
          sitting.queue.push(showAgain(card, dueAt))
        }
        sitting.takeNext()
      }, (error: unknown) => {
        reportFailure(error)
        // a card deleted meanwhile, or its flashcard, cannot be answered: go on with the others
        if (error instanceof ApiError && error.code === 'card_not_found') sitting.takeNext()
      })
      .finally(() => {
        sitting.sending = false
        if (sitting.current === card && sitting.phase === 'back') setAnswering(false)
        else sitting.redraw()
      })
  }

  const undo = () => {
    if (sitting.sending || sitting.phase === 'loading' || sitting.phase === 'failed') return
    sitting.sending = true
    setAnswering(true)
    // the service takes back the user's latest review, whether this sitting made it or not
    // (a reload, another device); the card comes back from the flashcard undo-review names
    callApi('undo-review', {}).then(async (undone) => {
      clearError()
      sitting.totalXp = undone.total_xp
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
      sitting.current = showAgain(card, Date.parse(undone.due))
      sitting.preview = undefined
      sitting.phase = 'front'
      showNotice(`Undone: the card "${shorten(sideText(card.frontHtml))}" is back.`)
    }).catch((error: unknown) => {
      if (error instanceof ApiError && error.code === 'nothing_to_undo') showNotice('There is no answer left to undo.')
      else reportFailure(error)
    }).finally(() => {
      sitting.sending = false
      sitting.redraw()
    })
  }

  const actions = { showAnswer, answer, undo, start }

  const onKey = (event: KeyboardEvent) => {
    if (event.repeat || event.ctrlKey || event.metaKey || event.altKey || isTyping(event.target)) return
    // on a focused button, Space and Enter press that button
    const onControl = event.target instanceof HTMLButtonElement || event.target instanceof HTMLAnchorElement
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
    document.removeEventListener('keydown', onKey)
  }
}

interface Actions {
  showAnswer: () => void
  answer: (rating: Rating) => void
  undo: () => void
  start: () => void
}

interface StudyElements {
  status: HTMLElement
  stage: HTMLElement
  announcer: HTMLElement
}

function render (sitting: StudySitting, { status, stage, announcer }: StudyElements, actions: Actions, moveFocus: boolean): void {
  announce(announcer, sitting)
  const left = sitting.queue.length + (sitting.current === undefined ? 0 : 1)
  status.textContent = sitting.phase === 'front' || sitting.phase === 'back'
    ? `${plural(left, 'card')} left · ${plural(sitting.answers.length, 'answer')} · ${sitting.xpGained} XP this session`
    : ''

  // offered even before this sitting's first answer: after a reload, the last answer is still the service's to take back
  const undoButton = button('Undo last answer', actions.undo, { class: 'quiet-button', id: 'undo-button', 'aria-keyshortcuts': 'U', disabled: sitting.sending })

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
      replaceChildren(stage, [endOfSession(sitting, actions), undoButton])
      if (moveFocus) stage.querySelector<HTMLElement>('h2')?.focus()
      return
    }
    case 'front':
    case 'back': {
      const card = sitting.current
      if (card === undefined) return
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
      replaceChildren(stage, [region, controls, el('div', { class: 'undo-row' }, [undoButton])])
      if (moveFocus) region.focus()
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
  const side = (id: string, classes: string, label: string, html: string) => el('div', { class: `card-face ${classes}`, id }, [
    el('h2', { class: 'face-label' }, [label]),
    el('div', { class: `card-text card-html format-${card.format}` }, [html === '' ? '(no back)' : cardSide(html)])
  ])
  const source = el('p', { class: 'card-source' }, [pathText([...card.folder, card.flashcardName])])
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

function fillIntervals (preview: ReviewPreview): void {
  for (const rating of RATINGS) {
    const interval = document.querySelector(`#study-stage .interval[data-rating="${rating}"]`)
    if (interval !== null) interval.textContent = preview[rating].interval
  }
}

/** While an answer or an undo is on its way, its buttons cannot be pressed again. */
function setAnswering (sending: boolean): void {
  for (const control of document.querySelectorAll<HTMLButtonElement>('#study-stage .rating, #undo-button, #check-more')) control.disabled = sending
  document.getElementById('study-stage')?.setAttribute('aria-busy', String(sending))
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

/** The card for another showing: a new answer to it gets a new retry key. */
function showAgain (card: StudyCard, dueAt: number): StudyCard {
  return { ...card, dueAt, reviewID: undefined }
}

function shorten (text: string): string {
  return text.length > 40 ? `${text.slice(0, 39)}…` : text
}
