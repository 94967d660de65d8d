import { newId } from '../domain/ids.js'
import {
  addFlashcard, createFolderPath, describePath, flashcardIDsIn, flashcardWithPath, moveFlashcard, moveFolder, removeFlashcard,
  removeFolder, renameFlashcard, renameFolder, treeJson, type FolderNode, type LibraryTree
} from '../domain/library-tree.js'
import { newSchedule } from '../domain/scheduling.js'
import type { Repositories } from '../repositories/index.js'
import type { CardDocument } from '../repositories/cards.js'
import type { UserDocument } from '../repositories/users.js'
import { storeNewCards, addToUsageWithinQuotas, type ServiceContext } from './context.js'
import { cardDetails, cardLeaves } from './wire.js'
import { mediaShownBy, releaseMedia, removeFilesAfterwards } from './media.js'
import { noCard, Refusal } from '../domain/refusals.js'
import type { FolderOutline } from '../schemas/library-manage.js'

interface CardText { front: string, back: string }

export interface NewFlashcard {
  folder: readonly string[]
  flashcardName: string
  description: string
  cards: readonly CardText[]
}

/** Card documents for new, never reviewed cards, in the order given. */
export function newCards (userID: string, flashcardID: string, cards: readonly CardText[], now: Date): CardDocument[] {
  return cards.map((card, position): CardDocument => ({
    _id: newId(),
    userID,
    flashcardID,
    front: card.front,
    back: card.back,
    ...newSchedule(now),
    isNew: true,
    createdOrder: now.getTime() * 1000 + position,
    createdAt: now,
    version: 0,
    lastReviewID: null
  }))
}

/**
 * Folders, flashcards and their cards. Every change runs in the user's
 * transaction: the tree is read, edited and written back in one update
 * guarded by its version, together with the card writes and the quota
 * counts, so all of a change is stored or none of it.
 */
export function libraryService (context: ServiceContext) {
  /**
   * Reads the user's tree, lets `edit` change it, and writes back what the
   * edit changed, in the user's transaction. An edit that changed nothing (a
   * move to where it is, a rename to its own name) writes nothing, so that
   * such a request leaves the stored data as it was. Once committed, the
   * edited tree is the stored one, and the next request need not read it.
   */
  async function editTree<T> (userID: string, edit: (tree: LibraryTree, repositories: Repositories) => Promise<T> | T): Promise<T> {
    const { result, tree } = await context.userTransaction(userID, async (repositories) => {
      const tree = await repositories.trees.openForEdit(userID)
      const result = await edit(tree, repositories)
      await repositories.trees.save(userID, tree)
      return { result, tree }
    })
    context.repositories.trees.committed(userID, tree)
    return result
  }

  return {
    /** Creates a folder with any missing parents; 409 when it exists already. */
    async createFolder (userID: string, path: readonly string[]) {
      const { folder, created } = await editTree(userID, async (tree, { users }) => {
        const made = createFolderPath(tree, path, newId)
        await addToUsageWithinQuotas(context, users, userID, { nodes: made.added })
        return made
      })
      if (!created) throw new Refusal('name_taken', `the folder ${describePath(path)} already exists`)
      return { folderID: folder.id, path: [...path] }
    },

    /** Creates a flashcard and its cards in an existing folder: all or nothing. */
    async createFlashcard (userID: string, flashcard: NewFlashcard) {
      const { folder, flashcardName, description, cards } = flashcard
      const now = context.clock()
      const flashcardID = newId()
      const documents = newCards(userID, flashcardID, cards, now)
      await editTree(userID, async (tree, { cards: cardStore, users }) => {
        addFlashcard(tree, folder, { id: flashcardID, name: flashcardName, description })
        await storeNewCards({ cards: cardStore, users }, userID, documents)
        await addToUsageWithinQuotas(context, users, userID, { nodes: 1, cards: documents.length })
      })
      return { flashcardID, cardIDs: documents.map((card) => card._id) }
    },

    async renameFolder (userID: string, folderID: string, name: string) {
      const path = await editTree(userID, (tree) => renameFolder(tree, folderID, name))
      return { folderID, path }
    },

    /** Moves a folder with everything in it; the subtree moves as one value, so nothing below it changes. */
    async moveFolder (userID: string, folderID: string, parentID: string) {
      const path = await editTree(userID, (tree) => moveFolder(tree, folderID, parentID))
      return { folderID, path }
    },

    /**
     * Deletes a folder with its subfolders, flashcards and cards; the review
     * log stays, for statistics and goals. Media that only its cards showed,
     * past its grace, goes in the same transaction.
     */
    async deleteFolder (userID: string, folderID: string) {
      const { answer, unusedFiles } = await editTree(userID, async (tree, repositories) => {
        const { cards, users } = repositories
        const removed = removeFolder(tree, folderID)
        const shown = await mediaShownBy(repositories, userID, removed.flashcardIDs)
        const deletedCards = await cards.removeByFlashcards(userID, removed.flashcardIDs)
        await users.takeFromUsage(userID, { nodes: removed.folders + removed.flashcardIDs.length, cards: deletedCards })
        return {
          answer: {
            folderID,
            folders: String(removed.folders),
            flashcards: String(removed.flashcardIDs.length),
            cards: String(deletedCards)
          },
          unusedFiles: await releaseMedia(context, repositories, userID, shown)
        }
      })
      await removeFilesAfterwards(context, unusedFiles)
      return answer
    },

    async renameFlashcard (userID: string, flashcardID: string, name: string) {
      await editTree(userID, (tree) => { renameFlashcard(tree, flashcardID, name) })
      return { flashcardID, flashcardName: name }
    },

    async moveFlashcard (userID: string, flashcardID: string, folderID: string) {
      const folder = await editTree(userID, (tree) => moveFlashcard(tree, flashcardID, folderID))
      return { flashcardID, folderID, folder }
    },

    async deleteFlashcard (userID: string, flashcardID: string) {
      const { answer, unusedFiles } = await editTree(userID, async (tree, repositories) => {
        const { cards, users } = repositories
        removeFlashcard(tree, flashcardID)
        const shown = await mediaShownBy(repositories, userID, [flashcardID])
        const deleted = await cards.removeByFlashcards(userID, [flashcardID])
        await users.takeFromUsage(userID, { nodes: 1, cards: deleted })
        return { answer: { flashcardID, cards: String(deleted) }, unusedFiles: await releaseMedia(context, repositories, userID, shown) }
      })
      await removeFilesAfterwards(context, unusedFiles)
      return answer
    },

    /** A flashcard with its folder path and every card, text and schedule. */
    async getFlashcard (user: UserDocument, flashcardID: string) {
      const { trees, cards } = context.repositories
      const [tree, flashcardCards] = await Promise.all([trees.read(user._id), cards.byFlashcard(user._id, flashcardID)])
      const { flashcard, folder } = flashcardWithPath(tree, flashcardID)
      return {
        flashcardID,
        flashcardName: flashcard.name,
        description: flashcard.description,
        folder,
        cards: flashcardCards.map((card) => cardDetails(card, user))
      }
    },

    /** Adds new, never reviewed cards after those a flashcard holds: all or nothing. */
    async addCards (userID: string, flashcardID: string, texts: readonly CardText[]) {
      const documents = newCards(userID, flashcardID, texts, context.clock())
      await context.userTransaction(userID, async ({ trees, cards, users }) => {
        flashcardWithPath(await trees.read(userID), flashcardID)
        // after the cards already there, even within one millisecond of them
        const last = await cards.lastCreatedOrder(userID, flashcardID)
        const first = documents[0]?.createdOrder ?? 0
        if (last !== null && first <= last) {
          for (const card of documents) card.createdOrder += last + 1 - first
        }
        await storeNewCards({ cards, users }, userID, documents)
        await addToUsageWithinQuotas(context, users, userID, { cards: documents.length })
      })
      return { cardIDs: documents.map((card) => card._id) }
    },

    /** Changes the front or back of a card; its schedule stays. */
    async editCard (user: UserDocument, change: { flashcardID: string, cardID: string, front?: string, back?: string }) {
      const { flashcardID, cardID, front, back } = change
      if (front === undefined && back === undefined) {
        throw new Refusal('nothing_to_change', 'body has neither "front" nor "back": send the text to change')
      }
      // only the fields sent: an absent one must not be written as null
      const text: { front?: string, back?: string } = {}
      if (front !== undefined) text.front = front
      if (back !== undefined) text.back = back
      const card = await context.repositories.cards.editText(user._id, flashcardID, cardID, text)
      if (card === null) throw noCard(flashcardID, cardID)
      return cardDetails(card, user)
    },

    async deleteCard (userID: string, flashcardID: string, cardID: string) {
      const unusedFiles = await context.userTransaction(userID, async (repositories) => {
        const { cards, users } = repositories
        const shown = await cards.mediaOfCard(userID, flashcardID, cardID)
        const deleted = await cards.removeCards(userID, flashcardID, [cardID])
        if (deleted === 0) throw noCard(flashcardID, cardID)
        await users.takeFromUsage(userID, { cards: deleted })
        return await releaseMedia(context, repositories, userID, shown)
      })
      await removeFilesAfterwards(context, unusedFiles)
      return { flashcardID, cardID }
    },

    /**
     * The user's folders and flashcards with their ids and card counts: what a
     * client needs to name a folder or flashcard in an edit, which the tree of
     * the published interface (keyed by names) does not give.
     */
    async outline (userID: string) {
      const { trees, cards } = context.repositories
      const [tree, counts] = await Promise.all([trees.read(userID), cards.countByFlashcard(userID)])
      const folderOutline = (folder: FolderNode): FolderOutline => ({
        folderID: folder.id,
        name: folder.name,
        folders: folder.folders.map(folderOutline),
        flashcards: folder.flashcards.map((flashcard) => ({
          flashcardID: flashcard.id,
          flashcardName: flashcard.name,
          description: flashcard.description,
          cards: String(counts.get(flashcard.id) ?? 0)
        }))
      })
      return { folders: tree.folders.map(folderOutline) }
    },

    /** The whole library in the shape of the published tree (docs/interface.md), as JSON text: every folder (an empty one as {}), every flashcard, every card. */
    async allCards (user: UserDocument): Promise<string> {
      const { trees, cards } = context.repositories
      const tree = await trees.read(user._id)
      const everyCard = await cards.ofFlashcards(user._id, flashcardIDsIn(tree.folders))
      return treeJson(tree, cardLeaves(everyCard, user), { includeEmpty: true })
    }
  }
}

export type LibraryService = ReturnType<typeof libraryService>
