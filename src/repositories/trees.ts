import { BSON, type ClientSession, type Db } from 'mongodb'
import { DomainError } from '../domain/errors.js'
import { emptyTree, type FolderNode, type LibraryTree } from '../domain/library-tree.js'
import { MAX_TREE_BYTES } from '../domain/limits.js'
import { refusingDuplicates } from './duplicate-key.js'

/** One user's folder tree: one document per user, its `_id` the userID. */
export interface TreeDocument {
  _id: string
  /** as on every document of a user: account deletion and sharding go by it */
  userID: string
  /** bumped by every edit: an edit is written only over the version it was made from */
  version: number
  folders: FolderNode[]
}

/** A tree as read, with the version an edit of it must be written over. */
export interface StoredTree extends LibraryTree {
  version: number
}

function changedMeanwhile (): DomainError {
  return new DomainError('conflict', 'another request changed the library at the same time; read it again and retry')
}

export function treesRepository (db: Db, session?: ClientSession) {
  const trees = db.collection<TreeDocument>('trees')
  return {
    /** The user's tree; an empty one (version 0) before the first folder. */
    async read (userID: string): Promise<StoredTree> {
      const stored = await trees.findOne({ _id: userID }, { projection: { version: 1, folders: 1 }, session })
      return stored === null ? { version: 0, ...emptyTree() } : { version: stored.version, folders: stored.folders }
    },

    /**
     * Writes an edited tree in one update, only over the version it was read
     * at; a concurrent edit (which the user's transaction rules out) makes it
     * a conflict. An edit that takes a tree past MAX_TREE_BYTES is refused
     * before it is sent, unless the tree shrinks: one already past it (as a
     * migration may leave it) must still let the user delete or shorten.
     */
    async save (userID: string, tree: StoredTree): Promise<void> {
      const document: TreeDocument = { _id: userID, userID, version: tree.version + 1, folders: tree.folders }
      const bytes = BSON.calculateObjectSize(document)
      if (bytes > MAX_TREE_BYTES) {
        const stored = await trees.findOne({ _id: userID }, { session })
        if (stored === null || bytes > BSON.calculateObjectSize(stored)) {
          throw new DomainError('conflict', `the library's folders and flashcards would take more than ${MAX_TREE_BYTES / 1024 / 1024} MiB of names and descriptions, the most one account may hold: shorten or delete some first`)
        }
      }
      const result = await refusingDuplicates(
        // the first edit creates the document; a concurrent first edit clashes on _id
        () => trees.replaceOne({ _id: userID, version: tree.version }, document, { upsert: tree.version === 0, session }),
        changedMeanwhile
      )
      if (result.matchedCount === 0 && result.upsertedCount === 0) throw changedMeanwhile()
    }
  }
}

export type TreesRepository = ReturnType<typeof treesRepository>
