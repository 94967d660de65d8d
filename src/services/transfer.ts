import { createHash } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  CardFormatError, DEFAULT_SEPARATORS, parseCsv, parseQuizlet, toCsv, toQuizlet,
  type CardFormat, type Separators
} from '../domain/card-formats.js'
import type { CardInput } from '../domain/card-content.js'
import { archiveFileOf, CARDS_FILE, cardsForArchive, MEDIA_FOLDER, mediaFileName, rewriteMediaSources } from '../domain/card-archive.js'
import { newId } from '../domain/ids.js'
import { addFlashcard, folderAtPath, flashcardWithPath, describePath } from '../domain/library-tree.js'
import { SNIFF_BYTES } from '../domain/media.js'
import { quotaText } from '../domain/quotas.js'
import { addToUsageWithinQuotas, storeNewCards, type ServiceContext } from './context.js'
import type { CardDocument } from '../repositories/cards.js'
import { isDuplicateKey } from '../repositories/duplicate-key.js'
import type { Repositories } from '../repositories/index.js'
import type { UserDocument } from '../repositories/users.js'
import { newCards, type LibraryService } from './library.js'
import { keepFile, sniffedType, type MediaService, type StoredFile } from './media.js'
import { openCardArchive, saveUpload, writeCardArchive, type CardArchive } from './card-archive.js'
import { Refusal } from '../domain/refusals.js'

export interface FormatOptions {
  format?: CardFormat
  termSeparator?: string
  cardSeparator?: string
}

export interface ImportRequest extends FormatOptions {
  folder: string[]
  flashcardName: string
  text: string
  header?: 'auto' | boolean
}

/**
 * The separators of a Quizlet request. Separators sent with CSV are refused
 * rather than ignored: whoever sends them expects them to count, and CSV is
 * always comma-separated.
 */
function separatorsOf (options: FormatOptions): Separators {
  if ((options.format ?? 'quizlet') === 'csv') {
    if (options.termSeparator !== undefined || options.cardSeparator !== undefined) {
      throw new Refusal('invalid_value', 'termSeparator and cardSeparator apply to the quizlet format only: CSV is always comma-separated (RFC 4180)')
    }
  }
  return {
    termSeparator: options.termSeparator ?? DEFAULT_SEPARATORS.termSeparator,
    cardSeparator: options.cardSeparator ?? DEFAULT_SEPARATORS.cardSeparator
  }
}

/** Runs a conversion; a file or card it cannot handle is the client's to fix (400). */
function refusingUnreadable<T> (conversion: () => T): T {
  try {
    return conversion()
  } catch (error) {
    if (error instanceof CardFormatError) throw new Refusal('invalid_import', error.message)
    throw error
  }
}

function importedCards (request: ImportRequest): CardInput[] {
  const separators = separatorsOf(request)
  if (request.format === 'csv') return refusingUnreadable(() => parseCsv(request.text, { header: request.header ?? 'auto' }))
  if (request.header !== undefined) throw new Refusal('invalid_value', 'header applies to the csv format only: leave it out for quizlet text')
  return refusingUnreadable(() => parseQuizlet(request.text, separators))
}

/** The media ids the cards show, each once, in the order of the cards. */
function mediaShown (cards: readonly CardDocument[]): string[] {
  return [...new Set(cards.flatMap((card) => card.media ?? []))]
}

/** Cards as they were written, in creation order: a cloze note once, where its first card is. */
function asWritten (cards: readonly CardDocument[]): CardInput[] {
  const notes = new Set<string>()
  const written: CardInput[] = []
  for (const card of cards) {
    const format = card.format ?? 'text'
    if (card.noteID === undefined || card.clozeNumber === undefined) {
      written.push({ front: card.front, back: card.back, format })
    } else if (!notes.has(card.noteID)) {
      notes.add(card.noteID)
      written.push({ cloze: card.front, back: card.back, format })
    }
  }
  return written
}

export interface ArchiveImport {
  folder: string[]
  flashcardName: string
}

/** A media file of an archive, as its bytes showed it. */
interface MeasuredFile { sha256: string, bytes: number, contentType: string }

/** Stands for a media id while cards.csv is first read: every id the service makes has 39 digits, as this has. */
const SOME_MEDIA_ID = '0'.repeat(39)

function byteCount (bytes: number): string {
  return `${bytes.toLocaleString('en')} byte${bytes === 1 ? '' : 's'}`
}

/** A media file's bytes read whole, hashed and typed by its first bytes, but stored nowhere. */
async function measure (archive: CardArchive, file: string): Promise<MeasuredFile> {
  const hash = createHash('sha256')
  const head: Buffer[] = []
  let bytes = 0
  let contentType: string | undefined
  const typed = async (): Promise<string> => {
    try {
      return await sniffedType(Buffer.concat(head))
    } catch (error) {
      if (error instanceof Refusal) throw new Refusal(error.code, `${MEDIA_FOLDER}${file}: ${error.message}; take it out of the archive and its cards`)
      throw error
    }
  }
  for await (const piece of archive.mediaBytes(file)) {
    bytes += piece.length
    hash.update(piece)
    if (contentType === undefined) {
      head.push(piece)
      if (bytes >= SNIFF_BYTES) contentType = await typed()
    }
  }
  if (bytes === 0) throw new Refusal('unsupported_media', `${MEDIA_FOLDER}${file} is empty: take it out of the archive and its cards`)
  contentType ??= await typed()
  return { sha256: hash.digest('hex'), bytes, contentType }
}

/** Flashcards from and to Quizlet-style text, CSV, and zip archives of CSV and media. */
export function transferService (context: ServiceContext, library: LibraryService, media: MediaService) {
  const { repositories } = context

  /** 409 naming how much room the new media need and how much the account has. */
  function mediaRoomRefusal (needed: number, room: number): Refusal {
    return new Refusal('quota_exceeded',
      `the archive's media take ${byteCount(needed)} that the account does not hold yet, and its quota of ${quotaText('mediaBytes', context.quotas)} ` +
      `has room for ${byteCount(Math.max(0, room))} more: delete at least ${byteCount(needed - Math.max(0, room))} of media first, or import fewer`)
  }

  /**
   * The import's transaction: the flashcard, the media its cards show (kept
   * from the staged files, or the account's own copy of the same bytes), the
   * cards with their media ids, and the quotas, all at once or not at all.
   */
  async function storeImport (userID: string, request: ArchiveImport, files: ReadonlyMap<string, MeasuredFile>, staged: ReadonlyMap<string, StoredFile>,
    cardsWith: (mediaIdOf: (file: string) => string) => CardInput[]) {
    const now = context.clock()
    const checkAt = new Date(now.getTime() + context.media.graceSeconds * 1000)
    const flashcardID = newId()
    const stored = await context.userTransaction(userID, async (repositories: Repositories) => {
      const tree = await repositories.trees.openForEdit(userID)
      addFlashcard(tree, request.folder, { id: flashcardID, name: request.flashcardName, description: '' })
      const mediaIDs = new Map<string, string>()
      const counts = { added: 0, reused: 0, bytesAdded: 0 }
      for (const sha256 of new Set([...files.values()].map((file) => file.sha256))) {
        const stagedFile = staged.get(sha256)
        if (stagedFile !== undefined) {
          const kept = await keepFile(context, repositories, userID, stagedFile, now)
          mediaIDs.set(sha256, kept.media._id)
          if (kept.created) {
            counts.added += 1
            counts.bytesAdded += kept.media.bytes
          } else {
            counts.reused += 1
          }
          continue
        }
        const held = await repositories.media.findByHash(userID, sha256)
        if (held === null) {
          throw new Refusal('changed_meanwhile', 'a media file of the account that the archive holds too was removed while it was imported; nothing was imported: send the archive again')
        }
        await repositories.media.uploadedAgain(held._id, now, checkAt)
        mediaIDs.set(sha256, held._id)
        counts.reused += 1
      }
      if (counts.bytesAdded > 0 && await repositories.users.addToUsage(userID, { mediaBytes: counts.bytesAdded }, context.quotas) !== null) {
        const usage = await repositories.users.usageOf(userID)
        throw mediaRoomRefusal(counts.bytesAdded, context.quotas.mediaBytes - (usage?.mediaBytes ?? 0))
      }
      const cards = cardsWith((file) => mediaIDs.get(files.get(file)?.sha256 ?? '') as string)
      const documents = newCards(userID, flashcardID, cards, now)
      await storeNewCards(repositories, userID, documents)
      await addToUsageWithinQuotas(context, repositories.users, userID, { nodes: 1, cards: documents.length })
      await repositories.trees.save(userID, tree)
      return { tree, cards, documents, counts }
    })
    repositories.trees.committed(userID, stored.tree)
    const { cards, documents, counts } = stored
    return {
      flashcardID,
      cardIDs: documents.map((card) => card._id),
      imported: String(cards.length),
      mediaAdded: String(counts.added),
      mediaReused: String(counts.reused),
      mediaBytesAdded: String(counts.bytesAdded)
    }
  }

  /** The import of an archive saved whole at `path`. */
  async function importSaved (account: UserDocument, request: ArchiveImport, path: string) {
    const userID = account._id
    const archive = await openCardArchive(path)
    try {
      const csv = await archive.cardsText()
      // the files the cards show, each under the name the archive gives it
      const shown = new Set<string>()
      const cardsWith = (mediaIdOf: (file: string) => string): CardInput[] => refusingUnreadable(() => parseCsv(csv, {
        header: 'auto',
        html: (source, { line }) => rewriteMediaSources(source, (value) => {
          const reference = archiveFileOf(value)
          if (reference === null) return null
          const file = archive.mediaFile(reference)
          if (file === null) {
            throw new Refusal('missing_media', `the card of ${CARDS_FILE} line ${line} shows ${JSON.stringify(value)}, which the archive does not hold: ` +
              `add the file to its ${MEDIA_FOLDER} folder, or take it out of the card`)
          }
          shown.add(file)
          return `media:${mediaIdOf(file)}`
        })
      }))
      // every refusal the cards and the media can earn comes before anything is stored
      cardsWith(() => SOME_MEDIA_ID)
      const files = new Map<string, MeasuredFile>()
      for (const file of shown) files.set(file, await measure(archive, file))
      const firstOf = new Map<string, string>()
      for (const [file, { sha256 }] of files) if (!firstOf.has(sha256)) firstOf.set(sha256, file)
      const held = new Set((await repositories.media.findByHashes(userID, [...firstOf.keys()])).map((record) => record.sha256))
      const toStage = [...firstOf].filter(([sha256]) => !held.has(sha256))
      const needed = toStage.reduce((sum, [, file]) => sum + (files.get(file)?.bytes ?? 0), 0)
      const room = context.quotas.mediaBytes - ((await repositories.users.usageOf(userID))?.mediaBytes ?? 0)
      if (needed > room) throw mediaRoomRefusal(needed, room)

      const staged = new Map<string, StoredFile>()
      try {
        for (const [sha256, file] of toStage) {
          const stored = await media.stage(archive.mediaBytes(file))
          staged.set(sha256, stored)
          if (stored.sha256 !== sha256) throw new Error(`${MEDIA_FOLDER}${file} read differently the second time`)
        }
        for (let attempt = 1; ; attempt++) {
          try {
            return await storeImport(userID, request, files, staged, cardsWith)
          } catch (error) {
            // another request recorded the same bytes of this user just now: the next attempt finds its record
            if (isDuplicateKey(error) && attempt === 1) continue
            throw error
          }
        }
      } catch (error) {
        // a file the transaction kept is the account's now, and no longer listed: discard leaves it
        await media.discard([...staged.values()].map((file) => file.fileId))
        throw error
      }
    } finally {
      archive.close()
    }
  }

  return {
    /** Creates a flashcard from a whole file, read before anything is stored: all or nothing. */
    async importCards (userID: string, request: ImportRequest) {
      const cards = importedCards(request)
      const created = await library.createFlashcard(userID, { folder: request.folder, flashcardName: request.flashcardName, description: '', cards })
      return { ...created, imported: String(cards.length) }
    },

    async exportFlashcard (userID: string, flashcardID: string, options: FormatOptions) {
      const format = options.format ?? 'quizlet'
      const separators = separatorsOf(options)
      const [tree, stored] = await Promise.all([repositories.trees.read(userID), repositories.cards.byFlashcard(userID, flashcardID)])
      const { flashcard } = flashcardWithPath(tree, flashcardID)
      const cards = asWritten(stored)
      const text = refusingUnreadable(() => format === 'csv' ? toCsv(cards) : toQuizlet(cards, separators))
      // the text names the media as this account's media ids: export-flashcard-zip carries the files
      const media = mediaShown(stored).length
      return { flashcardID, flashcardName: flashcard.name, format, text, ...(media > 0 ? { media: String(media) } : {}) }
    },

    /**
     * A flashcard as a zip of cards.csv and the media its cards show
     * (domain/card-archive.ts), streamed: each file is read from GridFS as the
     * archive reaches it. Its size is known before it is sent.
     */
    async exportArchive (userID: string, flashcardID: string) {
      const [tree, stored] = await Promise.all([repositories.trees.read(userID), repositories.cards.byFlashcard(userID, flashcardID)])
      const { flashcard } = flashcardWithPath(tree, flashcardID)
      const shown = mediaShown(stored)
      const records = new Map((await repositories.media.ownedAmong(userID, shown)).map((record) => [record._id, record]))
      const files = shown.flatMap((mediaID) => {
        const record = records.get(mediaID)
        return record === undefined ? [] : [{ mediaID, record, name: mediaFileName(record.sha256, record.contentType) }]
      })
      const fileOf = new Map(files.map(({ mediaID, name }) => [mediaID, name]))
      const csv = toCsv(cardsForArchive(asWritten(stored), (mediaID) => fileOf.get(mediaID)))
      const archive = await writeCardArchive(csv, files.map(({ record, name }) => ({
        name: MEDIA_FOLDER + name,
        bytes: record.bytes,
        mtime: record.createdAt,
        open: () => repositories.media.openDownload(record.fileId, { start: 0, end: record.bytes })
      })), context.clock())
      return { flashcardName: flashcard.name, ...archive }
    },

    /**
     * Creates a flashcard from a zip of cards.csv and media, all or nothing.
     * The upload is saved to a temporary file (a zip is read from its end),
     * checked whole (its names, sizes, cards and every media file's type,
     * size and the quota) before anything is stored; the new media are then
     * written into GridFS, listed for removal, and one transaction creates
     * the flashcard, its cards and the media records. A failure removes what
     * was written (or leaves it listed, for the sweep): no card and no media
     * of a refused archive is ever visible. Media the account holds already
     * (the same bytes) is shown as it is, and counted once.
     */
    async importArchive (account: UserDocument, request: ArchiveImport, file: AsyncIterable<Buffer>, formEnd: () => Promise<void>) {
      // before the archive is read: a folder that is not there is known at once
      if (folderAtPath(await repositories.trees.read(account._id), request.folder) === null) {
        throw new Refusal('folder_not_found', `no folder ${describePath(request.folder)}: create it first with create-folder`)
      }
      const workspace = await mkdtemp(join(tmpdir(), 'flashcards-import-'))
      try {
        const path = join(workspace, 'archive.zip')
        await saveUpload(file, path)
        await formEnd()
        return await importSaved(account, request, path)
      } finally {
        await rm(workspace, { recursive: true, force: true })
      }
    }
  }
}

export type TransferService = ReturnType<typeof transferService>
