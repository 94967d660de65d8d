// Import from Anki: an .apkg or .colpkg sent to import-anki, the upload's progress shown as
// it goes, then the import followed with get-import-status until it is done or has failed.
// The import under way is kept in this browser (session.ts), so that a reload or a visit to
// another screen finds it again; an upload goes on while the user looks at another screen.
import { ApiError, SessionEndedError, callApi, inPageWords, uploadAnkiPackage } from '../api.js'
import type { ErrorCode, ImportStatus } from '../api-types.js'
import { button, el, field, figure, focusIfLost, plural, replaceChildren } from '../dom.js'
import { submitButton } from '../forms.js'
import { allFolders, pathText, readLibrary, type FolderEntry } from '../library-tree.js'
import { reportFailure, showError } from '../messages.js'
import { forgetImport, loadImport, loadSession, saveImport, type ImportUnderWay } from '../session.js'
import type { Screen } from './screen.js'

/** The most one package may be (import-anki in docs/api.md): a larger one is not sent at all. */
const MAX_PACKAGE_BYTES = 1024 ** 3
/** How often get-import-status is asked while an import runs. */
const POLL_MS = 1000
/** Failures that say nothing of the import, only that this question went unanswered: ask again. */
const ASK_AGAIN: ReadonlySet<ErrorCode> = new Set(['network_failure', 'unreadable_answer', 'service_overloaded', 'database_unavailable', 'too_many_requests', 'too_many_connections'])

/** An upload under way: kept across visits, since leaving the screen does not stop it. */
interface Upload {
  userID: string
  fileName: string
  sent: { bytes: number, total: number }
  /** the screen on show that draws the upload's progress, if any */
  onProgress: (() => void) | null
  /** the import's id, once the whole package has arrived */
  importID: Promise<string>
  /** stops the upload: logging out does, since nothing of the user's goes on in this browser after */
  stop: AbortController
}

let upload: Upload | null = null

/** True once the browser has sent the whole package: the service imports it whatever this page does next. */
function allSent ({ sent }: Upload): boolean {
  return sent.total > 0 && sent.bytes >= sent.total
}

/** The box that imports with updateNotes=always, named so in the warning that speaks of it. */
const ALWAYS_UPDATE_LABEL = 'Replace notes I have with the package\'s, even ones I changed here since'

/**
 * The name of the package this browser is still uploading, if any: logging out asks first, since
 * it stops the upload. None once the whole package is sent: logging out then loses nothing.
 */
export function uploadUnderWay (): string | null {
  return upload === null || allSent(upload) ? null : upload.fileName
}

/**
 * Stops the upload under way, if any, so that nothing of it is imported; one whose whole package
 * is sent is left to end (the service imports it, into the library the user finds at their next
 * login), and only forgotten here.
 */
export function stopUpload (): void {
  if (upload !== null && !allSent(upload)) upload.stop.abort()
  upload = null
}

export const showAnkiImport: Screen = (container, { session }) => {
  const { userID } = session
  // #/anki-import/folder/<folderID>: the library's link to import into that folder
  const wantedFolderID = /^#\/anki-import\/folder\/(\w+)$/.exec(location.hash)?.[1]
  let folders: FolderEntry[] = []
  let onScreen = true
  let pollTimer: number | undefined

  const fileInput = el('input', { type: 'file', id: 'anki-file', accept: '.apkg,.colpkg', required: true })
  const folderChoice = el('select', { id: 'anki-folder' }, [el('option', { value: '' }, ['Top level: each deck a folder of its own'])])
  const withScheduling = el('input', { type: 'checkbox', id: 'anki-with-scheduling', checked: true, 'aria-describedby': 'anki-with-scheduling-hint' })
  const alwaysUpdateNotes = el('input', { type: 'checkbox', id: 'anki-always-update', 'aria-describedby': 'anki-always-update-hint' })
  const submit = submitButton('Import', true)
  submit.id = 'anki-import-start'
  const choices = el('fieldset', { class: 'plain-fieldset' }, [
    field('Anki package (.apkg or .colpkg)', fileInput, 'At most 1 GiB. In Anki: File > Export, as an Anki Deck Package with scheduling information and media, or an Anki Collection Package for everything.'),
    field('Import into', folderChoice, 'Anki\'s decks become folders inside the one chosen (A::B a folder B in a folder A), each deck\'s own cards a deck of its name.'),
    el('label', { class: 'check-row' }, [withScheduling, ' Keep scheduling and review history']),
    el('p', { class: 'hint check-hint', id: 'anki-with-scheduling-hint' }, [
      'Each card keeps its due day and memory state, and your Anki reviews count in your heatmap and streak (they earn no XP). Untick to start every card as new.'
    ]),
    el('label', { class: 'check-row' }, [alwaysUpdateNotes, ` ${ALWAYS_UPDATE_LABEL}`]),
    el('p', { class: 'hint check-hint', id: 'anki-always-update-hint' }, [
      'Notes you have already (imported before, or exported from here) are never added twice. Left unticked, as in Anki, they take the package\'s text only where it was changed after your last change here.'
    ]),
    el('div', { class: 'button-row' }, [submit])
  ])

  const progressLabel = el('label', { for: 'anki-progress', id: 'anki-progress-label' }, ['Upload'])
  const progressBar = el('progress', { id: 'anki-progress', class: 'import-progress-bar', max: 100, value: 0, tabindex: -1 })
  const progressDetail = el('p', { class: 'hint', id: 'anki-progress-detail' })
  const progressArea = el('div', { class: 'import-progress', id: 'anki-progress-area', hidden: true }, [progressLabel, progressBar, progressDetail])
  // in the page from the start, so that what is written into it is read out
  const status = el('p', { class: 'import-status', id: 'anki-import-status', role: 'status' })
  const form = el('form', { class: 'panel stacked-form', id: 'anki-import-form', 'aria-labelledby': 'anki-form-heading' }, [
    el('h2', { id: 'anki-form-heading' }, ['Package to import']),
    choices,
    progressArea,
    status
  ])
  const result = el('section', { class: 'panel import-result', id: 'anki-import-result', 'aria-labelledby': 'anki-result-heading', hidden: true })

  container.append(
    el('h1', { tabindex: -1 }, ['Import from Anki']),
    el('p', { class: 'lead' }, ['Bring your Anki decks here with their media, and if you like their schedules and review history. All of a package arrives at once, or nothing of it.']),
    form,
    result
  )

  const showProgress = (label: string, percent: number | null, detail: string): void => {
    progressArea.hidden = false
    progressLabel.textContent = label
    // no figure: the bar shows work under way without saying how far
    if (percent === null) progressBar.removeAttribute('value')
    else progressBar.value = percent
    progressDetail.textContent = detail
  }

  /** The form is usable again, the progress put away. */
  const settle = (): void => {
    window.clearTimeout(pollTimer)
    choices.disabled = false
    progressArea.hidden = true
  }

  const showEnd = (underWay: ImportUnderWay, ended: ImportStatus): void => {
    settle()
    forgetImport(userID)
    const heading = el('h2', { id: 'anki-result-heading', tabindex: -1 })
    if (ended.state === 'done') {
      // the package is in the library: the form is left ready for another, not for this one again
      fileInput.value = ''
      status.textContent = `Import done: ${plural(Number(ended.cards), 'card')} from "${underWay.fileName}".`
      heading.textContent = 'Import done'
      replaceChildren(result, [
        heading,
        el('p', {}, [`Everything "${underWay.fileName}" held is in your library now.`]),
        el('dl', { class: 'figures', id: 'anki-import-counts' }, [
          figure('Cards', ended.cards, 'anki-cards'),
          figure('Notes', ended.notes, 'anki-notes'),
          figure('Reviews', ended.reviews, 'anki-reviews'),
          figure('Media files', ended.media, 'anki-media')
        ]),
        ended.recovered === 'finished' && el('p', { class: 'hint' }, ['The service was restarted during the import, and finished it when it started again.']),
        ended.warnings.length > 0 && el('h3', { id: 'anki-warnings-heading' }, ['Left out or changed on the way']),
        ended.warnings.length > 0 && el('ul', { class: 'import-warnings', id: 'anki-warnings', 'aria-labelledby': 'anki-warnings-heading' },
          ended.warnings.map((warning) => el('li', {}, [inPageWords(warning).replace('import it with updateNotes=always', `tick "${ALWAYS_UPDATE_LABEL}" and import it again`)]))),
        el('div', { class: 'button-row' }, [
          el('a', { href: '#/library', class: 'button-link primary-link', id: 'anki-open-library' }, ['Open your library']),
          button('Import another package', () => { startOver() }, { id: 'anki-import-again' })
        ])
      ])
    } else {
      status.textContent = `The import of "${underWay.fileName}" failed.`
      heading.textContent = 'Import failed'
      replaceChildren(result, [
        heading,
        el('p', { class: 'inline-error', role: 'alert', id: 'anki-import-error' }, [failureText(ended)]),
        el('p', {}, ['Nothing of it was imported: your library is as it was.']),
        el('div', { class: 'button-row' }, [button('Try again', () => { startOver() })])
      ])
    }
    result.hidden = false
    // the focus was on the progress bar, now put away: the outcome is what to read next
    if (document.activeElement === progressBar) heading.focus()
    else focusIfLost(heading)
  }

  const startOver = (): void => {
    result.hidden = true
    result.replaceChildren()
    status.textContent = ''
    fileInput.focus()
  }

  /** Asks how the import stands, once a second, until it ends or the user leaves. */
  const follow = (underWay: ImportUnderWay): void => {
    choices.disabled = true
    result.hidden = true
    status.textContent = `Importing "${underWay.fileName}"…`
    showProgress('Import', 0, 'Starting…')
    const ask = async (): Promise<void> => {
      let now: ImportStatus
      try {
        now = await callApi('get-import-status', { importID: underWay.importID })
      } catch (error) {
        if (!onScreen || error instanceof SessionEndedError) return
        if (error instanceof ApiError && ASK_AGAIN.has(error.code)) {
          // the import goes on at the service whatever this browser hears of it
          progressDetail.textContent = `${error.message} Asking again…`
          pollTimer = window.setTimeout(() => { void ask() }, POLL_MS)
          return
        }
        settle()
        forgetImport(userID)
        status.textContent = ''
        reportFailure(error, submit)
        return
      }
      if (!onScreen) return
      if (now.state === 'done' || now.state === 'failed') {
        showEnd(underWay, now)
        return
      }
      showProgress('Import', Number(now.percent), now.state === 'queued'
        ? 'Waiting for another import to end first…'
        : `${now.percent}%: ${plural(Number(now.cards), 'card')} and ${plural(Number(now.notes), 'note')} read so far`)
      pollTimer = window.setTimeout(() => { void ask() }, POLL_MS)
    }
    void ask()
  }

  /** Shows an upload's progress while it goes, then follows its import. */
  const watch = (sending: Upload): void => {
    choices.disabled = true
    result.hidden = true
    status.textContent = `Uploading "${sending.fileName}"…`
    const drawn = (): void => {
      const { bytes, total } = sending.sent
      showProgress('Upload', total > 0 ? Math.round(100 * bytes / total) : null, total > 0 ? `${sizeText(bytes)} of ${sizeText(total)} sent` : `${sizeText(bytes)} sent`)
    }
    sending.onProgress = drawn
    drawn()
    sending.importID.then((importID) => {
      if (onScreen) follow({ importID, fileName: sending.fileName })
    }, (error: unknown) => {
      if (!onScreen) return
      settle()
      status.textContent = ''
      reportFailure(uploadFailure(error), submit)
    })
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault()
    const file = fileInput.files?.[0]
    if (choices.disabled || file === undefined) return
    if (file.size > MAX_PACKAGE_BYTES) {
      showError(`"${file.name}" is larger than 1 GiB, the most one package may be: export the decks from Anki in several packages.`, submit)
      return
    }
    const folder = allFolders(folders).find((candidate) => candidate.folderID === folderChoice.value)?.path ?? []
    const stop = new AbortController()
    const sending: Upload = {
      userID,
      fileName: file.name,
      sent: { bytes: 0, total: file.size },
      onProgress: null,
      stop,
      importID: uploadAnkiPackage(file, { folder, withScheduling: withScheduling.checked, alwaysUpdateNotes: alwaysUpdateNotes.checked }, (bytes, total) => {
        sending.sent = { bytes, total }
        sending.onProgress?.()
      }, stop.signal).then(({ importID }) => {
        // kept unless the user logged out meanwhile: then nothing of theirs stays here
        if (loadSession()?.userID === userID) saveImport(userID, { importID, fileName: file.name })
        return importID
      }).finally(() => {
        if (upload === sending) upload = null
      })
    }
    upload = sending
    sending.importID.catch((error: unknown) => {
      // told here when the user is on another screen: on this one, watch() tells it next to the form
      if (sending.onProgress === null && !(error instanceof SessionEndedError)) {
        const failure = uploadFailure(error)
        showError(`"${sending.fileName}" was not imported: ${failure instanceof Error ? failure.message : String(failure)}`)
      }
    })
    watch(sending)
    // the button pressed is disabled with the rest: the progress is what to read now
    progressBar.focus()
  })

  // an import started before is found again: an upload still going, or an import the service runs
  const kept = loadImport(userID)
  if (upload !== null && upload.userID === userID) watch(upload)
  else if (kept !== null) follow(kept)

  callApi('get-library', {}).then((library) => {
    if (!onScreen) return
    folders = readLibrary(library.folders)
    for (const folder of allFolders(folders)) {
      folderChoice.append(el('option', { value: folder.folderID, selected: folder.folderID === wantedFolderID }, [pathText(folder.path)]))
    }
  }, reportFailure)

  return () => {
    onScreen = false
    window.clearTimeout(pollTimer)
    if (upload !== null) upload.onProgress = null
  }
}

/**
 * An upload's failure as the learner can act on it: the service's words on a request that came
 * too slowly speak of headers and bodies, and are said again of the package.
 */
function uploadFailure (error: unknown): unknown {
  if (!(error instanceof ApiError) || error.code !== 'request_timeout') return error
  return new ApiError(error.code, `The package did not arrive in time (${error.message}). ` +
    'Try again over a faster connection, or export fewer decks at a time; whoever runs the service can also give uploads longer.')
}

/** What a failed import says, in the page's words, with its code. */
function failureText (ended: ImportStatus): string {
  // the service's sentence may end with a full stop of its own
  const said = (ended.error === undefined ? 'the service did not say why' : inPageWords(ended.error)).replace(/\.$/, '')
  const code = ended.code === undefined ? '' : ` Code: ${ended.code}.`
  return `${said.charAt(0).toUpperCase()}${said.slice(1)}.${ADVICE[ended.code ?? ''] ?? ''}${code}`
}

/** What to do about a failure, where the service's sentence may not say it. */
const ADVICE: Record<string, string> = {
  not_a_zip: ' Export the decks from Anki again (File > Export), as an .apkg or .colpkg file.',
  corrupt_collection: ' Check the collection in Anki (Tools > Check Database), then export it again.',
  unknown_schema: ' Export the decks again with a current Anki.',
  changed_meanwhile: ' Import the package again.',
  import_interrupted: ' Import the package again.'
}

/** "3.2 MiB": a size as a person reads it. */
function sizeText (bytes: number): string {
  if (bytes < 1024 * 1024) return `${Math.ceil(bytes / 1024).toLocaleString()} KiB`
  return `${(bytes / 1024 / 1024).toLocaleString(undefined, { maximumFractionDigits: 1 })} MiB`
}
