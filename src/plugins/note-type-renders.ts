import fp from 'fastify-plugin'

export interface NoteTypeRendersOptions {
  /** how often the instance looks for renderings of cards whose holder stopped renewing them */
  everyMs: number
}

/**
 * Finishes the renderings of note types' cards that an instance began after an edit-note-type and
 * did not finish (it stopped): once the service is ready, and then now and again, any instance
 * takes them over where they were (services/note-type-renders.ts). Closing stops the renderings
 * under way here after their current batch, their progress kept.
 */
export default fp<NoteTypeRendersOptions>(async function noteTypeRenders (app, options) {
  const { noteTypeRenders: renders } = app.services
  let looking: Promise<unknown> = Promise.resolve()
  const look = (): void => {
    looking = looking
      .then(async () => {
        const taken = await renders.finishLeft()
        if (taken > 0) app.log.info({ taken }, 'took over the rendering of note types\' cards another instance had begun')
      })
      .catch((error: unknown) => { app.log.warn({ err: error }, 'taking over renderings of note types\' cards failed; it is tried again shortly') })
  }
  let timer: NodeJS.Timeout | undefined
  app.addHook('onReady', async () => {
    look()
    timer = setInterval(look, options.everyMs)
    timer.unref()
  })
  app.addHook('preClose', async () => {
    clearInterval(timer)
    await looking
    await renders.close()
  })
}, { name: 'note-type-renders', dependencies: ['database'] })
