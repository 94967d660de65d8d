import { test } from 'tap'
import { spawn } from 'node:child_process'
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { ensureSecantus, type SecantusBuilder } from '../../src/db/secantus-install.js'

const ROOT = join(import.meta.dirname, '..', '..')

/** A cache folder of the test's own: where the binary goes, and the file each build notes itself in. */
async function cache (t: { teardown: (fn: () => unknown) => void }): Promise<{ folder: string, root: string, builds: string }> {
  const folder = await mkdtemp(join(tmpdir(), 'secantus-install-test-'))
  t.teardown(() => rm(folder, { recursive: true, force: true }))
  return { folder, root: join(folder, 'secantus-mdb-test'), builds: join(folder, 'builds') }
}

async function buildsNoted (builds: string): Promise<string[]> {
  return (await readFile(builds, 'utf8').catch(() => '')).split('\n').filter((line) => line !== '')
}

/** A builder that stands for cargo in this process: notes itself, takes `ms`, writes a stand-in binary (or fails). */
function standIn (builds: string, ms: number, fails = false): SecantusBuilder {
  return async (into) => {
    await writeFile(builds, `${process.pid}\n`, { flag: 'a' })
    await sleep(ms)
    if (fails) throw new Error('the build failed')
    await mkdir(join(into, 'bin'), { recursive: true })
    await writeFile(join(into, 'bin', 'secantusd-rs'), '#!/bin/sh\n')
    await chmod(join(into, 'bin', 'secantusd-rs'), 0o755)
  }
}

async function startNeedingBinary (root: string, builds: string, buildMs: number): Promise<{ code: number | null, output: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/helpers/secantus-build-child.ts', root, builds, String(buildMs)],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString() })
  child.stderr.on('data', (chunk: Buffer) => { output += chunk.toString() })
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve))
  return { code, output }
}

/** The pid of a process that has ended. */
async function deadPid (): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' })
  await new Promise((resolve) => child.once('exit', resolve))
  return child.pid as number
}

test('two starts at once on one machine: one build; the other says it waits, then uses that build\'s binary', async (t) => {
  const { root, builds, folder } = await cache(t)
  const [first, second] = await Promise.all([startNeedingBinary(root, builds, 2000), startNeedingBinary(root, builds, 2000)])
  t.equal(first.code, 0, first.output)
  t.equal(second.code, 0, second.output)
  t.equal((await buildsNoted(builds)).length, 1, 'one build ran')
  const binary = join(root, 'bin', 'secantusd-rs')
  t.match(first.output, `binary: ${binary}`)
  t.match(second.output, `binary: ${binary}`)
  const waited = [first.output, second.output].filter((output) => /waiting for another build of the database, started at \d{4}-\d\d-\d\dT[\d:.]+Z by process \d+/.test(output))
  t.equal(waited.length, 1, 'the start that did not build said it waited, and since when')
  t.same((await readdir(folder)).sort(), ['builds', 'secantus-mdb-test'], 'no lock nor partial build left behind')
})

test('a lock left by a build whose process died is taken over at once', async (t) => {
  const { root, builds, folder } = await cache(t)
  const pid = await deadPid()
  await writeFile(`${root}.lock`, JSON.stringify({ pid, host: hostname(), startedAt: new Date().toISOString() }))
  await mkdir(`${root}.${pid}.partial`, { recursive: true })
  const lines: string[] = []
  const binary = await ensureSecantus((line) => lines.push(line), { root, build: standIn(builds, 10), pollMs: 50 })
  t.equal(binary, join(root, 'bin', 'secantusd-rs'))
  t.equal((await buildsNoted(builds)).length, 1)
  t.match(lines.join('\n'), `taking over the build of the database started at`)
  t.match(lines.join('\n'), `its process ${pid} is no longer running`)
  t.same((await readdir(folder)).sort(), ['builds', 'secantus-mdb-test'], 'its lock and its partial build are gone')
})

test('a lock nobody has touched for a while is taken over, even while its process lives', async (t) => {
  const { root, builds } = await cache(t)
  const long = new Date(Date.now() - 10 * 60_000)
  await writeFile(`${root}.lock`, JSON.stringify({ pid: process.ppid, host: hostname(), startedAt: long.toISOString() }))
  await utimes(`${root}.lock`, long, long)
  const lines: string[] = []
  await ensureSecantus((line) => lines.push(line), { root, build: standIn(builds, 10), pollMs: 50, staleMs: 60_000 })
  t.equal((await buildsNoted(builds)).length, 1)
  t.match(lines.join('\n'), /it has not been touched for \d+ seconds/)
})

test('a build under way keeps its lock touched, so a long build is waited for, not taken over', async (t) => {
  const { root, builds } = await cache(t)
  const options = { root, pollMs: 20, heartbeatMs: 50, staleMs: 300 }
  const lines: string[] = []
  const [first, second] = await Promise.all([
    ensureSecantus(() => {}, { ...options, build: standIn(builds, 1200) }),
    sleep(100).then(async () => await ensureSecantus((line) => lines.push(line), { ...options, build: standIn(builds, 10) }))
  ])
  t.equal(first, second)
  t.equal((await buildsNoted(builds)).length, 1, 'one build, four times longer than a lock may go untouched')
  t.notMatch(lines.join('\n'), 'taking over')
})

test('when the build waited for fails, the start that waited builds', async (t) => {
  const { root, builds } = await cache(t)
  const options = { root, pollMs: 20 }
  const lines: string[] = []
  const [first, second] = await Promise.allSettled([
    ensureSecantus(() => {}, { ...options, build: standIn(builds, 300, true) }),
    sleep(50).then(async () => await ensureSecantus((line) => lines.push(line), { ...options, build: standIn(builds, 10) }))
  ])
  t.equal(first.status, 'rejected', 'the first build failed')
  t.equal(second.status, 'fulfilled', 'the second start built the binary itself')
  t.equal((await buildsNoted(builds)).length, 2)
  t.match(lines.join('\n'), 'waiting for another build of the database')
})
