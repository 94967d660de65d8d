import fp from 'fastify-plugin'

export interface MediaSweepOptions {
  /** how often the sweep runs */
  everySeconds: number
}

/**
 * Runs the media sweep (services/media.ts) on a timer: files of interrupted
 * uploads and of removed media, and media no card shows past its grace.
 * Every instance sweeps; two sweeps at once are safe. A failed sweep is
 * logged and tried again at the next tick; closing waits for one under way.
 */
export default fp<MediaSweepOptions>(async function mediaSweep (app, options) {
  let running: Promise<void> | null = null
  const sweep = (): void => {
    if (running !== null) return
    running = app.services.media.sweep()
      .then(({ files, media }) => {
        if (files > 0 || media > 0) app.log.info({ files, media }, 'media sweep: removed media no card shows and files no record holds')
      }, (err: unknown) => { app.log.warn({ err }, 'media sweep failed; it runs again at its next turn') })
      .finally(() => { running = null })
  }
  let timer: NodeJS.Timeout | undefined
  app.addHook('onReady', async () => {
    timer = setInterval(sweep, options.everySeconds * 1000)
    timer.unref()
  })
  app.addHook('preClose', async () => {
    clearInterval(timer)
    await running
  })
}, { name: 'media-sweep', dependencies: ['database'] })
