// Nothing nested deep enough to stop the database reaches it: every repository write passes the
// nesting guard, and tree edits are held to the folder depth where they are stored. On a database
// of the test's own: should the guard let a deep document through, only this test loses it.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { MongoClient } from 'mongodb'
import { test } from 'tap'
import { startEmbeddedDatabase, type DatabaseProcessEvent } from '../../src/db/embedded.js'
import { DocumentTooDeep, nestingDepth, nestingGuarded } from '../../src/db/nesting-guard.js'
import type { FolderNode } from '../../src/domain/library-tree.js'
import { MAX_DOCUMENT_NESTING, MAX_FOLDER_DEPTH } from '../../src/domain/limits.js'
import { Refusal } from '../../src/domain/refusals.js'
import { repositoriesOf } from '../../src/repositories/index.js'

/** An object `levels` deep: {a: {a: ... {a: 1}}}. */
function nested (levels: number): Record<string, unknown> {
  let value: Record<string, unknown> = { a: 1 }
  for (let level = 1; level < levels; level++) value = { a: value }
  return value
}

/** A chain of `levels` folders, each holding the next. */
function folderChain (levels: number): FolderNode {
  let folder: FolderNode = { id: `f${levels}`, name: `F${levels}`, folders: [], flashcards: [] }
  for (let level = levels - 1; level >= 1; level--) folder = { id: `f${level}`, name: `F${level}`, folders: [folder], flashcards: [] }
  return folder
}

test('nestingDepth counts objects, arrays and the parts of dotted paths, and stops past its limit without deep recursion', async (t) => {
  t.equal(nestingDepth('text'), 0)
  t.equal(nestingDepth({}), 1)
  t.equal(nestingDepth({ a: 1 }), 1)
  t.equal(nestingDepth({ a: { b: [1, { c: 2 }] } }), 4)
  t.equal(nestingDepth({ $set: { 'folders.3.folders.0.name': 'x' } }), 6, 'a dotted path counts each part')
  t.equal(nestingDepth({ at: new Date(), bytes: new Uint8Array(4) }), 1, 'dates and bytes are single values')
  t.equal(nestingDepth(nested(64)), 64)
  const deep = nested(1_000_000)
  t.equal(nestingDepth(deep, 100), 101, 'a million levels: stopped just past the limit')
})

test('every repository write refuses a document nested past the limit before the database sees it; the database process never stops', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'nesting-guard-'))
  t.teardown(() => rm(dataDir, { recursive: true, force: true }))
  const events: DatabaseProcessEvent[] = []
  const database = await startEmbeddedDatabase({ dataDir, report: (event) => events.push(event) })
  t.teardown(() => database.stop())
  const client = new MongoClient(`${database.url}/nesting`)
  await client.connect()
  t.teardown(() => client.close())
  const db = client.db()
  const guarded = nestingGuarded(db).collection('deep')

  for (const levels of [MAX_DOCUMENT_NESTING + 1, 300, 1000, 10_000]) {
    await t.rejects(guarded.insertOne({ _id: `insert-${levels}` as never, value: nested(levels) }), DocumentTooDeep, `insertOne ${levels} levels`)
    await t.rejects(guarded.insertMany([{ _id: `shallow-${levels}` as never }, { _id: `many-${levels}` as never, value: nested(levels) }]), DocumentTooDeep, `insertMany with one document ${levels} levels deep`)
    await t.rejects(guarded.updateOne({ _id: 'x' as never }, { $set: { value: nested(levels) } }, { upsert: true }), DocumentTooDeep, `updateOne ${levels} levels`)
    await t.rejects(guarded.replaceOne({ _id: 'x' as never }, { value: nested(levels) }, { upsert: true }), DocumentTooDeep, `replaceOne ${levels} levels`)
    await t.rejects(guarded.bulkWrite([{ insertOne: { document: { value: nested(levels) } } }]), DocumentTooDeep, `bulkWrite ${levels} levels`)
  }
  // a dotted path puts its value as deep as it names
  const path = Array.from({ length: 40 }, (_, index) => `p${index}`).join('.')
  await t.rejects(guarded.updateOne({ _id: 'x' as never }, { $set: { [path]: nested(30) } }, { upsert: true }), DocumentTooDeep, 'a value set 40 levels down a dotted path')
  t.equal(await db.collection('deep').countDocuments({}), 0, 'nothing of them was stored')

  // inside the limit: stored, and read back as written
  await guarded.insertOne({ _id: 'within' as never, value: nested(MAX_DOCUMENT_NESTING - 1) })
  t.equal(nestingDepth(await db.collection('deep').findOne({ _id: 'within' as never })), MAX_DOCUMENT_NESTING)

  // the repositories write through the guard, whatever they are handed
  const repositories = repositoriesOf(db)
  await t.rejects(repositories.cards.insertMany([{ _id: 'deep-card', userID: 'u', value: nested(500) } as never]), DocumentTooDeep, 'a card document through the cards repository')
  t.equal(await db.collection('cards').countDocuments({}), 0)

  t.equal(await db.command({ ping: 1 }).then((answer) => answer.ok), 1, 'the database answers')
  t.same(events.filter((event) => event.kind === 'exited'), [], 'the database process never stopped')
})

test('a tree edit that puts folders past 20 levels is refused where it is stored, whatever made it', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'nesting-guard-tree-'))
  t.teardown(() => rm(dataDir, { recursive: true, force: true }))
  const database = await startEmbeddedDatabase({ dataDir })
  t.teardown(() => database.stop())
  const client = new MongoClient(`${database.url}/trees`)
  await client.connect()
  t.teardown(() => client.close())
  const { trees } = repositoriesOf(client.db())

  // an edit recorded by hand, as a door that skipped the tree's own edits would make it
  const append = async (userID: string, levels: number): Promise<void> => {
    const tree = await trees.openForEdit(userID)
    const node = folderChain(levels)
    tree.edit.changes.push({ kind: 'append', to: { folders: [], list: 'folders' }, index: tree.folders.length, node })
    tree.folders.push(node)
    await trees.save(userID, tree)
  }
  await append('at-the-limit', MAX_FOLDER_DEPTH)
  t.equal((await trees.read('at-the-limit')).folders.length, 1, '20 levels are stored')
  const refusal = await append('past-it', MAX_FOLDER_DEPTH + 1).then(() => null, (error: unknown) => error)
  t.ok(refusal instanceof Refusal && refusal.code === 'too_deep', `21 levels refused with too_deep: ${String(refusal)}`)
  t.equal((await trees.read('past-it')).folders.length, 0, 'nothing stored')
})
