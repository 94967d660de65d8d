// Anki's own backend (PyPI `anki`, in .tools/anki-fixtures-venv, made here if missing) for the tests
// that hand a package to Anki itself: whether it is there, and what Anki holds after importing one.
// Without Python those tests are skipped, except in CI (CI=true), where they fail.
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { ANKI_PYTHON, ensureAnkiVenv } from '../../scripts/anki-venv.js'

export interface ImportedCard {
  guid: string
  ord: number
  deck: string
  type: number
  queue: number
  due: number
  interval: number
  reps: number
  lapses: number
  /** the low three bits the flag */
  flags: number
  memory: { stability: number, difficulty: number } | null
  revlog: number[]
}

/** What Anki holds after the import (scripts/anki-fixtures/import_export.py). */
export interface Imported {
  now: number
  today: number
  imported: { new: number, updated: number, duplicate: number, conflicting: number, missingNotetype: number }
  decks: string[]
  presets: Record<string, { name: string, desiredRetention: number, fsrsParams6: number[] | null }>
  notes: Record<string, { notetype: string, fields: string[] }>
  /** how many notes the collection holds: two of one guid are one in notes */
  noteCount: number
  cards: ImportedCard[]
  revlogCount: number
  media: Record<string, string>
  problems: string[]
}

const SCRIPTS = join(import.meta.dirname, '..', '..', 'scripts', 'anki-fixtures')

let problem: string | undefined
const started = performance.now()
try {
  ensureAnkiVenv()
} catch (error) {
  problem = error instanceof Error ? error.message : String(error)
}

/** Why Anki's backend is not there (undefined when it is), and how long making or checking it took. */
export const ankiVenv = { problem, seconds: (performance.now() - started) / 1000 }

/** A test's options: skipped without Anki's backend, unless in CI. */
export const needsAnki = { skip: problem === undefined || process.env.CI === 'true' ? false : `PyPI anki is not available: ${problem}` }

/** Throws in a test that runs without Anki's backend (in CI). */
export function assertAnki (): void {
  if (problem !== undefined) throw new Error(`PyPI anki is not available: ${problem}`)
}

/** Runs one of scripts/anki-fixtures/ with Anki's Python, in `timezone`; its standard output. */
export function runAnkiScript (script: string, args: readonly string[], timezone: string): string {
  const result = spawnSync(ANKI_PYTHON, [join(SCRIPTS, script), ...args], { encoding: 'utf8', env: { ...process.env, TZ: timezone }, maxBuffer: 64 * 1024 * 1024 })
  if (result.status !== 0) throw new Error(`${script} failed: ${result.stderr}`)
  return result.stdout
}

/**
 * The package at `path` imported into a fresh collection by Anki, as a learner in `timezone` whose
 * day starts at 04:00 would ("Import any learning progress" ticked; "Import any deck presets" with
 * `withPresets`), and what Anki then holds.
 */
export function importIntoAnki (path: string, timezone: string, withPresets = false): Imported {
  return JSON.parse(runAnkiScript('import_export.py', [path, '4', ...(withPresets ? ['presets'] : [])], timezone)) as Imported
}
