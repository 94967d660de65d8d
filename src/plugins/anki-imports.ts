import fp from 'fastify-plugin'
import { HEARTBEAT_MS } from '../imports/temporary-folders.js'

/**
 * The imports of Anki packages: those an instance that stopped left behind are finished or cleaned
 * away once the service is ready, and then now and again (an import another instance holds is
 * left to it while it renews it); the import under way stops when the app closes. The instance's
 * temporary folder is kept alive by a heartbeat, and the folders of instances gone are removed, at
 * start and then every few seconds.
 */
export default fp(async function ankiImports (app) {
  const { ankiImport } = app.services
  const everyMs = Math.max(100, app.importSettings.leaseMs / 3)
  let checking: Promise<unknown> = Promise.resolve()
  let beating: Promise<unknown> = Promise.resolve()
  const check = (): void => {
    checking = checking
      .then(async () => {
        await ankiImport.renewWaiting()
        await ankiImport.recover()
      })
      .catch((error: unknown) => { app.log.warn({ err: error }, 'the check of abandoned Anki imports failed; it runs again shortly') })
  }
  const beat = (): void => {
    beating = beating
      .then(async () => await ankiImport.keepFolders())
      .catch((error: unknown) => { app.log.warn({ err: error }, 'the heartbeat of the Anki imports\' temporary folder failed; it runs again shortly') })
  }
  let timer: NodeJS.Timeout | undefined
  let heartbeat: NodeJS.Timeout | undefined
  app.addHook('onReady', async () => {
    // before the first upload: the folder is there, and what instances gone left behind is removed
    beat()
    await beating
    check()
    timer = setInterval(check, everyMs)
    timer.unref()
    heartbeat = setInterval(beat, HEARTBEAT_MS)
    heartbeat.unref()
  })
  app.addHook('onClose', async () => {
    clearInterval(timer)
    clearInterval(heartbeat)
    await beating
    await ankiImport.close()
    await checking
  })
}, { name: 'anki-imports' })
