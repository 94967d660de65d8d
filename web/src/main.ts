// The study app: one page, one screen at a time, chosen by the address's #/fragment
// so that the browser's back button and a reload keep the user where they were.
import { forgetNoteTypeStyles } from './note-type-styles.js'
import { onReachabilityChange, onSessionEnded } from './api.js'
import { plural } from './dom.js'
import { clearError, showError, showNotice, watchActions } from './messages.js'
import { forgetEverything } from './offline-store.js'
import { announce, sendWaitingAnswers, watchSync, type SyncState } from './offline-sync.js'
import { STORAGE_BLOCKED, forgetSession, loadSession, tidyStorage, type Session } from './session.js'
import { showAnkiImport, stopUpload, uploadUnderWay } from './views/anki-import.js'
import { showBrowse } from './views/browse.js'
import { showLibrary } from './views/library.js'
import { FORGOT_PASSWORD, showLogin } from './views/login.js'
import { showEmailConfirmation, showPasswordReset } from './views/mailed-links.js'
import { showProgress } from './views/progress.js'
import type { Screen, ScreenName } from './views/screen.js'
import { showSettings } from './views/settings.js'
import { showStudy } from './views/study.js'

const SCREENS: Record<ScreenName, Screen> = {
  library: showLibrary,
  study: showStudy,
  browse: showBrowse,
  progress: showProgress,
  settings: showSettings,
  // reached from the library, which holds what it imports
  'anki-import': showAnkiImport
}

function element<T extends HTMLElement> (id: string): T {
  const found = document.getElementById(id)
  if (found === null) throw new Error(`index.html has no #${id}`)
  return found as T
}

const screen = element<HTMLElement>('screen')
const nav = element<HTMLElement>('main-nav')
const logoutButton = element<HTMLButtonElement>('logout-button')
const syncStatus = element<HTMLElement>('sync-status')

/** Undoes what the screen on show set up outside its own elements. */
let leaveScreen: (() => void) | undefined

function screenName (): ScreenName {
  // #/study/deck/<id>: the screen is the first part, the rest is the screen's own
  const name = location.hash.replace(/^#\/?/, '').split('/')[0] ?? ''
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
  forgetNoteTypeStyles()
  nav.hidden = true
  logoutButton.hidden = true
  // after logging in, the user is back on the screen they were sent away from
  show((container) => showLogin(container, (session) => { showSignedIn(session, true) }, location.hash === FORGOT_PASSWORD))
}

/** A link the service mailed, `#/<screen>?token=<token>`: its screen and its token; null for any other address. */
function mailedLink (): { screen: 'reset-password' | 'confirm-email-change', token: string } | null {
  const match = /^#\/(reset-password|confirm-email-change)\?(.*)$/.exec(location.hash)
  if (match === null) return null
  return { screen: match[1] as 'reset-password' | 'confirm-email-change', token: new URLSearchParams(match[2]).get('token') ?? '' }
}

/** The screen of a mailed link, whoever is signed in here: the link is for whoever holds the mailbox. */
function showMailedLink ({ screen: name, token }: { screen: 'reset-password' | 'confirm-email-change', token: string }): void {
  nav.hidden = true
  logoutButton.hidden = true
  if (name === 'confirm-email-change') {
    show((container) => { showEmailConfirmation(container, token, loadSession() !== null); return undefined })
    return
  }
  const before = loadSession()
  show((container) => {
    showPasswordReset(container, token, (session) => {
      // what this browser kept for another account (answers given offline) is not this one's to send
      if (before !== null && before.userID !== session.userID) void forgetEverything().catch(() => {}).finally(() => { void announce() })
      showSignedIn(session, true)
    })
    return undefined
  })
}

function route (moveFocus: boolean): void {
  const link = mailedLink()
  if (link !== null) {
    showMailedLink(link)
    return
  }
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
  stopUpload()
  forgetSession()
  showSignedOut()
  showNotice(notice)
  // what the page kept to study offline goes with the session: nothing of the user's stays here
  forgetEverything().catch(() => {}).finally(() => { void announce() })
}

/** The state last heard: answers still waiting make logging out ask first. */
let sync: SyncState = { online: true, waiting: 0, conflicts: 0, sending: false }
/** True from the warning of what logging out would lose until the learner does anything but press Log out again. */
let warnedOfLoss = false
const disarm = (event: Event): void => { if (!logoutButton.contains(event.target as Node)) warnedOfLoss = false }
document.addEventListener('click', disarm, true)
document.addEventListener('keydown', disarm, true)

// the token is forgotten in this browser; "Log out everywhere" in Settings also makes the service refuse it
logoutButton.addEventListener('click', () => {
  const losses = whatLoggingOutLoses()
  if (losses.length > 0 && !warnedOfLoss) {
    warnedOfLoss = true
    showError(`${losses.join(' ')} Press Log out again to log out anyway.`, logoutButton)
    return
  }
  warnedOfLoss = false
  signOut('You are logged out.')
})

/** What logging out now would lose, a sentence each: answers not yet sent, an upload not yet done. */
function whatLoggingOutLoses (): string[] {
  const losses: string[] = []
  const unsent = sync.waiting + sync.conflicts
  if (unsent > 0) {
    losses.push(`${plural(unsent, 'answer')} given offline ${unsent === 1 ? 'has' : 'have'} not reached the service yet, and logging out removes ${unsent === 1 ? 'it' : 'them'} from this browser: ` +
      `go online and wait for ${unsent === 1 ? 'it' : 'them'} to be sent.`)
  }
  const uploading = uploadUnderWay()
  if (uploading !== null) losses.push(`"${uploading}" is still uploading, and logging out stops it: wait for the import to start.`)
  return losses
}

/** "Offline · 3 answers waiting": on every screen while offline or while answers wait. */
function drawSyncStatus (state: SyncState): void {
  sync = state
  const parts: string[] = []
  if (!state.online) parts.push('Offline')
  if (state.waiting > 0) parts.push(`${plural(state.waiting, 'answer')} waiting`)
  else if (!state.online) parts.push('answers you give are kept and sent later')
  if (state.conflicts > 0) parts.push(`${plural(state.conflicts, 'answer')} to check in Study`)
  const text = parts.join(' · ')
  syncStatus.hidden = text === ''
  if (syncStatus.textContent !== text) syncStatus.textContent = text
  syncStatus.classList.toggle('sync-offline', !state.online)
}

watchActions()
watchSync(drawSyncStatus)
window.addEventListener('online', () => { void sendWaitingAnswers() })
window.addEventListener('offline', () => { void announce() })
onReachabilityChange((reachable) => {
  if (reachable) void sendWaitingAnswers()
  else void announce()
})
// the page opens without a network once visited, and can be installed as an app
if ('serviceWorker' in navigator) {
  navigator.serviceWorker.register('/sw.js').catch(() => {
    // a browser that keeps no service worker (private modes) still has the page online
  })
}
const storageWorks = tidyStorage()
window.addEventListener('hashchange', () => { route(true) })
route(false)
void sendWaitingAnswers()
// said after the first screen is drawn, since drawing a screen clears the message area
if (!storageWorks) showError(STORAGE_BLOCKED)
