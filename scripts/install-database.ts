// Builds the embedded database once (see src/db/secantus-install.ts); later runs reuse it.
import { ensureSecantus } from '../src/db/secantus-install.js'

if (process.env.MONGODB_URL !== undefined && process.env.MONGODB_URL !== '') {
  console.log('MONGODB_URL is set: the embedded database is not needed')
} else {
  const binary = await ensureSecantus((line) => console.log(line))
  console.log(`SecantusDB ready: ${binary}`)
}
