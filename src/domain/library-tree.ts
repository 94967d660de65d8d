/**
 * Writes the folder tree of spec 2.2 as JSON text, from flat lists as the repositories
 * read them: folder name -> folder object, flashcard name -> { cards, flashcardID,
 * flashcardName }.
 *
 * The text is written directly rather than built as objects for JSON.stringify: names
 * are user data, and objects keyed by them ('__proto__', 'constructor') would need a null
 * prototype, which V8 keeps in its slow dictionary mode; writing the text is what keeps
 * get-today-cards' own time small. Every name and value is written as JSON.stringify
 * writes it. Folders and flashcards are looked up by id once, into entries that link to
 * their parent and hold what they show, so the tree is walked without further lookups.
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

/** A folder of the tree: its place, and what it shows. */
interface FolderEntry {
  isFolder: true
  id: string
  name: string
  /** the name's value as an array index, or -1 (set once the folder is shown) */
  index: number
  parentID: string | null
  /** the folder it hangs from, null at the top (set once placed) */
  parent: FolderEntry | null
  verdict: number
  shown: boolean
  members: Member[] | undefined
}

/** A flashcard of the tree and its cards, in the order given. */
interface FlashcardEntry {
  isFolder: false
  id: string
  name: string
  index: number
  folder: FolderEntry
  /** its JSON up to its name (flashcardOpening), if it has cards */
  opening: string | undefined
}

type Member = FolderEntry | FlashcardEntry

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

const UNJUDGED = 0
const VISITING = 1
const PLACED = 2
const UNPLACED = 3

/**
 * Judges which folders hang from the top through an unbroken chain of parents, and links
 * each placed folder to its parent. A folder whose parent is missing, or whose chain
 * loops, cannot be placed and is left out with all it holds.
 */
function placeFolders (folders: ReadonlyMap<string, FolderEntry>): void {
  const chain: FolderEntry[] = []
  for (const start of folders.values()) {
    // Walks up until the top, a folder already judged, a missing parent or a folder of
    // this same walk (a loop); every folder on the way shares the verdict
    chain.length = 0
    let current: FolderEntry | undefined = start
    let verdict = UNPLACED
    while (current !== undefined) {
      if (current.verdict !== UNJUDGED) {
        verdict = current.verdict === VISITING ? UNPLACED : current.verdict
        break
      }
      current.verdict = VISITING
      chain.push(current)
      if (current.parentID === null) {
        verdict = PLACED
        break
      }
      current = folders.get(current.parentID)
    }
    for (const folder of chain) folder.verdict = verdict
  }
  for (const folder of folders.values()) {
    if (folder.verdict === PLACED && folder.parentID !== null) folder.parent = folders.get(folder.parentID) as FolderEntry
  }
}

// Strings that JSON.stringify would write differently from "<the string>": quotes,
// backslashes, control characters and surrogates (a lone one is escaped)
// eslint-disable-next-line no-control-regex -- control characters are what it looks for
const NEEDS_ESCAPING = /["\\\u0000-\u001f\ud800-\udfff]/

/** A string as JSON; the plain quoting is a shortcut taken only where JSON.stringify would write the same. */
function text (value: string): string {
  return NEEDS_ESCAPING.test(value) ? JSON.stringify(value) : `"${value}"`
}

// The common case, where no value needs escaping, is written in one template that
// holds the separator too: each text() would leave strings of its own for the
// garbage collector
function cardJson (card: CardLeaf, first: boolean): string {
  const { id, last_review: lastReview, review_status: status } = card
  if (NEEDS_ESCAPING.test(id) || NEEDS_ESCAPING.test(lastReview) || NEEDS_ESCAPING.test(status)) {
    return `${first ? '' : ','}${text(id)}:{"last_review":${text(lastReview)},"review_status":${text(status)}}`
  }
  return `${first ? '' : ','}"${id}":{"last_review":"${lastReview}","review_status":"${status}"}`
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
  const unique = mayRepeatIds(cards) ? [...new Map(cards.map((card) => [card.id, card])).values()] : cards
  let json = '{'
  for (let i = 0; i < unique.length; i++) json += cardJson(unique[i] as CardLeaf, i === 0)
  return `${json}}`
}

/** A flashcard's JSON up to its name, which is all it needs of the flashcard but its id. */
function flashcardOpening (id: string, cards: string): string {
  if (NEEDS_ESCAPING.test(id)) return `{"cards":${cards},"flashcardID":${text(id)},"flashcardName":`
  return `{"cards":${cards},"flashcardID":"${id}","flashcardName":`
}

/** A flashcard as a member of its folder: its name, then what it holds. */
function flashcardJson (flashcard: FlashcardEntry, first: boolean): string {
  const { name } = flashcard
  const opening = flashcard.opening ?? flashcardOpening(flashcard.id, '{}')
  if (NEEDS_ESCAPING.test(name)) {
    const quoted = text(name)
    return `${first ? '' : ','}${quoted}:${opening}${quoted}}`
  }
  return `${first ? '' : ','}"${name}":${opening}"${name}"}`
}

function memberJson (member: Member, first: boolean): string {
  if (!member.isFolder) return flashcardJson(member, first)
  const value = folderJson(member.members)
  if (NEEDS_ESCAPING.test(member.name)) return `${first ? '' : ','}${text(member.name)}:${value}`
  return `${first ? '' : ','}"${member.name}":${value}`
}

/** Up to this many members, sorted in place by insertion: Array#sort sets up state (near 1 KB) per call. */
const INSERTION_SORT_LIMIT = 16

function sortMembers (members: Member[]): void {
  if (members.length > INSERTION_SORT_LIMIT) {
    members.sort(compareMembers)
    return
  }
  for (let i = 1; i < members.length; i++) {
    const member = members[i] as Member
    let j = i - 1
    for (; j >= 0 && compareMembers(members[j] as Member, member) > 0; j--) members[j + 1] = members[j] as Member
    members[j + 1] = member
  }
}

function folderJson (members: Member[] | undefined): string {
  if (members === undefined) return '{}'
  sortMembers(members)
  let json = '{'
  let previous: string | undefined
  for (const member of members) {
    // Names are unique under one parent; should the data ever say otherwise, the first in
    // order keeps the name rather than one silently replacing another
    if (member.name === previous) continue
    json += memberJson(member, previous === undefined)
    previous = member.name
  }
  return `${json}}`
}

/** Shows a member under its folder, or at the top. */
function addMember (top: Member[], parent: FolderEntry | null, member: Member): void {
  member.index = arrayIndexOf(member.name)
  if (parent === null) top.push(member)
  else if (parent.members === undefined) parent.members = [member]
  else parent.members.push(member)
}

/** Each flashcard that holds cards, as JSON up to its name (`{"cards":{…},"flashcardID":"…","flashcardName":`), by id. */
export type WrittenCards = ReadonlyMap<string, string>

/**
 * The part of a tree that needs only the cards: each flashcard that holds some, written
 * up to its name, its cards in the order given. A repeated card id (never from the
 * database, where ids are unique) keeps its first place and its last values.
 */
export function writeCards (cards: readonly CardLeaf[]): WrittenCards {
  const byFlashcard = new Map<string, CardLeaf[]>()
  for (const card of cards) {
    const held = byFlashcard.get(card.flashcardID)
    if (held === undefined) byFlashcard.set(card.flashcardID, [card])
    else held.push(card)
  }
  const written = new Map<string, string>()
  for (const [flashcardID, held] of byFlashcard) written.set(flashcardID, flashcardOpening(flashcardID, cardsJson(held)))
  return written
}

/** The tree of spec 2.2 as JSON text: the folders and flashcards, with the cards given. */
export function treeJson (
  folders: readonly FolderNode[],
  flashcards: readonly FlashcardNode[],
  cards: readonly CardLeaf[],
  options: TreeOptions = {}
): string {
  return treeJsonAround(folders, flashcards, writeCards(cards), options)
}

/** treeJson around cards already written (writeCards), for a caller that writes them sooner. */
export function treeJsonAround (
  folders: readonly FolderNode[],
  flashcards: readonly FlashcardNode[],
  cards: WrittenCards,
  options: TreeOptions = {}
): string {
  const includeEmpty = options.includeEmpty === true

  const foldersById = new Map<string, FolderEntry>()
  for (const folder of folders) {
    if (foldersById.has(folder.id)) continue
    foldersById.set(folder.id, {
      isFolder: true, id: folder.id, name: folder.name, index: -1, parentID: folder.parentID, parent: null, verdict: UNJUDGED, shown: false, members: undefined
    })
  }
  placeFolders(foldersById)

  const flashcardsById = new Map<string, FlashcardEntry>()
  for (const flashcard of flashcards) {
    const folder = foldersById.get(flashcard.folderID)
    if (folder?.verdict !== PLACED || flashcardsById.has(flashcard.id)) continue
    flashcardsById.set(flashcard.id, { isFolder: false, id: flashcard.id, name: flashcard.name, index: -1, folder, opening: cards.get(flashcard.id) })
  }

  // Today's cards show only the branches that lead to a card; the library shows everything
  const top: Member[] = []
  for (const flashcard of flashcardsById.values()) {
    if (!includeEmpty && flashcard.opening === undefined) continue
    addMember(top, flashcard.folder, flashcard)
    // Stops at the first folder already shown: its ancestors were shown with it
    for (let folder: FolderEntry | null = flashcard.folder; folder !== null && !folder.shown; folder = folder.parent) {
      folder.shown = true
      addMember(top, folder.parent, folder)
    }
  }
  if (includeEmpty) {
    for (const folder of foldersById.values()) {
      if (folder.verdict !== PLACED || folder.shown) continue
      folder.shown = true
      addMember(top, folder.parent, folder)
    }
  }

  return folderJson(top.length === 0 ? undefined : top)
}
