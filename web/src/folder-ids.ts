// Folder ids, remembered in this browser.
//
// rename-folder, move-folder, delete-folder and move-flashcard-set need a folderID,
// but the only tree the API gives (get-all-cards, spec 2.2) has no folder ids, and no
// operation lists them: a folder's id is only seen in the answers of create-folder,
// rename-folder and move-folder. So the page keeps every id it sees, per user and by
// path, and follows renames, moves and deletions. A folder made elsewhere (another
// browser, the seed script, create-folder's missing parents) has no known id here, and
// the library says so instead of offering actions that cannot work.
import { isWithin, samePath } from './library-tree.js'

interface KnownFolder { folderID: string, path: string[] }

function storageKey (userID: string): string {
  return `flashcards.folderIDs.${userID}`
}

export class FolderIds {
  private known: KnownFolder[]

  constructor (private readonly userID: string) {
    try {
      const stored = JSON.parse(localStorage.getItem(storageKey(userID)) ?? '[]') as unknown
      this.known = Array.isArray(stored) ? stored.filter(isKnownFolder) : []
    } catch {
      this.known = []
    }
  }

  idOf (path: readonly string[]): string | undefined {
    return this.known.find((folder) => samePath(folder.path, path))?.folderID
  }

  /** A folder created: remember where it is. */
  remember (folderID: string, path: string[]): void {
    this.known = this.known.filter((folder) => folder.folderID !== folderID && !samePath(folder.path, path))
    this.known.push({ folderID, path })
    this.save()
  }

  /** A folder renamed or moved from `oldPath` to `newPath`: everything below it moved too. */
  moved (folderID: string, oldPath: readonly string[], newPath: string[]): void {
    this.known = this.known.map((folder) => isWithin(folder.path, oldPath)
      ? { folderID: folder.folderID, path: [...newPath, ...folder.path.slice(oldPath.length)] }
      : folder)
    this.remember(folderID, newPath)
  }

  /** A folder deleted, with everything below it. */
  deleted (path: readonly string[]): void {
    this.known = this.known.filter((folder) => !isWithin(folder.path, path))
    this.save()
  }

  /** Forgets ids of folders that are no longer in the library (deleted elsewhere). */
  keepOnly (existingPaths: ReadonlyArray<readonly string[]>): void {
    const before = this.known.length
    this.known = this.known.filter((folder) => existingPaths.some((path) => samePath(path, folder.path)))
    if (this.known.length !== before) this.save()
  }

  private save (): void {
    localStorage.setItem(storageKey(this.userID), JSON.stringify(this.known))
  }
}

function isKnownFolder (value: unknown): value is KnownFolder {
  if (typeof value !== 'object' || value === null) return false
  const { folderID, path } = value as Partial<KnownFolder>
  return typeof folderID === 'string' && Array.isArray(path) && path.every((name) => typeof name === 'string')
}
