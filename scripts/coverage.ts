// `npm run coverage`: the test command (scripts/run-tests.ts) with tap's coverage
// on, closing with a table of the lines, branches and functions each file of src/
// ran. Arguments go on to tap, as for `npm test`: `npm run coverage -- test/config.test.ts`.
//
// Some tests start the service as a process of its own, with `--import tsx`, and
// tap counts what those processes run too. Coverage from two processes adds up
// only when both ran the same compiled code, so the test files are compiled by
// tsx as well here (its loader is registered after tap's, so it is the one that
// compiles). tsx writes the TypeScript source into its source maps only while
// NODE_V8_COVERAGE is set, and without it the report cannot map lines back:
// NODE_V8_COVERAGE points at a throwaway folder, deleted at the end.
import { spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const v8Coverage = await mkdtemp(join(tmpdir(), 'flashcard-v8-coverage-'))
const tests = spawn(process.execPath, [
  '--import', 'tsx', 'scripts/run-tests.ts',
  '--no-disable-coverage', '--coverage-report=text', '--node-arg=--import=tsx',
  ...process.argv.slice(2)
], { stdio: 'inherit', env: { ...process.env, NODE_V8_COVERAGE: v8Coverage } })
// Ctrl-C reaches the tests as well: wait for them to stop, then clean up
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => tests.kill(signal))
const code = await new Promise<number>((resolve) => tests.once('exit', (exitCode) => resolve(exitCode ?? 1)))
await rm(v8Coverage, { recursive: true, force: true })
process.exit(code)
