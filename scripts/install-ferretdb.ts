// Builds the embedded database once (see src/db/ferretdb-install.ts); later runs reuse it.
import { ensureFerretdb } from '../src/db/ferretdb-install.js'

if (process.env.MONGODB_URL !== undefined && process.env.MONGODB_URL !== '') {
  console.log('MONGODB_URL is set: the embedded FerretDB is not needed')
} else {
  const binary = await ensureFerretdb((line) => console.log(line))
  console.log(`FerretDB ready: ${binary}`)
}
