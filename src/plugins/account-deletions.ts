import fp from 'fastify-plugin'
import { takeOverLeftWork } from './take-over.js'

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
  takeOverLeftWork(app, {
    everyMs: options.everyMs,
    finishLeft: accountDeletion.finishLeft,
    close: accountDeletion.close,
    countedAs: 'finished',
    takenMessage: 'finished the deletion of accounts another instance had begun',
    failedMessage: 'finishing the deletion of accounts failed; it is tried again shortly'
  })
}, { name: 'account-deletions', dependencies: ['database'] })
