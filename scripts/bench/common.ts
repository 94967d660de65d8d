// What the benchmark's parts share: the accounts' secret and the database names.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startEmbeddedDatabase } from '../../src/db/embedded.js'

// the benchmark's in-process app signs tokens with it, and so does the service
// it starts against MONGODB_URL (the embedded one keeps its own in DATA_DIR)
export const JWT_SECRET = 'benchmark-only-secret-never-used-elsewhere-0123456789'

/** How many cards a tree answer (get-today-cards, get-all-cards) holds. */
export function cardsIn (response: string): number {
  return response.match(/"review_status"/g)?.length ?? 0
}

/** The server URL with `name` as its database; credentials keep authenticating where they did. */
export function withDatabase (serverUrl: string, name: string): string {
  const match = /^(mongodb(?:\+srv)?:\/\/)([^/?]*)\/?([^?]*)(\?.*)?$/.exec(serverUrl)
  if (match === null) throw new Error('MONGODB_URL is not a mongodb:// or mongodb+srv:// URL')
  const [, scheme = '', hosts = '', database = '', query = ''] = match
  const parameters = new URLSearchParams(query.replace(/^\?/, ''))
  // without authSource the driver authenticates against the database in the path
  if (hosts.includes('@') && !parameters.has('authSource')) parameters.set('authSource', database === '' ? 'admin' : decodeURIComponent(database))
  const search = parameters.toString()
  return `${scheme}${hosts}/${name}${search === '' ? '' : `?${search}`}`
}

/** The database a probe runs on, by its URL: on MONGODB_URL's server, or on an embedded one started for the probe in a folder of its own. */
export interface ProbeDatabase {
  url: string
  /** the embedded server's process; undefined with MONGODB_URL */
  pid: () => number | undefined
  /** stops the embedded server and removes its folder; nothing with MONGODB_URL */
  stop: () => Promise<void>
}

export async function probeDatabase (name: string): Promise<ProbeDatabase> {
  const given = process.env.MONGODB_URL ?? ''
  if (given !== '') return { url: withDatabase(given, name), pid: () => undefined, stop: async () => {} }
  const dataDir = await mkdtemp(join(tmpdir(), `${name}-`))
  const database = await startEmbeddedDatabase({ dataDir, log: () => {} })
  return {
    url: withDatabase(database.url, name),
    pid: database.pid,
    stop: async () => {
      await database.stop()
      await rm(dataDir, { recursive: true, force: true })
    }
  }
}
