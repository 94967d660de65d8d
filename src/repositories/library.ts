import type { Db } from 'mongodb'
import { isDuplicateKey } from './users.js'

/**
 * The user's folder tree: one document per folder and per flashcard, each
 * pointing at its parent. Folders and flashcards share one collection so that
 * a single unique index keeps every name unique among its siblings, whatever
 * their kind, even under concurrent requests.
 */
export interface LibraryNodeDocument {
  _id: string
  userID: string
  kind: 'folder' | 'flashcard'
  /** '' for a top-level folder */
  parentID: string
  name: string
  /** ids of the folders above, from the top; lets a subtree be found with one indexed query */
  ancestors: string[]
  description?: string
  createdAt: Date
}

export const TOP_LEVEL = ''

export class NameTakenError extends Error {
  override name = 'NameTakenError'
}

export function libraryRepository (db: Db) {
  const library = db.collection<LibraryNodeDocument>('library')
  return {
    async insert (node: LibraryNodeDocument): Promise<void> {
      try {
        await library.insertOne(node)
      } catch (error) {
        if (isDuplicateKey(error)) throw new NameTakenError(node.name)
        throw error
      }
    },

    /** index user_parent_name */
    findChild (userID: string, parentID: string, name: string): Promise<LibraryNodeDocument | null> {
      return library.findOne({ userID, parentID, name })
    },

    findNode (userID: string, id: string): Promise<LibraryNodeDocument | null> {
      return library.findOne({ _id: id, userID })
    },

    findFlashcard (userID: string, flashcardID: string): Promise<LibraryNodeDocument | null> {
      return library.findOne({ _id: flashcardID, userID, kind: 'flashcard' })
    },

    /**
     * Every folder of the user, and the flashcards asked for: what a tree of
     * those flashcards needs, in one round trip. Folders are few next to cards.
     */
    foldersAndFlashcards (userID: string, flashcardIDs: readonly string[]): Promise<LibraryNodeDocument[]> {
      return library.find(
        { userID, $or: [{ kind: 'folder' }, { _id: { $in: [...flashcardIDs] } }] },
        { projection: { _id: 1, kind: 1, parentID: 1, name: 1 } }
      ).toArray()
    },

    async remove (userID: string, id: string): Promise<void> {
      await library.deleteOne({ _id: id, userID })
    },

    allNodes (userID: string): Promise<LibraryNodeDocument[]> {
      return library.find({ userID }, { projection: { _id: 1, kind: 1, parentID: 1, name: 1 } }).toArray()
    }
  }
}

export type LibraryRepository = ReturnType<typeof libraryRepository>
