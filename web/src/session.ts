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

export function saveSession (session: Session): void {
  localStorage.setItem(STORAGE_KEY, JSON.stringify(session))
}

export function forgetSession (): void {
  localStorage.removeItem(STORAGE_KEY)
}
