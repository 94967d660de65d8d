// The one way the page talks to the service: POST /api/<operation> with a JSON body,
// the token in the body field jwtToken (never a header), as every client of the API does;
// upload-media and import-anki take a multipart form, the token its first field; export-anki
// answers a file rather than JSON, its refusals being JSON as every other's.
import type { AnkiExportScope, AnkiImportField, ErrorCode, ImportStarted, Operation, Operations, RefusalCode, UploadField, UploadedMedia } from './api-types.js'
import { forgetSession, loadSession } from './session.js'

/**
 * The service refused or failed a request; `message` is its own words, fit to show the user.
 * The page branches on `code` alone: the service's stable code, or one of the page's own
 * when no refusal came (PageErrorCode).
 */
export class ApiError extends Error {
  constructor (readonly code: ErrorCode, message: string) {
    super(message)
    this.name = 'ApiError'
  }
}

/**
 * The token was refused (invalid_token), or there is none to send: the session is over.
 * Whoever listens (main.ts) has already sent the user to the login screen with a
 * message, so callers need not show this one again.
 */
export class SessionEndedError extends ApiError {
  constructor (code: 'invalid_token' | 'not_logged_in', message: string) {
    super(code, message)
    this.name = 'SessionEndedError'
  }
}

/** The operations sent without a token: the ways into an account, and the links it is mailed. */
const PUBLIC_OPERATIONS: ReadonlySet<Operation> = new Set(['register', 'login', 'request-password-reset', 'reset-password', 'confirm-email-change'])

/** What the page calls: the JSON operations, and those of a form or a file. */
type Called = Operation | 'upload-media' | 'import-anki' | 'export-anki'

let sessionEnded: (message: string) => void = () => {}

/**
 * Whether the service answered the latest request at all. navigator.onLine alone is not
 * enough: it says only that the device has some network, and a page opened offline from
 * its service worker can start out believing it is online.
 */
let reachable = true
const reachabilityListeners = new Set<(reachable: boolean) => void>()

/** True while the device has a network and the service answered the latest request. */
export function serviceReachable (): boolean {
  return reachable && navigator.onLine
}

/** Calls `listener` whenever the service starts or stops answering. */
export function onReachabilityChange (listener: (reachable: boolean) => void): void {
  reachabilityListeners.add(listener)
}

function heardFromService (answered: boolean): void {
  if (reachable === answered) return
  reachable = answered
  for (const listener of reachabilityListeners) listener(answered)
}

/** Called once by main.ts: what to do when the service refuses the stored token. */
export function onSessionEnded (handler: (message: string) => void): void {
  sessionEnded = handler
}

export async function callApi<Op extends Operation> (operation: Op, body: Operations[Op]['body']): Promise<Operations[Op]['answer']> {
  const authenticated = !PUBLIC_OPERATIONS.has(operation)
  const payload: Record<string, unknown> = { ...body }
  if (authenticated) payload.jwtToken = storedToken()
  const response = await send(operation, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(payload),
    credentials: 'same-origin',
    cache: 'no-store'
  })
  return await readAnswer(operation, response) as Operations[Op]['answer']
}

/** The form's fields, in the order upload-media needs them: the token first, so the account is known before the file comes. */
const UPLOAD_FIELDS = ['jwtToken', 'file'] as const satisfies readonly UploadField[]

/**
 * Uploads an image or a sound (upload-media, multipart/form-data): its mediaID, for a card
 * to refer to as media:<mediaID>, and a signed URL to show it with now. The service tells
 * the file's type from its bytes; `fileName` is only what the form carries.
 */
export async function uploadMedia (file: Blob, fileName: string): Promise<UploadedMedia> {
  const [tokenField, fileField] = UPLOAD_FIELDS
  const form = new FormData()
  form.append(tokenField, storedToken())
  form.append(fileField, file, fileName)
  const response = await send('upload-media', { method: 'POST', body: form, credentials: 'same-origin', cache: 'no-store' })
  return await readAnswer('upload-media', response) as UploadedMedia
}

/** The fields of import-anki's form, in the order it needs them: the token, the choices, then the file. */
const ANKI_IMPORT_FIELDS = ['jwtToken', 'folder', 'withScheduling', 'updateNotes', 'file'] as const satisfies readonly AnkiImportField[]

/**
 * The choices of an Anki import: the path of the folder to import into ([] for the top level), whether schedules and history
 * come too, and whether notes the learner has take the package's text even where they were changed here since.
 */
export interface AnkiImportChoices { folder: readonly string[], withScheduling: boolean, alwaysUpdateNotes: boolean }

/**
 * Sends an Anki package to import-anki: its importID, once the whole file has arrived and the
 * import has started. `sent` hears how many bytes of the form have gone so far and of how many:
 * XMLHttpRequest rather than fetch, since fetch tells nothing of an upload's progress.
 */
export async function uploadAnkiPackage (file: File, choices: AnkiImportChoices, sent: (bytes: number, total: number) => void, stop: AbortSignal): Promise<ImportStarted> {
  const [tokenField, folderField, schedulingField, updateField, fileField] = ANKI_IMPORT_FIELDS
  const form = new FormData()
  form.append(tokenField, storedToken())
  // one field for each name of the path, from the top
  for (const name of choices.folder) form.append(folderField, name)
  form.append(schedulingField, String(choices.withScheduling))
  form.append(updateField, choices.alwaysUpdateNotes ? 'always' : 'ifNewer')
  form.append(fileField, file, file.name)
  const response = await new Promise<Response>((resolve, reject) => {
    const request = new XMLHttpRequest()
    request.open('POST', '/api/import-anki')
    request.upload.addEventListener('progress', (event) => { sent(event.loaded, event.lengthComputable ? event.total : 0) })
    request.addEventListener('load', () => {
      heardFromService(true)
      const retryAfter = request.getResponseHeader('retry-after')
      resolve(new Response(request.responseText, {
        status: request.status,
        statusText: request.statusText,
        headers: retryAfter === null ? {} : { 'retry-after': retryAfter }
      }))
    })
    const failed = (): void => {
      heardFromService(false)
      // the service may have closed the connection on purpose (a refusal before the file had all arrived), but the browser does not say
      reject(new ApiError('network_failure', 'The upload stopped before the service had all of the package: the connection was lost or cut. Check your connection and try again.'))
    }
    request.addEventListener('error', failed)
    request.addEventListener('timeout', failed)
    request.addEventListener('abort', () => {
      if (!stop.aborted) failed()
      // stopped by logging out: whoever logged out knows, and the login screen says it already
      else reject(new SessionEndedError('not_logged_in', 'You logged out: the upload was stopped, and nothing of the package was imported.'))
    })
    stop.addEventListener('abort', () => { request.abort() }, { once: true })
    request.send(form)
  })
  return await readAnswer('import-anki', response) as ImportStarted
}

/** An Anki package as export-anki gave it: the file's name the service chose, and its bytes. */
export interface ExportedPackage { fileName: string, file: Blob }

/**
 * Asks export-anki for a package (`scope`: a folder, a flashcard, or {} for the whole account)
 * and reads it whole. `received` hears how many bytes have come so far: nothing comes while
 * the service builds the collection, then the package streams.
 */
export async function downloadAnkiPackage (scope: AnkiExportScope, received: (bytes: number) => void): Promise<ExportedPackage> {
  const jwtToken = storedToken()
  const response = await send('export-anki', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...scope, jwtToken }),
    credentials: 'same-origin',
    cache: 'no-store'
  })
  if (!response.ok) return await refusalOf('export-anki', response)
  const reader = response.body?.getReader()
  if (reader === undefined) throw new ApiError('unreadable_answer', 'The service\'s answer to export-anki could not be read. Please try again.')
  const pieces: Uint8Array<ArrayBuffer>[] = []
  let bytes = 0
  try {
    for (let piece = await reader.read(); !piece.done; piece = await reader.read()) {
      pieces.push(piece.value)
      bytes += piece.value.byteLength
      received(bytes)
    }
  } catch {
    heardFromService(false)
    throw new ApiError('network_failure', 'The download stopped before the whole package had come: the connection was lost or cut. Check your connection and try again.')
  }
  // logged out (or another account logged in) while it came: nothing of that session is left on this machine
  if (loadSession()?.jwtToken !== jwtToken) throw new SessionEndedError('not_logged_in', 'You logged out before the package had come: it was not saved.')
  return { fileName: attachmentName(response.headers.get('content-disposition')), file: new Blob(pieces, { type: 'application/octet-stream' }) }
}

/**
 * The file name of a Content-Disposition: filename* as written (UTF-8, percent-encoded), else
 * filename, whose characters beyond printable ASCII the service has replaced.
 */
function attachmentName (disposition: string | null): string {
  const encoded = /filename\*\s*=\s*UTF-8''([^;\s]+)/i.exec(disposition ?? '')?.[1]
  if (encoded !== undefined) {
    try {
      return decodeURIComponent(encoded)
    } catch {
      // a malformed escape: the plain name below still names the file
    }
  }
  return /filename\s*=\s*"([^"]*)"/i.exec(disposition ?? '')?.[1] ?? 'flashcards.apkg'
}

/** The token to send; with none stored, the session is over. */
function storedToken (): string {
  const session = loadSession()
  if (session === null) {
    const message = 'You are not logged in. Please log in again.'
    sessionEnded(message)
    throw new SessionEndedError('not_logged_in', message)
  }
  return session.jwtToken
}

async function send (operation: Called, init: RequestInit): Promise<Response> {
  try {
    const response = await fetch(`/api/${operation}`, init)
    heardFromService(true)
    return response
  } catch {
    heardFromService(false)
    throw new ApiError('network_failure', 'Could not reach the service. Check your connection and try again.')
  }
}

/** The answer of a success, a JSON object; or the refusal thrown as an ApiError with its code. */
async function readAnswer (operation: Called, response: Response): Promise<object> {
  if (!response.ok) return await refusalOf(operation, response)
  const answer = await response.json().catch(() => undefined) as unknown
  // every operation answers a JSON object: anything else (a proxy's page, a cut-off body) is no answer
  if (typeof answer !== 'object' || answer === null) {
    throw new ApiError('unreadable_answer', `The service's answer to ${operation} could not be read. Please try again.`)
  }
  return answer
}

/** A refusal or failure of the service's, thrown as an ApiError with its code and the service's sentence. */
async function refusalOf (operation: Called, response: Response): Promise<never> {
  const answer = await response.json().catch(() => undefined) as unknown
  const refusal = typeof answer === 'object' && answer !== null ? answer as { error?: unknown, code?: unknown } : {}
  const said = typeof refusal.error === 'string' ? refusal.error : null
  const code = refusalCode(operation, response.status, refusal.code)
  if (code === 'invalid_token') {
    // update-goal-status's {} gives no words, so the words are ours then
    const message = `You have been logged out (${said ?? 'invalid or expired token'}). Please log in again.`
    forgetSession()
    sessionEnded(message)
    throw new SessionEndedError(code, message)
  }
  // the service says how long to wait when it is too busy or a client asks too often
  const retryAfter = response.headers.get('retry-after')
  const wait = retryAfter === null ? '' : ` Try again in ${retryAfter} s.`
  throw new ApiError(code, `${said === null ? `The service answered ${response.status} ${response.statusText}`.trim() : inPageWords(said)}${wait}`)
}

/**
 * The service's sentence in the page's words: what the API calls a flashcard (a set of
 * cards) is a deck on the page (docs/api.md says so). Field and operation names
 * (flashcardID, move-flashcard-set) are left as they are.
 */
export function inPageWords (said: string): string {
  return said.replace(/(?<![\w-])(F|f)lashcard(s?)(?![\w-])/g, (_word, initial: string, many: string) => `${initial === 'F' ? 'D' : 'd'}eck${many}`)
}

/** The code of a refusal: the service's, or unreadable_answer when the answer has none (it is not the service's). */
function refusalCode (operation: Called, status: number, code: unknown): ErrorCode {
  // update-goal-status answers a bad token with 401 and {} (docs/interface.md: the published interface
  // asks it), so that one refusal is known by its operation and status rather than by a code
  if (operation === 'update-goal-status' && status === 401) return 'invalid_token'
  // every error answer of the service carries one of its codes (src/schemas/errors.ts)
  return typeof code === 'string' && code !== '' ? code as RefusalCode : 'unreadable_answer'
}
