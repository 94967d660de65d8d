import fc from 'fast-check'
import { test } from 'tap'
import {
  createFolderPath, emptyTree, moveFolder, nodeCount, removeFolder, renameFolder, treeJson,
  type CardLeaf, type FlashcardNode, type FolderNode, type LibraryTree
} from '../../src/domain/library-tree.js'
import { Refusal } from '../../src/domain/refusals.js'
import { comparisonKey } from '../../src/domain/names.js'

// Names that mean something to JavaScript, to JSON or to a reader, and any text at all
const hostileName = fc.oneof(
  fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', '0', '1', '01', '10', '2024',
    '4294967294', '4294967295', '-1', '1.5', '', ' ', '"', '\\', '\u0000', '\u2028', '\ud800', '\udc00', 'é', 'e\u0301', '🃏', 'cards'),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.string({ maxLength: 6 })
)

let counter = 0
const id = (): string => String(++counter).padStart(39, '0')

const flashcardNode: fc.Arbitrary<FlashcardNode> = fc.record({ name: hostileName, description: fc.string({ maxLength: 8 }) })
  .map(({ name, description }) => ({ id: id(), name, description }))

/** Sibling names are unique in a stored tree: the generated ones are made so, whatever their kind. */
function uniqueByName<T extends { name: string }> (items: T[], taken: Set<string>): T[] {
  return items.filter((item) => !taken.has(item.name) && taken.add(item.name) !== undefined)
}

const folderNode: fc.Memo<FolderNode> = fc.memo((depth) => fc.record({
  name: hostileName,
  folders: depth <= 1 ? fc.constant<FolderNode[]>([]) : fc.array(folderNode(depth - 1), { maxLength: 3 }),
  flashcards: fc.array(flashcardNode, { maxLength: 3 })
}).map(({ name, folders, flashcards }) => {
  const taken = new Set<string>()
  return { id: id(), name, folders: uniqueByName(folders, taken), flashcards: uniqueByName(flashcards, taken) }
}))

const tree: fc.Arbitrary<LibraryTree> = fc.array(folderNode(4), { maxLength: 4 })
  .map((folders) => ({ folders: uniqueByName(folders, new Set()) }))

function flashcardsOf (folders: readonly FolderNode[]): FlashcardNode[] {
  return folders.flatMap((folder) => [...folder.flashcards, ...flashcardsOf(folder.folders)])
}

/** Some cards of some flashcards, in an order of their own, an id now and then repeated. */
function cardsFor (of: LibraryTree): fc.Arbitrary<CardLeaf[]> {
  const flashcards = flashcardsOf(of.folders)
  if (flashcards.length === 0) return fc.constant([])
  return fc.array(fc.record({
    flashcard: fc.constantFrom(...flashcards),
    card: fc.integer({ min: 1, max: 30 }),
    status: fc.constantFrom('0.0', '3.5', '12.0')
  }), { maxLength: 25 }).map((drawn) => drawn.map(({ flashcard, card, status }) => ({
    id: `9${flashcard.id.slice(1, 30)}${String(card).padStart(9, '0')}`,
    flashcardID: flashcard.id,
    last_review: '01/03/2026',
    review_status: status
  })))
}

const byCodeUnits = (a: string, b: string): number => a < b ? -1 : a > b ? 1 : 0

/**
 * The tree as the published interface shows it, built the plain way: Object.fromEntries
 * defines every member as its own property, "__proto__" included.
 */
function model (of: LibraryTree, cards: readonly CardLeaf[], includeEmpty: boolean): unknown {
  const held = new Map<string, Array<[string, unknown]>>()
  for (const card of cards) {
    const entries = held.get(card.flashcardID) ?? []
    const value = { last_review: card.last_review, review_status: card.review_status }
    const at = entries.findIndex(([cardID]) => cardID === card.id)
    if (at === -1) entries.push([card.id, value])
    else entries[at] = [card.id, value]
    held.set(card.flashcardID, entries)
  }
  const folder = (folders: readonly FolderNode[], flashcards: readonly FlashcardNode[]): Record<string, unknown> | null => {
    const members: Array<[string, unknown]> = []
    for (const child of folders) {
      const value = folder(child.folders, child.flashcards)
      if (value !== null) members.push([child.name, value])
    }
    for (const flashcard of flashcards) {
      const entries = held.get(flashcard.id)
      if (entries === undefined && !includeEmpty) continue
      members.push([flashcard.name, { cards: Object.fromEntries(entries ?? []), flashcardID: flashcard.id, flashcardName: flashcard.name }])
    }
    if (members.length === 0 && !includeEmpty) return null
    return Object.fromEntries(members.sort(([a], [b]) => byCodeUnits(a, b)))
  }
  return folder(of.folders, []) ?? {}
}

test('the tree is written exactly as JSON.stringify writes the plain objects, whatever the names', async (t) => {
  fc.assert(fc.property(tree.chain((of) => fc.tuple(fc.constant(of), cardsFor(of), fc.boolean())), ([of, cards, includeEmpty]) => {
    const written = treeJson(of, cards, { includeEmpty })
    return written === JSON.stringify(model(of, cards, includeEmpty))
  }), { numRuns: 500 })
  t.pass('500 random trees')
})

test('edits keep a tree whole: every id once, sibling names unique even as look-alikes, the node count exact', async (t) => {
  const edit = fc.oneof(
    fc.record({ kind: fc.constant('create' as const), path: fc.array(fc.constantFrom('a', 'b', 'c', 'A', 'ss', 'ß', '__proto__', '0'), { minLength: 1, maxLength: 4 }) }),
    fc.record({ kind: fc.constant('move' as const), folder: fc.nat(), parent: fc.nat() }),
    fc.record({ kind: fc.constant('rename' as const), folder: fc.nat(), name: fc.constantFrom('a', 'b', 'z', 'Z', 'SS', '__proto__', 'a\u200b') }),
    fc.record({ kind: fc.constant('remove' as const), folder: fc.nat() })
  )
  fc.assert(fc.property(fc.array(edit, { maxLength: 30 }), (edits) => {
    const edited = emptyTree()
    let expectedCount = 0
    const folders = (): FolderNode[] => {
      const all: FolderNode[] = []
      const visit = (list: FolderNode[]): void => { for (const folder of list) { all.push(folder); visit(folder.folders) } }
      visit(edited.folders)
      return all
    }
    for (const step of edits) {
      const all = folders()
      const pick = (n: number): FolderNode | undefined => all[n % Math.max(1, all.length)]
      try {
        if (step.kind === 'create') expectedCount += createFolderPath(edited, step.path, id).added
        else if (step.kind === 'move') {
          const folder = pick(step.folder)
          const parent = step.parent % 3 === 0 ? undefined : pick(step.parent)
          if (folder !== undefined) moveFolder(edited, folder.id, parent?.id ?? '')
        } else if (step.kind === 'rename') {
          const folder = pick(step.folder)
          if (folder !== undefined) renameFolder(edited, folder.id, step.name)
        } else {
          const folder = pick(step.folder)
          if (folder !== undefined) expectedCount -= removeFolder(edited, folder.id).folders
        }
      } catch (error) {
        if (!(error instanceof Refusal)) throw error
      }
      const ids = folders().map((folder) => folder.id)
      if (new Set(ids).size !== ids.length) return false
      for (const parent of [edited, ...folders()]) {
        const keys = parent.folders.map((folder) => comparisonKey(folder.name))
        if (new Set(keys).size !== keys.length) return false
      }
      if (nodeCount(edited) !== expectedCount) return false
    }
    return true
  }), { numRuns: 300 })
  t.pass('300 random edit sequences')
})
