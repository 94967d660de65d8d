// Zip archives for the tests of export-flashcard-zip and import-flashcard-zip: read with yauzl,
// and written by hand, so that a test can make what no zip library writes (a name that is a
// path, sizes that lie).
import { crc32, deflateRawSync } from 'node:zlib'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import yauzl from 'yauzl'
import { formBody } from './media.js'

export interface ZipEntry {
  name: string
  data: Buffer
  /** deflate (the default for cards.csv-like text) or store */
  method?: 'deflate' | 'store'
  /** the size the archive declares, when it is to lie about it */
  declaredSize?: number
  /** the stored size its central directory declares, when it is to lie about it */
  declaredStoredSize?: number
}

/** A zip of these entries, in order, names in UTF-8: local headers, the data, the central directory. */
export function zipOf (entries: readonly ZipEntry[]): Buffer {
  const locals: Buffer[] = []
  const central: Buffer[] = []
  let offset = 0
  for (const entry of entries) {
    const name = Buffer.from(entry.name, 'utf8')
    const method = entry.method === 'store' ? 0 : 8
    const stored = method === 8 ? deflateRawSync(entry.data) : entry.data
    const size = entry.declaredSize ?? entry.data.length
    const crc = crc32(entry.data)
    const local = Buffer.alloc(30)
    local.writeUInt32LE(0x04034b50, 0)
    local.writeUInt16LE(20, 4)
    local.writeUInt16LE(0x0800, 6)
    local.writeUInt16LE(method, 8)
    local.writeUInt32LE(crc, 14)
    local.writeUInt32LE(stored.length, 18)
    local.writeUInt32LE(size, 22)
    local.writeUInt16LE(name.length, 26)
    locals.push(local, name, stored)
    const header = Buffer.alloc(46)
    header.writeUInt32LE(0x02014b50, 0)
    header.writeUInt16LE(20, 4)
    header.writeUInt16LE(20, 6)
    header.writeUInt16LE(0x0800, 8)
    header.writeUInt16LE(method, 10)
    header.writeUInt32LE(crc, 16)
    header.writeUInt32LE(entry.declaredStoredSize ?? stored.length, 20)
    header.writeUInt32LE(size, 24)
    header.writeUInt16LE(name.length, 28)
    header.writeUInt32LE(offset, 42)
    central.push(header, name)
    offset += 30 + name.length + stored.length
  }
  const directory = Buffer.concat(central)
  const end = Buffer.alloc(22)
  end.writeUInt32LE(0x06054b50, 0)
  end.writeUInt16LE(entries.length, 8)
  end.writeUInt16LE(entries.length, 10)
  end.writeUInt32LE(directory.length, 12)
  end.writeUInt32LE(offset, 16)
  return Buffer.concat([...locals, directory, end])
}

/** Every file of a zip, by name. */
export async function unzip (archive: Buffer): Promise<Map<string, Buffer>> {
  const zip = await yauzl.fromBufferPromise(archive, { lazyEntries: true })
  const files = new Map<string, Buffer>()
  for await (const entry of zip.eachEntry()) {
    const stream = await zip.openReadStreamPromise(entry)
    const pieces: Buffer[] = []
    for await (const piece of stream) pieces.push(piece as Buffer)
    files.set(entry.fileName, Buffer.concat(pieces))
  }
  return files
}

/** export-flashcard-zip; the raw answer. */
export async function exportZip (app: FastifyInstance, jwtToken: string, flashcardID: string): Promise<LightMyRequestResponse> {
  return await app.inject({ method: 'POST', url: '/api/export-flashcard-zip', payload: { jwtToken, flashcardID } })
}

/** export-flashcard-zip that must succeed; the archive. */
export async function exportedZip (app: FastifyInstance, jwtToken: string, flashcardID: string): Promise<Buffer> {
  const response = await exportZip(app, jwtToken, flashcardID)
  if (response.statusCode !== 200) throw new Error(`export-flashcard-zip: ${response.statusCode} ${response.body}`)
  return response.rawPayload
}

/** import-flashcard-zip as a browser's FormData sends it: the token, a folder field per name, the name, the file; the raw answer. */
export async function importZip (app: FastifyInstance, jwtToken: string, { folder, flashcardName, archive }: { folder: string[], flashcardName: string, archive: Buffer }): Promise<LightMyRequestResponse> {
  const { payload, headers } = formBody([
    { name: 'jwtToken', value: jwtToken },
    ...folder.map((name) => ({ name: 'folder', value: name })),
    { name: 'flashcardName', value: flashcardName },
    { name: 'file', file: archive, filename: `${flashcardName}.zip`, type: 'application/zip' }
  ])
  return await app.inject({ method: 'POST', url: '/api/import-flashcard-zip', payload, headers })
}

export interface ImportedArchive {
  flashcardID: string
  cardIDs: string[]
  imported: string
  mediaAdded: string
  mediaReused: string
  mediaBytesAdded: string
}

/** import-flashcard-zip that must succeed (201); its answer. */
export async function importedZip (app: FastifyInstance, jwtToken: string, fields: { folder: string[], flashcardName: string, archive: Buffer }): Promise<ImportedArchive> {
  const response = await importZip(app, jwtToken, fields)
  if (response.statusCode !== 201) throw new Error(`import-flashcard-zip: ${response.statusCode} ${response.body}`)
  return response.json()
}
