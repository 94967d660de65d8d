import { randomBytes } from 'node:crypto'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'

/**
 * The token secret of the embedded default: made once and kept in the data
 * folder, so tokens survive a restart. `wx` makes a concurrent second start
 * read the first one's secret instead of overwriting it.
 */
export async function loadOrCreateSecret (dataDir: string): Promise<string> {
  const file = join(dataDir, 'jwt-secret')
  await mkdir(dataDir, { recursive: true })
  try {
    await writeFile(file, randomBytes(48).toString('base64url'), { flag: 'wx', mode: 0o600 })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
  }
  const secret = (await readFile(file, 'utf8')).trim()
  if (secret.length < 32) throw new Error(`${file} holds a secret shorter than 32 characters; delete it to make a new one`)
  return secret
}
