// `npm run anki-fixtures`: remakes the Anki packages under test/fixtures/anki/ and what Anki says
// about them (expected.json), with Anki's own backend (PyPI `anki`) and genanki.
//
// Both are installed the first time into .tools/anki-fixtures-venv (Python 3.9 or newer with venv
// needed), pinned, and used only here: the service never runs them. PyPI's `anki` is AGPL-3.0; it is
// a tool this script runs to make test data, and nothing of it becomes part of the service.
//
// `npm run anki-fixtures -- --large CARDS REVLOG OUT.apkg` writes one large package instead, for
// measuring the reader (not a fixture: keep it out of the repository). `npm run anki-fixtures --
// --history` remakes only history.apkg and history-parameters.json (what Anki's FSRS optimizer
// computes for it), leaving the other fixtures as they are.
import { spawnSync } from 'node:child_process'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ANKI_PYTHON, AnkiVenvError, ensureAnkiVenv } from './anki-venv.js'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')

function run (command: string, args: string[], env: NodeJS.ProcessEnv = process.env): void {
  const result = spawnSync(command, args, { stdio: 'inherit', env })
  if (result.status !== 0) {
    console.error(`${command} ${args.join(' ')} failed`)
    process.exit(result.status ?? 1)
  }
}

try {
  ensureAnkiVenv('inherit')
} catch (error) {
  if (!(error instanceof AnkiVenvError)) throw error
  console.error(error.message)
  process.exit(2)
}
const args = process.argv.slice(2)
// the fixtures' collection lives at UTC-5 without daylight saving, its day rolling over at 04:00
const env = { ...process.env, TZ: 'Etc/GMT+5' }
const fixtures = join(root, 'test', 'fixtures', 'anki')
const scriptArgs = args.length === 0 ? [fixtures] : args.length === 1 && args[0] === '--history' ? ['--history', fixtures] : args
run(ANKI_PYTHON, [join(root, 'scripts', 'anki-fixtures', 'make_fixtures.py'), ...scriptArgs], env)
