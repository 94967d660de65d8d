import { accountsService } from './accounts.js'
import { ankiExportService } from './anki-export.js'
import type { ServiceContext } from './context.js'
import { goalsService } from './goals.js'
import { libraryService } from './library.js'
import { mediaService } from './media.js'
import { statsService } from './stats.js'
import { studyService } from './study.js'
import { transferService } from './transfer.js'

export type { ServiceContext } from './context.js'

/** Every service, on one context. */
export function createServices (context: ServiceContext) {
  const library = libraryService(context)
  return {
    accounts: accountsService(context),
    library,
    transfer: transferService(context, library),
    study: studyService(context),
    goals: goalsService(context),
    stats: statsService(context),
    media: mediaService(context),
    ankiExport: ankiExportService(context)
  }
}

export type Services = ReturnType<typeof createServices>
