import { MongoServerError } from 'mongodb'

/** A write refused by a unique index. */
export function isDuplicateKey (error: unknown): boolean {
  return error instanceof MongoServerError && error.code === 11000
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
