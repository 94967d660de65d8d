// The signed-in user's token, kept in localStorage so that a reload stays signed in.
// Logging out forgets it here; only logout-everywhere makes the service refuse it.
// The Anki import a user has under way is kept here too, and forgotten with the token.

const STORAGE_KEY = 'flashcards.session'
/**
 * Before a user's id: the Anki import they started and have not yet seen end, kept so that the
 * import screen finds it again after a reload or a visit elsewhere.
 */
const IMPORT_KEY = 'flashcards.ankiImport.'

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
    // what the user was importing goes too: nothing of theirs stays after logging out
    for (const key of Object.keys(localStorage)) {
      if (key.startsWith(IMPORT_KEY)) localStorage.removeItem(key)
    }
  } catch {
    // storage that cannot be read holds no token to forget
  }
}

/** The Anki import the user started and has not yet seen end (see loadImport). */
export interface ImportUnderWay {
  importID: string
  /** the package's file name, as the user chose it */
  fileName: string
}

export function loadImport (userID: string): ImportUnderWay | null {
  try {
    const stored = JSON.parse(localStorage.getItem(IMPORT_KEY + userID) ?? 'null') as Partial<ImportUnderWay> | null
    if (typeof stored?.importID === 'string' && typeof stored.fileName === 'string') return { importID: stored.importID, fileName: stored.fileName }
  } catch {
    // a damaged entry is as good as none: the import goes on, and the library shows it once done
  }
  return null
}

export function saveImport (userID: string, underWay: ImportUnderWay): void {
  try {
    localStorage.setItem(IMPORT_KEY + userID, JSON.stringify(underWay))
  } catch {
    // without storage, the import is followed only while its screen stays open
  }
}

export function forgetImport (userID: string): void {
  try {
    localStorage.removeItem(IMPORT_KEY + userID)
  } catch {
    // storage that cannot be read holds nothing to forget
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
