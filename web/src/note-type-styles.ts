// The CSS of the note types Anki imports brought (get-note-types), on their cards in the study
// page and nowhere else. Each note type's CSS is parsed on its own (a stylesheet of its own, so a
// brace it leaves open closes nothing of the page's), and its rules are written again inside
// `@scope ([data-note-type="<id>"])`: they reach only the elements of a card of that note type.
// The card's box contains its paint (app.css, .card-styled), so nothing positioned in it, fixed
// or not, is drawn over the page around it or the answer buttons. @import rules are dropped,
// and what the CSS would load from elsewhere the page's Content-Security-Policy refuses.
// A card's content sits in <div class="card">, as Anki's does, so `.card { … }` styles it.
// The CSS last read is kept in the browser, for the cards studied without a network.
import { callApi } from './api.js'
import { keepNoteTypeStyles, keptNoteTypeStyles } from './offline-store.js'
import { loadSession } from './session.js'

/** Each known note type's confined sheet, by noteTypeID; null for one the account does not have. */
const sheets = new Map<string, CSSStyleSheet | null>()
let loading: Promise<void> | null = null

/** The sheet of one note type's CSS, its rules confined to the cards of that note type. */
function confinedSheet (noteTypeID: string, css: string): CSSStyleSheet {
  const sheet = new CSSStyleSheet()
  if (!/^[0-9]{1,64}$/.test(noteTypeID)) return sheet
  const parsed = new CSSStyleSheet()
  try {
    parsed.replaceSync(css)
  } catch {
    return sheet
  }
  const rules = Array.from(parsed.cssRules).filter((rule) => !(rule instanceof CSSImportRule)).map((rule) => rule.cssText)
  sheet.replaceSync(`@scope ([data-note-type="${noteTypeID}"]) {\n${rules.join('\n')}\n}`)
  return sheet
}

/** The sheets this module has put in force: those it replaces when the note types change. */
let ownSheets = new Set<CSSStyleSheet>()

function adopt (): void {
  const ours = new Set([...sheets.values()].filter((sheet) => sheet !== null))
  const others = document.adoptedStyleSheets.filter((sheet) => !ownSheets.has(sheet))
  ownSheets = ours
  document.adoptedStyleSheets = [...others, ...ours]
}

/** Puts each note type's CSS in force. */
function styled (styles: ReadonlyArray<{ noteTypeID: string, css: string }>): void {
  for (const { noteTypeID, css } of styles) sheets.set(noteTypeID, confinedSheet(noteTypeID, css))
  adopt()
}

/**
 * Reads the account's note types, once at a time, and puts each one's CSS in force; the CSS is kept
 * in the browser (offline-store.ts), so that without a network the cards kept for study are styled
 * as they were when last read.
 */
function load (): Promise<void> {
  const userID = loadSession()?.userID
  loading ??= callApi('get-note-types', {}).then(({ noteTypes }) => {
    const styles = noteTypes.map((noteType) => ({ noteTypeID: noteType.noteTypeID, css: noteType.css }))
    styled(styles)
    if (userID !== undefined) keepNoteTypeStyles({ userID, styles }).catch(() => {})
  }, async (error: unknown) => {
    const kept = userID === undefined ? undefined : await keptNoteTypeStyles(userID).catch(() => undefined)
    if (kept === undefined) throw error
    styled(kept.styles)
  }).finally(() => { loading = null })
  return loading
}

/**
 * Makes sure the CSS of a card's note type is in force, reading the note types when this
 * one is not known yet (an import since the last read); a read that fails leaves the
 * card as the page styles it, and is tried again for the next card.
 */
export function styleNoteType (noteTypeID: string): void {
  if (sheets.has(noteTypeID)) return
  void load().then(() => {
    if (!sheets.has(noteTypeID)) sheets.set(noteTypeID, null)
  }).catch(() => {})
}

/** Drops every note type's CSS (log out: the next account has its own). */
export function forgetNoteTypeStyles (): void {
  sheets.clear()
  adopt()
}
