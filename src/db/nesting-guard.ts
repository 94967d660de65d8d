import { Collection, type Db } from 'mongodb'
import { MAX_DOCUMENT_NESTING } from '../domain/limits.js'

/**
 * A write refused before it reached the database: its documents nest deeper than
 * MAX_DOCUMENT_NESTING. The service's limits keep every document far inside it, so
 * this is a failure of the service (500), never a client's: but the database, which
 * an overly deep document can stop for every user, never sees it.
 */
export class DocumentTooDeep extends Error {
  override name = 'DocumentTooDeep'
  constructor (readonly collection: string, readonly operation: string) {
    super(`a ${operation} of ${collection} nests deeper than ${MAX_DOCUMENT_NESTING} levels; it was not sent to the database`)
  }
}

/**
 * Whether BSON writes `value` as a document or an array (and so a level): any object but the
 * driver's own single values (ObjectId, Binary, Decimal128... each marked `_bsontype`), dates,
 * regular expressions and bytes. A Map or an object of a class is written as a document too.
 */
function isContainer (value: unknown): value is object {
  if (value === null || typeof value !== 'object') return false
  if (value instanceof Date || value instanceof RegExp || value instanceof ArrayBuffer || ArrayBuffer.isView(value)) return false
  return !('_bsontype' in value)
}

/** The members of a Map, as BSON writes them: its entries, keys as strings. */
function membersOf (container: Map<unknown, unknown>): Iterable<[string, unknown]> {
  return [...container].map(([key, item]) => [String(key), item] as [string, unknown])
}

/** The levels a dotted update path such as `folders.3.name` stands for. */
function keyLevels (key: string): number {
  let levels = 1
  for (let index = key.indexOf('.'); index !== -1; index = key.indexOf('.', index + 1)) levels++
  return levels
}

/**
 * How deeply `value` nests: an object or array in another counts one level, a
 * dotted key one per part. The walk keeps its own stack (a hostile document
 * cannot overflow the service's) and stops once past `limit`.
 */
export function nestingDepth (value: unknown, limit = Infinity): number {
  if (!isContainer(value)) return 0
  let deepest = 0
  const pending: Array<[object, number]> = [[value, 1]]
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [container, level] = next
    if (level > deepest) deepest = level
    if (deepest > limit) return deepest
    if (Array.isArray(container)) {
      for (const item of container as unknown[]) if (isContainer(item)) pending.push([item, level + 1])
      continue
    }
    if (container instanceof Map) {
      for (const [key, item] of membersOf(container)) deepest = member(key, item, level, deepest, pending)
      continue
    }
    // an object's own enumerable members, read by key: no pair made for each, as Object.entries makes
    const record = container as Record<string, unknown>
    for (const key of Object.keys(record)) deepest = member(key, record[key], level, deepest, pending)
  }
  return deepest
}

/** One member of a document at `level`: a container is left to walk, a single value counted; the deepest level met so far. */
function member (key: string, item: unknown, level: number, deepest: number, pending: Array<[object, number]>): number {
  // a dotted key (an update's path) is one level per part
  const levels = key.includes('.') ? keyLevels(key) : 1
  if (isContainer(item)) pending.push([item, level + levels])
  else if (level + levels - 1 > deepest) return level + levels - 1
  return deepest
}

/** The collection methods that send documents to be stored, and which of their arguments hold them. */
const WRITES: Record<string, readonly number[]> = {
  insertOne: [0],
  insertMany: [0],
  replaceOne: [1],
  updateOne: [1],
  updateMany: [1],
  findOneAndUpdate: [1],
  findOneAndReplace: [1],
  bulkWrite: [0]
}

function guardedCollection (collection: Collection): Collection {
  return new Proxy(collection, {
    get (target, key) {
      const value: unknown = Reflect.get(target, key, target)
      if (typeof key !== 'string' || typeof value !== 'function') return value
      const stored = WRITES[key]
      if (stored === undefined) return value.bind(target) as unknown
      return (...args: unknown[]) => {
        for (const index of stored) {
          // a list of documents (insertMany, bulkWrite) is not a level of any one of them
          const argument = args[index]
          const items = Array.isArray(argument) && (key === 'insertMany' || key === 'bulkWrite') ? argument : [argument]
          for (const item of items) {
            if (nestingDepth(item, MAX_DOCUMENT_NESTING) > MAX_DOCUMENT_NESTING) {
              return Promise.reject(new DocumentTooDeep(target.collectionName, key))
            }
          }
        }
        return (value as (...args: unknown[]) => unknown).apply(target, args)
      }
    }
  })
}

/**
 * `db` with every write of its collections checked for nesting before it is
 * sent (see DocumentTooDeep): whatever a client or a package holds, nothing
 * deep enough to stop the database is written through it. Repositories are
 * made over such a database (repositories/index.ts).
 */
export function nestingGuarded (db: Db): Db {
  const collections = new Map<string, Collection>()
  return new Proxy(db, {
    get (target, key) {
      const value: unknown = Reflect.get(target, key, target)
      if (key !== 'collection' || typeof value !== 'function') return typeof value === 'function' ? value.bind(target) as unknown : value
      return (name: string, options?: object) => {
        if (options !== undefined) return guardedCollection(target.collection(name, options))
        let collection = collections.get(name)
        if (collection === undefined) collections.set(name, collection = guardedCollection(target.collection(name)))
        return collection
      }
    }
  })
}
