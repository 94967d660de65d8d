// The one place where the page speaks to the user about what happened.
//
// Every message belongs to the action that caused it: the next action (a button or link
// pressed, a form sent, a study key) takes it away, so a message on screen is always
// about what the user just did, and there is never more than one at a time.
// - a notice ("Folder created.") goes to the role="status" area, and also goes by itself
//   after a few seconds, since nothing is lost with it;
// - an error is shown next to the control whose action failed (role="alert", read out
//   at once) and scrolled into view; with no such control on screen (it was redrawn away,
//   or the failure came with no action, like a screen's first read) it goes to the
//   role="alert" area at the top, which is scrolled into view too. An error stays until
//   the next action or until dismissed, so it is never gone before it is read.
import { SessionEndedError } from './api.js'
import { button, el, replaceChildren } from './dom.js'

/** How long a notice stays when nothing else happens. */
export const NOTICE_MS = 5000

function area (id: string): HTMLElement {
  const found = document.getElementById(id)
  if (found === null) throw new Error(`index.html has no #${id}`)
  return found
}

/** The control of the action under way: where its error goes. */
let actionControl: HTMLElement | null = null
/** The error on screen next to a control, if any, and a form's own problem area holding one. */
let inlineError: HTMLElement | null = null
let problemShown: HTMLElement | null = null
let noticeTimer: number | undefined

/**
 * A new action starts: what was said about the previous one goes. Called for every press,
 * form sent and study key (watchActions); `control` is where this action's error will go.
 */
export function beginAction (control: HTMLElement | null): void {
  actionControl = control
  clearNotice()
  clearError()
}

/** Makes every button, link, summary or form of the page begin an action when used. */
export function watchActions (): void {
  // capture: before the control's own handler, which may already say something about its action
  document.addEventListener('click', (event) => {
    const target = event.target instanceof Element ? event.target.closest<HTMLElement>('button, a, summary') : null
    // "Dismiss" clears its own message; a button that submits a form begins its action on submit
    if (target === null || target.closest('.message') !== null) return
    if (target instanceof HTMLButtonElement && target.type === 'submit' && target.form !== null) return
    beginAction(target)
  }, { capture: true })
  document.addEventListener('submit', (event) => {
    const form = event.target instanceof HTMLFormElement ? event.target : null
    beginAction(form?.querySelector<HTMLElement>('button[type="submit"]') ?? form)
  }, { capture: true })
}

export function showError (text: string, near: HTMLElement | null = null): void {
  clearError()
  const anchor = placeFor(near ?? actionControl)
  if (anchor === null) {
    const alert = area('error-message')
    replaceChildren(alert, [
      el('p', {}, [text]),
      button('Dismiss', () => { clearError() }, { class: 'link-button', 'aria-label': 'Dismiss this message' })
    ])
    alert.scrollIntoView({ block: 'nearest' })
    return
  }
  // made empty and filled after it is in the page, so that screen readers read it out
  const alert = el('p', { class: 'inline-error', role: 'alert', id: 'inline-error' })
  anchor.after(alert)
  alert.textContent = text
  inlineError = alert
  alert.scrollIntoView({ block: 'nearest' })
}

/** Where an error about `control` goes: after its row of buttons, or after it. */
function placeFor (control: HTMLElement | null): HTMLElement | null {
  if (control === null || !control.isConnected || control.closest('#screen') === null) return null
  return control.closest<HTMLElement>('.button-row, .study-actions, .undo-row, .confirm, form') ?? control
}

export function clearError (): void {
  area('error-message').replaceChildren()
  inlineError?.remove()
  inlineError = null
  if (problemShown !== null) problemShown.textContent = ''
  problemShown = null
}

function clearNotice (): void {
  window.clearTimeout(noticeTimer)
  area('notice-message').replaceChildren()
}

/** How long a notice that offers to take its action back stays, when nothing else happens. */
const NOTICE_WITH_UNDO_MS = 10_000

/**
 * A short confirmation ("Folder created."), gone with the next action or after NOTICE_MS.
 * `undo`: a button in the notice that takes the action back ("Card suspended. Undo").
 */
export function showNotice (text: string, undo?: { label: string, run: () => void }): void {
  clearError()
  const status = area('notice-message')
  if (undo === undefined) status.textContent = text
  else {
    replaceChildren(status, [el('p', {}, [text]), button(undo.label, () => {
      clearNotice()
      undo.run()
    }, { class: 'link-button', id: 'notice-undo' })])
  }
  window.clearTimeout(noticeTimer)
  noticeTimer = window.setTimeout(() => { status.replaceChildren() }, undo === undefined ? NOTICE_MS : NOTICE_WITH_UNDO_MS)
}

/**
 * Shows what went wrong in `problem` (a role="alert" element of the form it concerns)
 * rather than in the page's own places.
 */
export function reportFailureIn (problem: HTMLElement, error: unknown): void {
  if (error instanceof SessionEndedError) return
  clearError()
  problem.textContent = error instanceof Error ? error.message : String(error)
  problemShown = problem
  problem.scrollIntoView({ block: 'nearest' })
}

/**
 * Shows what went wrong with an action, next to `near` or else the control of the action
 * under way; everything the page does ends its promise chains here.
 */
export function reportFailure (error: unknown, near: HTMLElement | null = null): void {
  // the login screen already says why the session ended
  if (error instanceof SessionEndedError) return
  showError(error instanceof Error ? error.message : String(error), near)
}
