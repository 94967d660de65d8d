/**
 * The cards of a note type rendered again after an edit of its templates' text or names
 * (edit-note-type), as many as the account holds: 500 notes to a transaction, the progress kept on
 * the note type (`rendering`), so that the request answers within its connection's time and the
 * rest goes on behind it. An instance that stops lets its lease run out; any instance then takes
 * the rendering over where it was (finishLeft), as account deletions are taken over. A later edit
 * starts a rendering of its own, which ends the earlier one at its next batch.
 */
import { randomUUID } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import type { NoteDocument } from '../repositories/notes.js'
import type { NoteTypeDocument } from '../repositories/note-types.js'
import type { ServiceContext } from './context.js'
import { NOTE_BATCH, renderNotesAgain, type NoteTypeEdited, type NoteTypePlan } from './notes.js'

export interface RenderSettings {
  /** how long edit-note-type waits for the rendering before it answers, the rest going on behind it */
  waitMs: number
  /** how long an instance holds a rendering without renewing it; past that, any instance takes it over */
  leaseMs: number
}

export const DEFAULT_RENDER_SETTINGS: RenderSettings = { waitMs: 15_000, leaseMs: 60_000 }

export interface RenderRuntime {
  instance: string
  log: { warn: (details: object, message: string) => void }
}

/** A note type's cards rendered again with it as it is stored now: nothing dropped, nothing moved. */
function planOf (noteType: NoteTypeDocument): NoteTypePlan {
  return {
    noteType,
    edit: {
      content: noteType,
      fieldFrom: noteType.fields.map((_, index) => index),
      templateFrom: noteType.templates.map((_, index) => index),
      droppedFields: [],
      droppedTemplates: []
    },
    reshapes: false,
    rendersAgain: true,
    modified: noteType.modified ?? Math.floor(noteType.updatedAt.getTime() / 1000)
  }
}

export function noteTypeRenderService (context: ServiceContext, runtime: RenderRuntime, settings: RenderSettings = DEFAULT_RENDER_SETTINGS) {
  const until = (): Date => new Date(context.clock().getTime() + settings.leaseMs)
  /** the renderings under way here, by run */
  const running = new Map<string, Promise<number>>()
  let closed = false

  /**
   * Renders a batch after another until the note type has no note left after the last done, or
   * the rendering is no longer `run`; each batch, and the note of its progress, one transaction.
   * How many notes it rendered.
   */
  async function render (userID: string, noteTypeID: string, run: string): Promise<number> {
    let rendered = 0
    for (;;) {
      if (closed) return rendered
      const step = await context.userTransaction(userID, async (repositories) => {
        const noteType = await repositories.noteTypes.findById(userID, noteTypeID)
        if (noteType?.rendering?.run !== run) return 'ended' as const
        const notes: NoteDocument[] = await repositories.notes.pageOfNoteType(userID, noteTypeID, noteType.rendering.after, NOTE_BATCH)
        if (notes.length === 0) {
          await repositories.noteTypes.endRendering(userID, noteTypeID, run)
          return 'ended' as const
        }
        const result: NoteTypeEdited = { noteType, dropped: [], added: [], notes: 0 }
        await renderNotesAgain(context, repositories, userID, planOf(noteType), notes, result)
        await repositories.noteTypes.advanceRendering(userID, noteTypeID, run, (notes.at(-1) as NoteDocument)._id, runtime.instance, until())
        return notes.length
      })
      if (step === 'ended') return rendered
      rendered += step
    }
  }

  function start (userID: string, noteTypeID: string, run: string): Promise<number> {
    const work = render(userID, noteTypeID, run)
      .catch((error: unknown) => {
        // left to its lease: another instance, or this one's next look, takes it over
        runtime.log.warn({ err: error, userID, noteTypeID }, 'rendering the cards of a note type again failed; it is taken up again once its lease runs out')
        return 0
      })
      .finally(() => { running.delete(run) })
    running.set(run, work)
    return work
  }

  return {
    /** The rendering an edit-note-type asks for, begun in its transaction: a new run, held here. */
    begin (): { run: string, holder: string, until: Date, after: null } {
      return { run: randomUUID(), holder: runtime.instance, until: until(), after: null }
    },

    /** Runs a rendering begun, waiting for it at most `waitMs`: whether it is done, and how many notes it rendered meanwhile. */
    async runFor (userID: string, noteTypeID: string, run: string): Promise<{ done: boolean, notes: number }> {
      const work = start(userID, noteTypeID, run)
      const waited = await Promise.race([work.then((notes) => ({ done: true, notes })), sleep(settings.waitMs, null, { ref: false })])
      return waited ?? { done: false, notes: 0 }
    },

    /** Takes over the renderings whose holders stopped renewing them, and runs them here; how many it took. */
    async finishLeft (): Promise<number> {
      let taken = 0
      while (!closed) {
        const noteType = await context.repositories.noteTypes.takeOverRendering(runtime.instance, context.clock(), until())
        if (noteType?.rendering === undefined) break
        taken += 1
        void start(noteType.userID, noteType._id, noteType.rendering.run)
      }
      return taken
    },

    /** Stops after the batches under way, their progress kept for the next start or another instance. */
    async close (): Promise<void> {
      closed = true
      await Promise.all(running.values())
    }
  }
}

export type NoteTypeRenderService = ReturnType<typeof noteTypeRenderService>
