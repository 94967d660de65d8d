/**
 * Runs the tasks given one key one after another, tasks of different keys side by side.
 *
 * FerretDB 1.24 on SQLite applies an update (updateOne, findOneAndUpdate) in two
 * steps, reading the matching document and then writing it back whole, with
 * nothing in between to stop a concurrent update of the same document
 * (FerretDB issue #3040). Two compare-and-set updates on one version then both
 * match, and one $inc overwrites another. The repositories therefore send the
 * conditional and incrementing updates of one document from this process one at
 * a time. The embedded database only ever serves this process; on MongoDB the
 * updates are atomic by themselves and this only orders them.
 */
export function oneAtATime () {
  const tails = new Map<string, Promise<unknown>>()
  return async function run<T> (key: string, task: () => Promise<T>): Promise<T> {
    const previous = tails.get(key) ?? Promise.resolve()
    const result = previous.then(task)
    const tail = result.catch(() => {})
    tails.set(key, tail)
    try {
      return await result
    } finally {
      if (tails.get(key) === tail) tails.delete(key)
    }
  }
}
