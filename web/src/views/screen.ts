import type { Session } from '../session.js'

/** What every screen of a signed-in user gets. */
export interface ScreenContext {
  session: Session
  /** forgets the token here and shows the login screen with a notice */
  signOut: (notice: string) => void
}

/**
 * Draws a screen into `container`. It may give back a function that undoes what it
 * set up outside the container (a key listener), called when the user leaves.
 */
export type Screen = (container: HTMLElement, context: ScreenContext) => (() => void) | undefined

export type ScreenName = 'library' | 'study' | 'browse' | 'progress' | 'settings' | 'anki-import'
