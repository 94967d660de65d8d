// The study app: one page, one screen at a time, chosen by the address's #/fragment
// so that the browser's back button and a reload keep the user where they were.
import { onSessionEnded } from './api.js'
import { clearError, showError, showNotice, watchActions } from './messages.js'
import { STORAGE_BLOCKED, forgetSession, loadSession, tidyStorage, type Session } from './session.js'
import { showLibrary } from './views/library.js'
import { showLogin } from './views/login.js'
import { showProgress } from './views/progress.js'
import type { Screen, ScreenName } from './views/screen.js'
import { showSettings } from './views/settings.js'
import { showStudy } from './views/study.js'

const SCREENS: Record<ScreenName, Screen> = {
  library: showLibrary,
  study: showStudy,
  progress: showProgress,
  settings: showSettings
}

function element<T extends HTMLElement> (id: string): T {
  const found = document.getElementById(id)
  if (found === null) throw new Error(`index.html has no #${id}`)
  return found as T
}

const screen = element<HTMLElement>('screen')
const nav = element<HTMLElement>('main-nav')
const logoutButton = element<HTMLButtonElement>('logout-button')

/** Undoes what the screen on show set up outside its own elements. */
let leaveScreen: (() => void) | undefined

function screenName (): ScreenName {
  const name = location.hash.replace(/^#\/?/, '')
  return Object.hasOwn(SCREENS, name) ? name as ScreenName : 'library'
}

function show (draw: (container: HTMLElement) => (() => void) | undefined): void {
  leaveScreen?.()
  leaveScreen = undefined
  clearError()
  screen.replaceChildren()
  leaveScreen = draw(screen)
}

function showSignedIn (session: Session, moveFocus: boolean): void {
  const name = screenName()
  nav.hidden = false
  logoutButton.hidden = false
  for (const link of nav.querySelectorAll('a')) {
    if (link.dataset.screen === name) link.setAttribute('aria-current', 'page')
    else link.removeAttribute('aria-current')
  }
  show((container) => SCREENS[name](container, { session, signOut }))
  // after a click in the menu, start reading at the new screen's heading
  if (moveFocus) screen.querySelector<HTMLElement>('h1')?.focus()
}

function showSignedOut (): void {
  nav.hidden = true
  logoutButton.hidden = true
  // after logging in, the user is back on the screen they were sent away from
  show((container) => showLogin(container, (session) => { showSignedIn(session, true) }))
}

function route (moveFocus: boolean): void {
  const session = loadSession()
  if (session === null) showSignedOut()
  else showSignedIn(session, moveFocus)
}

onSessionEnded((message) => {
  // requests sent together are refused together: the login screen is drawn once
  if (!nav.hidden) showSignedOut()
  showError(message)
})

function signOut (notice: string): void {
  forgetSession()
  showSignedOut()
  showNotice(notice)
}

// the token is forgotten in this browser; "Log out everywhere" in Settings also makes the service refuse it
logoutButton.addEventListener('click', () => { signOut('You are logged out.') })

watchActions()
const storageWorks = tidyStorage()
window.addEventListener('hashchange', () => { route(true) })
route(false)
// said after the first screen is drawn, since drawing a screen clears the message area
if (!storageWorks) showError(STORAGE_BLOCKED)
