/**
 * Writes the folder tree of spec 2.2 as JSON text, from the library's nodes as the
 * repository reads them (folders and flashcards in one list) and the cards to show.
 *
 * The text is written directly rather than built as objects for JSON.stringify: names
 * are user data, and objects keyed by them ('__proto__', 'constructor') would need a null
 * prototype, which V8 keeps in its slow dictionary mode; writing the text is what keeps
 * get-today-cards' own time small. Every name and value is written as JSON.stringify
 * writes it. Folders are looked up by id once, into entries that link to their parent
 * and hold what they show; flashcards join their folder as they are given, so that a
 * tree of 500 flashcards makes no object per flashcard.
 *
 * Order of members: array-index names ('7', '2024') first, in numeric order, as a
 * JavaScript object (and so JSON.parse on the client) would put them; then by name,
 * comparing UTF-16 code units (the same on every machine, whatever its locale). Cards
 * keep the order they are given in (the caller's order: most overdue first, then new cards).
 */

/** The parentID of a top-level folder. */
export const TOP_LEVEL = ''

/**
 * A folder or a flashcard, in the fields the library stores: a flashcard's parent is
 * its folder, a top-level folder's is TOP_LEVEL.
 */
export interface LibraryNode {
  _id: string
  kind: 'folder' | 'flashcard'
  parentID: string
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
  /** the folder's id, named as a flashcard's is, so that members compare alike */
  _id: string
  name: string
  /** the name's value as an array index, or -1 (set once the folder is shown; a flashcard's is found when sorting) */
  index: number
  parentID: string | null
  /** the folder it hangs from, null at the top (set once placed) */
  parent: FolderEntry | null
  verdict: number
  shown: boolean
  members: Member[] | undefined
}

/** A folder's entry, or a flashcard as given. */
type Member = FolderEntry | LibraryNode

function isFolder (member: Member): member is FolderEntry {
  return (member as Partial<FolderEntry>).isFolder === true
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

function indexOf (member: Member): number {
  return isFolder(member) ? member.index : arrayIndexOf(member.name)
}

function byArrayIndex (a: Member, b: Member): number {
  const first = indexOf(a)
  const second = indexOf(b)
  if (first === second) return 0
  if (first === -1 || second === -1) return first === -1 ? 1 : -1
  return first - second
}

// Folders sort before a flashcard of the same name, and ids settle the rest, so the
// result does not depend on the order the database returned rows in
function compareMembers (a: Member, b: Member): number {
  return byArrayIndex(a, b) || byCodeUnits(a.name, b.name) ||
    (isFolder(a) === isFolder(b) ? 0 : isFolder(a) ? -1 : 1) ||
    byCodeUnits(a._id, b._id)
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
function flashcardJson (flashcard: LibraryNode, first: boolean, cards: WrittenCards): string {
  const { name } = flashcard
  const opening = cards.get(flashcard._id) ?? flashcardOpening(flashcard._id, '{}')
  if (NEEDS_ESCAPING.test(name)) {
    const quoted = text(name)
    return `${first ? '' : ','}${quoted}:${opening}${quoted}}`
  }
  // one piece fewer than a template opening with the separator
  return (first ? '"' : ',"') + name + '":' + opening + '"' + name + '"}'
}

function memberJson (member: Member, first: boolean, cards: WrittenCards): string {
  if (!isFolder(member)) return flashcardJson(member, first, cards)
  const value = folderJson(member.members, cards)
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

function folderJson (members: Member[] | undefined, cards: WrittenCards): string {
  if (members === undefined) return '{}'
  sortMembers(members)
  let json = '{'
  let previous: string | undefined
  for (const member of members) {
    // Names are unique under one parent; should the data ever say otherwise, the first in
    // order keeps the name rather than one silently replacing another (a node given twice
    // is one of these: same name, same parent)
    if (member.name === previous) continue
    json += memberJson(member, previous === undefined, cards)
    previous = member.name
  }
  return `${json}}`
}

/** Shows a member under its folder, or at the top. */
function addMember (top: Member[], parent: FolderEntry | null, member: Member): void {
  if (isFolder(member)) member.index = arrayIndexOf(member.name)
  if (parent === null) top.push(member)
  else if (parent.members === undefined) parent.members = [member]
  else parent.members.push(member)
}

/** Each flashcard that holds cards, as JSON up to its name (`{"cards":{…},"flashcardID":"…","flashcardName":`), by id. */
type WrittenCards = ReadonlyMap<string, string>

/**
 * The part of a tree that needs only the cards: each flashcard that holds some, written
 * up to its name, its cards in the order given. A repeated card id (never from the
 * database, where ids are unique) keeps its first place and its last values.
 */
function writeCards (cards: readonly CardLeaf[]): WrittenCards {
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
export function treeJson (nodes: readonly LibraryNode[], cards: readonly CardLeaf[], options: TreeOptions = {}): string {
  return treeJsonAround(nodes, writeCards(cards), options)
}

/** treeJson's second step: the folders and flashcards around the cards writeCards wrote. */
function treeJsonAround (nodes: readonly LibraryNode[], cards: WrittenCards, options: TreeOptions = {}): string {
  const includeEmpty = options.includeEmpty === true

  const foldersById = new Map<string, FolderEntry>()
  for (const node of nodes) {
    if (node.kind !== 'folder' || foldersById.has(node._id)) continue
    foldersById.set(node._id, {
      isFolder: true,
      _id: node._id,
      name: node.name,
      index: -1,
      parentID: node.parentID === TOP_LEVEL ? null : node.parentID,
      parent: null,
      verdict: UNJUDGED,
      shown: false,
      members: undefined
    })
  }
  placeFolders(foldersById)

  // Today's cards show only the branches that lead to a card; the library shows everything
  const top: Member[] = []
  for (const node of nodes) {
    if (node.kind !== 'flashcard' || (!includeEmpty && !cards.has(node._id))) continue
    const folder = foldersById.get(node.parentID)
    if (folder?.verdict !== PLACED) continue
    addMember(top, folder, node)
    // Stops at the first folder already shown: its ancestors were shown with it
    for (let shown: FolderEntry | null = folder; shown !== null && !shown.shown; shown = shown.parent) {
      shown.shown = true
      addMember(top, shown.parent, shown)
    }
  }
  if (includeEmpty) {
    for (const folder of foldersById.values()) {
      if (folder.verdict !== PLACED || folder.shown) continue
      folder.shown = true
      addMember(top, folder.parent, folder)
    }
  }

  return folderJson(top.length === 0 ? undefined : top, cards)
}
