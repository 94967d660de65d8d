import type { FastifyInstance } from 'fastify'
import type { Db, Filter, Sort } from 'mongodb'
import { joinStates } from '../../src/repositories/card-states.js'
import { cardsRepository, type CardDocument } from '../../src/repositories/cards.js'
import { databaseOf } from './app.js'

/**
 * Everything the app's database holds, as one comparable text: equal before
 * and after a request when that request changed nothing.
 */
export async function storedState (app: FastifyInstance): Promise<string> {
  const collections = (await databaseOf(app).listCollections({}, { nameOnly: true }).toArray()).map((info) => info.name)
    // login and register attempts are counted whether they succeed or not: that is the limit's bookkeeping, not the user's data
    .filter((name) => name !== 'attempts').sort()
  const state: Record<string, unknown[]> = {}
  for (const name of collections) {
    state[name] = await databaseOf(app).collection(name).find({}).sort({ _id: 1 }).toArray()
  }
  return JSON.stringify(state)
}

/** A folder or flashcard of a stored tree, with where it hangs. */
export interface StoredNode {
  _id: string
  userID: string
  kind: 'folder' | 'flashcard'
  /** the folder holding it; '' at the top */
  parentID: string
  /** ids of the folders above it, from the top */
  ancestors: string[]
  name: string
  description?: string
}

interface StoredFolder { id: string, name: string, folders: StoredFolder[], flashcards: Array<{ id: string, name: string, description: string }> }

/** Every folder and flashcard stored in the users' trees (of one user, if given), one record each. */
export async function storedNodes (source: FastifyInstance | Db, filter: { userID?: string } = {}): Promise<StoredNode[]> {
  const db = 'databaseClient' in source ? databaseOf(source) : source
  const trees = await db.collection<{ _id: string, folders: StoredFolder[] }>('trees')
    .find(filter.userID === undefined ? {} : { _id: filter.userID }).toArray()
  const nodes: StoredNode[] = []
  const visit = (userID: string, folders: StoredFolder[], ancestors: string[]): void => {
    for (const folder of folders) {
      nodes.push({ _id: folder.id, userID, kind: 'folder', parentID: ancestors.at(-1) ?? '', ancestors, name: folder.name })
      const inside = [...ancestors, folder.id]
      for (const flashcard of folder.flashcards) {
        nodes.push({ _id: flashcard.id, userID, kind: 'flashcard', parentID: folder.id, ancestors: inside, name: flashcard.name, description: flashcard.description })
      }
      visit(userID, folder.folders, inside)
    }
  }
  for (const tree of trees) visit(tree._id, tree.folders, [])
  return nodes
}

/**
 * The stored cards a filter of `cards` finds (of their content: userID, flashcardID, noteID...),
 * each made whole with its learner's state from `cardStates`, as the service reads them; a card
 * without a state is left out, as the service leaves it out. Sorted as `sort` says.
 */
export async function storedCards (source: FastifyInstance | Db, filter: Filter<CardDocument> = {}, sort: Sort = { _id: 1 }): Promise<CardDocument[]> {
  const db = 'databaseClient' in source ? databaseOf(source) : source
  const contents = await db.collection<CardDocument>('cards').find(filter).sort(sort).toArray()
  const states = await db.collection<CardDocument>('cardStates').find({ _id: { $in: contents.map((card) => card._id) } }).toArray()
  return joinStates(contents, states)
}

/** One stored card made whole (storedCards), or null. */
export async function storedCard (source: FastifyInstance | Db, cardID: string): Promise<CardDocument | null> {
  return (await storedCards(source, { _id: cardID }))[0] ?? null
}

/** Writes whole cards straight to the database, as the service stores them (content in `cards`, state in `cardStates`), without search pages. */
export async function insertStoredCards (db: Db, cards: readonly CardDocument[]): Promise<void> {
  await cardsRepository(db).insertMany([...cards], { searchable: false })
}
