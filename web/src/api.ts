// The one way the page talks to the service: POST /api/<operation> with a JSON body,
// the token in the body field jwtToken (never a header), as every client of the API does.
import type { Operation, Operations } from './api-types.js'
import { forgetSession, loadSession } from './session.js'

/** The service refused or failed a request; `message` is its own words, fit to show the user. */
export class ApiError extends Error {
  constructor (readonly status: number, message: string) {
    super(message)
    this.name = 'ApiError'
  }
}

/**
 * The token was refused (401 on an operation that needs one): the session is over.
 * Whoever listens (main.ts) has already sent the user to the login screen with a
 * message, so callers need not show this one again.
 */
export class SessionEndedError extends ApiError {
  constructor (message: string) {
    super(401, message)
    this.name = 'SessionEndedError'
  }
}

const PUBLIC_OPERATIONS: ReadonlySet<Operation> = new Set(['register', 'login'])

let sessionEnded: (message: string) => void = () => {}

/** Called once by main.ts: what to do when the service refuses the stored token. */
export function onSessionEnded (handler: (message: string) => void): void {
  sessionEnded = handler
}

export async function callApi<Op extends Operation> (operation: Op, body: Operations[Op]['body']): Promise<Operations[Op]['answer']> {
  const authenticated = !PUBLIC_OPERATIONS.has(operation)
  const payload: Record<string, unknown> = { ...body }
  if (authenticated) {
    const session = loadSession()
    if (session === null) {
      const message = 'You are not logged in. Please log in again.'
      sessionEnded(message)
      throw new SessionEndedError(message)
    }
    payload.jwtToken = session.jwtToken
  }

  let response: Response
  try {
    response = await fetch(`/api/${operation}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(payload),
      credentials: 'same-origin',
      cache: 'no-store'
    })
  } catch {
    throw new ApiError(0, 'Could not reach the service. Check your connection and try again.')
  }

  const answer = await response.json().catch(() => undefined) as unknown
  if (response.ok) {
    // every operation answers a JSON object: anything else (a proxy's page, a cut-off body) is no answer
    if (typeof answer !== 'object' || answer === null) {
      throw new ApiError(response.status, `The service's answer to ${operation} could not be read. Please try again.`)
    }
    return answer as Operations[Op]['answer']
  }

  const said = typeof answer === 'object' && answer !== null && 'error' in answer && typeof answer.error === 'string'
    ? answer.error
    : null
  if (response.status === 401 && authenticated) {
    // update-goal-status answers {} for a bad token (docs/interface.md), so the words are ours then
    const message = `You have been logged out (${said ?? 'invalid or expired token'}). Please log in again.`
    forgetSession()
    sessionEnded(message)
    throw new SessionEndedError(message)
  }
  const retryAfter = response.headers.get('retry-after')
  const wait = retryAfter !== null && (response.status === 503 || response.status === 429) ? ` Try again in ${retryAfter} s.` : ''
  throw new ApiError(response.status, `${said ?? `The service answered ${response.status} ${response.statusText}`.trim()}${wait}`)
}
