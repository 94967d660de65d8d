import fp from 'fastify-plugin'

export interface AccountDeletionsOptions {
  /** how often the instance looks for deleted accounts whose removal no one holds */
  everyMs: number
}

/**
 * Finishes the deletion of accounts whose documents an instance began to
 * remove and did not finish (it stopped, or let the removal go as it closed):
 * once the service is ready, and then now and again, any instance takes them
 * over (services/account-deletion.ts). Closing stops the removals under way
 * here after their current step and lets them go, for another instance or
 * the next start.
 */
export default fp<AccountDeletionsOptions>(async function accountDeletions (app, options) {
  const { accountDeletion } = app.services
  let looking: Promise<unknown> = Promise.resolve()
  const look = (): void => {
    looking = looking
      .then(async () => {
        const finished = await accountDeletion.finishLeft()
        if (finished > 0) app.log.info({ finished }, 'finished the deletion of accounts another instance had begun')
      })
      .catch((error: unknown) => { app.log.warn({ err: error }, 'finishing the deletion of accounts failed; it is tried again shortly') })
  }
  let timer: NodeJS.Timeout | undefined
  app.addHook('onReady', async () => {
    look()
    timer = setInterval(look, options.everyMs)
    timer.unref()
  })
  app.addHook('preClose', async () => {
    clearInterval(timer)
    await accountDeletion.close()
    await looking
  })
}, { name: 'account-deletions', dependencies: ['database'] })
