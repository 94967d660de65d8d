/**
 * Builds the folder tree of spec 2.2 from flat lists, as the repositories read them:
 * folder name -> folder object, flashcard name -> { cards, flashcardID, flashcardName }.
 *
 * Names are user data and become object keys, so every object keyed by a name or an id
 * has no prototype and gets its members through defineProperty: '__proto__',
 * 'constructor' or 'toString' come back as ordinary keys and touch no prototype.
 *
 * Order of members: by name, comparing UTF-16 code units (the same on every machine,
 * whatever its locale). One exception JavaScript imposes and JSON.stringify follows: names
 * that are array indices ('7', '2024') come first, in numeric order. Cards keep the order
 * they are given in (the caller's order: most overdue first, then new cards).
 */

export interface FolderNode {
  id: string
  parentID: string | null
  name: string
}

export interface FlashcardNode {
  id: string
  folderID: string
  name: string
}

export interface CardLeaf {
  id: string
  flashcardID: string
  /** DD/MM/YYYY */
  last_review: string
  review_status: string
}

export interface CardRecord {
  last_review: string
  review_status: string
}

export interface FlashcardEntry {
  cards: Record<string, CardRecord>
  flashcardID: string
  flashcardName: string
}

export interface TreeOptions {
  /** Keep folders and flashcards that hold no card (the whole library); default false. */
  includeEmpty?: boolean
}

type Tree = Record<string, unknown>

interface Member {
  name: string
  isFolder: boolean
  id: string
  value: unknown
}

function emptyMap<T> (): Record<string, T> {
  return Object.create(null) as Record<string, T>
}

function setMember (target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
}

function byCodeUnits (a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

// Folders sort before a flashcard of the same name, and ids settle the rest, so the
// result does not depend on the order the database returned rows in
function compareMembers (a: Member, b: Member): number {
  return byCodeUnits(a.name, b.name) ||
    (a.isFolder === b.isFolder ? 0 : a.isFolder ? -1 : 1) ||
    byCodeUnits(a.id, b.id)
}

/**
 * Which folders hang from the top through an unbroken chain of parents. A folder whose
 * parent is missing, or whose chain loops, cannot be placed and is left out with all it holds.
 */
function placeableFolders (foldersById: ReadonlyMap<string, FolderNode>): Set<string> {
  const placeable = new Map<string, boolean>()
  // Walks up from `start` until the top, a folder already judged, a missing parent or a
  // folder seen on this walk (a loop); every folder on the way shares the verdict
  const judge = (start: string): void => {
    const chain = new Set<string>()
    let current: string | null = start
    let verdict: boolean | undefined
    while (verdict === undefined) {
      if (current === null) {
        verdict = true
      } else if (placeable.has(current)) {
        verdict = placeable.get(current)
      } else {
        const folder = foldersById.get(current)
        if (folder === undefined || chain.has(current)) {
          verdict = false
        } else {
          chain.add(current)
          current = folder.parentID
        }
      }
    }
    for (const id of chain) placeable.set(id, verdict)
  }
  for (const id of foldersById.keys()) judge(id)

  const result = new Set<string>()
  for (const [id, ok] of placeable) if (ok) result.add(id)
  return result
}

export function buildTree (
  folders: readonly FolderNode[],
  flashcards: readonly FlashcardNode[],
  cards: readonly CardLeaf[],
  options: TreeOptions = {}
): Tree {
  const includeEmpty = options.includeEmpty === true

  const foldersById = new Map<string, FolderNode>()
  for (const folder of folders) if (!foldersById.has(folder.id)) foldersById.set(folder.id, folder)
  const placeable = placeableFolders(foldersById)

  const flashcardsById = new Map<string, FlashcardNode>()
  for (const flashcard of flashcards) {
    if (placeable.has(flashcard.folderID) && !flashcardsById.has(flashcard.id)) {
      flashcardsById.set(flashcard.id, flashcard)
    }
  }

  const cardMaps = new Map<string, Record<string, CardRecord>>()
  for (const card of cards) {
    if (!flashcardsById.has(card.flashcardID)) continue
    let cardMap = cardMaps.get(card.flashcardID)
    if (cardMap === undefined) {
      cardMap = emptyMap<CardRecord>()
      cardMaps.set(card.flashcardID, cardMap)
    }
    // The map has no prototype, so even an id of '__proto__' would land as a plain key
    cardMap[card.id] = { last_review: card.last_review, review_status: card.review_status }
  }

  // Today's cards show only the branches that lead to a card; the library shows everything
  const shownFlashcards = includeEmpty
    ? [...flashcardsById.values()]
    : [...flashcardsById.values()].filter(flashcard => cardMaps.has(flashcard.id))

  const shownFolders = new Set<string>()
  if (includeEmpty) {
    for (const id of placeable) shownFolders.add(id)
  } else {
    for (const flashcard of shownFlashcards) {
      let current: string | null = flashcard.folderID
      // Stops at the first folder already shown: its ancestors were shown with it
      while (current !== null && !shownFolders.has(current)) {
        shownFolders.add(current)
        current = foldersById.get(current)?.parentID ?? null
      }
    }
  }

  const folderObjects = new Map<string, Tree>()
  for (const id of shownFolders) folderObjects.set(id, emptyMap<unknown>())

  const membersByParent = new Map<string | null, Member[]>()
  const addMember = (parentID: string | null, member: Member): void => {
    let members = membersByParent.get(parentID)
    if (members === undefined) {
      members = []
      membersByParent.set(parentID, members)
    }
    members.push(member)
  }
  for (const id of shownFolders) {
    const folder = foldersById.get(id) as FolderNode
    addMember(folder.parentID, { name: folder.name, isFolder: true, id, value: folderObjects.get(id) })
  }
  for (const flashcard of shownFlashcards) {
    const entry: FlashcardEntry = {
      cards: cardMaps.get(flashcard.id) ?? emptyMap<CardRecord>(),
      flashcardID: flashcard.id,
      flashcardName: flashcard.name
    }
    addMember(flashcard.folderID, { name: flashcard.name, isFolder: false, id: flashcard.id, value: entry })
  }

  const tree = emptyMap<unknown>()
  for (const [parentID, members] of membersByParent) {
    const target = parentID === null ? tree : folderObjects.get(parentID)
    if (target === undefined) continue
    members.sort(compareMembers)
    for (const member of members) {
      // Names are unique under one parent; should the data ever say otherwise, the first in
      // order keeps the name rather than one silently replacing another
      if (Object.hasOwn(target, member.name)) continue
      setMember(target, member.name, member.value)
    }
  }
  return tree
}
