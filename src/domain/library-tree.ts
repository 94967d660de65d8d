/**
 * A user's folder tree, as it is stored: one nested value per user, folders
 * holding folders and flashcards, every name a value (never a key). The edits
 * below change a tree in place and refuse what the rules forbid. Each edit
 * also records what it changed, and where, in the tree's change log when it
 * has one: the caller reads the tree, edits it, and writes only those changes
 * back, in one update guarded by the version the tree was read at.
 */
import { Refusal } from './refusals.js'
import { cardTextProblem, MAX_CHILDREN, MAX_FOLDER_DEPTH } from './limits.js'
import { comparisonKey, nameProblem, quotedName } from './names.js'

export interface FlashcardNode {
  id: string
  name: string
  description: string
  /** the id of the Anki deck an Anki import made it of, which an export writes back; absent for the others (no answer shows it) */
  ankiID?: number
}

export interface FolderNode {
  id: string
  name: string
  folders: FolderNode[]
  flashcards: FlashcardNode[]
  /** the id of the Anki deck an Anki import made it of, as on a flashcard */
  ankiID?: number
}

export interface LibraryTree {
  /** the top-level folders; flashcards always sit in a folder */
  folders: FolderNode[]
  /**
   * When present, the tree is shared with readers (a version kept in memory)
   * and edited as a copy: an edit copies the lists and folders on the way to
   * what it changes (the rest stays shared) and records each change. Without
   * it, edits change the tree in place.
   */
  edit?: TreeEditLog
}

export interface TreeEditLog {
  /** what the edits changed, in order */
  changes: TreeChange[]
  /** the lists and folders already copied by this edit, which it may change */
  owned: WeakSet<object>
}

/** A log for editing `tree` as a copy (see LibraryTree.edit). */
export function editLog (): TreeEditLog {
  return { changes: [], owned: new WeakSet() }
}

/**
 * A list of the stored tree: the top-level folders, or the folders or the
 * flashcards of a folder. `folders` gives the positions, from the top, of the
 * folders leading to it, as they are in the tree as read: a change names
 * places as they were before any change, so that they can be written over
 * the version read.
 */
export interface ListPlace {
  folders: readonly number[]
  list: 'folders' | 'flashcards'
}

/** One change an edit made, at the places it made it. */
export type TreeChange =
  | { kind: 'rename', in: ListPlace, index: number, name: string, was: string }
  /** `index`: the list's length as read, where the node now is */
  | { kind: 'append', to: ListPlace, index: number, node: FolderNode | FlashcardNode }
  | { kind: 'remove', from: ListPlace, node: FolderNode | FlashcardNode }

function record (tree: LibraryTree, change: TreeChange): void {
  tree.edit?.changes.push(change)
}

/**
 * The list at `place`, to be changed: with an edit log, it and every list
 * and folder on the way to it are copied first (once), so that a tree shared
 * with readers never changes under them. Every list an edit changes is asked
 * for before any is changed: positions are those of the tree as read.
 */
function listToChange (tree: LibraryTree, place: ListPlace): Array<FolderNode | FlashcardNode> {
  const owned = tree.edit?.owned
  if (owned === undefined) return listAt(tree, place)
  const own = <T>(array: T[]): T[] => {
    if (owned.has(array)) return array
    const copy = [...array]
    owned.add(copy)
    return copy
  }
  tree.folders = own(tree.folders)
  let list = tree.folders
  let holder: FolderNode | null = null
  for (const index of place.folders) {
    let folder = list[index] as FolderNode
    if (!owned.has(folder)) {
      folder = { ...folder }
      owned.add(folder)
      list[index] = folder
    }
    folder.folders = own(folder.folders)
    holder = folder
    list = folder.folders
  }
  if (place.list === 'folders' || holder === null) return list
  holder.flashcards = own(holder.flashcards)
  return holder.flashcards
}

/** The list `place` names, in `tree`. */
export function listAt (tree: LibraryTree, place: ListPlace): Array<FolderNode | FlashcardNode> {
  let folder: FolderNode | LibraryTree = tree
  for (const index of place.folders) folder = folder.folders[index] as FolderNode
  return place.list === 'folders' || !('flashcards' in folder) ? folder.folders : folder.flashcards
}

/** The parent of a top-level folder, where an operation names a parent. */
export const TOP_LEVEL = ''

export function emptyTree (): LibraryTree {
  return { folders: [] }
}

/** Where a folder or flashcard sits: the folders above it, from the top, and its place among its siblings. */
interface Located<T> {
  node: T
  /** the folders from the top down to the one holding the node (empty for a top-level folder) */
  above: FolderNode[]
  /** the list that holds the node */
  place: ListPlace
  /** its position in that list */
  index: number
}

/** Visits every folder, from the top down, with the folders above it and its position: true from `visit` stops the walk. */
function walk (folders: readonly FolderNode[], above: FolderNode[], at: number[], visit: (folder: FolderNode, above: FolderNode[], at: number[], index: number) => boolean): boolean {
  for (const [index, folder] of folders.entries()) {
    if (visit(folder, above, at, index)) return true
    if (walk(folder.folders, [...above, folder], [...at, index], visit)) return true
  }
  return false
}

export function locateFolder (tree: LibraryTree, folderID: string): Located<FolderNode> | null {
  let found: Located<FolderNode> | null = null
  walk(tree.folders, [], [], (folder, above, at, index) => {
    if (folder.id === folderID) found = { node: folder, above, place: { folders: at, list: 'folders' }, index }
    return found !== null
  })
  return found
}

export function locateFlashcard (tree: LibraryTree, flashcardID: string): Located<FlashcardNode> | null {
  let found: Located<FlashcardNode> | null = null
  walk(tree.folders, [], [], (folder, above, at, folderIndex) => {
    const index = folder.flashcards.findIndex((candidate) => candidate.id === flashcardID)
    if (index !== -1) {
      found = { node: folder.flashcards[index] as FlashcardNode, above: [...above, folder], place: { folders: [...at, folderIndex], list: 'flashcards' }, index }
    }
    return found !== null
  })
  return found
}

function folderOf (tree: LibraryTree, folderID: string): Located<FolderNode> {
  const found = locateFolder(tree, folderID)
  if (found === null) throw new Refusal('folder_not_found', `no folder ${folderID}`)
  return found
}

function flashcardOf (tree: LibraryTree, flashcardID: string): Located<FlashcardNode> {
  const found = locateFlashcard(tree, flashcardID)
  if (found === null) throw new Refusal('flashcard_not_found', `no flashcard ${flashcardID}`)
  return found
}

export function namesOf (folders: readonly FolderNode[]): string[] {
  return folders.map((folder) => folder.name)
}

/** A path as a message shows it: each name quoted, its invisible characters escaped. */
export function describePath (path: readonly string[]): string {
  return path.map(quotedName).join(' / ')
}

/** A long path as a message shows it: its first and last names, with how many levels it has. */
function describeLongPath (path: readonly string[]): string {
  if (path.length <= 6) return describePath(path)
  return `${describePath(path.slice(0, 3))} / … / ${describePath(path.slice(-2))} (${path.length.toLocaleString('en')} levels)`
}

/** The refusal of a folder that would sit `depth` levels deep, past MAX_FOLDER_DEPTH. */
function tooDeep (path: readonly string[], depth: number): Refusal {
  return new Refusal('too_deep', `the folder ${describeLongPath(path)} would be ${depth.toLocaleString('en')} levels deep, and folders nest at most ${MAX_FOLDER_DEPTH} levels: use a shorter path`)
}

/** The folders and flashcards directly in a folder (or at the top), whatever their kind. */
function childCount (parent: FolderNode | LibraryTree): number {
  return parent.folders.length + ('flashcards' in parent ? parent.flashcards.length : 0)
}

/**
 * The member of `parent` whose name collides with `name` (compared by
 * comparisonKey, so "Spanish", "spanish" and "Spanish\u200b" collide), other
 * than `moving` itself, or null. Only this parent's members are compared, and
 * a member spelled exactly so is found without working out any key.
 */
function sameNamed (parent: FolderNode | LibraryTree, name: string, moving?: FolderNode | FlashcardNode): FolderNode | FlashcardNode | null {
  const members: Array<FolderNode | FlashcardNode> = 'flashcards' in parent ? [...parent.folders, ...parent.flashcards] : parent.folders
  const others = members.filter((member) => member !== moving)
  const exact = others.find((member) => member.name === name)
  if (exact !== undefined) return exact
  const key = comparisonKey(name)
  return others.find((member) => comparisonKey(member.name) === key) ?? null
}

/** Refuses a name that the rules of names.ts refuse: checked where a name is created or changed, never on names already stored. */
function checkNewName (name: string): void {
  const problem = nameProblem(name)
  if (problem !== null) throw new Refusal('invalid_name', problem)
}

/** Refuses one more folder or flashcard in a parent that holds MAX_CHILDREN already. */
function checkRoom (parent: FolderNode | LibraryTree, path: readonly string[]): void {
  if (childCount(parent) < MAX_CHILDREN) return
  throw new Refusal('folder_full', path.length === 0
    ? `there are already ${MAX_CHILDREN} top-level folders, the most allowed: put new folders inside existing ones`
    : `the folder ${describePath(path)} already holds ${MAX_CHILDREN} folders and flashcards, the most one folder may hold: use a subfolder, or move or delete some first`)
}

/** The refusal of `name` where `taken` is already there; it names the one there as it is stored. */
function nameTaken (name: string, taken: FolderNode | FlashcardNode): Refusal {
  const kind = 'folders' in taken ? 'folder' : 'flashcard'
  if (taken.name === name) {
    return new Refusal('name_taken', `a folder or flashcard named ${quotedName(name)} is already there; rename one of them first`)
  }
  return new Refusal('name_too_similar', `the name ${quotedName(name)} is too like that of the ${kind} ${quotedName(taken.name)} already there ` +
    '(names in one folder are compared regardless of case, width and invisible characters): use that one, or choose another name')
}

/** The folder at `path` (names from the top), or null; a flashcard on the way is not a folder. */
export function folderAtPath (tree: LibraryTree, path: readonly string[]): FolderNode | null {
  return placeOfPath(tree, path)?.folder ?? null
}

/** The folder at `path` with the positions of the folders leading to it, itself included; null when there is none. */
function placeOfPath (tree: LibraryTree, path: readonly string[]): { folder: FolderNode, at: number[] } | null {
  let parent: LibraryTree | FolderNode = tree
  let folder: FolderNode | null = null
  const at: number[] = []
  for (const name of path) {
    const index = parent.folders.findIndex((candidate) => candidate.name === name)
    if (index === -1) return null
    folder = parent.folders[index] as FolderNode
    at.push(index)
    parent = folder
  }
  return folder === null ? null : { folder, at }
}

/**
 * Creates the folders of `path` that are missing. `created` says whether the last one is new.
 * `ankiIDs[depth]`, where given, is the Anki deck id a folder made at that depth keeps (an Anki import's).
 */
export function createFolderPath (tree: LibraryTree, path: readonly string[], newId: () => string, ankiIDs: ReadonlyArray<number | undefined> = []): { folder: FolderNode, created: boolean, added: number } {
  let parent: LibraryTree | FolderNode = tree
  let folder: FolderNode | undefined
  let added = 0
  const at: number[] = []
  for (const [depth, name] of path.entries()) {
    // an existing folder is found by its exact name, whatever rules came in after it was made
    const index: number = parent.folders.findIndex((candidate) => candidate.name === name)
    folder = parent.folders[index]
    if (folder === undefined) {
      if ('flashcards' in parent && parent.flashcards.some((flashcard) => flashcard.name === name)) {
        throw new Refusal('not_a_folder', `${describePath(path.slice(0, depth + 1))} is a flashcard, not a folder: choose another name for the folder`)
      }
      // a folder stored deeper before this limit stays reachable; no new one is made past it
      if (depth + 1 > MAX_FOLDER_DEPTH) throw tooDeep(path, path.length)
      checkNewName(name)
      const taken = sameNamed(parent, name)
      if (taken !== null) throw nameTaken(name, taken)
      checkRoom(parent, path.slice(0, depth))
      const ankiID = ankiIDs[depth]
      folder = { id: newId(), name, folders: [], flashcards: [], ...(ankiID === undefined ? {} : { ankiID }) }
      if (added === 0) {
        // the first folder made holds the others: it alone is a change to the tree as read
        const place: ListPlace = { folders: [...at], list: 'folders' }
        const list = listToChange(tree, place)
        record(tree, { kind: 'append', to: place, index: list.length, node: folder })
        list.push(folder)
      } else {
        parent.folders.push(folder)
      }
      added += 1
    }
    at.push(index === -1 ? parent.folders.length - 1 : index)
    parent = folder
  }
  if (folder === undefined) throw new Refusal('invalid_field', 'a folder path names at least one folder: send ["Folder"] or a longer path')
  return { folder, created: added > 0, added }
}

/** Puts a new flashcard in the existing folder at `path`. */
export function addFlashcard (tree: LibraryTree, path: readonly string[], flashcard: FlashcardNode): void {
  const found = placeOfPath(tree, path)
  if (found === null) throw new Refusal('folder_not_found', `no folder ${describePath(path)}: create it first with create-folder`)
  const { folder, at } = found
  checkNewName(flashcard.name)
  const problem = cardTextProblem('the description', flashcard.description)
  if (problem !== null) throw new Refusal('invalid_field', `${problem}: shorten it`)
  const taken = sameNamed(folder, flashcard.name)
  if (taken?.name === flashcard.name) throw new Refusal('name_taken', `${describePath([...path, flashcard.name])} already exists: choose another name, or add cards to it with add-cards`)
  if (taken !== null) throw nameTaken(flashcard.name, taken)
  checkRoom(folder, path)
  const place: ListPlace = { folders: at, list: 'flashcards' }
  const list = listToChange(tree, place)
  record(tree, { kind: 'append', to: place, index: list.length, node: flashcard })
  list.push(flashcard)
}

/**
 * Gives a folder or flashcard a new name, unless another member of its folder
 * has one like it; another spelling of its own name ("spanish" for
 * "Spanish") is free. Its own name again changes nothing and is never
 * refused, even where stored siblings already collide.
 */
function rename (tree: LibraryTree, { node, above, place, index }: Located<FolderNode | FlashcardNode>, name: string): void {
  if (node.name === name) return
  checkNewName(name)
  const taken = sameNamed(above.at(-1) ?? tree, name, node)
  if (taken !== null) throw nameTaken(name, taken)
  listToChange(tree, place)[index] = { ...node, name }
  record(tree, { kind: 'rename', in: place, index, name, was: node.name })
}

/** Renames a folder; the path of names to it, renamed. */
export function renameFolder (tree: LibraryTree, folderID: string, name: string): string[] {
  const located = folderOf(tree, folderID)
  rename(tree, located, name)
  return [...namesOf(located.above), name]
}

export function renameFlashcard (tree: LibraryTree, flashcardID: string, name: string): void {
  rename(tree, flashcardOf(tree, flashcardID), name)
}

/** How many levels of folders a folder holds below itself. */
export function levelsBelow (folder: FolderNode): number {
  return folder.folders.reduce((deepest, child) => Math.max(deepest, 1 + levelsBelow(child)), 0)
}

function detach<T extends { id: string }> (siblings: T[], id: string): void {
  siblings.splice(siblings.findIndex((sibling) => sibling.id === id), 1)
}

/**
 * Moves a folder, with everything in it, into another folder or to the top
 * (TOP_LEVEL); never into itself or below itself. The folder's new path.
 */
export function moveFolder (tree: LibraryTree, folderID: string, parentID: string): string[] {
  const { node: folder, above, place } = folderOf(tree, folderID)
  let parent: LibraryTree | FolderNode = tree
  let parentPath: string[] = []
  let into: ListPlace = { folders: [], list: 'folders' }
  if (parentID !== TOP_LEVEL) {
    if (parentID === folderID) throw new Refusal('invalid_move', 'a folder cannot be moved into itself: choose another folder, or "" for the top level')
    const target = folderOf(tree, parentID)
    if (target.above.includes(folder)) throw new Refusal('invalid_move', 'a folder cannot be moved into one of its own subfolders: choose a folder outside it')
    parent = target.node
    parentPath = [...namesOf(target.above), target.node.name]
    into = { folders: [...target.place.folders, target.index], list: 'folders' }
  }
  // every folder stays reachable by a path create-flashcard and create-folder accept
  const depth = parentPath.length + 1 + levelsBelow(folder)
  if (depth > MAX_FOLDER_DEPTH) {
    throw new Refusal('too_deep', `the move would put folders ${depth} levels deep; at most ${MAX_FOLDER_DEPTH} are allowed`)
  }
  const from = above.at(-1) ?? tree
  if (from !== parent) {
    checkRoom(parent, parentPath)
    const taken = sameNamed(parent, folder.name)
    if (taken !== null) throw nameTaken(folder.name, taken)
    const [fromList, intoList] = [listToChange(tree, place), listToChange(tree, into)]
    record(tree, { kind: 'remove', from: place, node: folder })
    record(tree, { kind: 'append', to: into, index: intoList.length, node: folder })
    detach(fromList, folderID)
    intoList.push(folder)
  }
  return [...parentPath, folder.name]
}

/** Moves a flashcard, with its cards, into another folder. The folder's path. */
export function moveFlashcard (tree: LibraryTree, flashcardID: string, folderID: string): string[] {
  const { node: flashcard, above, place } = flashcardOf(tree, flashcardID)
  const target = folderOf(tree, folderID)
  const path = [...namesOf(target.above), target.node.name]
  const from = above.at(-1) as FolderNode
  if (from !== target.node) {
    checkRoom(target.node, path)
    const taken = sameNamed(target.node, flashcard.name)
    if (taken !== null) throw nameTaken(flashcard.name, taken)
    const into: ListPlace = { folders: [...target.place.folders, target.index], list: 'flashcards' }
    const [fromList, intoList] = [listToChange(tree, place), listToChange(tree, into)]
    record(tree, { kind: 'remove', from: place, node: flashcard })
    record(tree, { kind: 'append', to: into, index: intoList.length, node: flashcard })
    detach(fromList, flashcardID)
    intoList.push(flashcard)
  }
  return path
}

/** Every flashcard id at or below the folders given. */
export function flashcardIDsIn (folders: readonly FolderNode[]): string[] {
  const ids: string[] = []
  walk(folders, [], [], (folder) => {
    for (const flashcard of folder.flashcards) ids.push(flashcard.id)
    return false
  })
  return ids
}

/** Each flashcard asked for that the tree holds, with its name and the names of the folders above it: one walk of the tree. */
export function flashcardsWithPaths (tree: LibraryTree, flashcardIDs: Iterable<string>): Map<string, { name: string, folder: string[] }> {
  const wanted = new Set(flashcardIDs)
  const found = new Map<string, { name: string, folder: string[] }>()
  if (wanted.size === 0) return found
  walk(tree.folders, [], [], (folder, above) => {
    for (const flashcard of folder.flashcards) {
      if (wanted.has(flashcard.id)) found.set(flashcard.id, { name: flashcard.name, folder: namesOf([...above, folder]) })
    }
    return found.size === wanted.size
  })
  return found
}

/** Counts folders at or below the folders given. */
function folderCount (folders: readonly FolderNode[]): number {
  let count = 0
  walk(folders, [], [], () => { count += 1; return false })
  return count
}

/** Takes a folder out, with everything in it: what went, so its cards can go too. */
export function removeFolder (tree: LibraryTree, folderID: string): { folders: number, flashcardIDs: string[] } {
  const { node, place } = folderOf(tree, folderID)
  detach(listToChange(tree, place), folderID)
  record(tree, { kind: 'remove', from: place, node })
  return { folders: folderCount([node]), flashcardIDs: flashcardIDsIn([node]) }
}

export function removeFlashcard (tree: LibraryTree, flashcardID: string): void {
  const { node, place } = flashcardOf(tree, flashcardID)
  detach(listToChange(tree, place), flashcardID)
  record(tree, { kind: 'remove', from: place, node })
}

/** A flashcard with the names of the folders above it, or a 404 refusal. */
export function flashcardWithPath (tree: LibraryTree, flashcardID: string): { flashcard: FlashcardNode, folder: string[] } {
  const { node, above } = flashcardOf(tree, flashcardID)
  return { flashcard: node, folder: namesOf(above) }
}

/** The folders and flashcards of a tree, together. */
export function nodeCount (tree: LibraryTree): number {
  let count = 0
  walk(tree.folders, [], [], (folder) => { count += 1 + folder.flashcards.length; return false })
  return count
}

/** A card as the published tree of today's cards (docs/interface.md) shows it, with the flashcard that holds it. */
export interface CardLeaf {
  id: string
  flashcardID: string
  /** DD/MM/YYYY */
  last_review: string
  review_status: string
  /** more members after those two (get-all-cards gives the card's text); today's cards have none, as the published interface says */
  content?: Readonly<Record<string, string | undefined>>
}

export interface TreeOptions {
  /** Keep folders and flashcards that hold no card (the whole library); default false. */
  includeEmpty?: boolean
}

type JsonObject = Record<string, unknown>

function byCodeUnits (a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

/**
 * An object keyed by user names. With no prototype, a name such as
 * "__proto__" is a member like any other. Members are added in the order of
 * their names' UTF-16 code units (the same on every machine); a JavaScript
 * object, and so JSON.stringify and the client's JSON.parse, puts names that
 * are array indices ("7", "2024") first, in numeric order.
 */
function membersObject (members: Array<[string, unknown]>): JsonObject {
  members.sort(([a], [b]) => byCodeUnits(a, b))
  const object = Object.create(null) as JsonObject
  // names are unique among siblings; should stored data ever say otherwise, the first keeps the name (a folder before a flashcard)
  for (const [name, value] of members) if (!(name in object)) object[name] = value
  return object
}

/** What a tree shows of a card, under its id: where it stands, then its content when it has one. */
export function treeCardValue (card: CardLeaf): JsonObject {
  return card.content === undefined
    ? { last_review: card.last_review, review_status: card.review_status }
    : { last_review: card.last_review, review_status: card.review_status, ...card.content }
}

/**
 * The published tree of today's cards (docs/interface.md) as JSON text: the folders and flashcards that hold the
 * cards given (every one of them with `includeEmpty`), each flashcard with its
 * cards in the order given. A repeated card id keeps its first place and its
 * last values.
 */
export function treeJson (tree: LibraryTree, cards: readonly CardLeaf[], options: TreeOptions = {}): string {
  const includeEmpty = options.includeEmpty === true
  const cardsByFlashcard = new Map<string, JsonObject>()
  for (const card of cards) {
    let ofFlashcard = cardsByFlashcard.get(card.flashcardID)
    if (ofFlashcard === undefined) {
      ofFlashcard = Object.create(null) as JsonObject
      cardsByFlashcard.set(card.flashcardID, ofFlashcard)
    }
    ofFlashcard[card.id] = treeCardValue(card)
  }

  function folderValue (folder: FolderNode | LibraryTree): JsonObject | null {
    const members: Array<[string, unknown]> = []
    for (const child of folder.folders) {
      const value = folderValue(child)
      if (value !== null) members.push([child.name, value])
    }
    if ('flashcards' in folder) {
      for (const flashcard of folder.flashcards) {
        const ofFlashcard = cardsByFlashcard.get(flashcard.id)
        if (ofFlashcard === undefined && !includeEmpty) continue
        members.push([flashcard.name, { cards: ofFlashcard ?? {}, flashcardID: flashcard.id, flashcardName: flashcard.name }])
      }
    }
    if (members.length === 0 && !includeEmpty) return null
    return membersObject(members)
  }

  return JSON.stringify(folderValue(tree) ?? {})
}

/** A folder or flashcard of the earlier storage: one record each, pointing at its parent. */
export interface ParentLinkedNode {
  _id: string
  kind: 'folder' | 'flashcard'
  /** a flashcard's folder; TOP_LEVEL for a top-level folder */
  parentID: string
  name: string
  description?: string
}

/** The top-level folder that takes in records whose place in the earlier storage was lost. */
export const RECOVERED_FOLDER = 'Recovered'

/** `name`, or `name (2)`, `name (3)`... : the first that none of `taken` has. */
function freeName (name: string, taken: ReadonlySet<string>): string {
  let candidate = name
  for (let n = 2; taken.has(candidate); n++) candidate = `${name} (${n})`
  return candidate
}

/**
 * Builds a tree from parent-linked records. Every record finds a place: a
 * record whose parent is missing or is a flashcard, a flashcard at the top,
 * a folder that would nest past MAX_FOLDER_DEPTH (with what it holds), and a
 * chain of folders whose parents loop, go under a new top-level folder
 * RECOVERED_FOLDER (its id made by `newId`), where the user can see them and
 * move or delete them. `recovered` counts the records placed there; the
 * folder itself exists only when that count is above zero. A name met twice
 * among one parent's children gets a suffix (" (2)") rather than hiding one.
 */
export function treeFromNodes (nodes: readonly ParentLinkedNode[], newId: () => string = () => ''): { tree: LibraryTree, recovered: number } {
  const folders = new Map<string, FolderNode>()
  const children = new Map<string, ParentLinkedNode[]>()
  for (const node of nodes) {
    if (node.kind === 'folder') folders.set(node._id, { id: node._id, name: node.name, folders: [], flashcards: [] })
    const siblings = children.get(node.parentID)
    if (siblings === undefined) children.set(node.parentID, [node])
    else siblings.push(node)
  }
  const placed = new Set<string>()
  const namesIn = new Map<FolderNode | LibraryTree, Set<string>>()
  /** the level of each folder placed (a top-level folder is at 1) */
  const levels = new Map<FolderNode | LibraryTree, number>()
  /** Puts a record in `parent`, then everything below it, from the top down (so a loop is never walked). */
  function place (node: ParentLinkedNode, parent: FolderNode | LibraryTree): void {
    const pending: Array<[ParentLinkedNode, FolderNode | LibraryTree]> = [[node, parent]]
    for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
      const [record, into] = next
      if (placed.has(record._id)) continue
      const folder = record.kind === 'folder' ? folders.get(record._id) : undefined
      if (folder === undefined && !('flashcards' in into)) continue
      const level = (levels.get(into) ?? 0) + 1
      // a folder deeper than folders may nest is left for the recovered folder, where it starts again near the top
      if (folder !== undefined && level > MAX_FOLDER_DEPTH) continue
      placed.add(record._id)
      let taken = namesIn.get(into)
      if (taken === undefined) namesIn.set(into, taken = new Set())
      const name = freeName(record.name, taken)
      taken.add(name)
      if (folder !== undefined) {
        folder.name = name
        levels.set(folder, level)
        into.folders.push(folder)
        // in reverse, so that they are taken in the order given: where two share a name, the first keeps it
        for (const child of [...(children.get(record._id) ?? [])].reverse()) pending.push([child, folder])
      } else if ('flashcards' in into) {
        into.flashcards.push({ id: record._id, name, description: record.description ?? '' })
      }
    }
  }

  const tree = emptyTree()
  for (const node of children.get(TOP_LEVEL) ?? []) if (node.kind === 'folder') place(node, tree)
  const left = nodes.filter((node) => !placed.has(node._id))
  if (left.length === 0) return { tree, recovered: 0 }

  const recovered: FolderNode = { id: newId(), name: freeName(RECOVERED_FOLDER, new Set(namesOf(tree.folders))), folders: [], flashcards: [] }
  tree.folders.push(recovered)
  levels.set(recovered, 1)
  // first the records whose parent is not a folder waiting for its place, with all below them;
  // what is left after that hangs in loops: each loop is cut at one of its folders
  for (const node of left) {
    if (!(folders.has(node.parentID) && !placed.has(node.parentID))) place(node, recovered)
  }
  // and what a place in there would put past the folder depth starts again at its top, until every record has its place
  for (let unplaced = left.filter((node) => !placed.has(node._id)); unplaced.length > 0; unplaced = unplaced.filter((node) => !placed.has(node._id))) {
    for (const node of unplaced) place(node, recovered)
  }
  return { tree, recovered: left.length }
}
