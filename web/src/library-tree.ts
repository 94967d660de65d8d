// The library as get-library gives it: every folder and flashcard with its id, read
// into entries that also know their path and how many cards lie below them.
import type { OutlineFolder } from './api-types.js'

export interface FolderEntry {
  folderID: string
  name: string
  /** the names from the top down to this folder, itself included */
  path: string[]
  folders: FolderEntry[]
  flashcards: FlashcardEntry[]
  /** cards in this folder and every folder below it */
  cardCount: number
  /** what studying it today would give: cards due, and new cards (get-library, within the daily limits) */
  due: number
  new: number
}

export interface FlashcardEntry {
  flashcardID: string
  flashcardName: string
  /** the folder holding it */
  folderID: string
  cardCount: number
  due: number
  new: number
}

/** The top-level folders of get-library's answer, each with everything below it. */
export function readLibrary (folders: OutlineFolder[]): FolderEntry[] {
  return folders.map((folder) => readFolder(folder, [])).sort(byName)
}

function readFolder (outline: OutlineFolder, above: string[]): FolderEntry {
  const path = [...above, outline.name]
  const folders = outline.folders.map((subfolder) => readFolder(subfolder, path)).sort(byName)
  const flashcards = outline.flashcards.map((flashcard): FlashcardEntry => ({
    flashcardID: flashcard.flashcardID,
    flashcardName: flashcard.flashcardName,
    folderID: outline.folderID,
    cardCount: Number(flashcard.cards),
    due: Number(flashcard.due),
    new: Number(flashcard.new)
  })).sort((a, b) => collator.compare(a.flashcardName, b.flashcardName))
  const cardCount = [...folders, ...flashcards].reduce((sum, entry) => sum + entry.cardCount, 0)
  return { folderID: outline.folderID, name: outline.name, path, folders, flashcards, cardCount, due: Number(outline.due), new: Number(outline.new) }
}

// the service keeps the order things were made in; a user looks names up alphabetically
const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' })
const byName = (a: FolderEntry, b: FolderEntry) => collator.compare(a.name, b.name)

/** Every folder, depth first, parents before their subfolders. */
export function allFolders (folders: FolderEntry[]): FolderEntry[] {
  return folders.flatMap((folder) => [folder, ...allFolders(folder.folders)])
}

/** Every flashcard, in the tree's order. */
export function allFlashcards (folders: FolderEntry[]): FlashcardEntry[] {
  return allFolders(folders).flatMap((folder) => folder.flashcards)
}

/** How a path reads to the user: "Languages › Spanish". */
export function pathText (path: readonly string[]): string {
  return path.join(' › ')
}

/**
 * Where a deck is, as the user reads it: "Languages › Spanish › Verbs". A deck named as
 * the folder it is in is named once: an Anki import puts a deck's own cards in a deck of
 * the deck's name, inside a folder of that name, and "Spanish › Spanish" says nothing more.
 */
export function deckPlace (folder: readonly string[], flashcardName: string): string {
  return pathText(folder.at(-1) === flashcardName ? folder : [...folder, flashcardName])
}
