// The signed-in user's token, kept in localStorage so that a reload stays signed in.
// Logging out forgets it here; only logout-everywhere makes the service refuse it.

const STORAGE_KEY = 'flashcards.session'

export interface Session {
  userID: string
  jwtToken: string
}

export function loadSession (): Session | null {
  try {
    const stored = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? 'null') as Partial<Session> | null
    if (typeof stored?.userID === 'string' && typeof stored.jwtToken === 'string') {
      return { userID: stored.userID, jwtToken: stored.jwtToken }
    }
  } catch {
    // a damaged entry is as good as none: the user logs in again
  }
  return null
}

/** What the user is told when the browser refuses the page its storage (blocked site data, some private modes). */
export const STORAGE_BLOCKED = 'This browser does not let the page keep data, so you cannot stay logged in. ' +
  'Allow cookies and site data for this site, then reload the page.'

export function saveSession (session: Session): void {
  try {
    localStorage.setItem(STORAGE_KEY, JSON.stringify(session))
  } catch {
    throw new Error(STORAGE_BLOCKED)
  }
}

export function forgetSession (): void {
  try {
    localStorage.removeItem(STORAGE_KEY)
  } catch {
    // storage that cannot be read holds no token to forget
  }
}

/**
 * Removes what earlier versions of the page kept here (the folder ids they had seen;
 * get-library lists them now). False when the browser refuses the page its storage.
 */
export function tidyStorage (): boolean {
  try {
    for (const key of Object.keys(localStorage)) {
      if (key.startsWith('flashcards.folderIDs.')) localStorage.removeItem(key)
    }
    return true
  } catch {
    return false
  }
}
