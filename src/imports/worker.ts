// The import worker thread: stages Anki imports (stage.ts), one at a time, off the service's event
// loop, with a database client of its own. Reading the package (zip, zstd, sql.js), rendering the
// cards, replaying their FSRS states and encoding the documents are all work of this thread; the
// service's thread only hears its progress and its plan. The service ends the thread once it has
// been idle a while (importer.ts), which gives back sql.js's memory.
import { setPriority } from 'node:os'
import { parentPort, workerData } from 'node:worker_threads'
import { MongoClient } from 'mongodb'
import { AnkiImportError } from '../domain/anki/errors.js'
import { Refusal } from '../domain/refusals.js'
import { stageImport, type StageJob } from './stage.js'

if (parentPort === null) throw new Error('the import worker runs as a worker thread (imports/importer.ts starts it)')
const port = parentPort

// other users' requests first: the import takes what the service's thread leaves (Linux only, where a thread has a priority of its own)
if (process.platform === 'linux') {
  try {
    setPriority(10)
  } catch {
    // refused: the import runs at the usual priority
  }
}

const { mongodbUrl } = workerData as { mongodbUrl: string }
const client = new MongoClient(mongodbUrl, { serverSelectionTimeoutMS: 10_000 })
const connected = client.connect()

port.on('message', (message: { id: number, job: StageJob }) => {
  const { id, job } = message
  void (async () => {
    try {
      await connected
      const staged = await stageImport(client.db(), job, async (percent, counts) => {
        port.postMessage({ id, type: 'progress', percent, counts })
      })
      // an ObjectId would arrive as a plain object: its hex crosses instead
      const media = staged.plan.media.map((file) => ({ ...file, fileId: file.fileId.toHexString() }))
      port.postMessage({ id, type: 'staged', staged: { ...staged, plan: { ...staged.plan, media } } })
    } catch (error) {
      const code = error instanceof Refusal || error instanceof AnkiImportError ? error.code : 'internal_error'
      port.postMessage({ id, type: 'failed', code, message: error instanceof Error ? error.message : String(error), stack: error instanceof Error ? error.stack : undefined })
    }
  })()
})
