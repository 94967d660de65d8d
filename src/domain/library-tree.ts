/**
 * Writes the folder tree of spec 2.2 as JSON text, from flat lists as the repositories
 * read them: folder name -> folder object, flashcard name -> { cards, flashcardID,
 * flashcardName }.
 *
 * The text is written directly rather than built as objects for JSON.stringify: names
 * are user data, and objects keyed by them ('__proto__', 'constructor') would need a null
 * prototype, which V8 keeps in its slow dictionary mode; writing the text is what keeps
 * get-today-cards' own time small. Every name and value goes through JSON.stringify.
 *
 * Order of members: array-index names ('7', '2024') first, in numeric order, as a
 * JavaScript object (and so JSON.parse on the client) would put them; then by name,
 * comparing UTF-16 code units (the same on every machine, whatever its locale). Cards
 * keep the order they are given in (the caller's order: most overdue first, then new cards).
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

export interface TreeOptions {
  /** Keep folders and flashcards that hold no card (the whole library); default false. */
  includeEmpty?: boolean
}

interface Member {
  name: string
  /** the name's value as an array index, or -1 */
  index: number
  isFolder: boolean
  id: string
}

const MAX_ARRAY_INDEX = 2 ** 32 - 2

/** The names a JavaScript object orders first: canonical decimal integers up to 2^32 - 2. */
function arrayIndexOf (name: string): number {
  if (!/^(?:0|[1-9][0-9]{0,9})$/.test(name)) return -1
  const value = Number(name)
  return value <= MAX_ARRAY_INDEX ? value : -1
}

function byCodeUnits (a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

function byArrayIndex (a: Member, b: Member): number {
  if (a.index === b.index) return 0
  if (a.index === -1 || b.index === -1) return a.index === -1 ? 1 : -1
  return a.index - b.index
}

// Folders sort before a flashcard of the same name, and ids settle the rest, so the
// result does not depend on the order the database returned rows in
function compareMembers (a: Member, b: Member): number {
  return byArrayIndex(a, b) || byCodeUnits(a.name, b.name) ||
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

// Strings that JSON.stringify would write differently from "<the string>": quotes,
// backslashes, control characters and surrogates (a lone one is escaped)
// eslint-disable-next-line no-control-regex -- control characters are what it looks for
const NEEDS_ESCAPING = /["\\\u0000-\u001f\ud800-\udfff]/

/** A string as JSON; the plain quoting is a shortcut taken only where JSON.stringify would write the same. */
function text (value: string): string {
  return NEEDS_ESCAPING.test(value) ? JSON.stringify(value) : `"${value}"`
}

function cardsJson (cards: ReadonlyMap<string, CardLeaf>): string {
  let json = ''
  for (const card of cards.values()) {
    json += `${json === '' ? '' : ','}${text(card.id)}:{"last_review":${text(card.last_review)},"review_status":${text(card.review_status)}}`
  }
  return `{${json}}`
}

export function treeJson (
  folders: readonly FolderNode[],
  flashcards: readonly FlashcardNode[],
  cards: readonly CardLeaf[],
  options: TreeOptions = {}
): string {
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

  // card id -> card, per flashcard: a repeated id keeps its first place and its last values
  const cardsByFlashcard = new Map<string, Map<string, CardLeaf>>()
  for (const card of cards) {
    if (!flashcardsById.has(card.flashcardID)) continue
    let held = cardsByFlashcard.get(card.flashcardID)
    if (held === undefined) {
      held = new Map()
      cardsByFlashcard.set(card.flashcardID, held)
    }
    held.set(card.id, card)
  }

  // Today's cards show only the branches that lead to a card; the library shows everything
  const shownFlashcards = includeEmpty
    ? [...flashcardsById.values()]
    : [...flashcardsById.values()].filter(flashcard => cardsByFlashcard.has(flashcard.id))

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
    addMember(folder.parentID, { name: folder.name, index: arrayIndexOf(folder.name), isFolder: true, id })
  }
  for (const flashcard of shownFlashcards) {
    addMember(flashcard.folderID, { name: flashcard.name, index: arrayIndexOf(flashcard.name), isFolder: false, id: flashcard.id })
  }

  const flashcardJson = (id: string): string => {
    const flashcard = flashcardsById.get(id) as FlashcardNode
    const held = cardsByFlashcard.get(id)
    return `{"cards":${held === undefined ? '{}' : cardsJson(held)},"flashcardID":${text(id)},"flashcardName":${text(flashcard.name)}}`
  }
  const folderJson = (id: string | null): string => {
    const members = membersByParent.get(id)
    if (members === undefined) return '{}'
    members.sort(compareMembers)
    let json = ''
    let previous: string | undefined
    for (const member of members) {
      // Names are unique under one parent; should the data ever say otherwise, the first in
      // order keeps the name rather than one silently replacing another
      if (member.name === previous) continue
      previous = member.name
      json += `${json === '' ? '' : ','}${text(member.name)}:${member.isFolder ? folderJson(member.id) : flashcardJson(member.id)}`
    }
    return `{${json}}`
  }
  return folderJson(null)
}
