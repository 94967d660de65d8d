// The test command: one embedded database for the whole run (unless MONGODB_URL
// points at a server of your own), tap over every test file, and a closing
// "N passed, N failed" line.
import { spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startEmbeddedDatabase, type EmbeddedDatabase } from '../src/db/embedded.js'

let database: EmbeddedDatabase | undefined
let dataDir: string | undefined
if (process.env.MONGODB_URL === undefined || process.env.MONGODB_URL === '') {
  dataDir = await mkdtemp(join(tmpdir(), 'flashcard-tests-'))
  database = await startEmbeddedDatabase({ dataDir, log: (line) => console.error(line) })
  process.env.MONGODB_URL = database.url
  console.error(`tests use the embedded database at ${database.url}`)
} else {
  console.error('tests use the database of MONGODB_URL')
}

const tap = spawn(join('node_modules', '.bin', 'tap'), process.argv.slice(2), { stdio: ['inherit', 'pipe', 'inherit'] })
let tail = ''
tap.stdout.on('data', (chunk: Buffer) => {
  process.stdout.write(chunk)
  tail = (tail + chunk.toString()).slice(-4096)
})
const code = await new Promise<number>((resolve) => tap.once('exit', (exitCode) => resolve(exitCode ?? 1)))

await database?.stop()
if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true })

// tap closes with a summary such as "# { total: 12, pass: 11, fail: 1, skip: 0 }"
const summary = /# \{ ([^}]*) \}\s*(?:#[^\n]*\s*)*$/.exec(tail)?.[1]
if (summary !== undefined) {
  const counts = Object.fromEntries(summary.split(', ').map((pair) => {
    const [key, value] = pair.split(': ')
    return [key, Number(value)]
  }))
  const skipped = (counts.skip ?? 0) + (counts.todo ?? 0)
  console.log(`${counts.pass ?? 0} passed, ${counts.fail ?? 0} failed${skipped > 0 ? `, ${skipped} skipped` : ''}`)
}
process.exit(code)
