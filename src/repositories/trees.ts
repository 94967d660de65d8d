import { BSON, type ClientSession, type Db, type UpdateFilter } from 'mongodb'
import { Refusal } from '../domain/refusals.js'
import { editLog, listAt, type FolderNode, type LibraryTree, type ListPlace, type TreeChange, type TreeEditLog } from '../domain/library-tree.js'
import { MAX_FOLDER_DEPTH, MAX_TREE_BYTES } from '../domain/limits.js'
import { refusingDuplicates } from './duplicate-key.js'
import { treeCache, type KeptTree, type TreeCache } from './tree-cache.js'

/** One user's folder tree: one document per user, its `_id` the userID. */
export interface TreeDocument {
  _id: string
  /** as on every document of a user: account deletion and sharding go by it */
  userID: string
  /** bumped by every edit: an edit is written only over the version it was made from */
  version: number
  folders: FolderNode[]
}

/** A tree as read, with the version an edit of it must be written over and its size as stored. */
export interface StoredTree extends LibraryTree {
  version: number
  bytes: number
}

/** A tree being edited: its edits copy what they change and record it, and `save` writes what they recorded. */
export interface EditedTree extends StoredTree {
  edit: TreeEditLog
}

function changedMeanwhile (): Refusal {
  return new Refusal('changed_meanwhile', 'another request changed the library at the same time; read it again and retry')
}

/** The dotted path of a list of the stored document: `folders`, `folders.3.flashcards`, `folders.3.folders.7.folders`... */
function pathOf (place: ListPlace): string {
  return [...place.folders.flatMap((index) => ['folders', String(index)]), place.list].join('.')
}

/** Whether two update paths touch the same part of the document (one is the other or holds it), which one update may not do. */
function overlap (a: string, b: string): boolean {
  return a === b || a.startsWith(`${b}.`) || b.startsWith(`${a}.`)
}

interface Updates { $set: Record<string, unknown>, $pull: Record<string, unknown> }

interface Operation {
  /** what the operation writes */
  path: string
  /** the list it changes, or the list holding the folder or flashcard it renames */
  list: ListPlace
  apply: (update: Updates) => void
}

/**
 * The changes of an edit as one update of the stored document: a new name
 * is set where it is, a new folder or flashcard set at the end of its list,
 * a removed one pulled by its id. Nothing else of the document is sent, so
 * the database writes only what changed where it can (MongoDB does). Two
 * changes to overlapping places (a folder moved into a folder beside it, or
 * to or from the top) become one: the list holding both is set, as the
 * edited tree has it.
 */
function updateOf (tree: EditedTree): UpdateFilter<TreeDocument> {
  let operations: Operation[] = tree.edit.changes.map((change): Operation => {
    switch (change.kind) {
      case 'rename': {
        const path = `${pathOf(change.in)}.${change.index}.name`
        return { path, list: change.in, apply: (update) => { update.$set[path] = change.name } }
      }
      case 'append': {
        // set at the list's end rather than pushed: the embedded database does less for it
        const path = `${pathOf(change.to)}.${change.index}`
        return { path, list: change.to, apply: (update) => { update.$set[path] = change.node } }
      }
      case 'remove': {
        const path = pathOf(change.from)
        const left = listAt(tree, change.from)
        // a short list is set as it is left: on the embedded database a $pull costs more than
        // the whole list; a long one (the top level, a big folder) is pulled from, not sent
        if (BSON.calculateObjectSize({ left }) <= SET_WHOLE_LIST_BYTES) {
          return { path, list: change.from, apply: (update) => { update.$set[path] = left } }
        }
        return { path, list: change.from, apply: (update) => { update.$pull[path] = { id: change.node.id } } }
      }
    }
  })
  for (let merging = true; merging;) {
    merging = false
    for (const [i, a] of operations.entries()) {
      const j = operations.findIndex((b, k) => k > i && overlap(a.path, b.path))
      if (j === -1) continue
      const b = operations[j] as Operation
      // the list that holds both, set whole as the edited tree has it (the top level holds everything)
      const list = [a.list, b.list].find((candidate) => {
        const path = pathOf(candidate)
        return overlap(path, a.path) && overlap(path, b.path) && path.length <= Math.min(a.path.length, b.path.length)
      }) ?? { folders: [], list: 'folders' }
      const path = pathOf(list)
      operations = [...operations.filter((_, k) => k !== i && k !== j), { path, list, apply: (update) => { update.$set[path] = listAt(tree, list) } }]
      merging = true
      break
    }
  }
  const update: Updates = { $set: {}, $pull: {} }
  for (const operation of operations) operation.apply(update)
  return Object.fromEntries(Object.entries(update).filter(([, fields]) => Object.keys(fields).length > 0))
}

/**
 * The deepest level of folders the changes put anything at (a top-level folder is level 1), counted
 * without recursion and no further than one past `limit`: what the edits of domain/library-tree.ts
 * refuse, checked again where every tree edit is stored, whichever door it came by.
 */
function deepestAppended (changes: readonly TreeChange[], limit: number): number {
  let deepest = 0
  for (const change of changes) {
    if (change.kind !== 'append' || change.to.list !== 'folders') continue
    const pending: Array<[FolderNode, number]> = [[change.node as FolderNode, change.to.folders.length + 1]]
    for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
      const [folder, level] = next
      deepest = Math.max(deepest, level)
      if (level > limit) return deepest
      for (const child of folder.folders) pending.push([child, level + 1])
    }
  }
  return deepest
}

/** A list left this small by a removal is written whole rather than pulled from (see updateOf). */
const SET_WHOLE_LIST_BYTES = 64 * 1024

/** How many stored bytes the changes add (or take away, when negative). */
function bytesAdded (changes: readonly TreeChange[]): number {
  let added = 0
  for (const change of changes) {
    if (change.kind === 'rename') added += Buffer.byteLength(change.name) - Buffer.byteLength(change.was)
    // a list member: the node and its index key in the list
    else if (change.kind === 'append') added += BSON.calculateObjectSize({ 0: change.node }) - 5
    else added -= BSON.calculateObjectSize({ 0: change.node }) - 5
  }
  return added
}

/**
 * Trees: one document per user. `cache` keeps large trees by version for
 * this instance (see tree-cache.ts); it is shared by every repository the
 * instance makes.
 */
export function treesRepository (db: Db, session?: ClientSession, cache: TreeCache = treeCache()) {
  const trees = db.collection<TreeDocument>('trees')

  /** The stored version of the user's tree, 0 before the first folder. */
  async function storedVersion (userID: string): Promise<number> {
    return (await trees.findOne({ _id: userID }, { projection: { _id: 0, version: 1 }, session }))?.version ?? 0
  }

  async function readWhole (userID: string): Promise<KeptTree> {
    const stored = await trees.findOne({ _id: userID }, { session })
    if (stored === null) return { version: 0, folders: [], bytes: 0 }
    return { version: stored.version, folders: stored.folders, bytes: BSON.calculateObjectSize(stored) }
  }

  return {
    /**
     * The user's tree, to read and not to change: an empty one (version 0)
     * before the first folder. A large tree kept at the stored version costs
     * only the reading of that version.
     */
    async read (userID: string): Promise<StoredTree> {
      if (cache.has(userID)) {
        const kept = cache.get(userID, await storedVersion(userID))
        if (kept !== undefined) return kept
      }
      const tree = await readWhole(userID)
      cache.put(userID, tree)
      return tree
    },

    /**
     * The user's tree, to edit and then `save`. A kept tree is shared with
     * readers: edits copy only what they change (see LibraryTree.edit).
     */
    async openForEdit (userID: string): Promise<EditedTree> {
      const kept = cache.has(userID) ? cache.get(userID, await storedVersion(userID)) : undefined
      return { ...(kept ?? await readWhole(userID)), edit: editLog() }
    },

    /**
     * Writes the edit's changes in one update, only over the version the
     * tree was read at, and bumps the version; a concurrent edit (which the
     * user's transaction rules out) makes it a conflict. An edit that takes a
     * tree past MAX_TREE_BYTES is refused before it is sent, unless the tree
     * shrinks: one already past it (as a migration may leave it) must still
     * let the user delete or shorten. Nothing is written for an edit that
     * changed nothing. The tree is then the stored one at its new version.
     */
    async save (userID: string, tree: EditedTree): Promise<void> {
      const { changes } = tree.edit
      if (changes.length === 0) return
      const depth = deepestAppended(changes, MAX_FOLDER_DEPTH)
      if (depth > MAX_FOLDER_DEPTH) {
        throw new Refusal('too_deep', `the edit would put folders more than ${MAX_FOLDER_DEPTH} levels deep, the most allowed: use a shorter path`)
      }
      const added = bytesAdded(changes)
      if (added > 0 && tree.bytes + added > MAX_TREE_BYTES) {
        throw new Refusal('library_too_large', `the library's folders and flashcards would take more than ${MAX_TREE_BYTES / 1024 / 1024} MiB of names and descriptions, the most one account may hold: shorten or delete some first`)
      }
      // no document yet: the first edit writes the whole (small) tree, as a list set by position would make an object of it
      const update = tree.version === 0 ? { $set: { folders: tree.folders } } : updateOf(tree)
      const result = await refusingDuplicates(
        // the first edit creates the document; a concurrent first edit clashes on _id
        () => trees.updateOne(
          { _id: userID, version: tree.version },
          { ...update, $inc: { version: 1 }, ...(tree.version === 0 ? { $setOnInsert: { userID } } : {}) },
          { upsert: tree.version === 0, session }
        ),
        changedMeanwhile
      )
      if (result.matchedCount === 0 && result.upsertedCount === 0) throw changedMeanwhile()
      tree.version += 1
      tree.bytes = tree.version === 1 ? BSON.calculateObjectSize({ _id: userID, userID, version: 1, folders: tree.folders }) : tree.bytes + added
      tree.edit = editLog()
    },

    /** After the transaction that saved it has committed: the tree is the stored one at its version, worth keeping. */
    committed (userID: string, tree: StoredTree): void {
      cache.put(userID, { version: tree.version, folders: tree.folders, bytes: tree.bytes })
    }
  }
}

export type TreesRepository = ReturnType<typeof treesRepository>
