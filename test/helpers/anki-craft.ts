// Anki packages made to be refused: a generated package (scripts/bench/anki-package.ts) whose
// collection a test then changes with SQL as no Anki would write it (NULL columns, computed
// columns, indexes of its own, numbers past what JavaScript holds), zipped again.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { DatabaseSync } from 'node:sqlite'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { writeAnkiPackage, type GeneratedPackage } from '../../scripts/bench/anki-package.js'
import { unzip, zipOf } from './zip.js'

/** The bytes of a generated package, its collection changed by `change` first. */
export async function craftedPackage (t: { teardown: (fn: () => unknown) => void }, spec: GeneratedPackage, change: (db: DatabaseSync) => void = () => {}): Promise<Buffer> {
  const folder = await mkdtemp(join(tmpdir(), 'anki-craft-'))
  t.teardown(() => rm(folder, { recursive: true, force: true }))
  const path = join(folder, 'deck.apkg')
  await writeAnkiPackage(path, spec)
  const entries = await unzip(await readFile(path))
  const collection = join(folder, 'collection.anki21')
  await writeFile(collection, entries.get('collection.anki21') as Buffer)
  const db = new DatabaseSync(collection, { defensive: false } as ConstructorParameters<typeof DatabaseSync>[1])
  change(db)
  db.close()
  entries.set('collection.anki21', await readFile(collection))
  return zipOf([...entries].map(([name, data]) => ({ name, data, method: name === 'collection.anki21' ? 'deflate' as const : 'store' as const })))
}
