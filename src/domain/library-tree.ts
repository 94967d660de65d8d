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

/** What writing one tree needs, built once per call. */
interface Tree {
  membersByParent: Map<string | null, Member[]>
  flashcardsById: Map<string, FlashcardNode>
  /** each flashcard's cards, in the order given */
  cardsByFlashcard: Map<string, CardLeaf[]>
}

const MAX_ARRAY_INDEX = 2 ** 32 - 2
const ARRAY_INDEX = /^(?:0|[1-9][0-9]{0,9})$/

/** The names a JavaScript object orders first: canonical decimal integers up to 2^32 - 2. */
function arrayIndexOf (name: string): number {
  // most names do not start with a digit: no need to look further
  const first = name.charCodeAt(0)
  if (first < 48 || first > 57 || !ARRAY_INDEX.test(name)) return -1
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

const VISITING = 0
const PLACED = 1
const UNPLACED = 2

/**
 * Which folders hang from the top through an unbroken chain of parents. A folder whose
 * parent is missing, or whose chain loops, cannot be placed and is left out with all it holds.
 */
function placeableFolders (foldersById: ReadonlyMap<string, FolderNode>): Set<string> {
  const verdicts = new Map<string, number>()
  const chain: string[] = []
  for (const start of foldersById.keys()) {
    // Walks up until the top, a folder already judged, a missing parent or a folder of
    // this same walk (a loop); every folder on the way shares the verdict
    chain.length = 0
    let current: string | null = start
    let verdict = UNPLACED
    for (;;) {
      if (current === null) {
        verdict = PLACED
        break
      }
      const known = verdicts.get(current)
      if (known !== undefined) {
        verdict = known === VISITING ? UNPLACED : known
        break
      }
      const folder = foldersById.get(current)
      if (folder === undefined) break
      verdicts.set(current, VISITING)
      chain.push(current)
      current = folder.parentID
    }
    for (const id of chain) verdicts.set(id, verdict)
  }

  const result = new Set<string>()
  for (const [id, verdict] of verdicts) if (verdict === PLACED) result.add(id)
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

function cardJson (card: CardLeaf): string {
  return `${text(card.id)}:{"last_review":${text(card.last_review)},"review_status":${text(card.review_status)}}`
}

/** Up to this many cards, repeated ids are looked for pair by pair rather than with a Map. */
const PAIRWISE_LIMIT = 16

function mayRepeatIds (cards: readonly CardLeaf[]): boolean {
  if (cards.length > PAIRWISE_LIMIT) return true
  for (let i = 1; i < cards.length; i++) {
    const id = (cards[i] as CardLeaf).id
    for (let j = 0; j < i; j++) if ((cards[j] as CardLeaf).id === id) return true
  }
  return false
}

function cardsJson (cards: readonly CardLeaf[]): string {
  // a repeated id (never from the database, where ids are unique) keeps its first place and its last values
  const unique = mayRepeatIds(cards) ? [...new Map(cards.map((card) => [card.id, card])).values()] : cards
  let json = ''
  for (const card of unique) json += `${json === '' ? '' : ','}${cardJson(card)}`
  return `{${json}}`
}

function flashcardJson (tree: Tree, id: string): string {
  const flashcard = tree.flashcardsById.get(id) as FlashcardNode
  const cards = tree.cardsByFlashcard.get(id)
  return `{"cards":${cards === undefined ? '{}' : cardsJson(cards)},"flashcardID":${text(id)},"flashcardName":${text(flashcard.name)}}`
}

function folderJson (tree: Tree, id: string | null): string {
  const members = tree.membersByParent.get(id)
  if (members === undefined) return '{}'
  members.sort(compareMembers)
  let json = ''
  let previous: string | undefined
  for (const member of members) {
    // Names are unique under one parent; should the data ever say otherwise, the first in
    // order keeps the name rather than one silently replacing another
    if (member.name === previous) continue
    previous = member.name
    json += `${json === '' ? '' : ','}${text(member.name)}:${member.isFolder ? folderJson(tree, member.id) : flashcardJson(tree, member.id)}`
  }
  return `{${json}}`
}

function addMember (membersByParent: Map<string | null, Member[]>, parentID: string | null, member: Member): void {
  const members = membersByParent.get(parentID)
  if (members === undefined) membersByParent.set(parentID, [member])
  else members.push(member)
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

  const cardsByFlashcard = new Map<string, CardLeaf[]>()
  for (const card of cards) {
    if (!flashcardsById.has(card.flashcardID)) continue
    const held = cardsByFlashcard.get(card.flashcardID)
    if (held === undefined) cardsByFlashcard.set(card.flashcardID, [card])
    else held.push(card)
  }

  // Today's cards show only the branches that lead to a card; the library shows everything
  const membersByParent = new Map<string | null, Member[]>()
  const shownFolders = includeEmpty ? placeable : new Set<string>()
  for (const flashcard of flashcardsById.values()) {
    if (!includeEmpty && !cardsByFlashcard.has(flashcard.id)) continue
    addMember(membersByParent, flashcard.folderID, { name: flashcard.name, index: arrayIndexOf(flashcard.name), isFolder: false, id: flashcard.id })
    if (includeEmpty) continue
    let current: string | null = flashcard.folderID
    // Stops at the first folder already shown: its ancestors were shown with it
    while (current !== null && !shownFolders.has(current)) {
      shownFolders.add(current)
      current = (foldersById.get(current) as FolderNode).parentID
    }
  }
  for (const id of shownFolders) {
    const folder = foldersById.get(id) as FolderNode
    addMember(membersByParent, folder.parentID, { name: folder.name, index: arrayIndexOf(folder.name), isFolder: true, id })
  }

  return folderJson({ membersByParent, flashcardsById, cardsByFlashcard }, null)
}
