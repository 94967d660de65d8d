import { MongoBulkWriteError, MongoServerError } from 'mongodb'

/** A write refused by a unique index. */
export function isDuplicateKey (error: unknown): boolean {
  return error instanceof MongoServerError && error.code === 11000
}

/** A bulk write refused only by a unique index, for every document it refused (those already there). */
export function onlyDuplicateKeys (error: unknown): boolean {
  return error instanceof MongoBulkWriteError && error.writeErrors !== undefined &&
    (Array.isArray(error.writeErrors) ? error.writeErrors : [error.writeErrors]).every((written) => written.code === 11000)
}

/** Runs a write; a clash with a unique index becomes the error `clash` gives. */
export async function refusingDuplicates<T> (write: () => Promise<T>, clash: () => Error): Promise<T> {
  try {
    return await write()
  } catch (error) {
    if (isDuplicateKey(error)) throw clash()
    throw error
  }
}
