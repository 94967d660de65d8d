import { createHash } from 'node:crypto'
import type { Readable } from 'node:stream'
import { fileTypeFromBuffer } from 'file-type'
import type { ObjectId } from 'mongodb'
import { ACCEPTED_MEDIA, MAX_MEDIA_BYTES, servedType, SNIFF_BYTES, type ByteRange } from '../domain/media.js'
import { newId } from '../domain/ids.js'
import { quotaText } from '../domain/quotas.js'
import { Refusal } from '../domain/refusals.js'
import { isDuplicateKey } from '../repositories/duplicate-key.js'
import type { Repositories } from '../repositories/index.js'
import { newFileId, type FileWriter, type MediaDocument } from '../repositories/media.js'
import type { UserDocument } from '../repositories/users.js'
import type { UploadedMedia } from '../schemas/media.js'
import { addToUsageWithinQuotas, type ServiceContext } from './context.js'

/** How media is kept; each can be set from the environment (see src/config.ts). */
export interface MediaSettings {
  /** media no card shows is kept at least this long after its last upload, for the card that will show it */
  graceSeconds: number
  /** a media URL is valid for one to two of these (domain/media-links.ts) */
  urlLifetimeSeconds: number
  /** how often each instance sweeps */
  sweepEverySeconds: number
}

export const DEFAULT_MEDIA_SETTINGS: MediaSettings = { graceSeconds: 24 * 3600, urlLifetimeSeconds: 3600, sweepEverySeconds: 3600 }

/** Records and files the sweep takes at once; it goes on batch after batch while a batch comes full. */
const SWEEP_BATCH = 200
const SWEEP_MAX_BATCHES = 50

/**
 * How long the file of a failed upload whose last write failed is left
 * before it is removed again: a chunk written after the first removal (the
 * driver may still have one under way) goes then.
 */
const UNDER_WAY_WRITES_MS = 60_000

/** A file ready to store: what the upload's bytes hashed to, and how much there was. */
export interface StoredFile { fileId: ObjectId, sha256: string, bytes: number, contentType: string }

export interface RecordedMedia { media: MediaDocument, created: boolean }

function tooLarge (): Refusal {
  return new Refusal('media_too_large', `the file is larger than ${MAX_MEDIA_BYTES / 1024 / 1024} MiB, the most one upload may hold: send a smaller file`)
}

/** The type a file's first bytes say it is, as it will be served; 415 for anything but the kinds kept. */
export async function sniffedType (head: Buffer): Promise<string> {
  const sniffed = await fileTypeFromBuffer(head)
  const type = servedType(sniffed?.ext)
  if (type === null) {
    const what = sniffed === undefined ? 'a kind of file the service cannot tell' : `${sniffed.mime}`
    throw new Refusal('unsupported_media', `the file is ${what} by its bytes; the service keeps ${ACCEPTED_MEDIA}`)
  }
  return type
}

/**
 * Removes GridFS files that no record holds any more, each in a transaction
 * of its own that first takes it off the list of files to remove: a file a
 * record took meanwhile (an upload recorded after all) stays. How many went.
 */
export async function removeFiles (context: Pick<ServiceContext, 'transaction'>, fileIds: readonly ObjectId[]): Promise<number> {
  let removed = 0
  for (const fileId of fileIds) {
    const gone = await context.transaction(async ({ media }) => {
      if (!await media.claim(fileId)) return false
      await media.deleteFile(fileId)
      return true
    })
    if (gone) removed += 1
  }
  return removed
}

/**
 * removeFiles after a request has committed its change: a file that cannot
 * be removed now stays on the list, for the sweep, and the request's answer
 * (its change is stored) stands.
 */
export async function removeFilesAfterwards (context: Pick<ServiceContext, 'transaction'>, fileIds: readonly ObjectId[]): Promise<void> {
  if (fileIds.length === 0) return
  await removeFiles(context, fileIds).catch(() => {})
}

/** Removes these records of the user in the caller's transaction and gives their bytes back; the files to remove once it commits. */
async function removeMedia ({ media, users }: Pick<Repositories, 'media' | 'users'>, userID: string, records: ReadonlyArray<Pick<MediaDocument, '_id' | 'fileId' | 'bytes'>>, now: Date): Promise<ObjectId[]> {
  if (records.length === 0) return []
  const fileIds = await media.removeRecords(records, now)
  await users.takeFromUsage(userID, { mediaBytes: records.reduce((sum, record) => sum + record.bytes, 0) })
  return fileIds
}

/**
 * The media that the cards of these flashcards show, read before they are
 * deleted, in the deletion's transaction. An account that holds no media
 * skips the read of the cards.
 */
export async function mediaShownBy ({ users, cards }: Pick<Repositories, 'users' | 'cards'>, userID: string, flashcardIDs: readonly string[]): Promise<string[]> {
  if (((await users.usageOf(userID))?.mediaBytes ?? 0) <= 0) return []
  return await cards.mediaOf(userID, flashcardIDs)
}

/**
 * In the transaction that deleted cards, after the deletion: the media they
 * showed that no card shows now, and whose grace has passed, go with them
 * (their records, and their bytes from the quota). Media still within its
 * grace is left for the sweep. The files to remove once it commits.
 */
export async function releaseMedia (context: ServiceContext, repositories: Repositories, userID: string, mediaIDs: readonly string[]): Promise<ObjectId[]> {
  if (mediaIDs.length === 0) return []
  const now = context.clock()
  const stillShown = await repositories.cards.referencedMedia(userID, mediaIDs)
  const unshown = mediaIDs.filter((mediaID) => !stillShown.has(mediaID))
  const pastGrace = await repositories.media.uploadedBefore(userID, unshown, new Date(now.getTime() - context.media.graceSeconds * 1000))
  return await removeMedia(repositories, userID, pastGrace, now)
}

/**
 * In the caller's transaction, makes a file written whole into GridFS (and
 * listed meanwhile among the files to remove) the user's media: it comes off
 * that list and is recorded; or, when the user has these bytes already, it
 * goes and the record there is answered, renewed (its grace starts again).
 * Charges nothing: the caller adds the bytes of a new record to the quota in
 * the same transaction. Two records of one user's bytes at once fail on the
 * unique index (a duplicate-key error): the caller runs its transaction again.
 */
export async function keepFile (context: Pick<ServiceContext, 'media'>, { media }: Pick<Repositories, 'media'>, userID: string, stored: StoredFile, now: Date): Promise<RecordedMedia> {
  const checkAt = new Date(now.getTime() + context.media.graceSeconds * 1000)
  if (!await media.claim(stored.fileId)) throw new Error(`the file ${stored.fileId.toHexString()} of an upload was removed before it was recorded`)
  const existing = await media.findByHash(userID, stored.sha256)
  if (existing !== null) {
    await media.deleteFile(stored.fileId)
    await media.uploadedAgain(existing._id, now, checkAt)
    return { media: { ...existing, uploadedAt: now }, created: false }
  }
  const document: MediaDocument = {
    _id: newId(),
    userID,
    sha256: stored.sha256,
    fileId: stored.fileId,
    bytes: stored.bytes,
    contentType: stored.contentType,
    createdAt: now,
    uploadedAt: now,
    checkAt
  }
  await media.insert(document)
  return { media: document, created: true }
}

/**
 * Media: uploads typed by their bytes and stored in GridFS once per user and
 * content, served through signed URLs, and removed once no card shows them.
 *
 * An upload becomes visible in one step: its file is written whole into
 * GridFS first, listed meanwhile among the files to remove; then one
 * transaction takes it off that list, records it and charges the quota. A
 * crash at any point leaves either a recorded, whole file or one on the list,
 * which the sweep removes.
 */
export function mediaService (context: ServiceContext) {
  const { repositories, clock } = context

  /** Writes the bytes into a new GridFS file, typing them by their first bytes and hashing them as they come; 413, 415 or 409 as soon as they show. */
  async function store (file: AsyncIterable<Buffer>, room: number): Promise<StoredFile> {
    const hash = createHash('sha256')
    const fileId = newFileId()
    const head: Buffer[] = []
    let bytes = 0
    let opened: { writer: FileWriter, contentType: string } | null = null
    // true from the first write until the last has ended well: a failure then may leave a write under way
    let writing = false
    /** once the type is known: the file is listed for removal before its first byte is written */
    const open = async (): Promise<{ writer: FileWriter, contentType: string }> => {
      const contentType = await sniffedType(Buffer.concat(head))
      const uploadEnds = clock().getTime() + context.media.uploadWindowMs + context.media.graceSeconds * 1000
      await repositories.media.expectUpload(fileId, new Date(uploadEnds))
      const writer = repositories.media.openUpload(fileId, newId())
      writing = true
      await writer.write(Buffer.concat(head))
      return { writer, contentType }
    }
    try {
      for await (const piece of file) {
        bytes += piece.length
        if (bytes > MAX_MEDIA_BYTES) throw tooLarge()
        if (bytes > room) throw overQuota()
        hash.update(piece)
        if (opened !== null) {
          await opened.writer.write(piece)
        } else {
          head.push(piece)
          if (bytes >= SNIFF_BYTES) opened = await open()
        }
      }
      if (bytes === 0) throw new Refusal('invalid_upload', 'the file is empty: send the file\'s bytes as the form\'s file part')
      opened ??= await open()
      await opened.writer.finish()
      writing = false
      return { fileId, sha256: hash.digest('hex'), bytes, contentType: opened.contentType }
    } catch (error) {
      if (opened !== null || writing) await discardUpload(fileId, writing && !(error instanceof Refusal))
      throw error
    }
  }

  function overQuota (): Refusal {
    return new Refusal('quota_exceeded', `an account may hold at most ${quotaText('mediaBytes', context.quotas)}, and this would pass it: delete some first`)
  }

  /**
   * Removes what a failed upload wrote. When a write failed, the driver may
   * still have one under way: its file is removed now and listed again for a
   * little later, for any chunk that lands meanwhile. Otherwise the file goes
   * with its listing, unless a record took it.
   */
  async function discardUpload (fileId: ObjectId, writesMayBeUnderWay: boolean): Promise<void> {
    try {
      if (!writesMayBeUnderWay) {
        await removeFiles(context, [fileId])
        return
      }
      await repositories.media.deleteFile(fileId)
      await repositories.media.removeFileFrom(fileId, new Date(clock().getTime() + UNDER_WAY_WRITES_MS))
    } catch {
      // still listed: the sweep removes it
    }
  }

  /**
   * The transaction that makes an upload visible: the file comes off the
   * list of files to remove, and is recorded with its bytes charged to the
   * quota; or, when the user has these bytes already, it goes and the record
   * there is answered (renewed: its grace starts again).
   */
  async function record (userID: string, stored: StoredFile): Promise<RecordedMedia> {
    const now = clock()
    for (let attempt = 1; ; attempt++) {
      try {
        return await context.userTransaction(userID, async (repositories) => {
          const recorded = await keepFile(context, repositories, userID, stored, now)
          if (recorded.created) await addToUsageWithinQuotas(context, repositories.users, userID, { mediaBytes: stored.bytes })
          return recorded
        })
      } catch (error) {
        // another instance recorded the same bytes of this user just now: the next attempt answers its record
        if (isDuplicateKey(error) && attempt === 1) continue
        throw error
      }
    }
  }

  /**
   * The sweep's look at some media of one user, in the user's transaction
   * (so that it runs after, or before, any edit of theirs in flight): what no
   * card shows and is past its grace goes; what a card shows is looked at
   * again a grace later; what is still within its grace, when that ends.
   */
  async function checkMediaOf (userID: string, mediaIDs: readonly string[], now: Date): Promise<ObjectId[]> {
    const graceMs = context.media.graceSeconds * 1000
    const check = async (repositories: Repositories): Promise<ObjectId[]> => {
      const due = await repositories.media.dueOf(userID, mediaIDs, now)
      const shown = await repositories.cards.referencedMedia(userID, due.map((record) => record._id))
      const removable = due.filter((record) => !shown.has(record._id) && record.uploadedAt.getTime() + graceMs <= now.getTime())
      await repositories.media.checkLater(due.filter((record) => shown.has(record._id)).map((record) => record._id), new Date(now.getTime() + graceMs))
      for (const young of due.filter((record) => !shown.has(record._id) && !removable.includes(record))) {
        await repositories.media.checkLater([young._id], new Date(young.uploadedAt.getTime() + graceMs))
      }
      return await removeMedia(repositories, userID, removable, now)
    }
    try {
      return await context.userTransaction(userID, check)
    } catch (error) {
      // the account is gone: whatever it left is removed without it
      if (!(error instanceof Refusal && error.code === 'invalid_token')) throw error
      return await context.transaction(async (repositories) => await repositories.media.removeRecords(await repositories.media.dueOf(userID, mediaIDs, now), now))
    }
  }

  return {
    /**
     * Writes a file into GridFS for a later transaction to keep (keepFile),
     * typed by its bytes and hashed as it comes; listed meanwhile among the
     * files to remove, so that a file no transaction keeps goes (discard, or
     * the sweep). 413 past 20 MiB, 415 for a kind not kept.
     */
    async stage (file: AsyncIterable<Buffer>): Promise<StoredFile> {
      return await store(file, Number.POSITIVE_INFINITY)
    },

    /** Removes staged files that no transaction kept; one that cannot be removed now is left to the sweep. */
    async discard (fileIds: readonly ObjectId[]): Promise<void> {
      for (const fileId of fileIds) await discardUpload(fileId, false)
    },

    /**
     * Stores an uploaded file for the user, typed by its bytes; `formEnd`
     * checks that nothing follows the file before it is recorded. Answers the
     * media as the wire shows it, and whether it is new (the same bytes
     * uploaded again give the media there, counted once).
     */
    async upload (account: UserDocument, file: AsyncIterable<Buffer>, formEnd: () => Promise<void>): Promise<{ created: boolean, answer: UploadedMedia }> {
      // exact in the transaction; here only to stop an upload that cannot fit before it is stored
      const room = context.quotas.mediaBytes - (account.usage?.mediaBytes ?? 0)
      if (room <= 0) throw overQuota()
      const stored = await store(file, room)
      let recorded: RecordedMedia
      try {
        await formEnd()
        recorded = await record(account._id, stored)
      } catch (error) {
        await discardUpload(stored.fileId, false)
        throw error
      }
      const { media, created } = recorded
      return {
        created,
        answer: { mediaID: media._id, url: context.mediaUrl(account._id, media._id) ?? '', contentType: media.contentType, bytes: String(media.bytes) }
      }
    },

    /**
     * The media a signed URL names: 403 when the URL is not as signed or has
     * expired, 404 when the media is not there or not of the URL's user.
     */
    async find (link: { mediaID: string, userID: unknown, expiry: unknown, signature: unknown }): Promise<{ media: MediaDocument, expiresAt: Date }> {
      const { userID, expiresAt } = context.media.links.check(link, clock())
      const media = await repositories.media.findOwned(userID, link.mediaID)
      if (media === null) throw new Refusal('media_not_found', 'there is no such media: it was removed, or never belonged to this URL\'s user')
      return { media, expiresAt }
    },

    /** The bytes of a stored file, all of them or one range. */
    read (media: MediaDocument, range: ByteRange | null): Readable {
      return repositories.media.openDownload(media.fileId, range === null ? { start: 0, end: media.bytes } : { start: range.start, end: range.end + 1 })
    },

    /**
     * One sweep: files no record holds whose time has come (interrupted
     * uploads, files of removed records), then media due a look. Safe to run
     * on several instances at once. What it removed.
     */
    async sweep (): Promise<{ files: number, media: number }> {
      let files = 0
      let media = 0
      for (let batch = 0; batch < SWEEP_MAX_BATCHES; batch++) {
        const due = await repositories.media.dueForRemoval(clock(), SWEEP_BATCH)
        files += await removeFiles(context, due)
        if (due.length < SWEEP_BATCH) break
      }
      for (let batch = 0; batch < SWEEP_MAX_BATCHES; batch++) {
        const now = clock()
        const due = await repositories.media.dueForCheck(now, SWEEP_BATCH)
        const byUser = new Map<string, string[]>()
        for (const record of due) byUser.set(record.userID, [...byUser.get(record.userID) ?? [], record._id])
        for (const [userID, mediaIDs] of byUser) {
          const removed = await checkMediaOf(userID, mediaIDs, now)
          media += removed.length
          files += await removeFiles(context, removed)
        }
        if (due.length < SWEEP_BATCH) break
      }
      return { files, media }
    }
  }
}

export type MediaService = ReturnType<typeof mediaService>
