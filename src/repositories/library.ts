import type { AnyBulkWriteOperation, ClientSession, Db } from 'mongodb'
import { TOP_LEVEL, type LibraryNode } from '../domain/library-tree.js'
import { MAX_LIBRARY_ANSWER, oneBatch } from './batches.js'
import { isDuplicateKey } from './users.js'

/**
 * The user's folder tree: one document per folder and per flashcard, each
 * pointing at its parent. Folders and flashcards share one collection so that
 * a single unique index keeps every name unique among its siblings, whatever
 * their kind, even under concurrent requests.
 */
export interface LibraryNodeDocument extends LibraryNode {
  userID: string
  /** ids of the folders above, from the top; lets a subtree be found with one indexed query */
  ancestors: string[]
  description?: string
  createdAt: Date
}

export { TOP_LEVEL }

export class NameTakenError extends Error {
  override name = 'NameTakenError'
}

/** Where a node of a moved subtree now hangs. */
export interface AncestorsChange {
  id: string
  ancestors: string[]
}

export function libraryRepository (db: Db, session?: ClientSession) {
  const library = db.collection<LibraryNodeDocument>('library')
  const inSession = { session }

  /** Runs an update that may give a node a name its new siblings already have. */
  async function renaming<T> (name: string, update: () => Promise<T>): Promise<T> {
    try {
      return await update()
    } catch (error) {
      if (isDuplicateKey(error)) throw new NameTakenError(name)
      throw error
    }
  }

  return {
    async insert (node: LibraryNodeDocument): Promise<void> {
      try {
        await library.insertOne(node, inSession)
      } catch (error) {
        if (isDuplicateKey(error)) throw new NameTakenError(node.name)
        throw error
      }
    },

    /** index user_parent_name */
    findChild (userID: string, parentID: string, name: string): Promise<LibraryNodeDocument | null> {
      return library.findOne({ userID, parentID, name }, inSession)
    },

    /** How many folders and flashcards hang directly under a parent, counting no further than `upTo`. Index user_parent_name (its prefix). */
    countChildren (userID: string, parentID: string, upTo: number): Promise<number> {
      return library.countDocuments({ userID, parentID }, { limit: upTo, session })
    },

    findNode (userID: string, id: string): Promise<LibraryNodeDocument | null> {
      return library.findOne({ _id: id, userID }, inSession)
    },

    findFlashcard (userID: string, flashcardID: string): Promise<LibraryNodeDocument | null> {
      return library.findOne({ _id: flashcardID, userID, kind: 'flashcard' }, inSession)
    },

    findFolder (userID: string, folderID: string): Promise<LibraryNodeDocument | null> {
      return library.findOne({ _id: folderID, userID, kind: 'folder' }, inSession)
    },

    /** Names of the nodes asked for, by id; a path is read in one round trip from a node's ancestors. */
    async namesOf (userID: string, ids: readonly string[]): Promise<Map<string, string>> {
      if (ids.length === 0) return new Map()
      const nodes = await library.find({ userID, _id: { $in: [...ids] } }, { projection: { _id: 1, name: 1 }, session }).toArray()
      return new Map(nodes.map((node) => [node._id, node.name]))
    },

    /** Everything below a folder, at any depth. Index user_ancestors. */
    subtree (userID: string, folderID: string): Promise<Array<Pick<LibraryNodeDocument, '_id' | 'kind' | 'ancestors'>>> {
      return library.find({ userID, ancestors: folderID }, { projection: { _id: 1, kind: 1, ancestors: 1 }, session }).toArray()
    },

    /** Renames a folder or flashcard; false when there is no such node. Throws NameTakenError on a sibling's name. */
    async rename (userID: string, id: string, kind: LibraryNodeDocument['kind'], name: string): Promise<boolean> {
      const result = await renaming(name, () => library.updateOne({ _id: id, userID, kind }, { $set: { name } }, inSession))
      return result.matchedCount === 1
    },

    /**
     * Hangs a node under another parent, only while it still hangs where it was
     * read (compare-and-set on parentID): false when another request moved or
     * deleted it first. Throws NameTakenError on a new sibling's name.
     */
    async move (node: LibraryNodeDocument, parentID: string, ancestors: string[]): Promise<boolean> {
      const result = await renaming(node.name, () => library.updateOne(
        { _id: node._id, userID: node.userID, parentID: node.parentID },
        { $set: { parentID, ancestors } },
        inSession
      ))
      return result.matchedCount === 1
    },

    /** Rewrites the ancestors of the nodes of a moved subtree, one $set each, in one round trip. */
    async setAncestors (userID: string, changes: readonly AncestorsChange[]): Promise<void> {
      if (changes.length === 0) return
      const operations: Array<AnyBulkWriteOperation<LibraryNodeDocument>> = changes.map(({ id, ancestors }) => ({
        updateOne: { filter: { _id: id, userID }, update: { $set: { ancestors } } }
      }))
      await library.bulkWrite(operations, { ordered: false, session })
    },

    async remove (userID: string, id: string): Promise<void> {
      await library.deleteOne({ _id: id, userID }, inSession)
    },

    /** Removes the nodes asked for; how many were there. */
    async removeMany (userID: string, ids: readonly string[]): Promise<number> {
      if (ids.length === 0) return 0
      return (await library.deleteMany({ userID, _id: { $in: [...ids] } }, inSession)).deletedCount
    },

    /** Every folder and flashcard of the user, in one batch: what a tree needs of them. Index user_kind (prefix). */
    allNodes (userID: string): Promise<LibraryNode[]> {
      return library.find({ userID }, { projection: { _id: 1, kind: 1, parentID: 1, name: 1 }, ...oneBatch(MAX_LIBRARY_ANSWER), session }).toArray()
    }
  }
}

export type LibraryRepository = ReturnType<typeof libraryRepository>
