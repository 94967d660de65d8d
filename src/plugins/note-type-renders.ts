import fp from 'fastify-plugin'
import { takeOverLeftWork } from './take-over.js'

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
  takeOverLeftWork(app, {
    everyMs: options.everyMs,
    finishLeft: renders.finishLeft,
    close: renders.close,
    countedAs: 'taken',
    takenMessage: 'took over the rendering of note types\' cards another instance had begun',
    failedMessage: 'taking over renderings of note types\' cards failed; it is tried again shortly'
  })
}, { name: 'note-type-renders', dependencies: ['database'] })
