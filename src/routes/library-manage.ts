import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import type { UserCalendar } from '../domain/calendar.js'
import { treeJson } from '../domain/library-tree.js'
import type { CardDocument } from '../repositories/cards.js'
import { NameTakenError, TOP_LEVEL, type AncestorsChange, type LibraryNodeDocument, type LibraryRepository } from '../repositories/library.js'
import type { UserDocument } from '../repositories/users.js'
import { authenticatedErrors, ErrorResponse } from '../schemas/common.js'
import { MAX_FOLDER_DEPTH } from '../schemas/library.js'
import {
  AddCardsBody, AddedCards, AllCardsBody, CardBody, CardDetails, DeletedCard, DeletedFlashcard, DeletedFolder,
  EditCardBody, Flashcard, FlashcardBody, FolderBody, MovedFlashcard, MoveFlashcardBody, MoveFolderBody,
  PlacedFolder, RenamedFlashcard, RenameFlashcardBody, RenameFolderBody
} from '../schemas/library-manage.js'
import { LibraryTree } from '../schemas/study.js'
import { RequestError } from '../plugins/errors.js'
import { checkNames, checkRoom, newCards, useQuota } from './library.js'
import type { Repositories } from '../plugins/database.js'
import { calendarOf, cardLeaf, cardLeaves, jsonText } from './wire.js'

function noFolder (folderID: string): RequestError {
  return new RequestError(404, `no folder ${folderID}`)
}

function noFlashcard (flashcardID: string): RequestError {
  return new RequestError(404, `no flashcard ${flashcardID}`)
}

function changedMeanwhile (): RequestError {
  return new RequestError(409, 'another request moved or deleted it at the same time; read it again and retry')
}

function nameTaken (name: string): RequestError {
  return new RequestError(409, `a folder or flashcard named ${JSON.stringify(name)} is already there; rename one of them first`)
}

async function folderOf (library: LibraryRepository, userID: string, folderID: string): Promise<LibraryNodeDocument> {
  const folder = await library.findFolder(userID, folderID)
  if (folder === null) throw noFolder(folderID)
  return folder
}

async function flashcardOf (library: LibraryRepository, userID: string, flashcardID: string): Promise<LibraryNodeDocument> {
  const flashcard = await library.findFlashcard(userID, flashcardID)
  if (flashcard === null) throw noFlashcard(flashcardID)
  return flashcard
}

/** The names of the folders `ancestors` lists, from the top. */
async function folderNames (library: LibraryRepository, userID: string, ancestors: readonly string[]): Promise<string[]> {
  const names = await library.namesOf(userID, ancestors)
  return ancestors.flatMap((id) => names.get(id) ?? [])
}

/** A card with its text and where it stands, as get-flashcard and edit-card show it. */
function cardDetails (card: CardDocument, calendar: UserCalendar) {
  const { last_review: lastReview, review_status: reviewStatus } = cardLeaf(card, calendar)
  return { cardID: card._id, front: card.front, back: card.back, review_status: reviewStatus, last_review: lastReview, due: card.due.toISOString() }
}

/** Gives a folder or flashcard another name among the same siblings. */
async function renameNode (library: LibraryRepository, node: LibraryNodeDocument, name: string): Promise<void> {
  if (name === node.name) return
  let renamed: boolean
  try {
    renamed = await library.rename(node.userID, node._id, node.kind, name)
  } catch (error) {
    if (error instanceof NameTakenError) throw nameTaken(name)
    throw error
  }
  if (!renamed) throw node.kind === 'folder' ? noFolder(node._id) : noFlashcard(node._id)
}

/** Hangs a folder or flashcard under another parent, unless a sibling there has its name. */
async function moveNode (library: LibraryRepository, node: LibraryNodeDocument, parentID: string, ancestors: string[]): Promise<void> {
  let moved: boolean
  try {
    moved = await library.move(node, parentID, ancestors)
  } catch (error) {
    if (error instanceof NameTakenError) throw nameTaken(node.name)
    throw error
  }
  if (!moved) throw changedMeanwhile()
}

/** The ancestors of a node below `folderID` once that folder hangs below `ancestors`. */
function relocated (nodeAncestors: readonly string[], folderID: string, ancestors: readonly string[]): string[] {
  return [...ancestors, folderID, ...nodeAncestors.slice(nodeAncestors.indexOf(folderID) + 1)]
}

function sameIds (a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((id, index) => id === b[index])
}

/**
 * Moves a folder with everything below it, in the user's transaction: the
 * folder and the new ancestors of every node below it change together. The
 * transaction starts by writing the account, so a concurrent move (a into b
 * while b goes into a) conflicts and runs again, and then sees the loop.
 */
async function moveFolder (library: LibraryRepository, userID: string, folderID: string, parentID: string) {
  const folder = await folderOf(library, userID, folderID)
  let ancestors: string[] = []
  if (parentID !== TOP_LEVEL) {
    if (parentID === folderID) throw new RequestError(400, 'a folder cannot be moved into itself')
    const parent = await folderOf(library, userID, parentID)
    if (parent.ancestors.includes(folderID)) throw new RequestError(400, 'a folder cannot be moved into one of its own subfolders')
    ancestors = [...parent.ancestors, parent._id]
  }

  const below = await library.subtree(userID, folderID)
  // every folder stays reachable by a path create-flashcard and create-folder accept
  const levelsBelow = Math.max(0, ...below.filter((node) => node.kind === 'folder').map((node) => node.ancestors.length - node.ancestors.indexOf(folderID)))
  const depth = ancestors.length + 1 + levelsBelow
  if (depth > MAX_FOLDER_DEPTH) {
    throw new RequestError(400, `the move would put folders ${depth} levels deep; at most ${MAX_FOLDER_DEPTH} are allowed`)
  }

  if (folder.parentID !== parentID) {
    await checkRoom(library, userID, parentID, parentID)
    await moveNode(library, folder, parentID, ancestors)
  }

  const changes: AncestorsChange[] = []
  for (const node of below) {
    const moved = relocated(node.ancestors, folderID, ancestors)
    if (!sameIds(moved, node.ancestors)) changes.push({ id: node._id, ancestors: moved })
  }
  await library.setAncestors(userID, changes)
  return { folderID, path: [...await folderNames(library, userID, ancestors), folder.name] }
}

/**
 * Deletes a folder with its subfolders, flashcards and cards, in one
 * transaction; the review log stays, for statistics and goals.
 */
async function deleteFolder ({ library, cards, users }: Repositories, userID: string, folderID: string) {
  await folderOf(library, userID, folderID)
  const below = await library.subtree(userID, folderID)
  const flashcardIDs = below.filter((node) => node.kind === 'flashcard').map((node) => node._id)
  const deletedCards = await cards.removeByFlashcards(userID, flashcardIDs)
  const deletedNodes = await library.removeMany(userID, [folderID, ...below.map((node) => node._id)])
  await users.free(userID, { nodes: deletedNodes, cards: deletedCards })
  return {
    folderID,
    folders: String(1 + below.length - flashcardIDs.length),
    flashcards: String(flashcardIDs.length),
    cards: String(deletedCards)
  }
}

async function deleteFlashcard ({ library, cards, users }: Repositories, userID: string, flashcardID: string) {
  await flashcardOf(library, userID, flashcardID)
  const deleted = await cards.removeByFlashcards(userID, [flashcardID])
  await library.remove(userID, flashcardID)
  await users.free(userID, { nodes: 1, cards: deleted })
  return { flashcardID, cards: String(deleted) }
}

/** Adds new, never reviewed cards to a flashcard, in one transaction: all or nothing. */
async function addCards (app: FastifyInstance, { library, cards, users }: Repositories, userID: string, flashcardID: string, texts: AddCardsBody['cards'], now: Date) {
  await flashcardOf(library, userID, flashcardID)
  const documents = newCards(userID, flashcardID, texts, now)
  // new cards come after the cards already there, even within one millisecond of them
  const last = await cards.lastCreatedOrder(userID, flashcardID)
  const first = documents[0]?.createdOrder ?? 0
  if (last !== null && first <= last) {
    for (const card of documents) card.createdOrder += last + 1 - first
  }
  await cards.insertMany(documents)
  await useQuota(app, users, userID, { cards: documents.length })
  return { cardIDs: documents.map((card) => card._id) }
}

async function editCard (app: FastifyInstance, user: UserDocument, request: Omit<EditCardBody, 'jwtToken'>) {
  const { flashcardID, cardID, front, back } = request
  if (front === undefined && back === undefined) {
    throw new RequestError(400, 'body has neither "front" nor "back": send the text to change')
  }
  // only the fields sent: an absent one must not be written as null
  const text: { front?: string, back?: string } = {}
  if (front !== undefined) text.front = front
  if (back !== undefined) text.back = back
  const card = await app.repositories.cards.editText(user._id, flashcardID, cardID, text)
  if (card === null) throw new RequestError(404, `no card ${cardID} in flashcard ${flashcardID}`)
  return cardDetails(card, calendarOf(user))
}

async function getFlashcard (app: FastifyInstance, user: UserDocument, flashcardID: string) {
  const flashcard = await flashcardOf(app.repositories.library, user._id, flashcardID)
  const [folder, cards] = await Promise.all([
    folderNames(app.repositories.library, user._id, flashcard.ancestors),
    app.repositories.cards.byFlashcard(user._id, flashcardID)
  ])
  const calendar = calendarOf(user)
  return {
    flashcardID,
    flashcardName: flashcard.name,
    description: flashcard.description ?? '',
    folder,
    cards: cards.map((card) => cardDetails(card, calendar))
  }
}

/** The whole library in the shape of spec 2.2 (JSON text): every folder (an empty one as {}), every flashcard, every card. */
async function allCards (app: FastifyInstance, user: UserDocument): Promise<string> {
  const nodes = await app.repositories.library.allNodes(user._id)
  const flashcardIDs = nodes.filter((node) => node.kind === 'flashcard').map((node) => node._id)
  const cards = await app.repositories.cards.ofFlashcards(user._id, flashcardIDs)
  return treeJson(nodes, cardLeaves(cards, calendarOf(user)), { includeEmpty: true })
}

const libraryManage: FastifyPluginAsyncTypebox = async (app) => {
  app.post('/rename-folder', {
    schema: {
      summary: 'Rename a folder',
      tags: ['library'],
      body: RenameFolderBody,
      response: { 200: PlacedFolder, 404: ErrorResponse, 409: ErrorResponse, ...authenticatedErrors }
    },
    preHandler: app.authenticate
  }, async (request) => {
    const { folderID, name } = request.body
    checkNames([name])
    return await app.userTransaction(request.account._id, async ({ library }) => {
      const folder = await folderOf(library, request.account._id, folderID)
      await renameNode(library, folder, name)
      return { folderID, path: [...await folderNames(library, folder.userID, folder.ancestors), name] }
    })
  })

  app.post('/move-folder', {
    schema: {
      summary: 'Move a folder, with everything in it, into another folder or to the top level',
      description: 'Never into itself or its own subfolders (400); 409 when the destination already holds a folder or flashcard of its name.',
      tags: ['library'],
      body: MoveFolderBody,
      response: { 200: PlacedFolder, 404: ErrorResponse, 409: ErrorResponse, ...authenticatedErrors }
    },
    preHandler: app.authenticate
  }, async (request) => {
    const { folderID, parentID = TOP_LEVEL } = request.body
    const userID = request.account._id
    return await app.userTransaction(userID, async ({ library }) => await moveFolder(library, userID, folderID, parentID))
  })

  app.post('/delete-folder', {
    schema: {
      summary: 'Delete a folder with its subfolders, flashcards and cards',
      description: 'The review log keeps the reviews of the deleted cards, so statistics and goals do not change.',
      tags: ['library'],
      body: FolderBody,
      response: { 200: DeletedFolder, 404: ErrorResponse, ...authenticatedErrors }
    },
    preHandler: app.authenticate
  }, async (request) => {
    const userID = request.account._id
    return await app.userTransaction(userID, async (repositories) => await deleteFolder(repositories, userID, request.body.folderID))
  })

  app.post('/get-flashcard', {
    schema: {
      summary: 'A flashcard with its folder path and every card, text and schedule',
      tags: ['library'],
      body: FlashcardBody,
      response: { 200: Flashcard, 404: ErrorResponse, ...authenticatedErrors }
    },
    preHandler: app.authenticate
  }, async (request) => await getFlashcard(app, request.account, request.body.flashcardID))

  app.post('/rename-flashcard', {
    schema: {
      summary: 'Rename a flashcard',
      tags: ['library'],
      body: RenameFlashcardBody,
      response: { 200: RenamedFlashcard, 404: ErrorResponse, 409: ErrorResponse, ...authenticatedErrors }
    },
    preHandler: app.authenticate
  }, async (request) => {
    const { flashcardID, name } = request.body
    checkNames([name])
    return await app.userTransaction(request.account._id, async ({ library }) => {
      await renameNode(library, await flashcardOf(library, request.account._id, flashcardID), name)
      return { flashcardID, flashcardName: name }
    })
  })

  app.post('/move-flashcard-set', {
    schema: {
      summary: 'Move a flashcard, with its cards, into another folder',
      tags: ['library'],
      body: MoveFlashcardBody,
      response: { 200: MovedFlashcard, 404: ErrorResponse, 409: ErrorResponse, ...authenticatedErrors }
    },
    preHandler: app.authenticate
  }, async (request) => {
    const userID = request.account._id
    const { flashcardID, folderID } = request.body
    return await app.userTransaction(userID, async ({ library }) => {
      const flashcard = await flashcardOf(library, userID, flashcardID)
      const folder = await folderOf(library, userID, folderID)
      if (flashcard.parentID !== folderID) {
        await checkRoom(library, userID, folderID, folderID)
        await moveNode(library, flashcard, folderID, [...folder.ancestors, folderID])
      }
      return { flashcardID, folderID, folder: [...await folderNames(library, userID, folder.ancestors), folder.name] }
    })
  })

  app.post('/delete-flashcard', {
    schema: {
      summary: 'Delete a flashcard with its cards',
      description: 'The review log keeps the reviews of the deleted cards, so statistics and goals do not change.',
      tags: ['library'],
      body: FlashcardBody,
      response: { 200: DeletedFlashcard, 404: ErrorResponse, ...authenticatedErrors }
    },
    preHandler: app.authenticate
  }, async (request) => {
    const userID = request.account._id
    return await app.userTransaction(userID, async (repositories) => await deleteFlashcard(repositories, userID, request.body.flashcardID))
  })

  app.post('/add-cards', {
    schema: {
      summary: 'Add new cards to a flashcard',
      tags: ['library'],
      body: AddCardsBody,
      response: { 201: AddedCards, 404: ErrorResponse, 409: ErrorResponse, ...authenticatedErrors }
    },
    preHandler: app.authenticate
  }, async (request, reply) => {
    const { flashcardID, cards } = request.body
    const userID = request.account._id
    const added = await app.userTransaction(userID, async (repositories) => await addCards(app, repositories, userID, flashcardID, cards, app.clock()))
    return reply.code(201).send(added)
  })

  app.post('/edit-card', {
    schema: {
      summary: 'Change the front or back of a card; its schedule stays',
      tags: ['library'],
      body: EditCardBody,
      response: { 200: CardDetails, 404: ErrorResponse, ...authenticatedErrors }
    },
    preHandler: app.authenticate
  }, async (request) => await editCard(app, request.account, request.body))

  app.post('/delete-card', {
    schema: {
      summary: 'Delete one card',
      description: 'The review log keeps its reviews, so statistics and goals do not change.',
      tags: ['library'],
      body: CardBody,
      response: { 200: DeletedCard, 404: ErrorResponse, ...authenticatedErrors }
    },
    preHandler: app.authenticate
  }, async (request) => {
    const { flashcardID, cardID } = request.body
    const userID = request.account._id
    return await app.userTransaction(userID, async ({ cards, users }) => {
      const deleted = await cards.removeCards(userID, flashcardID, [cardID])
      if (deleted === 0) throw new RequestError(404, `no card ${cardID} in flashcard ${flashcardID}`)
      await users.free(userID, { cards: deleted })
      return { flashcardID, cardID }
    })
  })

  app.post('/get-all-cards', {
    schema: {
      summary: 'The whole library as a tree, every card included',
      description: 'The shape of spec 2.2 (as get-today-cards), with every folder and flashcard: an empty folder is {}, a flashcard without cards has cards {}.',
      tags: ['library'],
      body: AllCardsBody,
      response: { 200: LibraryTree, ...authenticatedErrors }
    },
    preHandler: app.authenticate
  }, async (request, reply) => jsonText(reply, await allCards(app, request.account)))
}

export default libraryManage
