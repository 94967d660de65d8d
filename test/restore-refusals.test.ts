// What `npm run restore` refuses, each with a message and a non-zero exit, the
// database left as it was: an archive with a byte changed, cut short, or
// changed and compressed again (only its checksum tells), and a database that
// holds documents already.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { zstdCompressSync, zstdDecompressSync } from 'node:zlib'
import { BSON, MongoClient } from 'mongodb'
import { test } from 'tap'
import { buildApp } from '../src/app.js'
import { startEmbeddedDatabase } from '../src/db/embedded.js'
import { backUp, checkArchive, restore } from '../src/services/backup.js'
import { makeDeck, registerUser, TEST_SECRET } from './helpers/app.js'
import { runScript } from './helpers/backup.js'

interface Teardown { teardown: (fn: () => unknown) => void }

async function folderOf (t: Teardown, name: string): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), `${name}-`))
  t.teardown(() => rm(folder, { recursive: true, force: true }))
  return folder
}

/** A backup of a service's database holding one learner and a deck of 300 cards. */
async function backupOf (t: Teardown): Promise<string> {
  const database = await startEmbeddedDatabase({ dataDir: join(await folderOf(t, 'restore-source'), 'secantus') })
  t.teardown(() => database.stop())
  const url = `${database.url}/flashcards`
  const app = await buildApp({ mongodbUrl: url, jwtSecret: TEST_SECRET })
  const user = await registerUser(app)
  await makeDeck(app, user, { folder: ['Deck'], name: 'Cards', cards: 300 })
  await app.close()
  const file = join(await folderOf(t, 'restore-archive'), 'flashcards.backup')
  const client = new MongoClient(url)
  try {
    await backUp(client, client.db(), file)
  } finally {
    await client.close()
  }
  return file
}

/** Compressed content as the archive's file holds it: the zstd stream, then a skippable frame with its length. */
function archiveFile (content: Buffer): Buffer {
  const stream = zstdCompressSync(content)
  const length = Buffer.alloc(16)
  length.writeUInt32LE(0x184D2A5E, 0)
  length.writeUInt32LE(8, 4)
  length.writeBigUInt64LE(BigInt(stream.length), 8)
  return Buffer.concat([stream, length])
}

/** The documents the embedded database of `dataDir` holds, by collection (those with none left out). */
async function documentsIn (dataDir: string): Promise<Record<string, number>> {
  const database = await startEmbeddedDatabase({ dataDir: join(dataDir, 'secantus') })
  const client = new MongoClient(`${database.url}/flashcards`)
  try {
    const held: Record<string, number> = {}
    for (const { name } of await client.db().listCollections({}, { nameOnly: true }).toArray()) {
      const count = await client.db().collection(name).countDocuments()
      if (count > 0) held[name] = count
    }
    return held
  } finally {
    await client.close()
    await database.stop()
  }
}

test('a damaged archive is refused with a message and a non-zero exit, and the database stays empty', async (t) => {
  const good = await backupOf(t)
  const bytes = await readFile(good)
  const content = zstdDecompressSync(bytes)
  t.equal(bytes.readBigUInt64LE(bytes.length - 8), BigInt(bytes.length - 16), 'the file ends with the length of its stream, as the test writes it')
  // a card's text changed in the content, which is then compressed again: the file decompresses, and only the checksum tells
  const at = content.indexOf('Cards front 150')
  const altered = Buffer.from(content)
  altered.write('X', at)
  const damages: Array<{ what: string, file: Buffer, says: RegExp }> = [
    { what: 'a byte changed in the middle', file: Buffer.from(bytes).fill(bytes[bytes.length >> 1] as number ^ 0xff, bytes.length >> 1, (bytes.length >> 1) + 1), says: /is damaged/ },
    { what: 'cut short to half', file: bytes.subarray(0, bytes.length >> 1), says: /is damaged/ },
    { what: 'cut short by its last byte', file: bytes.subarray(0, bytes.length - 1), says: /is damaged/ },
    { what: 'changed, then compressed again', file: archiveFile(altered), says: /does not match the checksum/ },
    { what: 'not a backup', file: archiveFile(Buffer.from('{"hello": "world"}')), says: /is damaged|is not a backup/ },
    { what: 'a BSON document, not a backup', file: archiveFile(Buffer.from(BSON.serialize({ hello: 'world' }))), says: /is not a backup of this service/ },
    { what: 'empty', file: Buffer.alloc(0), says: /is damaged/ }
  ]
  t.ok(at > 0, 'the card text is in the content')
  const target = await folderOf(t, 'restore-target')
  for (const { what, file, says } of damages) {
    const damaged = join(await folderOf(t, 'restore-damaged'), 'flashcards.backup')
    await writeFile(damaged, file)
    const run = await runScript('restore', [damaged], target)
    t.equal(run.code, 1, `${what}: exit code 1`)
    t.match(run.stderr, /Refused: /, `${what}: refused`)
    t.match(run.stderr, says, `${what}: it says why (${run.stderr.split('\n').find((line) => line.startsWith('Refused')) ?? run.stderr})`)
  }
  t.strictSame(await documentsIn(target), {}, 'the database holds nothing')
  const restored = await runScript('restore', [good], target)
  t.equal(restored.code, 0, `and the archive as written fills it:\n${restored.stderr}`)
})

test('a database that holds documents is refused and left as it was; the archive fills an empty one', async (t) => {
  const file = await backupOf(t)
  const target = await folderOf(t, 'restore-target')
  const first = await runScript('restore', [file], target)
  t.equal(first.code, 0, `restored into an empty database:\n${first.stderr}`)
  t.match(first.stdout, /Restored [\d,]+ documents of \d+ collections/)
  const restored = await documentsIn(target)
  t.equal(restored.cards, 300, 'the deck is there')

  const again = await runScript('restore', [file], target)
  t.equal(again.code, 1, 'a second restore into it: exit code 1')
  // the cards and their states, as many of each, first (in either order: a tie), then the others
  t.match(again.stderr, /Refused: the database flashcards holds documents already \((cards: 300, cardStates: 300|cardStates: 300, cards: 300), /, 'it says what the database holds')
  t.strictSame(await documentsIn(target), restored, 'and changes nothing')

  const usage = await runScript('restore', [], target)
  t.equal(usage.code, 2, 'no file named: exit code 2')
  t.match(usage.stderr, /Usage: npm run restore -- FILE/)
  const missing = await runScript('restore', [join(target, 'no-such.backup')], await folderOf(t, 'restore-target'))
  t.equal(missing.code, 1, 'a file that is not there: exit code 1')
  t.match(missing.stderr, /no-such\.backup/, 'naming it')
})

test('a backup is never written over an existing file', async (t) => {
  const file = await backupOf(t)
  const before = await readFile(file)
  const run = await runScript('backup', [file], await folderOf(t, 'backup-source'))
  t.equal(run.code, 1, 'exit code 1')
  t.match(run.stderr, /exists already/, 'it says so')
  t.strictSame(await readFile(file), before, 'the file is as it was')
})

test('damage found only while the documents go in: the database is emptied again', async (t) => {
  const good = await backupOf(t)
  const checked = await checkArchive(good)
  // a byte of the last collection's last document changed: every other document goes in before the checksum is known not to match
  const content = zstdDecompressSync(await readFile(good))
  const late = Buffer.from(content)
  const at = late.lastIndexOf('learner')
  late.write('X', at)
  const damaged = join(await folderOf(t, 'restore-damaged'), 'flashcards.backup')
  await writeFile(damaged, archiveFile(late))

  const target = await folderOf(t, 'restore-target')
  const database = await startEmbeddedDatabase({ dataDir: join(target, 'secantus') })
  t.teardown(() => database.stop())
  const client = new MongoClient(`${database.url}/flashcards`)
  t.teardown(() => client.close())
  const inserted: string[] = []
  // the archive checked as the good one, then swapped for the damaged one, as a file changed between the two readings would be
  await t.rejects(restore(client.db(), damaged, (line) => inserted.push(line), checked), /does not match the checksum/, 'refused at the end')
  t.ok(inserted.some((line) => line.startsWith('cards: 300')), 'after the cards went in')
  const left = await client.db().listCollections().toArray()
  t.strictSame(left.map(({ name }) => name), [], 'and the database is empty again')
})
