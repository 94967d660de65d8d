// What npm run bench and npm run bench:app share: the accounts' secret, the
// answer they expect, and the database they write into.

// the benchmarks' own throwaway accounts: a fixed secret lets the tokens minted
// in the benchmark's process be accepted by a service it starts
export const JWT_SECRET = 'benchmark-only-secret-never-used-elsewhere-0123456789'

/** Cards due today for each generated big user, all shown: limits are raised. */
export const EXPECTED_DUE = 500

/** How many cards a get-today-cards answer holds. */
export function todayCardsIn (response: Buffer | string): number {
  return response.toString().match(/"review_status"/g)?.length ?? 0
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
