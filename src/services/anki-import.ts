// import-anki and get-import-status: an Anki package saved to a temporary file, staged in a worker
// thread (imports/stage.ts), then made visible in one step. An import survives a crash either way:
// until its plan is applied nothing of it is visible, and an instance that finds it abandoned (its
// holder stopped renewing it) cleans its staging away; once the plan is applied (state committing,
// written in the same transaction) the cards still staged are handed over by whoever finds it.
// An account has at most a few imports arriving, waiting or running at once, counted in the
// database; an instance runs one import at a time, taking the accounts in turn. Everything an import
// puts on disk is in a folder of its own (imports/temporary-folders.ts), removed when it ends.
import { createWriteStream } from 'node:fs'
import { mkdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { pipeline } from 'node:stream/promises'
import type { FastifyBaseLogger } from 'fastify'
import { userDay } from '../domain/calendar.js'
import { addFlashcard, createFolderPath, folderAtPath } from '../domain/library-tree.js'
import { newId } from '../domain/ids.js'
import { Refusal } from '../domain/refusals.js'
import { importWorker } from '../imports/importer.js'
import { importFolders } from '../imports/temporary-folders.js'
import type { StagedImport } from '../imports/stage.js'
import type { UpdateNotes } from '../domain/anki-import.js'
import type { CardContent } from '../repositories/cards.js'
import { isDuplicateKey } from '../repositories/duplicate-key.js'
import type { Repositories } from '../repositories/index.js'
import { stagingOwner, type ImportCounts, type ImportDocument, type ImportPlan, type PlannedFlashcard } from '../repositories/imports.js'
import type { UserDocument } from '../repositories/users.js'
import { addToUsageWithinQuotas, type ServiceContext } from './context.js'
import { removeFiles } from './media.js'

const GIB = 1024 * 1024 * 1024

export interface ImportSettings {
  /** the most a package may hold, as sent */
  maxPackageBytes: number
  /** an import not renewed for this long is taken as abandoned by its instance */
  leaseMs: number
  /** where packages wait for their import: a folder of each instance's in it */
  directory: string
  /** the most imports one account may have arriving, waiting or running at once, across instances */
  perAccount: number
}

export const DEFAULT_IMPORT_SETTINGS: ImportSettings = { maxPackageBytes: GIB, leaseMs: 15_000, directory: join(tmpdir(), 'flashcards-anki-imports'), perAccount: 2 }

/** The Retry-After of an account refused for having too many imports under way: one of them may have ended by then. */
const TOO_MANY_IMPORTS_RETRY_SECONDS = 30

/**
 * Up to this many cards, the hand-over is part of the plan's one transaction; past it, it follows it
 * (and is finished by whoever finds it unfinished). With notes kept, a transaction twice as large no
 * longer fit the embedded database's cache ("Transaction is too large"): this leaves room.
 */
const ATOMIC_CARDS = 10_000
/** and up to this many characters of content, cards and changes together: a transaction holds all it writes at once */
const ATOMIC_CONTENT_CHARACTERS = 8_000_000
/** The most characters of content one write of the hand-over moves (see cards.handOver). */
const HANDOVER_CHARACTERS = 16_000_000

/** How many of a flashcard's staged cards one write of the hand-over moves: as many as make HANDOVER_CHARACTERS, between 500 and 20,000. */
function handOverBatch (flashcard: PlannedFlashcard): number {
  const perCard = (flashcard.contentCharacters ?? 0) / Math.max(1, flashcard.cards ?? 0)
  return Math.max(500, Math.min(ATOMIC_CARDS, Math.floor(HANDOVER_CHARACTERS / Math.max(1, perCard))))
}

export interface AnkiImportRequest {
  folder: string[]
  withScheduling: boolean
  updateNotes: UpdateNotes
  fileName: string
}

/** The rest of the form of import-anki, read once the account has a place: its fields, then its file. */
export interface AnkiImportForm {
  request: AnkiImportRequest
  file: AsyncIterable<Buffer>
  /** checks that the form ends after the file */
  formEnd: () => Promise<void>
}

/** An import waiting on this instance. */
interface Turn { importID: string, userID: string, path: string }

export interface ImportRuntime {
  instance: string
  mongodbUrl: string
  log: FastifyBaseLogger
}

function mib (bytes: number): string {
  return `${(bytes / 1024 / 1024).toLocaleString('en')} MiB`
}

export function ankiImportService (context: ServiceContext, runtime: ImportRuntime, settings: ImportSettings = DEFAULT_IMPORT_SETTINGS) {
  const { repositories, clock } = context
  const waiting: Turn[] = []
  /**
   * The accounts with imports here, by when their wait began: when their first import arrived, or
   * when their last one ended with more of theirs waiting. The longest waiting goes next, so that an
   * account's second import waits for the imports that arrived while its first ran.
   */
  const waitingSince = new Map<string, number>()
  let ticks = 0
  /** imports whose package is arriving here: their place is taken, their import not queued yet */
  const uploading = new Set<string>()
  let running: Turn | null = null
  /** when the import under way here began (ms since the epoch) */
  let runningSince = 0
  let closed = false
  const worker = importWorker(runtime.mongodbUrl)
  const folders = importFolders(settings.directory, runtime.instance)

  const until = (): Date => new Date(clock().getTime() + settings.leaseMs)

  /** Removes everything of an import on disk: its folder, with the package and what the staging wrote beside it. */
  async function removeFolder (path: string): Promise<void> {
    await rm(dirname(path), { recursive: true, force: true })
  }

  function stopping (): Refusal {
    return new Refusal('service_overloaded', 'the service is stopping: send the package again in a moment', 5)
  }

  /**
   * Takes one of the account's places for an import, in its transaction (two of one account run
   * one after the other, on any instance): the import recorded as uploading, or 429 when the
   * account has its most already.
   */
  async function takePlace (userID: string, importID: string, path: string): Promise<void> {
    await context.userTransaction(userID, async (repositories) => {
      const unfinished = await repositories.imports.countUnfinished(userID)
      if (unfinished >= settings.perAccount) {
        throw new Refusal('too_many_imports', `this account has ${unfinished} imports of Anki packages arriving, waiting or running, the most it may have at once: ` +
          'send this package once one of them has ended (get-import-status), or retry after the seconds in Retry-After', TOO_MANY_IMPORTS_RETRY_SECONDS)
      }
      const now = clock()
      await repositories.imports.insert({
        _id: importID,
        userID,
        state: 'uploading',
        percent: 0,
        counts: { cards: 0, notes: 0, reviews: 0, media: 0 },
        warnings: [],
        request: { folder: [], withScheduling: true, updateNotes: 'ifNewer', fileName: '', path },
        holder: runtime.instance,
        until: until(),
        createdAt: now,
        updatedAt: now
      })
    })
  }

  async function update (importID: string, changes: Partial<ImportDocument>): Promise<boolean> {
    return await repositories.imports.update(importID, runtime.instance, changes)
  }

  /** Saves the upload whole, counting its bytes: 413 past the most a package may hold, 400 when empty. */
  async function save (file: AsyncIterable<Buffer>, path: string): Promise<number> {
    let bytes = 0
    await mkdir(dirname(path), { recursive: true })
    await pipeline(file, async function * (pieces: AsyncIterable<Buffer>) {
      for await (const piece of pieces) {
        bytes += piece.length
        if (bytes > settings.maxPackageBytes) {
          throw new Refusal('archive_too_large', `the package is larger than ${mib(settings.maxPackageBytes)}, the most one import may send: export the decks in several packages`)
        }
        yield piece
      }
    }, createWriteStream(path, { flags: 'wx' }))
    if (bytes === 0) throw new Refusal('invalid_upload', 'the file is empty: send the .apkg or .colpkg file as the form\'s last part')
    return bytes
  }

  /** Removes everything an import staged in the database: its cards, its review histories, its content changes, its media files. */
  async function clean (document: ImportDocument, plan?: ImportPlan): Promise<void> {
    await repositories.cards.removeStaged(stagingOwner(document._id))
    await repositories.noteTypes.removeStaged(stagingOwner(document._id))
    await repositories.notes.removeStaged(stagingOwner(document._id), document.userID, document._id)
    await repositories.reviewHistories.removeImport(document.userID, document._id)
    await repositories.imports.dropStagedUpdates(document._id)
    // media staged before a plan named them stay listed for removal: the sweep takes them
    if (plan !== undefined && plan.media.length > 0) await removeFiles(context, plan.media.map((file) => file.fileId)).catch(() => 0)
  }

  /** The content changes of cards the user had, then the note types and cards staged, handed to the user. Repeating it changes nothing more. */
  async function handOver (repositories: Repositories, document: ImportDocument, plan: ImportPlan): Promise<void> {
    const updates = await repositories.imports.stagedUpdates(document._id)
    const byFlashcard = new Map<string, Array<{ cardID: string, content: CardContent }>>()
    for (const staged of updates) {
      let list = byFlashcard.get(staged.flashcardID)
      if (list === undefined) byFlashcard.set(staged.flashcardID, list = [])
      list.push({ cardID: staged.cardID, content: staged.content as unknown as CardContent })
    }
    // in batches: each write short, however many cards change
    for (const [flashcardID, changes] of byFlashcard) {
      for (let start = 0; start < changes.length; start += 2000) await repositories.cards.setContents(document.userID, flashcardID, changes.slice(start, start + 2000))
    }
    await repositories.noteTypes.handOver(stagingOwner(document._id), document.userID)
    await repositories.notes.handOver(stagingOwner(document._id), document.userID)
    await repositories.cards.handOver(stagingOwner(document._id), document.userID, plan.flashcards.map((flashcard) => ({ flashcardID: flashcard.flashcardID, batch: handOverBatch(flashcard) })))
    await repositories.imports.dropStagedUpdates(document._id)
  }

  /**
   * The answers the learner gave in Anki today, counted in today's reviews and new cards as the
   * ones given here are: the daily limits leave what is left of the day, not a whole day more.
   * Not when the learner's calendar changed since the staging counted the days (or the plan is
   * from before it kept the calendar and the new cards).
   */
  async function countTodaysAnswers (repositories: Repositories, userID: string, plan: ImportPlan, now: Date): Promise<void> {
    const account = await repositories.users.findById(userID)
    // the days were counted in the calendar of the staging: one changed since would put another day's answers in today
    if (account === null || plan.calendar?.timezone !== account.timezone || plan.calendar.dayStartHour !== account.dayStartHour) return
    const today = userDay(now, account)
    const done = plan.activity.find((day) => day.day === today.day)
    if (done?.newCards === undefined) return
    await repositories.users.recordImportedDay(userID, today, { reviews: done.reviews - done.newCards, newCards: done.newCards })
  }

  /**
   * Applies a plan in one transaction of the user: the folders and flashcards, the media records,
   * the quotas, the days' review counts, the adopted parameters, the queues' starts and the import's
   * state; with the hand-over of the cards too when they are few enough, or right after it.
   */
  async function apply (document: ImportDocument, staged: StagedImport): Promise<void> {
    const { plan } = staged
    const { userID } = document
    const now = clock()
    const atomic = plan.cards + plan.updated <= ATOMIC_CARDS && (plan.contentCharacters ?? 0) <= ATOMIC_CONTENT_CHARACTERS
    const tree = await context.userTransaction(userID, async (repositories) => {
      // the import's document is written first: the lease's renewals, written outside this
      // transaction, then meet a document it holds and give way, where a renewal landing first made
      // the transaction start again and again, past its time, on a busy database
      if (!await repositories.imports.update(document._id, runtime.instance, { until: until() })) {
        throw new Refusal('changed_meanwhile', 'the import was taken over by another instance of the service')
      }
      const tree = await repositories.trees.openForEdit(userID)
      let nodes = 0
      for (const flashcard of plan.flashcards) {
        // the folders and flashcards made of Anki's decks keep the decks' ids, which an export writes back
        nodes += createFolderPath(tree, flashcard.folder, newId, (flashcard.folderAnkiIDs ?? []).map((deckId) => deckId ?? undefined)).added
        const there = folderAtPath(tree, flashcard.folder)?.flashcards.some((node) => node.id === flashcard.flashcardID) === true
        if (!there) {
          const { ankiID } = flashcard
          addFlashcard(tree, flashcard.folder, { id: flashcard.flashcardID, name: flashcard.name, description: '', ...(ankiID === undefined ? {} : { ankiID }) })
          nodes += 1
        }
      }
      let mediaBytes = 0
      for (const file of plan.media) {
        if (!await repositories.media.claim(file.fileId)) {
          throw new Refusal('changed_meanwhile', 'a media file of the import was removed before the import was kept; nothing was imported: import the package again')
        }
        try {
          await repositories.media.insert({
            _id: file.mediaID, userID, sha256: file.sha256, fileId: file.fileId, bytes: file.bytes, contentType: file.contentType,
            createdAt: now, uploadedAt: now, checkAt: new Date(now.getTime() + context.media.graceSeconds * 1000)
          })
        } catch (error) {
          if (isDuplicateKey(error)) throw new Refusal('changed_meanwhile', 'the same media file was uploaded while the package was imported; nothing was imported: import the package again')
          throw error
        }
        mediaBytes += file.bytes
      }
      await addToUsageWithinQuotas(context, repositories.users, userID, { nodes, cards: plan.cards, mediaBytes })
      await repositories.activity.recordImported(userID, plan.activity)
      await countTodaysAnswers(repositories, userID, plan, now)
      await repositories.users.adoptImportedSchedule(userID, plan.parameters, plan.desiredRetention, plan.siblingBurying)
      if (plan.firstNew !== undefined) await repositories.users.queueNewCards(userID, plan.firstNew)
      if (plan.firstDue !== undefined) await repositories.users.queueDueCards(userID, plan.firstDue)
      if (plan.buriedUntil !== undefined) await repositories.users.noteBurial(userID, plan.buriedUntil)
      // the cards come without search pages: the first search makes them, as for an account from before search
      if (plan.cards > 0) await repositories.users.searchPagesPending(userID)
      if (atomic) await handOver(repositories, document, plan)
      const recorded = await repositories.imports.update(document._id, runtime.instance, atomic
        ? { state: 'done', percent: 100, counts: staged.counts, warnings: staged.warnings, plan }
        : { state: 'committing', percent: 97, counts: staged.counts, warnings: staged.warnings, plan })
      if (!recorded) throw new Refusal('changed_meanwhile', 'the import was taken over by another instance of the service')
      await repositories.trees.save(userID, tree)
      return tree
    })
    repositories.trees.committed(userID, tree)
    if (!atomic) await finish({ ...document, state: 'committing', plan }, plan)
  }

  /** Finishes an import whose plan is applied: its cards handed over, its state done. */
  async function finish (document: ImportDocument, plan: ImportPlan, recovered?: 'finished'): Promise<void> {
    await handOver(repositories, document, plan)
    await update(document._id, { state: 'done', percent: 100, ...(recovered === undefined ? {} : { recovered, warnings: [...document.warnings, 'the service stopped while this import was being kept; it was finished when the service started again'] }) })
  }

  async function fail (document: ImportDocument, code: string, message: string, plan?: ImportPlan): Promise<void> {
    await clean(document, plan)
    await update(document._id, { state: 'failed', error: { code, message } })
    // a write of a worker that stopped (killed past its memory, or ended) may still land after this
    // clean-up: clean once more when it has had its time
    const again = setTimeout(() => { void clean(document, plan).catch(() => {}) }, settings.leaseMs)
    again.unref()
  }

  /**
   * Runs an import waiting here. Its folder goes once the staging is over (nothing reads the
   * package after it), so that an import shown done or failed has left nothing on disk; and
   * whatever else ends it.
   */
  async function run (turn: Turn): Promise<void> {
    try {
      await stageAndKeep(turn.importID, turn.path)
    } finally {
      await removeFolder(turn.path)
    }
  }

  async function stageAndKeep (importID: string, path: string): Promise<void> {
    const document = await repositories.imports.findById(importID)
    if (document === null || document.state !== 'queued') return
    const user = await repositories.users.findById(document.userID)
    if (user === null) {
      await removeFolder(path)
      await fail(document, 'invalid_token', 'the account was deleted')
      return
    }
    if (!await update(importID, { state: 'running', percent: 1, until: until() })) return
    const renewal = setInterval(() => { void update(importID, { until: until() }).catch(() => {}) }, Math.max(100, settings.leaseMs / 5))
    renewal.unref()
    try {
      const now = clock()
      const outcome = await worker.stage({
        importID,
        userID: document.userID,
        path: document.request.path,
        folder: document.request.folder,
        withScheduling: document.request.withScheduling,
        // an import queued before the choice came takes the default
        updateNotes: document.request.updateNotes ?? 'ifNewer',
        calendar: { timezone: user.timezone, dayStartHour: user.dayStartHour },
        now: now.getTime(),
        quotas: context.quotas,
        removeUnkeptMediaAt: now.getTime() + Math.max(context.media.graceSeconds * 1000, 24 * 3600 * 1000)
      }, (percent, counts) => { void repositories.imports.progress(importID, runtime.instance, percent, counts).catch(() => {}) })
      if (closed) return
      await removeFolder(path)
      if (!outcome.ok) {
        if (outcome.code === 'internal_error') runtime.log.error({ importID, failure: outcome.message }, 'an Anki import failed')
        await fail(document, outcome.code, outcome.code === 'internal_error' ? 'the import failed in the service; nothing of it was kept: try again, and tell us if it fails again' : outcome.message)
        return
      }
      try {
        await apply(document, outcome.staged)
      } catch (error) {
        const stored = await repositories.imports.findById(importID)
        // kept after all (its transaction committed, its answer lost): nothing of it may be cleaned away
        if (stored?.state === 'done') return
        if (stored?.state === 'committing') throw error
        if (error instanceof Refusal) {
          await fail(document, error.code, error.message, outcome.staged.plan)
        } else {
          runtime.log.error({ importID, err: error }, 'an Anki import failed while it was kept')
          await fail(document, 'internal_error', 'the import failed in the service; nothing of it was kept: try again, and tell us if it fails again', outcome.staged.plan)
        }
      }
    } finally {
      clearInterval(renewal)
    }
  }

  function queue (turn: Turn): void {
    waiting.push(turn)
    if (!waitingSince.has(turn.userID)) waitingSince.set(turn.userID, ++ticks)
    next()
  }

  /** Starts the import of the account that has waited longest, unless one runs. */
  function next (): void {
    if (running !== null || closed) return
    let chosen: Turn | undefined
    for (const turn of waiting) {
      if (chosen === undefined || (waitingSince.get(turn.userID) ?? 0) < (waitingSince.get(chosen.userID) ?? 0)) chosen = turn
    }
    if (chosen === undefined) return
    const turn = chosen
    waiting.splice(waiting.indexOf(turn), 1)
    running = turn
    runningSince = Date.now()
    void run(turn)
      .catch((error: unknown) => { runtime.log.error({ importID: turn.importID, err: error }, 'an Anki import stopped') })
      .finally(() => {
        running = null
        // its next import waits behind those that arrived meanwhile
        if (waiting.some((other) => other.userID === turn.userID)) waitingSince.set(turn.userID, ++ticks)
        else waitingSince.delete(turn.userID)
        next()
      })
  }

  return {
    /**
     * The imports this instance holds now: arriving, waiting for their turn, running, and how long
     * (s) the one running has run. What an operator watches (plugins/metrics.ts).
     */
    get load () {
      return {
        arriving: uploading.size,
        waiting: waiting.length,
        running: running === null ? 0 : 1,
        runningSeconds: running === null ? 0 : (Date.now() - runningSince) / 1000
      }
    },

    /**
     * Takes a place of the account's (429 too_many_imports when it has none left) before `form`
     * reads anything more of the form, then saves the package and queues its import; answers its
     * id at once. The folder, when given, must exist; the rest is checked as the import runs, and
     * get-import-status tells the outcome. A form refused or cut off gives its place back.
     */
    async start (account: UserDocument, form: () => Promise<AnkiImportForm>): Promise<{ importID: string }> {
      if (closed) throw stopping()
      const importID = newId()
      const path = join(folders.folderOf(importID), 'package')
      await takePlace(account._id, importID, path)
      uploading.add(importID)
      try {
        const { request, file, formEnd } = await form()
        if (request.folder.length > 0 && folderAtPath(await repositories.trees.read(account._id), request.folder) === null) {
          throw new Refusal('folder_not_found', `no folder ${JSON.stringify(request.folder)}: create it first with create-folder, or leave folder out to import at the top`)
        }
        if (closed) throw stopping()
        await save(file, path)
        await formEnd()
        if (closed) throw stopping()
        if (!await update(importID, { state: 'queued', request: { ...request, path }, until: until() })) {
          throw new Refusal('changed_meanwhile', 'the service took this upload for abandoned while it arrived; nothing was imported: send the package again')
        }
      } catch (error) {
        await removeFolder(path)
        if (closed) await folders.remove()
        await repositories.imports.removeUploading(importID, runtime.instance)
          .catch((failure: unknown) => { runtime.log.warn({ importID, err: failure }, 'the place of an import not received stays taken until its lease runs out') })
        throw error
      } finally {
        uploading.delete(importID)
      }
      queue({ importID, userID: account._id, path })
      return { importID }
    },

    async status (userID: string, importID: string) {
      const document = await repositories.imports.findOwned(userID, importID)
      if (document === null) throw new Refusal('import_not_found', `no import ${importID} of this account: use the importID import-anki answered`)
      return document
    },

    /**
     * Takes over the imports whose instance stopped renewing them: one whose plan was applied is
     * finished; any other is cleaned away and failed. Run at start and then now and again.
     */
    async recover (): Promise<number> {
      let recovered = 0
      for (const document of await repositories.imports.abandoned(clock())) {
        if (closed) break
        // the imports arriving, under way or waiting here are this instance's, however late their renewal
        if (running?.importID === document._id || uploading.has(document._id) || waiting.some((turn) => turn.importID === document._id)) continue
        if (!await repositories.imports.takeOver(document, runtime.instance, until())) continue
        const held = { ...document, holder: runtime.instance }
        // a package that never arrived whole was answered no importID: its place is simply given back
        if (document.state === 'uploading') {
          await removeFolder(document.request.path)
          await repositories.imports.removeUploading(document._id, runtime.instance)
        } else if (document.state === 'committing' && document.plan !== undefined) {
          await removeFolder(document.request.path)
          await finish(held, document.plan, 'finished')
        } else {
          await clean(held, document.plan)
          await removeFolder(document.request.path)
          await update(document._id, {
            state: 'failed',
            recovered: 'cleaned',
            error: { code: 'import_interrupted', message: 'the service stopped during this import, and nothing of it was kept: import the package again' }
          })
        }
        recovered++
      }
      return recovered
    },

    /** Renews the imports arriving and waiting here, so that no instance takes them for abandoned. */
    async renewWaiting (): Promise<void> {
      for (const importID of [...uploading, ...waiting.map((turn) => turn.importID)]) await update(importID, { until: until() })
    },

    /**
     * Touches this instance's heartbeat in the temporary folder, and removes the folders of
     * instances gone and of the layout before, unless their import is held by a live lease. Run
     * at start and then every few seconds.
     */
    async keepFolders (): Promise<number> {
      if (closed) return 0
      return await folders.beat(async (importID) => await repositories.imports.heldAfter(importID, clock()))
    },

    /**
     * Stops the import under way and leaves the ones waiting (the next start finds them abandoned
     * and cleans them away), then removes this instance's folder: their packages with it. An upload
     * still arriving is refused and its folder removed.
     */
    async close (): Promise<void> {
      closed = true
      waiting.splice(0)
      waitingSince.clear()
      // the worker writes no more once ended; keeping a plan does not need the package
      await worker.close()
      await folders.remove()
    }
  }
}

export type AnkiImportService = ReturnType<typeof ankiImportService>

/** The counts of an import as get-import-status shows them. */
export function importStatus (document: ImportDocument) {
  const counts: ImportCounts = document.counts
  return {
    importID: document._id,
    state: document.state === 'committing' ? 'running' : document.state === 'uploading' ? 'queued' : document.state,
    percent: String(Math.min(100, Math.max(0, Math.round(document.percent)))),
    cards: String(counts.cards),
    notes: String(counts.notes),
    reviews: String(counts.reviews),
    media: String(counts.media),
    warnings: document.warnings,
    ...(document.error === undefined ? {} : { code: document.error.code, error: document.error.message }),
    ...(document.recovered === undefined ? {} : { recovered: document.recovered })
  }
}
