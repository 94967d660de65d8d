import { test } from 'tap'
import { Binary, BSON, Decimal128, Double, Int32, Long, MaxKey, MinKey, MongoClient, ObjectId, Timestamp, type Db } from 'mongodb'
import { newId } from '../../src/domain/ids.js'
import { openSnapshot, restoreTarget } from '../../src/repositories/backup.js'
import { testDatabaseUrl } from '../helpers/app.js'

interface Teardown { teardown: (fn: () => unknown) => void }

/** A database of the test's own on the run's server, dropped when the test ends. */
async function freshDatabase (t: Teardown): Promise<{ client: MongoClient, db: Db }> {
  const client = new MongoClient(testDatabaseUrl(import.meta.filename))
  await client.connect()
  const db = client.db()
  t.teardown(async () => {
    await db.dropDatabase().catch(() => {})
    await client.close()
  })
  return { client, db }
}

/** Every document of the collection as stored, as hex, sorted: two collections compared byte for byte. */
async function storedBytes (db: Db, collection: string): Promise<string[]> {
  const raw = await db.collection(collection).find({}, { raw: true }).toArray() as unknown as Uint8Array[]
  return raw.map((bytes) => Buffer.from(bytes).toString('hex')).sort()
}

async function readAll (snapshot: Awaited<ReturnType<typeof openSnapshot>>, collection: string): Promise<string[]> {
  const read: string[] = []
  for await (const raw of snapshot.documents(collection)) read.push(Buffer.from(raw).toString('hex'))
  return read.sort()
}

test('a collection read in windows gives every document once, whatever the types of their ids', async (t) => {
  const { client, db } = await freshDatabase(t)
  const documents = [
    // the service's ids, and a burst of ObjectIds made within the same second, as an upload makes them
    ...Array.from({ length: 1500 }, (_, index) => ({ _id: newId() as unknown as ObjectId, index, text: 'x'.repeat(200 + index % 300) })),
    ...Array.from({ length: 800 }, (_, index) => ({ _id: new ObjectId(), index, bytes: new Binary(Buffer.alloc(600, index % 256)) })),
    // ids of other types, which no window of strings or ObjectIds holds
    { _id: 5 as unknown as ObjectId }, { _id: 2.5 as unknown as ObjectId }, { _id: { nested: 'id' } as unknown as ObjectId },
    { _id: null as unknown as ObjectId }, { _id: new Date(0) as unknown as ObjectId }, { _id: true as unknown as ObjectId },
    { _id: '' as unknown as ObjectId }, { _id: 'é' as unknown as ObjectId }, { _id: '\u{1F600}' as unknown as ObjectId }
  ]
  await db.collection('mixed').insertMany(documents)
  // windows of about 16 KiB: a hundred and more of them over this collection
  const snapshot = await openSnapshot(client, db, { windowBytes: 16 * 1024 })
  t.teardown(() => snapshot.close())
  const read = await readAll(snapshot, 'mixed')
  t.equal(read.length, documents.length, 'as many documents read as there are')
  t.equal(new Set(read).size, read.length, 'none twice')
  t.strictSame(read, await storedBytes(db, 'mixed'), 'each as stored, byte for byte')
})

test('the snapshot holds the database as it was when it was opened: writes after it, in any collection, are not in it', async (t) => {
  const { client, db } = await freshDatabase(t)
  await db.collection('cards').insertMany([{ _id: 'card-1' as never, reps: 0 }, { _id: 'card-2' as never, reps: 0 }])
  await db.collection('reviews').insertOne({ _id: 'review-0' as never, cardID: 'card-2' })
  const snapshot = await openSnapshot(client, db)
  t.teardown(() => snapshot.close())

  // one review, written as the service writes one: the card and the log together
  const session = client.startSession()
  await session.withTransaction(async () => {
    await db.collection('cards').updateOne({ _id: 'card-1' as never }, { $inc: { reps: 1 } }, { session })
    await db.collection('reviews').insertOne({ _id: 'review-1' as never, cardID: 'card-1' }, { session })
  })
  await session.endSession()
  await db.collection('reviews').deleteOne({ _id: 'review-0' as never })
  await db.collection('goals').insertOne({ _id: 'goal-1' as never })

  const ids = async (collection: string): Promise<unknown[]> => {
    const found: unknown[] = []
    for await (const raw of snapshot.documents(collection)) found.push(BSON.deserialize(raw))
    return found.sort((a, b) => String((a as { _id: string })._id).localeCompare(String((b as { _id: string })._id)))
  }
  t.strictSame(await ids('cards'), [{ _id: 'card-1', reps: 0 }, { _id: 'card-2', reps: 0 }], 'the card as it was before the review')
  t.strictSame(await ids('reviews'), [{ _id: 'review-0', cardID: 'card-2' }], 'the review made after it is not in it, and the one removed after it is')
  t.strictSame(await ids('goals'), [], 'a collection made after it holds nothing in it')
})

test('a restore writes every document back as it was stored, with the collections\' indexes and views, into an empty database only', async (t) => {
  const source = await freshDatabase(t)
  const target = await freshDatabase(t)
  await source.db.collection('things').insertMany([
    { _id: 'a' as never, int: new Int32(1), long: Long.fromNumber(2), double: new Double(3), wholeDouble: new Double(4.0), decimal: Decimal128.fromString('5.50') },
    { _id: 'b' as never, when: new Date('2024-02-29T12:00:00Z'), stamp: new Timestamp({ t: 1, i: 2 }), binary: new Binary(Buffer.from([1, 2, 3]), 4), regex: /a.b/i },
    { _id: 'c' as never, nested: { list: [1, 'two', { three: 3 }], empty: {} }, nothing: null, min: new MinKey(), max: new MaxKey(), 'dotted.name': 1 }
  ])
  await source.db.collection('things').createIndex({ 'nested.list': 1 }, { name: 'by_list', sparse: true })
  await source.db.collection('things').createIndex({ when: 1 }, { name: 'when_ttl', expireAfterSeconds: 86_400 * 365 * 50 })
  await source.db.createCollection('some_things', { viewOn: 'things', pipeline: [{ $match: { _id: 'a' } }] })
  const snapshot = await openSnapshot(source.client, source.db)
  const collections = await snapshot.collections()
  const documents = new Map<string, Uint8Array[]>()
  for (const { name, type } of collections) {
    const read: Uint8Array[] = []
    if (type === 'collection') for await (const raw of snapshot.documents(name)) read.push(raw)
    documents.set(name, read)
  }
  await snapshot.close()

  const restore = restoreTarget(target.db)
  t.strictSame(await restore.holdings(), [], 'the target holds nothing')
  await restore.prepare(collections)
  for (const [name, raw] of documents) await restore.insert(name, raw)
  t.strictSame(await storedBytes(target.db, 'things'), await storedBytes(source.db, 'things'), 'every document byte for byte')
  const indexes = async (db: Db): Promise<unknown[]> => (await db.collection('things').listIndexes().toArray()).sort((a, b) => String(a.name).localeCompare(String(b.name)))
  t.strictSame(await indexes(target.db), await indexes(source.db), 'the same indexes')
  t.strictSame(await target.db.collection('some_things').find().toArray(), await source.db.collection('some_things').find().toArray(), 'the view, on the restored collection')
  t.ok((await target.db.collection('cardStates').listIndexes().toArray()).some((index) => index.name === 'user_queue'), 'and the service\'s own indexes, on collections the archive did not have')
  t.strictSame(await restore.holdings(), [{ name: 'things', documents: 3 }], 'a database that holds documents is seen as such')
})
