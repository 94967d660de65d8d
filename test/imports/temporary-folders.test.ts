// The imports' temporary folder: an instance removes the folder of another whose heartbeat stopped,
// but not in the beat that follows a stall of its own (the machine slept, or the process stalled),
// when the others' heartbeats are late for the same reason.
import { randomUUID } from 'node:crypto'
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'tap'
import { GONE_AFTER_MS, HEARTBEAT_MS, importFolders } from '../../src/imports/temporary-folders.js'

async function exists (path: string): Promise<boolean> {
  return await stat(path).then(() => true, () => false)
}

test('a folder whose heartbeat stopped is removed, but not by an instance just back from a stall of its own', async (t) => {
  const directory = await mkdtemp(join(tmpdir(), 'import-folders-'))
  t.teardown(() => rm(directory, { recursive: true, force: true }))
  const other = join(directory, randomUUID())
  await mkdir(join(other, 'an-import'), { recursive: true })
  await writeFile(join(other, 'heartbeat'), 'beat')

  let now = Date.now()
  const folders = importFolders(directory, randomUUID(), () => now)
  const held = async (): Promise<boolean> => false
  t.equal(await folders.beat(held), 0, 'a fresh heartbeat: kept')
  let removed = 0
  for (let beats = 1; beats * HEARTBEAT_MS < GONE_AFTER_MS; beats++) {
    now += HEARTBEAT_MS
    removed += await folders.beat(held)
  }
  t.equal(removed, 0, 'its heartbeat late, but by less than the time allowed: kept')
  t.ok(await exists(other))

  now += 10 * GONE_AFTER_MS
  t.equal(await folders.beat(held), 0, 'this instance\'s own beat overdue: nothing removed this time')
  t.ok(await exists(other), 'the other\'s folder is still there')
  now += HEARTBEAT_MS
  t.equal(await folders.beat(held), 1, 'the next beat, on time, removes it')
  t.notOk(await exists(other))
})
