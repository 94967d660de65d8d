import { accountDeletionService, type DeletionRuntime, type DeletionSettings } from './account-deletion.js'
import { accountsService } from './accounts.js'
import { accountRecoveryService } from './account-recovery.js'
import { ankiExportService } from './anki-export.js'
import type { MailContext, ServiceContext } from './context.js'
import { goalsService } from './goals.js'
import { libraryService, type LargeDeletionSettings } from './library.js'
import { mediaService } from './media.js'
import { scheduleService, type FittingSettings } from './schedule.js'
import type { Fitter } from '../fitting/fitter.js'
import { statsService } from './stats.js'
import { studyService } from './study.js'
import { transferService } from './transfer.js'
import { ankiImportService, type ImportRuntime, type ImportSettings } from './anki-import.js'
import { cardStatesService } from './card-states.js'
import { studyQueueService } from './study-queue.js'
import { searchService } from './search.js'
import { browseService } from './browse.js'
import { notesService } from './notes.js'
import { noteTypeRenderService, type RenderSettings } from './note-type-renders.js'

export type { ServiceContext } from './context.js'

/** What fitting users' parameters runs on: the fitting worker, how fits share work, and this instance's name (leases name their holder). */
export interface FittingContext { fitter: Fitter, settings: FittingSettings, instance: string }

/** What deleting accounts runs on: this instance's name and log, and how long it holds a removal. */
export interface DeletionContext { runtime: DeletionRuntime, settings: DeletionSettings }

/** Every service, on one context. */
export function createServices (context: ServiceContext, fitting: FittingContext, imports: ImportRuntime, importSettings: ImportSettings, mail: MailContext,
  deletion: DeletionContext, rendering: RenderSettings, largeDeletions: LargeDeletionSettings) {
  const noteTypeRenders = noteTypeRenderService(context, deletion.runtime, rendering)
  const library = libraryService(context, noteTypeRenders, largeDeletions, deletion.runtime)
  const media = mediaService(context)
  const accountDeletion = accountDeletionService(context, deletion.runtime, deletion.settings)
  const search = searchService(context)
  return {
    accounts: accountsService(context, accountDeletion),
    accountDeletion,
    noteTypeRenders,
    accountRecovery: accountRecoveryService(context, mail),
    library,
    notes: notesService(context),
    transfer: transferService(context, library, media),
    study: studyService(context),
    studyQueue: studyQueueService(context),
    cardStates: cardStatesService(context),
    search,
    browse: browseService(context, search),
    goals: goalsService(context),
    stats: statsService(context),
    media,
    schedule: scheduleService(context, fitting.fitter, fitting.settings, fitting.instance),
    ankiImport: ankiImportService(context, imports, importSettings),
    ankiExport: ankiExportService(context)
  }
}

export type Services = ReturnType<typeof createServices>
