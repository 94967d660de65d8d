// An imported Anki history: the parameters fitted here must predict it about as
// well as those Anki's own optimizer found for it, on the same items.
//
// TODO(anki-reader): this test waits for two fixtures the anki-reader branch's
// fixture script (npm run anki-fixtures, scripts/anki-fixtures/make_fixtures.py)
// is to write, and for that branch's reader (src/anki/package-file.ts):
// - test/fixtures/anki/history.apkg: a collection whose review log gives at
//   least 1,000 training items (MINIMUM_TRAINING_ITEMS), with learning, review,
//   relearning, cram and set-due-date entries;
// - test/fixtures/anki/history-parameters.json: what Anki reported on it,
//   { "parameters": [21 numbers: Anki's compute_params on the whole collection],
//     "rolloverHour": n, "utcOffsetMinutesWest": n }.
// Once both are on this branch, replace the dynamic import below with a static
// one of readAnkiPackageFile and loadSqlEngine; the test runs as soon as the files exist.
import { test } from 'tap'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { loggedFromAnkiRevlog, type AnkiRevlogRow } from '../../src/domain/anki-revlog.js'
import { evaluateParameters } from '../../src/domain/fit-evaluation.js'
import { RETENTIONS_COMPARED } from '../../src/domain/schedule-fit.js'
import { trainingItems } from '../../src/domain/training-items.js'
import { packLog, runFit } from '../../src/fitting/jobs.js'

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'anki')
const PACKAGE = join(FIXTURES, 'history.apkg')
const REPORTED = join(FIXTURES, 'history-parameters.json')
const READER = join(import.meta.dirname, '..', '..', 'src', 'anki', 'package-file.ts')
const missing = [PACKAGE, REPORTED, READER].filter((path) => !existsSync(path))

interface Reported { parameters: number[], rolloverHour: number, utcOffsetMinutesWest: number }

/** The package's revlog, by the anki-reader branch's reader. */
async function revlogOf (path: string): Promise<AnkiRevlogRow[]> {
  const reader = await import(READER) as {
    loadSqlEngine: () => Promise<unknown>
    readAnkiPackageFile: (path: string, options: { sql: unknown, onMedia: () => void }) => Promise<{ collection: { revlog: { length: number, entry: (row: number) => AnkiRevlogRow } } }>
  }
  const { collection } = await reader.readAnkiPackageFile(path, { sql: await reader.loadSqlEngine(), onMedia: () => {} })
  return Array.from({ length: collection.revlog.length }, (_, row) => collection.revlog.entry(row))
}

test('on an Anki history, the fitted parameters\' log loss is within 1% of that of Anki\'s own optimizer\'s parameters, on the same items', {
  skip: missing.length > 0 ? `TODO(anki-reader): missing ${missing.map((path) => path.slice(path.indexOf('/test/') + 1 || path.indexOf('/src/') + 1)).join(', ')}` : false
}, async (t) => {
  const reported = JSON.parse(readFileSync(REPORTED, 'utf8')) as Reported
  // Anki's days: blocks of 24 hours from the rollover, in the collection's offset
  const dayOf = (epochMs: number): number => Math.floor((epochMs / 1000 - reported.utcOffsetMinutesWest * 60 - reported.rolloverHour * 3600) / 86_400)
  const log = loggedFromAnkiRevlog(await revlogOf(PACKAGE), dayOf)
  const { items } = trainingItems(log)
  t.ok(items.length >= 1000, `${items.length} training items`)

  const outcome = await runFit({ type: 'fit', log: packLog(log).log, inUse: null, retentions: RETENTIONS_COMPARED, newCardsPerDay: 20, today: Math.max(...log.map((entry) => entry.day)) + 1, withStates: false })
  if (outcome.type !== 'fitted') throw new Error(`not fitted: ${outcome.items} items`)
  const ours = evaluateParameters(outcome.parameters, items).logLoss
  const anki = evaluateParameters(reported.parameters, items).logLoss
  t.ok(Math.abs(ours - anki) <= 0.01 * anki, `log loss ${ours.toFixed(5)} against Anki's ${anki.toFixed(5)}`)
})
