// A collection's SQLite file opened on disk with Node's own SQLite (node:sqlite), for the reader of
// domain/anki/collection.ts. SQLite reads the pages a query needs and keeps a small cache of them,
// so a collection of any size is read in bounded memory, where an engine that loads the file into
// memory (sql.js) holds all of it.
import { DatabaseSync, type StatementSync } from 'node:sqlite'
import type { SqlSource, SqlValue } from '../domain/anki/collection.js'
import { AnkiImportError } from '../domain/anki/errors.js'

/** The most memory SQLite itself may take while a collection is read. */
const SQLITE_HEAP_BYTES = 256 * 1024 * 1024

/**
 * What SQLite cannot read in the file (a column missing, a number past what JavaScript holds, a
 * page damaged, SQLite's memory bound reached) is the collection's fault: `corrupt_collection`.
 */
function unreadable (error: unknown): AnkiImportError {
  if (error instanceof AnkiImportError) return error
  return new AnkiImportError('corrupt_collection', `the collection cannot be read: ${error instanceof Error ? error.message : String(error)}`)
}

export interface CollectionFile extends SqlSource {
  close: () => void
}

/**
 * Opens the collection at `path`, a copy of the package's own: the reader changes its schema and
 * adds indexes to it. A file SQLite cannot open is `corrupt_collection`.
 */
export function openCollectionFile (path: string): CollectionFile {
  let database: DatabaseSync
  try {
    // not defensive: the reader rewrites sqlite_master to declare Anki's own collation out (collection.ts)
    database = new DatabaseSync(path, { defensive: false } as ConstructorParameters<typeof DatabaseSync>[1])
  } catch (error) {
    throw new AnkiImportError('corrupt_collection', `the collection is not an SQLite database: ${error instanceof Error ? error.message : String(error)}`)
  }
  const statements = new Map<string, StatementSync>()
  const statement = (query: string): StatementSync => {
    let prepared = statements.get(query)
    if (prepared === undefined) {
      prepared = database.prepare(query)
      prepared.setReturnArrays(true)
      statements.set(query, prepared)
    }
    return prepared
  }
  // SQLite's own memory (its schema, pages, sorts), which the worker's heap cap does not count:
  // a bound of its own, for every database of the process (only the import worker opens any)
  database.exec(`pragma hard_heap_limit = ${SQLITE_HEAP_BYTES}`)
  return {
    * rows (query, ...params) {
      try {
        for (const row of statement(query).iterate(...params)) yield row as unknown as SqlValue[]
      } catch (error) {
        throw unreadable(error)
      }
    },
    all (query, ...params) {
      try {
        return statement(query).all(...params) as unknown as SqlValue[][]
      } catch (error) {
        throw unreadable(error)
      }
    },
    run (statements) {
      try {
        database.exec(statements)
      } catch (error) {
        throw unreadable(error)
      }
    },
    close () {
      statements.clear()
      database.close()
    }
  }
}
