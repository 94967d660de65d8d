import fp from 'fastify-plugin'

/**
 * The imports of Anki packages: those an instance that stopped left behind are finished or cleaned
 * away once the service is ready, and then now and again (an import another instance holds is
 * left to it while it renews it); the import under way stops when the app closes.
 */
export default fp(async function ankiImports (app) {
  const { ankiImport } = app.services
  const everyMs = Math.max(100, app.importSettings.leaseMs / 3)
  let checking: Promise<unknown> = Promise.resolve()
  const check = (): void => {
    checking = checking
      .then(async () => {
        await ankiImport.renewWaiting()
        await ankiImport.recover()
      })
      .catch((error: unknown) => { app.log.warn({ err: error }, 'the check of abandoned Anki imports failed; it runs again shortly') })
  }
  let timer: NodeJS.Timeout | undefined
  app.addHook('onReady', async () => {
    check()
    timer = setInterval(check, everyMs)
    timer.unref()
  })
  app.addHook('onClose', async () => {
    clearInterval(timer)
    await ankiImport.close()
    await checking
  })
}, { name: 'anki-imports' })
