// import-anki of a generated collection (anki-package.ts: 100,000 cards, 1,000,000 review rows)
// through HTTP against the service as `npm start` runs it, and what it does to everyone else
// meanwhile: two other users opening their cards 20 times a second each, and the resident memory of
// the service (its import worker included) sampled throughout.
import { spawnSync } from 'node:child_process'
import { openAsBlob } from 'node:fs'
import { mkdtemp, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { ANKI_PYTHON, ensureAnkiVenv } from '../anki-venv.js'
import { writeAnkiPackage } from './anki-package.js'
import { post } from './load.js'
import { login, peersUntil, register, seedPeers } from './peers.js'
import { residentMemory } from './processes.js'

export const IMPORT_CARDS = 100_000
export const IMPORT_REVLOG = 1_000_000

/**
 * The largest package the limits allow, about: the card quota's 200,000 cards, sides long enough
 * that the collection comes close to the 1 GiB one entry of a package may expand to, 2,000,000
 * review rows, and media files of just under 20 MiB (the most one file may be) filling the rest of
 * the 1 GiB a package may be as sent.
 */
export const LARGEST = { cards: 200_000, revlog: 2_000_000, sideCharacters: 1300, media: 45, mediaBytes: 20 * 1024 * 1024 - 4096 }
const SCRIPTS = join(import.meta.dirname, '..', 'anki-fixtures')
const PASSWORD = 'bench-import-password'
const IMPORTER = 'bench-import@example.com'
const PEERS = ['bench-import-peer-1@example.com', 'bench-import-peer-2@example.com']

/** Writes the package to `path` (in this process), the largest the limits allow with `largest`; the users through the app: the importer, and the peers with a deck each. */
export async function seedImport (app: FastifyInstance, path: string, largest = false): Promise<{ packageBytes: number, collectionBytes: number, revlog: number, generateMs: number }> {
  const started = performance.now()
  const written = await writeAnkiPackage(path, largest ? LARGEST : { cards: IMPORT_CARDS, revlog: IMPORT_REVLOG, media: 20 })
  const generateMs = performance.now() - started
  await register(app, IMPORTER, PASSWORD)
  await seedPeers(app, PEERS, PASSWORD)
  return { packageBytes: (await stat(path)).size, collectionBytes: written.collectionBytes, revlog: written.revlog, generateMs }
}

export interface ImportFigures {
  /** from sending the package to get-import-status saying done */
  totalMs: number
  /** of which the upload, until the 202 */
  uploadMs: number
  /** the service process's largest resident memory while it imported */
  peakRss: number
  peersDuring: number[]
  peersAlone: number[]
  status: Record<string, unknown>
}

/** The import, the peers reading their cards throughout and the service's memory sampled; then the peers as long again without it. */
export async function measureImport (origin: string, servicePid: number, packagePath: string, progress: (line: string) => void): Promise<ImportFigures> {
  const token = await login(origin, IMPORTER, PASSWORD)
  const peers = await Promise.all(PEERS.map(async (email) => await login(origin, email, PASSWORD)))
  await peersUntil(origin, peers, new Promise((resolve) => setTimeout(resolve, 500)))
  // the file as a Blob read from disk as it is sent: a package of a gigabyte is never held here
  const file = await openAsBlob(packagePath)
  let peakRss = (await residentMemory(servicePid)) ?? 0
  const started = performance.now()
  let uploadMs = 0
  const importing = (async () => {
    const form = new FormData()
    form.append('jwtToken', token)
    form.append('file', file, 'generated.apkg')
    const response = await fetch(`${origin}/api/import-anki`, { method: 'POST', body: form })
    const answer = await response.json() as { importID?: string }
    uploadMs = performance.now() - started
    if (response.status !== 202 || answer.importID === undefined) throw new Error(`import-anki: ${response.status} ${JSON.stringify(answer)}`)
    let lastPercent = ''
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 250))
      peakRss = Math.max(peakRss, (await residentMemory(servicePid)) ?? 0)
      const { text } = await post(`${origin}/api/get-import-status`, JSON.stringify({ jwtToken: token, importID: answer.importID }))
      const status = JSON.parse(text) as Record<string, unknown>
      if (status.percent !== lastPercent && Number(status.percent) % 10 === 0) {
        lastPercent = String(status.percent)
        progress(`  ${((performance.now() - started) / 1000).toFixed(0)} s: ${String(status.state)} ${lastPercent}% (${String(status.cards)} cards, ${String(status.reviews)} reviews)`)
      }
      if (status.state === 'done' || status.state === 'failed') return status
    }
  })()
  const peersDuring = await peersUntil(origin, peers, importing)
  const status = await importing
  const totalMs = performance.now() - started
  if (status.state !== 'done') throw new Error(`the import failed: ${JSON.stringify(status)}`)
  const peersAlone = await peersUntil(origin, peers, new Promise((resolve) => setTimeout(resolve, Math.min(totalMs, 20_000))))
  return { totalMs, uploadMs, peakRss, peersDuring, peersAlone, status }
}

/** What Anki's own import of the package did (scripts/anki-fixtures/time_import.py), or why it did not run. */
export type AnkiOwnImport = { seconds: number, notes: number, cards: number, revlog: number } | string

/**
 * Anki's own import of the same package into a new, empty collection, in-process with PyPI `anki`
 * (the environment of scripts/anki-venv.ts, made here if missing), as File > Import does it with
 * learning progress kept: the yardstick the service's import is set beside.
 */
export async function timeAnkiOwnImport (packagePath: string): Promise<AnkiOwnImport> {
  try {
    ensureAnkiVenv()
  } catch (error) {
    return error instanceof Error ? error.message : String(error)
  }
  const folder = await mkdtemp(join(tmpdir(), 'flashcard-bench-anki-'))
  try {
    const result = spawnSync(ANKI_PYTHON, [join(SCRIPTS, 'time_import.py'), packagePath, folder], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 })
    if (result.status !== 0) return `Anki's import failed: ${(result.stderr ?? '').trim().split('\n').slice(-3).join(' ')}`
    return JSON.parse(result.stdout.trim().split('\n').at(-1) ?? '') as AnkiOwnImport
  } finally {
    await rm(folder, { recursive: true, force: true })
  }
}

/**
 * edit-note-type of the imported package's note type with the most cards: a template's answer
 * changed, so every card of it is rendered again, behind the answer past its wait; timed until
 * get-note-types no longer says it is being rendered.
 */
export interface NoteTypeEditFigures { name: string, answeredMs: number, renderedMs: number, status: number, answer: string }

export async function measureNoteTypeEdit (origin: string): Promise<NoteTypeEditFigures> {
  const token = await login(origin, IMPORTER, PASSWORD)
  const call = async (operation: string, body: object) => await post(`${origin}/api/${operation}`, JSON.stringify({ jwtToken: token, ...body }))
  type Listed = { noteTypes: Array<{ noteTypeID: string, name: string, rendering?: string, templates: Array<{ name: string, front: string, back: string }> }> }
  const { noteTypes } = JSON.parse((await call('get-note-types', {})).text) as Listed
  const browsed = JSON.parse((await call('browse-cards', {})).text) as { cards: Array<{ noteType?: string }> }
  const noteType = noteTypes.find((one) => one.name === browsed.cards[0]?.noteType) ?? noteTypes[0]
  if (noteType === undefined) throw new Error('the import left no note type')
  const templates = noteType.templates.map((template) => ({ ...template, back: `${template.back}\n<div class="edited"></div>` }))
  const started = performance.now()
  const answer = await call('edit-note-type', { noteTypeID: noteType.noteTypeID, templates })
  const answeredMs = performance.now() - started
  if (answer.status !== 200) return { name: noteType.name, answeredMs, renderedMs: answeredMs, status: answer.status, answer: answer.text.slice(0, 300) }
  for (;;) {
    const listed = JSON.parse((await call('get-note-types', {})).text) as Listed
    if (listed.noteTypes.find((one) => one.noteTypeID === noteType.noteTypeID)?.rendering === undefined) break
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  return { name: noteType.name, answeredMs, renderedMs: performance.now() - started, status: answer.status, answer: answer.text.slice(0, 300) }
}

/**
 * The learner deletes what the import brought, every folder of it at the top of the library, one
 * after the other, as the page's Delete folder does: how long until each answer, and until the
 * library holds none of them (a deletion past 500 cards goes on behind its answer).
 */
export interface DeletionFigures { cards: number, folders: number, answeredMs: number[], underWay: number, goneMs: number, statuses: number[] }

export async function measureImportDeletion (origin: string): Promise<DeletionFigures> {
  const token = await login(origin, IMPORTER, PASSWORD)
  const call = async (operation: string, body: object) => await post(`${origin}/api/${operation}`, JSON.stringify({ jwtToken: token, ...body }))
  const { folders } = JSON.parse((await call('get-library', {})).text) as { folders: Array<{ folderID: string }> }
  const answeredMs: number[] = []
  const statuses: number[] = []
  let cards = 0
  let underWay = 0
  const started = performance.now()
  for (const { folderID } of folders) {
    const asked = performance.now()
    const answer = await call('delete-folder', { folderID })
    answeredMs.push(performance.now() - asked)
    statuses.push(answer.status)
    if (answer.status !== 200) continue
    const deleted = JSON.parse(answer.text) as { cards: string, underWay?: string }
    cards += Number(deleted.cards)
    if (deleted.underWay === 'true') underWay++
  }
  for (;;) {
    const left = JSON.parse((await call('get-library', {})).text) as { folders: unknown[] }
    if (left.folders.length === 0) break
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  return { cards, folders: folders.length, answeredMs, underWay, goneMs: performance.now() - started, statuses }
}
