// Libraries at 1,000 and 20,000 folders and flashcards (20,000 is the quota):
// their trees and cards written straight into the collections, as the
// service itself writes them, then every library edit and read measured
// through HTTP against the service. Each tree is written as many folders
// short of its size as the create step makes, so that the creates bring it to
// the size (at 20,000: to the quota) and the deletes, of those same folders,
// back again.
import type { FastifyInstance } from 'fastify'
import type { Db } from 'mongodb'
import { newId } from '../../src/domain/ids.js'
import type { FlashcardNode, FolderNode } from '../../src/domain/library-tree.js'
import { cardsRepository, type CardDocument } from '../../src/repositories/cards.js'
import type { TreeDocument } from '../../src/repositories/trees.js'
import type { UserDocument } from '../../src/repositories/users.js'
import { newCards } from '../../src/services/library.js'
import { percentile, post, timeInTurns } from './load.js'

export const LIBRARY_SIZES = [1000, 20_000] as const
export const LIBRARY_PASSWORD = 'bench-library-password'
/** flashcards in each topic folder, and directly in each subject folder */
const FLASHCARDS_PER_TOPIC = 3
const TOPICS_PER_SUBJECT = 49

export function libraryEmail (nodes: number): string {
  return `bench-library-${nodes}@example.com`
}

/**
 * A library of exactly `nodes` folders and flashcards, as a learner builds
 * one: subjects holding topics holding a few flashcards, each flashcard with
 * a short description.
 */
export function libraryTree (nodes: number): FolderNode[] {
  const perSubject = 1 + TOPICS_PER_SUBJECT * (1 + FLASHCARDS_PER_TOPIC) + FLASHCARDS_PER_TOPIC
  const subjects = Math.max(2, Math.ceil(nodes / perSubject))
  const folders: FolderNode[] = []
  let left = nodes
  const flashcard = (name: string, where: string): FlashcardNode => ({ id: newId(), name, description: `Cards of ${where}` })
  for (let s = 0; s < subjects && left > 0; s++) {
    const subject: FolderNode = { id: newId(), name: `Subject ${s + 1}`, folders: [], flashcards: [] }
    folders.push(subject)
    left -= 1
    for (let t = 0; t < TOPICS_PER_SUBJECT && left > 0; t++) {
      const topic: FolderNode = { id: newId(), name: `Topic ${s + 1}.${t + 1}`, folders: [], flashcards: [] }
      subject.folders.push(topic)
      left -= 1
      for (let f = 0; f < FLASHCARDS_PER_TOPIC && left > 0; f++, left--) topic.flashcards.push(flashcard(`Set ${f + 1}`, topic.name))
    }
    for (let f = 0; f < FLASHCARDS_PER_TOPIC && left > 0; f++, left--) subject.flashcards.push(flashcard(`Review ${f + 1}`, subject.name))
  }
  // spread what is left over the subjects, as flashcards of their own
  for (let n = 0; left > 0; n++, left--) (folders[n % folders.length] as FolderNode).flashcards.push(flashcard(`Extra ${n + 1}`, 'the subject'))
  return folders
}

/**
 * Registers a user per size through the app, then writes their trees, and a
 * card for each flashcard, into the collections: `headroom` folders and
 * flashcards short of the size.
 */
export async function seedLibraries (app: FastifyInstance, db: Db, headroom: number): Promise<void> {
  for (const size of LIBRARY_SIZES) {
    const nodes = size - headroom
    const registered = await app.inject({ method: 'POST', url: '/api/register', payload: { email: libraryEmail(size), password: LIBRARY_PASSWORD } })
    if (registered.statusCode !== 201) throw new Error(`register: ${registered.statusCode} ${registered.body}`)
    const { userID } = registered.json<{ userID: string }>()
    const folders = libraryTree(nodes)
    await db.collection<TreeDocument>('trees').insertOne({ _id: userID, userID, version: 1, folders })
    const now = new Date()
    const cards: CardDocument[] = []
    const visit = (list: readonly FolderNode[]): void => {
      for (const folder of list) {
        for (const deck of folder.flashcards) cards.push(...newCards(userID, deck.id, [{ front: `${deck.name} front`, back: 'back' }], now))
        visit(folder.folders)
      }
    }
    visit(folders)
    // as the service stores them, without the search pages no bench of libraries reads
    for (let start = 0; start < cards.length; start += 1000) await cardsRepository(db).insertMany(cards.slice(start, start + 1000), { searchable: false })
    await db.collection<UserDocument>('users').updateOne({ _id: userID }, { $set: { 'usage.nodes': nodes, 'usage.cards': cards.length } })
  }
}

export interface LibraryFigures {
  nodes: number
  /** the tree's stored size */
  bytes: number
  create: number[]
  rename: number[]
  move: number[]
  remove: number[]
  library: number[]
  today: number[]
  /** milliseconds until the last of 16 renames sent at once was answered, one per burst */
  bursts: number[]
}

async function call (origin: string, operation: string, body: object): Promise<Record<string, unknown>> {
  const { status, text } = await post(`${origin}/api/${operation}`, JSON.stringify(body))
  if (status >= 300) throw new Error(`${operation}: ${status} ${text.slice(0, 300)}`)
  return JSON.parse(text) as Record<string, unknown>
}

interface OutlineFolder { folderID: string, name: string, folders: OutlineFolder[] }

/** Every library operation of one user, `samples` times each after `warmup`, one request after another. */
export async function measureLibrary (origin: string, nodes: number, bytes: number, samples: number, warmup: number): Promise<LibraryFigures> {
  const { jwtToken } = await call(origin, 'login', { email: libraryEmail(nodes), password: LIBRARY_PASSWORD }) as { jwtToken: string }
  const outline = (await call(origin, 'get-library', { jwtToken })).folders as OutlineFolder[]
  const [first, second, third] = outline as [OutlineFolder, OutlineFolder, OutlineFolder]
  const moved = first.folders[0] as OutlineFolder
  const time = async (operation: string, make: (n: number) => object, onAnswer?: (text: string) => void): Promise<number[]> => {
    let n = 0
    const [timed] = await timeInTurns([{
      url: `${origin}/api/${operation}`,
      body: () => JSON.stringify(make(n++)),
      check: (text) => { onAnswer?.(text); return null }
    }], samples, warmup)
    return timed?.samples ?? []
  }

  // the folders made here are those deleted below: the tree ends as large as it began
  const created: string[] = []
  const create = await time('create-folder', (n) => ({ jwtToken, path: [third.name, `Bench folder ${n}`] }),
    (text) => { created.push((JSON.parse(text) as { folderID: string }).folderID) })
  const rename = await time('rename-folder', (n) => ({ jwtToken, folderID: moved.folderID, name: `Renamed ${n}` }))
  // a topic goes back and forth between two subjects
  const move = await time('move-folder', (n) => ({ jwtToken, folderID: moved.folderID, parentID: n % 2 === 0 ? second.folderID : first.folderID }))
  const remove = await time('delete-folder', (n) => ({ jwtToken, folderID: created[n] }))
  const library = await time('get-library', () => ({ jwtToken }))
  const today = await time('get-today-cards', () => ({ jwtToken }))

  const bursts: number[] = []
  const topics = second.folders.slice(0, 16)
  for (let round = 0; round < 5; round++) {
    const started = performance.now()
    await Promise.all(topics.map(async (topic, n) => await call(origin, 'rename-folder', { jwtToken, folderID: topic.folderID, name: `Burst ${round} ${n}` })))
    bursts.push(performance.now() - started)
  }
  return { nodes, bytes, create, rename, move, remove, library, today, bursts }
}

export function median (samples: readonly number[]): number {
  return percentile(samples, 0.5)
}
