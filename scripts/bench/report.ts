// The benchmark's output: one table of results against the bars, the plans of
// the hot queries, and docs/performance.md holding both (rewritten each run).
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { dirname } from 'node:path'
import { concernOf, type ExplainRow } from './explain.js'

export interface ResultRow {
  operation: string
  median: string
  p90: string
  bar: string
  /** 'yes', 'no', or '' for a figure without a bar */
  met: string
}

export interface Report {
  date: Date
  machine: string
  database: string
  data: string
  method: string
  rows: ResultRow[]
  explain: ExplainRow[]
  /** how the data came about this run: built (and how long that took) or reused */
  dataNote: string
}

/** A Markdown table with its columns padded, so that it reads in a terminal as well as rendered. */
export function markdownTable (header: readonly string[], rows: ReadonlyArray<readonly string[]>, rightAligned: ReadonlySet<number> = new Set()): string {
  const escape = (cell: string): string => cell.replace(/\|/g, '\\|')
  const cells = [header, ...rows].map((row) => row.map(escape))
  const widths = header.map((_, column) => Math.max(3, ...cells.map((row) => (row[column] ?? '').length)))
  const line = (row: readonly string[]): string => `| ${row.map((cell, column) => rightAligned.has(column)
    ? cell.padStart(widths[column] ?? 0)
    : cell.padEnd(widths[column] ?? 0)).join(' | ')} |`
  const rule = `| ${widths.map((width, column) => rightAligned.has(column) ? `${'-'.repeat(width - 1)}:` : '-'.repeat(width)).join(' | ')} |`
  return [line(cells[0] as string[]), rule, ...cells.slice(1).map(line)].join('\n')
}

export function resultsTable (rows: readonly ResultRow[]): string {
  return markdownTable(['Operation', 'Median', 'p90', 'Bar', 'Met?'], rows.map((row) => [row.operation, row.median, row.p90, row.bar, row.met]), new Set([1, 2]))
}

export function explainTable (rows: readonly ExplainRow[]): string {
  const count = (value: number): string => Number.isFinite(value) ? value.toLocaleString('en') : '-'
  return markdownTable(
    ['Query (repository)', 'Used by', 'Command', 'Winning plan', 'Index', 'Keys examined', 'Docs examined', 'Returned', 'Matching filter', 'Call', 'Note'],
    rows.map((row) => [
      row.query,
      row.usedBy,
      row.command,
      row.plan,
      row.indexes.join(', ') || '-',
      count(row.keysExamined),
      count(row.docsExamined),
      count(row.returned),
      count(row.matching),
      `${row.callMs.toFixed(1)} ms`,
      concernOf(row)
    ]),
    new Set([5, 6, 7, 8, 9])
  )
}

export async function writeReport (path: string, report: Report): Promise<void> {
  const text = `# Performance

Written by \`npm run bench\` on ${report.date.toISOString().slice(0, 16).replace('T', ' ')} UTC; every run rewrites this file.

- Machine: ${report.machine}
- Database: ${report.database}
- Data: ${report.data}
- Method: ${report.method}
- ${report.dataNote}

${resultsTable(report.rows)}

## How to reproduce

\`npm run bench\`. The first run builds the data (kept in \`.scratch/\`, built again when its version
in \`scripts/bench/data.ts\` changes or it grows too old); later runs start the service on it as it is.
\`BENCH_SAMPLES\` (requests per operation, default 30) and \`BENCH_LOAD_SECONDS\` (length of the
20-connection run, default 10) tune a run; with \`MONGODB_URL\` (a replica set) the data is built in a
database there instead; \`DATABASE_CACHE_SIZE\` is the embedded database's cache, as for \`npm start\`.
\`BENCH_ONLY=search\`, \`BENCH_ONLY=import\` and \`BENCH_ONLY=backup\` each measure one step alone (search-cards,
import-anki, backup and restore) and write its rows in a section of their own, above this one,
leaving the rest of this file as it is.

## The hot queries' plans

Each query made by the repository's own method for the measured user, with the arguments its route
passes, then its command explained (\`executionStats\`, the winning plan only). "Matching filter"
counts the documents that match the query's filter whatever its limit: on the embedded SecantusDB a
query's time follows that count, even where a limit stops what explain reports as examined. "Call"
is the median of five calls of the repository method from the benchmark's process, all of its
commands, and the note flags a query that reads or matches far more than it returns.

${explainTable(report.explain)}
`
  await mkdir(dirname(path), { recursive: true })
  await writeFile(path, text)
}

/**
 * Writes the rows of one step measured alone into a section of `path` of its
 * own, headed `title`, above "How to reproduce": one already there is replaced,
 * the rest of the file left as the last full run wrote it.
 */
export async function writeSection (path: string, title: string, lines: readonly string[], rows: readonly ResultRow[]): Promise<void> {
  const section = `## ${title}\n\n${lines.map((line) => `- ${line}`).join('\n')}\n\n${resultsTable(rows)}\n\n`
  let text = await readFile(path, 'utf8')
  const start = text.indexOf(`## ${title}`)
  if (start !== -1) {
    const next = text.indexOf('\n## ', start + 3)
    text = text.slice(0, start) + text.slice(next === -1 ? text.length : next + 1)
  }
  const before = text.indexOf('## How to reproduce')
  text = before === -1 ? `${text}\n${section}` : text.slice(0, before) + section + text.slice(before)
  await writeFile(path, text)
}
