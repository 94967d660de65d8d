import type { FastifyInstance } from 'fastify'

/** Work an instance left unfinished, which any instance takes over: how to take it, and how to stop. */
export interface LeftWork {
  /** how often to look */
  everyMs: number
  /** takes over what no live instance holds and runs it; how much it took */
  finishLeft: () => Promise<number>
  /** stops the work under way here after its current step */
  close: () => Promise<void>
  /** logged when something was taken over, with how much under this name */
  takenMessage: string
  countedAs: string
  /** logged when a look failed; it is tried again at the next */
  failedMessage: string
}

/**
 * Looks for work another instance left (it stopped) once the service is ready and then every
 * `everyMs`, one look at a time; closing stops the work here after its current step, then waits for the look under way.
 */
export function takeOverLeftWork (app: FastifyInstance, work: LeftWork): void {
  let looking: Promise<unknown> = Promise.resolve()
  const look = (): void => {
    looking = looking
      .then(async () => {
        const taken = await work.finishLeft()
        if (taken > 0) app.log.info({ [work.countedAs]: taken }, work.takenMessage)
      })
      .catch((error: unknown) => { app.log.warn({ err: error }, work.failedMessage) })
  }
  let timer: NodeJS.Timeout | undefined
  app.addHook('onReady', async () => {
    look()
    timer = setInterval(look, work.everyMs)
    timer.unref()
  })
  app.addHook('preClose', async () => {
    clearInterval(timer)
    await work.close()
    await looking
  })
}
