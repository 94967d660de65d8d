// The Python environment that runs Anki's own backend (PyPI `anki`) for the Anki fixtures
// (scripts/anki-fixtures.ts) and for the test that imports export-anki's packages into Anki
// (test/anki/export-pypi-anki.test.ts): .tools/anki-fixtures-venv, made the first time with the
// pinned packages, and made again when the pins change. PyPI's `anki` is AGPL-3.0: a tool the
// project runs, never part of the service.
import { spawnSync, type StdioOptions } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
export const ANKI_VENV = join(root, '.tools', 'anki-fixtures-venv')
export const ANKI_PYTHON = join(ANKI_VENV, 'bin', 'python')
export const ANKI_PACKAGES = ['anki==26.9.3', 'genanki==0.13.1', 'zstandard==0.25.0']
const STAMP = join(ANKI_VENV, 'installed.txt')

export class AnkiVenvError extends Error {
  override name = 'AnkiVenvError'
}

/**
 * Makes the environment unless it holds the pinned packages already; throws AnkiVenvError saying
 * why when it cannot (no Python 3.9 or newer with venv, or pip failed). pip's output goes to
 * stderr (fd 2 by default).
 */
export function ensureAnkiVenv (output: StdioOptions = ['ignore', 2, 2]): void {
  const wanted = ANKI_PACKAGES.join('\n')
  if (existsSync(STAMP) && existsSync(ANKI_PYTHON) && readFileSync(STAMP, 'utf8') === wanted) return
  const python = ['python3', 'python'].find((candidate) =>
    /Python 3\.(9|[1-9][0-9])/.test(spawnSync(candidate, ['--version'], { encoding: 'utf8' }).stdout ?? ''))
  if (python === undefined) {
    throw new AnkiVenvError('Anki\'s backend needs Python 3.9 or newer with venv (e.g. `apt-get install python3 python3-venv`)')
  }
  const run = (command: string, args: string[]): void => {
    const result = spawnSync(command, args, { stdio: output })
    if (result.status !== 0) throw new AnkiVenvError(`${command} ${args.join(' ')} failed (${result.error?.message ?? `exit ${String(result.status)}`})`)
  }
  console.error(`== installing ${ANKI_PACKAGES.join(', ')} into ${ANKI_VENV} (once)`)
  run(python, ['-m', 'venv', '--clear', ANKI_VENV])
  run(join(ANKI_VENV, 'bin', 'pip'), ['install', '--quiet', '--disable-pip-version-check', ...ANKI_PACKAGES])
  writeFileSync(STAMP, wanted)
}
