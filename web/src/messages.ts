// The one place where the page speaks to the user about what happened: errors go
// to a role="alert" area (read out at once), confirmations to a role="status" one.
// An error stays until the user dismisses it, replaces it with another, or moves
// to another screen, so it is never lost before it is read. Both areas stay in the
// page (hidden by CSS while empty), so screen readers keep listening to them.
import { SessionEndedError } from './api.js'
import { button, el, replaceChildren } from './dom.js'

function area (id: string): HTMLElement {
  const found = document.getElementById(id)
  if (found === null) throw new Error(`index.html has no #${id}`)
  return found
}

export function showError (text: string): void {
  const alert = area('error-message')
  replaceChildren(alert, [
    el('p', {}, [text]),
    button('Dismiss', () => { clearError() }, { class: 'link-button', 'aria-label': 'Dismiss this message' })
  ])
}

export function clearError (): void {
  const alert = area('error-message')
  alert.replaceChildren()
}

let noticeTimer: number | undefined

/** A short confirmation ("Folder created"), cleared after a while since nothing is lost with it. */
export function showNotice (text: string): void {
  const status = area('notice-message')
  status.textContent = text
  window.clearTimeout(noticeTimer)
  noticeTimer = window.setTimeout(() => { status.textContent = '' }, 6000)
}

/**
 * Shows what went wrong next to the control it concerns, in `area` (a role="alert"
 * element beside it), rather than at the top of the page.
 */
export function reportFailureIn (area: HTMLElement, error: unknown): void {
  if (error instanceof SessionEndedError) return
  area.textContent = error instanceof Error ? error.message : String(error)
}

/** Shows what went wrong with an action; everything the page does ends its promise chains here. */
export function reportFailure (error: unknown): void {
  // the login screen already says why the session ended
  if (error instanceof SessionEndedError) return
  showError(error instanceof Error ? error.message : String(error))
}
