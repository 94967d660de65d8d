import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import type { LibraryRepository } from '../repositories/library.js'
import type { Repositories } from '../plugins/database.js'
import { QUOTA_NAMES, type Usage } from '../domain/quotas.js'
import { newId } from '../domain/ids.js'
import { nameProblem } from '../domain/names.js'
import { newSchedule } from '../domain/scheduling.js'
import type { CardDocument } from '../repositories/cards.js'
import { NameTakenError, TOP_LEVEL, type LibraryNodeDocument } from '../repositories/library.js'
import { authenticatedErrors, ErrorResponse } from '../schemas/common.js'
import { CreatedFlashcard, CreatedFolder, CreateFlashcardBody, CreateFolderBody, MAX_CHILDREN } from '../schemas/library.js'
import { RequestError } from '../plugins/errors.js'

export function checkNames (names: readonly string[]): void {
  for (const name of names) {
    const problem = nameProblem(name)
    if (problem !== null) throw new RequestError(400, problem)
  }
}

/** Adds to the account's usage inside its transaction, or answers 409 naming the quota it would pass. */
export async function useQuota (app: FastifyInstance, users: Repositories['users'], userID: string, added: Partial<Usage>): Promise<void> {
  const over = await users.use(userID, added, app.quotas)
  if (over !== null) {
    throw new RequestError(409, `an account may hold at most ${app.quotas[over].toLocaleString('en')} ${QUOTA_NAMES[over]}, and this would pass it: delete some first`)
  }
}

export function describePath (path: readonly string[]): string {
  return path.map((name) => JSON.stringify(name)).join(' / ')
}

/**
 * Refuses one more folder or flashcard under a parent that holds MAX_CHILDREN
 * already (`where` names the parent for the message). Read inside the user's
 * transaction, so requests racing for the last place take turns.
 */
export async function checkRoom (library: LibraryRepository, userID: string, parentID: string, where: string): Promise<void> {
  if (await library.countChildren(userID, parentID, MAX_CHILDREN) < MAX_CHILDREN) return
  throw new RequestError(409, parentID === TOP_LEVEL
    ? `there are already ${MAX_CHILDREN} top-level folders, the most allowed: put new folders inside existing ones`
    : `the folder ${where} already holds ${MAX_CHILDREN} folders and flashcards, the most one folder may hold: use a subfolder, or move or delete some first`)
}

/** The folder at `path`, or null; a flashcard on the way is not a folder. */
export async function findFolder (library: LibraryRepository, userID: string, path: readonly string[]): Promise<LibraryNodeDocument | null> {
  let parentID = TOP_LEVEL
  let node: LibraryNodeDocument | null = null
  for (const name of path) {
    node = await library.findChild(userID, parentID, name)
    if (node === null || node.kind !== 'folder') return null
    parentID = node._id
  }
  return node
}

/** Creates the folders of `path` that are missing, inside the user's transaction. */
async function createFolderPath (library: LibraryRepository, userID: string, path: readonly string[], now: Date): Promise<{ folder: LibraryNodeDocument, created: boolean, added: number }> {
  let parent: LibraryNodeDocument | null = null
  let created = false
  let added = 0
  for (const [depth, name] of path.entries()) {
    const parentID: string = parent?._id ?? TOP_LEVEL
    let node: LibraryNodeDocument | null = await library.findChild(userID, parentID, name)
    if (node === null) {
      await checkRoom(library, userID, parentID, describePath(path.slice(0, depth)))
      node = {
        _id: newId(),
        userID,
        kind: 'folder',
        parentID,
        name,
        ancestors: parent === null ? [] : [...parent.ancestors, parent._id],
        createdAt: now
      }
      await library.insert(node)
      added += 1
      created = depth === path.length - 1
    }
    if (node.kind !== 'folder') {
      throw new RequestError(409, `${describePath(path.slice(0, depth + 1))} is a flashcard, not a folder`)
    }
    parent = node
  }
  return { folder: parent as LibraryNodeDocument, created, added }
}

export interface NewFlashcard {
  folder: readonly string[]
  flashcardName: string
  description: string
  cards: ReadonlyArray<{ front: string, back: string }>
}

/** Creates a flashcard and its cards in an existing folder, in one transaction: all or nothing. */
export async function createFlashcard (app: FastifyInstance, userID: string, flashcard: NewFlashcard): Promise<{ flashcardID: string, cardIDs: string[] }> {
  const { folder: path, flashcardName, description, cards } = flashcard
  checkNames([...path, flashcardName])
  const now = app.clock()
  return await app.userTransaction(userID, async ({ library, cards: cardStore, users }: Repositories) => {
    const folder = await findFolder(library, userID, path)
    if (folder === null) throw new RequestError(404, `no folder ${describePath(path)}: create it first with create-folder`)
    await checkRoom(library, userID, folder._id, describePath(path))
    const flashcardID = newId()
    try {
      await library.insert({
        _id: flashcardID,
        userID,
        kind: 'flashcard',
        parentID: folder._id,
        name: flashcardName,
        ancestors: [...folder.ancestors, folder._id],
        description,
        createdAt: now
      })
    } catch (error) {
      if (error instanceof NameTakenError) {
        throw new RequestError(409, `${describePath([...path, flashcardName])} already exists`)
      }
      throw error
    }
    const documents = newCards(userID, flashcardID, cards, now)
    await cardStore.insertMany(documents)
    await useQuota(app, users, userID, { nodes: 1, cards: documents.length })
    return { flashcardID, cardIDs: documents.map((card) => card._id) }
  })
}

/** Card documents for new, never reviewed cards, in the order given. */
export function newCards (userID: string, flashcardID: string, cards: ReadonlyArray<{ front: string, back: string }>, now: Date): CardDocument[] {
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

const library: FastifyPluginAsyncTypebox = async (app) => {
  app.post('/create-folder', {
    schema: {
      summary: 'Create a folder, with any missing parents',
      tags: ['library'],
      body: CreateFolderBody,
      response: { 201: CreatedFolder, 409: ErrorResponse, ...authenticatedErrors }
    },
    preHandler: app.authenticate
  }, async (request, reply) => {
    const { path } = request.body
    checkNames(path)
    const userID = request.account._id
    const { folder, created } = await app.userTransaction(userID, async ({ library, users }) => {
      const made = await createFolderPath(library, userID, path, app.clock())
      await useQuota(app, users, userID, { nodes: made.added })
      return made
    })
    if (!created) throw new RequestError(409, `the folder ${describePath(path)} already exists`)
    return reply.code(201).send({ folderID: folder._id, path })
  })

  app.post('/create-flashcard', {
    schema: {
      summary: 'Create a flashcard (a set of cards) in an existing folder',
      tags: ['library'],
      body: CreateFlashcardBody,
      response: { 201: CreatedFlashcard, 404: ErrorResponse, 409: ErrorResponse, ...authenticatedErrors }
    },
    preHandler: app.authenticate
  }, async (request, reply) => {
    const { folder, flashcardName, description = '', cards } = request.body
    const created = await createFlashcard(app, request.account._id, { folder, flashcardName, description, cards })
    return reply.code(201).send(created)
  })
}

export default library
