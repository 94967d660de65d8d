// Reading the spec 2.2 tree (get-all-cards, get-today-cards) into folders and
// flashcards. A flashcard is an object with exactly the members cards, flashcardID
// and flashcardName; any other object is a folder keyed by its name.
import type { TreeCard, TreeFlashcard, TreeFolder } from './api-types.js'

export interface FolderEntry {
  kind: 'folder'
  name: string
  path: string[]
  folders: FolderEntry[]
  flashcards: FlashcardEntry[]
  /** cards in this folder and every folder below it */
  cardCount: number
}

export interface FlashcardEntry {
  kind: 'flashcard'
  flashcardID: string
  flashcardName: string
  /** the folder holding it */
  folder: string[]
  cards: Array<{ cardID: string } & TreeCard>
}

const FLASHCARD_MEMBERS = ['cards', 'flashcardID', 'flashcardName']

export function isFlashcard (node: TreeFolder | TreeFlashcard): node is TreeFlashcard {
  const members = Object.keys(node)
  return members.length === FLASHCARD_MEMBERS.length && FLASHCARD_MEMBERS.every((name) => members.includes(name)) &&
    typeof node.flashcardID === 'string'
}

/** The top-level folders of a tree, each with everything below it. */
export function readTree (tree: TreeFolder): FolderEntry[] {
  return readFolder(tree, []).folders
}

function readFolder (node: TreeFolder, path: string[]): FolderEntry {
  const folder: FolderEntry = { kind: 'folder', name: path.at(-1) ?? '', path, folders: [], flashcards: [], cardCount: 0 }
  for (const [name, child] of Object.entries(node)) {
    if (isFlashcard(child)) {
      const cards = Object.entries(child.cards).map(([cardID, card]) => ({ cardID, ...card }))
      folder.flashcards.push({ kind: 'flashcard', flashcardID: child.flashcardID, flashcardName: child.flashcardName, folder: path, cards })
      folder.cardCount += cards.length
    } else {
      const subfolder = readFolder(child, [...path, name])
      folder.folders.push(subfolder)
      folder.cardCount += subfolder.cardCount
    }
  }
  // JSON.parse puts names that look like numbers first; the user expects one alphabetical order
  folder.folders.sort((a, b) => byName.compare(a.name, b.name))
  folder.flashcards.sort((a, b) => byName.compare(a.flashcardName, b.flashcardName))
  return folder
}

const byName = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' })

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

export function samePath (a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((name, index) => name === b[index])
}

export function isWithin (path: readonly string[], ancestor: readonly string[]): boolean {
  return path.length >= ancestor.length && ancestor.every((name, index) => name === path[index])
}
