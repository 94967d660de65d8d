import fp from 'fastify-plugin'
import { createFitter, type Fitter, type FitterOptions } from '../fitting/fitter.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** the worker thread that fits users' FSRS parameters, and its queue (fitting/fitter.ts) */
    fitter: Fitter
  }
}

/** The fitting worker: started when first needed (fitting/fitter.ts), ended when the app closes. */
export default fp<Partial<FitterOptions>>(async function fitting (app, options) {
  const fitter = createFitter(options)
  app.decorate('fitter', fitter)
  app.addHook('onClose', async () => { await fitter.close() })
}, { name: 'fitting' })
