// sql.js's WebAssembly SQLite, which builds the collection of an export in memory (exports are
// bounded by their own limits: domain/anki/export.ts). Imports read collections from disk instead
// (collection-file.ts).
import initSqlJs, { type SqlJsStatic } from 'sql.js'

let engine: Promise<SqlJsStatic> | undefined

/** Loaded once and shared: it keeps no state between databases. */
export function loadSqlEngine (): Promise<SqlJsStatic> {
  engine ??= initSqlJs()
  return engine
}
