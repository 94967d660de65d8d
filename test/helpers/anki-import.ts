// import-anki through the API: the form, and waiting for the import to end.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { setTimeout as sleep } from 'node:timers/promises'
import { expectOk } from './app.js'
import { FIXTURES } from './anki.js'
import { formBody } from './media.js'

export interface ImportStatus {
  importID: string
  state: 'queued' | 'running' | 'done' | 'failed'
  percent: string
  cards: string
  notes: string
  reviews: string
  media: string
  warnings: string[]
  code?: string
  error?: string
  recovered?: string
}

export function fixture (name: string): Buffer {
  return readFileSync(join(FIXTURES, name))
}

/** Posts import-anki with the package and the fields given (folder: one field per name). */
export async function postImport (app: FastifyInstance, jwtToken: string, file: Buffer, fields: { folder?: string[], withScheduling?: string, fileName?: string } = {}): Promise<LightMyRequestResponse> {
  const { payload, headers } = formBody([
    { name: 'jwtToken', value: jwtToken },
    ...(fields.folder ?? []).map((name) => ({ name: 'folder', value: name })),
    ...(fields.withScheduling === undefined ? [] : [{ name: 'withScheduling', value: fields.withScheduling }]),
    { name: 'file', file, filename: fields.fileName ?? 'deck.apkg', type: 'application/octet-stream' }
  ])
  return await app.inject({ method: 'POST', url: '/api/import-anki', payload, headers })
}

/** Waits for an import to end (done or failed); its last status. */
export async function importEnded (app: FastifyInstance, jwtToken: string, importID: string, timeoutMs = 60_000): Promise<ImportStatus> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const status = await expectOk<ImportStatus>(app, 'get-import-status', { jwtToken, importID })
    if (status.state === 'done' || status.state === 'failed') return status
    if (Date.now() > deadline) throw new Error(`the import did not end in ${timeoutMs} ms: ${JSON.stringify(status)}`)
    await sleep(50)
  }
}

/** Imports a package and waits for the import to end. */
export async function importAnki (app: FastifyInstance, jwtToken: string, file: Buffer, fields: { folder?: string[], withScheduling?: string } = {}): Promise<ImportStatus> {
  const answer = await postImport(app, jwtToken, file, fields)
  if (answer.statusCode !== 202) throw new Error(`import-anki: expected 202, got ${answer.statusCode} ${answer.body}`)
  return await importEnded(app, jwtToken, answer.json<{ importID: string }>().importID)
}
