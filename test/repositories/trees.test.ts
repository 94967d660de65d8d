import fc from 'fast-check'
import { test } from 'tap'
import { MongoClient, type CommandStartedEvent, type Db } from 'mongodb'
import {
  addFlashcard, createFolderPath, moveFlashcard, moveFolder, removeFlashcard, removeFolder, renameFlashcard, renameFolder,
  TOP_LEVEL, type FolderNode, type LibraryTree
} from '../../src/domain/library-tree.js'
import { Refusal } from '../../src/domain/refusals.js'
import { treesRepository, type TreeDocument } from '../../src/repositories/trees.js'
import { treeCache } from '../../src/repositories/tree-cache.js'
import { testDatabaseUrl } from '../helpers/app.js'

let counter = 0
const newId = (): string => String(++counter).padStart(39, '7')

interface Tap { teardown: (fn: () => unknown) => void }

/** A database of this test's own, with the update commands sent to it. */
async function database (t: Tap): Promise<{ db: Db, updates: CommandStartedEvent[], finds: CommandStartedEvent[] }> {
  const client = new MongoClient(testDatabaseUrl(import.meta.filename), { monitorCommands: true })
  await client.connect()
  const db = client.db()
  t.teardown(async () => {
    await db.dropDatabase()
    await client.close()
  })
  const updates: CommandStartedEvent[] = []
  const finds: CommandStartedEvent[] = []
  client.on('commandStarted', (event) => {
    if (event.commandName === 'update') updates.push(event)
    if (event.commandName === 'find') finds.push(event)
  })
  return { db, updates, finds }
}

function allFolders (tree: LibraryTree): FolderNode[] {
  const found: FolderNode[] = []
  const visit = (folders: readonly FolderNode[]): void => {
    for (const folder of folders) {
      found.push(folder)
      visit(folder.folders)
    }
  }
  visit(tree.folders)
  return found
}

type Edit =
  | { kind: 'create', path: string[] }
  | { kind: 'flashcard', folder: number, name: string }
  | { kind: 'rename-folder' | 'rename-flashcard' | 'remove-folder' | 'remove-flashcard', node: number, name: string }
  | { kind: 'move-folder', node: number, parent: number }
  | { kind: 'move-flashcard', node: number, parent: number }

const name = fc.constantFrom('a', 'b', 'c', 'd', '__proto__', '0', '1', 'x.y', '$where')
const anEdit: fc.Arbitrary<Edit> = fc.oneof(
  fc.record({ kind: fc.constant('create' as const), path: fc.array(name, { minLength: 1, maxLength: 4 }) }),
  fc.record({ kind: fc.constant('flashcard' as const), folder: fc.nat(), name }),
  fc.record({ kind: fc.constantFrom('rename-folder' as const, 'rename-flashcard' as const, 'remove-folder' as const, 'remove-flashcard' as const), node: fc.nat(), name }),
  fc.record({ kind: fc.constantFrom('move-folder' as const, 'move-flashcard' as const), node: fc.nat(), parent: fc.nat() })
)

/** Applies one generated edit to the tree; a refusal of the domain's rules leaves it as it was. */
function apply (tree: LibraryTree, edit: Edit): void {
  const folders = allFolders(tree)
  const flashcards = folders.flatMap((folder) => folder.flashcards)
  const pick = <T>(list: T[], n: number): T | undefined => list[n % Math.max(1, list.length)]
  const pathOf = (target: FolderNode): string[] => {
    const path: string[] = []
    const find = (list: readonly FolderNode[], above: string[]): boolean => list.some((folder) =>
      folder === target ? (path.push(...above, folder.name), true) : find(folder.folders, [...above, folder.name]))
    find(tree.folders, [])
    return path
  }
  try {
    switch (edit.kind) {
      case 'create': createFolderPath(tree, edit.path, newId); break
      case 'flashcard': {
        const folder = pick(folders, edit.folder)
        if (folder !== undefined) addFlashcard(tree, pathOf(folder), { id: newId(), name: edit.name, description: `about ${edit.name}` })
        break
      }
      case 'rename-folder': { const node = pick(folders, edit.node); if (node !== undefined) renameFolder(tree, node.id, edit.name); break }
      case 'rename-flashcard': { const node = pick(flashcards, edit.node); if (node !== undefined) renameFlashcard(tree, node.id, edit.name); break }
      case 'remove-folder': { const node = pick(folders, edit.node); if (node !== undefined) removeFolder(tree, node.id); break }
      case 'remove-flashcard': { const node = pick(flashcards, edit.node); if (node !== undefined) removeFlashcard(tree, node.id); break }
      case 'move-folder': {
        const node = pick(folders, edit.node)
        // a third of the moves go to the top level
        const parent = edit.parent % 3 === 0 ? undefined : pick(folders, edit.parent)
        if (node !== undefined) moveFolder(tree, node.id, parent?.id ?? TOP_LEVEL)
        break
      }
      case 'move-flashcard': {
        const node = pick(flashcards, edit.node)
        const parent = pick(folders, edit.parent)
        if (node !== undefined && parent !== undefined) moveFlashcard(tree, node.id, parent.id)
        break
      }
    }
  } catch (error) {
    if (!(error instanceof Refusal)) throw error
  }
}

test('what an edit writes is what it did: after every edit the stored tree equals the edited one', async (t) => {
  const { db } = await database(t)
  const stored = db.collection<TreeDocument>('trees')
  let user = 0
  await fc.assert(fc.asyncProperty(fc.array(anEdit, { minLength: 1, maxLength: 25 }), async (edits) => {
    const userID = `user-${++user}`
    // a cache that keeps every tree, so that edits start from a shared, kept version as in a running service
    const trees = treesRepository(db, undefined, treeCache({ minBytes: 0, maxBytes: 1 << 30 }))
    let version = 0
    for (const edit of edits) {
      const tree = await trees.openForEdit(userID)
      apply(tree, edit)
      const changed = tree.edit.changes.length > 0
      await trees.save(userID, tree)
      trees.committed(userID, tree)
      if (changed) version += 1
      const document = await stored.findOne({ _id: userID })
      if ((document?.version ?? 0) !== version) return false
      if (JSON.stringify(document?.folders ?? []) !== JSON.stringify(tree.folders)) return false
    }
    return true
  }), { numRuns: 60 })
  t.pass('60 random edit sequences, every one written as made')
})

test('an edit never changes the tree other requests are reading: it copies what it changes', async (t) => {
  const { db } = await database(t)
  const trees = treesRepository(db, undefined, treeCache({ minBytes: 0, maxBytes: 1 << 30 }))
  const first = await trees.openForEdit('reader')
  createFolderPath(first, ['Languages', 'Spanish'], newId)
  createFolderPath(first, ['Science'], newId)
  addFlashcard(first, ['Languages', 'Spanish'], { id: newId(), name: 'Verbs', description: '' })
  await trees.save('reader', first)
  trees.committed('reader', first)

  const shared = await trees.read('reader')
  const before = JSON.stringify(shared)
  const edit = await trees.openForEdit('reader')
  const [languages, science] = edit.folders as [FolderNode, FolderNode]
  renameFolder(edit, languages.id, 'Idiomas')
  moveFolder(edit, (languages.folders[0] as FolderNode).id, science.id)
  addFlashcard(edit, ['Science'], { id: newId(), name: 'Cells', description: '' })
  t.equal(JSON.stringify(shared), before, 'the tree read before is as it was')
  await trees.save('reader', edit)
  t.equal(JSON.stringify(shared), before, 'also once the edit is saved')
  trees.committed('reader', edit)
  t.not(JSON.stringify(await trees.read('reader')), before, 'a read after the edit sees it')
})

test('an edit of a large tree sends only what changed, and a kept tree is not read again', async (t) => {
  const { db, updates, finds } = await database(t)
  const trees = treesRepository(db, undefined, treeCache({ minBytes: 0, maxBytes: 1 << 30 }))
  const big = await trees.openForEdit('big')
  for (let n = 0; n < 100; n++) {
    createFolderPath(big, [`Subject ${n}`, 'Topic'], newId)
    for (let f = 0; f < 10; f++) addFlashcard(big, [`Subject ${n}`, 'Topic'], { id: newId(), name: `Set ${f}`, description: 'x'.repeat(50) })
  }
  await trees.save('big', big)
  trees.committed('big', big)
  const size = (event: CommandStartedEvent): number => JSON.stringify(event.command).length

  const steps: Array<[string, (tree: LibraryTree) => void]> = [
    ['rename a folder', (tree) => renameFolder(tree, (tree.folders[40] as FolderNode).id, 'Renamed')],
    ['create a folder', (tree) => createFolderPath(tree, ['Subject 7', 'New'], newId)],
    ['add a flashcard', (tree) => addFlashcard(tree, ['Subject 8', 'Topic'], { id: newId(), name: 'More', description: '' })],
    ['move a folder between folders', (tree) => moveFolder(tree, ((tree.folders[3] as FolderNode).folders[0] as FolderNode).id, ((tree.folders[4] as FolderNode).folders[0] as FolderNode).id)],
    ['move a folder to the top', (tree) => moveFolder(tree, ((tree.folders[5] as FolderNode).folders[0] as FolderNode).id, TOP_LEVEL)],
    ['move a flashcard', (tree) => moveFlashcard(tree, ((tree.folders[9] as FolderNode).folders[0] as FolderNode).flashcards[0]?.id ?? '', ((tree.folders[7] as FolderNode).folders[1] as FolderNode).id)],
    ['delete a flashcard', (tree) => removeFlashcard(tree, ((tree.folders[11] as FolderNode).folders[0] as FolderNode).flashcards[0]?.id ?? '')],
    ['delete a folder', (tree) => removeFolder(tree, (tree.folders[12] as FolderNode).id)]
  ]
  const whole = JSON.stringify(big.folders).length
  for (const [what, step] of steps) {
    updates.length = 0
    finds.length = 0
    const tree = await trees.openForEdit('big')
    step(tree)
    await trees.save('big', tree)
    trees.committed('big', tree)
    const sent = updates.reduce((sum, event) => sum + size(event), 0)
    // a moved folder goes with its contents (here ten flashcards), and a short list a removal
    // leaves is set whole (a top-level folder is pulled from the long top level): still a sliver
    t.ok(sent < 3000, `${what}: ${sent} bytes sent for a tree of ${whole}`)
    t.ok(finds.every((event) => JSON.stringify(event.command.projection) === '{"_id":0,"version":1}'), `${what}: only the version was read`)
    t.same((await db.collection<TreeDocument>('trees').findOne({ _id: 'big' }))?.folders, tree.folders, `${what}: stored as edited`)
  }
})
