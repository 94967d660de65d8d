// Export to Anki: a deck, a folder or the whole library as an Anki package (export-anki),
// saved under the name the service gives it, without leaving the page.
import { downloadAnkiPackage, type ExportedPackage } from '../api.js'
import type { AnkiExportScope } from '../api-types.js'
import { button, el } from '../dom.js'
import { act } from '../forms.js'
import { showNotice } from '../messages.js'

/** What a package holds, said next to each of the buttons. */
export const ANKI_EXPORT_HINT = 'An Anki package (.apkg) with its media, schedules and review history, for Anki\'s File > Import.'

/**
 * A button that exports `scope` to Anki, with the state of the export beside it. It stays
 * disabled while the service builds the package and sends it; a refusal is said next to it
 * (reportFailure), the button usable again.
 */
export function ankiExportButton (scope: AnkiExportScope, id: string, label = 'Export to Anki (.apkg)', hint?: string): HTMLElement {
  const status = el('span', { class: 'hint anki-export-status', role: 'status', id: `${id}-status` })
  const start = button(label, () => {
    act(start, async () => {
      start.setAttribute('aria-busy', 'true')
      // the service sends nothing until the whole collection is built, which takes a while for a large library
      status.textContent = 'Building the package…'
      try {
        const exported = await downloadAnkiPackage(scope, (bytes) => { status.textContent = `Downloading the package: ${sizeText(bytes)}…` })
        save(exported)
        showNotice(`Downloaded "${exported.fileName}". In Anki, open it with File > Import, "Import any learning progress" ticked to keep the schedules and history.`)
      } finally {
        status.textContent = ''
        start.removeAttribute('aria-busy')
      }
    })
  }, { id, class: 'anki-export-button' })
  return el('div', { class: 'button-row anki-export' }, [start, hint !== undefined && el('span', { class: 'hint' }, [hint]), status])
}

/** The address of the latest package saved: one at a time, so the previous file's memory is given back. */
let packageUrl: string | undefined

/** Hands the package to the browser's downloads, as a link with `download` would, without leaving the page. */
function save (exported: ExportedPackage): void {
  if (packageUrl !== undefined) URL.revokeObjectURL(packageUrl)
  packageUrl = URL.createObjectURL(exported.file)
  // never put in the page: its click is no action of the user's, and the page's messages stay as they are
  el('a', { href: packageUrl, download: exported.fileName }).click()
}

function sizeText (bytes: number): string {
  return bytes < 1024 * 1024 ? `${Math.ceil(bytes / 1024)} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`
}
