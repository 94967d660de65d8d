import { finished } from 'node:stream/promises'
import { GridFSBucket, ObjectId, type ClientSession, type Db, type GridFSBucketReadStream, type GridFSBucketWriteStream } from 'mongodb'

/** The GridFS bucket that holds the files: collections `media.files` and `media.chunks`. */
export const MEDIA_BUCKET = 'media'

/**
 * One file of one user, as its cards refer to it. Only a record makes a file
 * visible: a GridFS file without one is never served, and is removed.
 */
export interface MediaDocument {
  /** the mediaID cards name */
  _id: string
  userID: string
  /** hex SHA-256 of the bytes: a user keeps one record per content (unique with userID) */
  sha256: string
  /** the GridFS file holding the bytes */
  fileId: ObjectId
  bytes: number
  /** the sniffed type it is served with */
  contentType: string
  createdAt: Date
  /** the last time these bytes were uploaded (a second upload of the same bytes renews it): the grace counts from here */
  uploadedAt: Date
  /** when the sweep next looks at whether a card still refers to it */
  checkAt: Date
}

/**
 * A GridFS file that no record holds, to be removed from `after` on: an
 * upload under way (written before its first chunk, taken away in the
 * transaction that records the file) or a file whose record was removed.
 * Holds nothing of any user: only the file's id and a time.
 */
export interface UnrecordedFileDocument {
  _id: ObjectId
  after: Date
}

/** Writes one file's bytes into GridFS, one piece after another; nothing is written after `write` or `finish` failed. */
export interface FileWriter {
  write: (piece: Buffer) => Promise<void>
  finish: () => Promise<void>
}

export function mediaRepository (db: Db, session?: ClientSession) {
  // each made when first used: every transaction gets this repository, and few of them touch media
  let collections: ReturnType<typeof collectionsOf> | undefined
  const collectionsOf = () => ({
    media: db.collection<MediaDocument>('media'),
    unrecorded: db.collection<UnrecordedFileDocument>('media_unrecorded'),
    files: db.collection<{ _id: ObjectId }>(`${MEDIA_BUCKET}.files`),
    chunks: db.collection<{ files_id: ObjectId }>(`${MEDIA_BUCKET}.chunks`)
  })
  const stored = (): ReturnType<typeof collectionsOf> => (collections ??= collectionsOf())
  const inSession = { session }
  let bucket: GridFSBucket | undefined
  const bucketOf = (): GridFSBucket => (bucket ??= new GridFSBucket(db, { bucketName: MEDIA_BUCKET }))

  return {
    /** A user's media by id; null when there is none of that user. Index _id. */
    findOwned (userID: string, mediaID: string): Promise<MediaDocument | null> {
      return stored().media.findOne({ _id: mediaID, userID }, inSession)
    },

    /** The user's media of these bytes, if any. Index user_sha256_unique. */
    findByHash (userID: string, sha256: string): Promise<MediaDocument | null> {
      return stored().media.findOne({ userID, sha256 }, inSession)
    },

    /** Of these media ids, those that are the user's. Index _id. */
    ownedAmong (userID: string, mediaIDs: readonly string[]): Promise<MediaDocument[]> {
      if (mediaIDs.length === 0) return Promise.resolve([])
      return stored().media.find({ _id: { $in: [...mediaIDs] }, userID }, inSession).toArray()
    },

    /** The user's media of any of these contents. Index user_sha256_unique. */
    findByHashes (userID: string, sha256s: readonly string[]): Promise<MediaDocument[]> {
      if (sha256s.length === 0) return Promise.resolve([])
      return stored().media.find({ userID, sha256: { $in: [...sha256s] } }, inSession).toArray()
    },

    /** Records a file; a second record of the same user and bytes is refused by the unique index (a duplicate-key error). */
    async insert (record: MediaDocument): Promise<void> {
      await stored().media.insertOne(record, inSession)
    },

    /** The same bytes uploaded again: the grace starts afresh. */
    async uploadedAgain (mediaID: string, now: Date, checkAt: Date): Promise<void> {
      await stored().media.updateOne({ _id: mediaID }, { $set: { uploadedAt: now }, $max: { checkAt } }, inSession)
    },

    /** Media due a look from the sweep, earliest first. Index check_at. */
    dueForCheck (now: Date, limit: number): Promise<Array<Pick<MediaDocument, '_id' | 'userID'>>> {
      return stored().media.find({ checkAt: { $lte: now } }, { projection: { _id: 1, userID: 1 }, session }).sort({ checkAt: 1 }).limit(limit).toArray()
    },

    /** Of these media of the user, those still due a look (read again inside the sweep's transaction). */
    dueOf (userID: string, mediaIDs: readonly string[], now: Date): Promise<MediaDocument[]> {
      return stored().media.find({ _id: { $in: [...mediaIDs] }, userID, checkAt: { $lte: now } }, inSession).toArray()
    },

    /** Of these media of the user, those uploaded last before `uploadedBefore`. */
    uploadedBefore (userID: string, mediaIDs: readonly string[], uploadedBefore: Date): Promise<MediaDocument[]> {
      if (mediaIDs.length === 0) return Promise.resolve([])
      return stored().media.find({ _id: { $in: [...mediaIDs] }, userID, uploadedAt: { $lt: uploadedBefore } }, inSession).toArray()
    },

    /** When the sweep is to look at these media next. */
    async checkLater (mediaIDs: readonly string[], checkAt: Date): Promise<void> {
      if (mediaIDs.length === 0) return
      await stored().media.updateMany({ _id: { $in: [...mediaIDs] } }, { $set: { checkAt } }, inSession)
    },

    /** Every record of the user. Index user_sha256_unique, by its userID prefix. */
    allOf (userID: string): Promise<Array<Pick<MediaDocument, '_id' | 'fileId' | 'bytes'>>> {
      return stored().media.find({ userID }, { projection: { _id: 1, fileId: 1, bytes: 1 }, session }).toArray()
    },

    /**
     * Removes these records, and marks their files for removal at once: the
     * files themselves go after the transaction (removeFile), or by the sweep
     * if the service stops first. Returns the files to remove.
     */
    async removeRecords (records: ReadonlyArray<Pick<MediaDocument, '_id' | 'fileId'>>, now: Date): Promise<ObjectId[]> {
      if (records.length === 0) return []
      await stored().media.deleteMany({ _id: { $in: records.map((record) => record._id) } }, inSession)
      const fileIds = records.map((record) => record.fileId)
      await stored().unrecorded.insertMany(fileIds.map((fileId) => ({ _id: fileId, after: now })), inSession)
      return fileIds
    },

    /** Marks a file about to be written, for removal from `after` on unless a record takes it first. */
    async expectUpload (fileId: ObjectId, after: Date): Promise<void> {
      await stored().unrecorded.insertOne({ _id: fileId, after }, inSession)
    },

    /** Moves a file's removal: a failed upload's file goes again once any write still under way is surely over. */
    async removeFileFrom (fileId: ObjectId, after: Date): Promise<void> {
      await stored().unrecorded.updateOne({ _id: fileId }, { $set: { after } }, inSession)
    },

    /**
     * Takes a file off the list of files to remove, for a record to hold it:
     * false when it is no longer there (the sweep removed it).
     */
    async claim (fileId: ObjectId): Promise<boolean> {
      return (await stored().unrecorded.deleteOne({ _id: fileId }, inSession)).deletedCount === 1
    },

    /** Files due for removal. Index after. */
    async dueForRemoval (now: Date, limit: number): Promise<ObjectId[]> {
      const due = await stored().unrecorded.find({ after: { $lte: now } }, { projection: { _id: 1 }, session }).sort({ after: 1 }).limit(limit).toArray()
      return due.map((file) => file._id)
    },

    /** Deletes a file's chunks and its files document (index files_id_1_n_1 for the chunks). */
    async deleteFile (fileId: ObjectId): Promise<void> {
      await stored().chunks.deleteMany({ files_id: fileId }, inSession)
      await stored().files.deleteOne({ _id: fileId }, inSession)
    },

    /**
     * A writer of a new GridFS file under `fileId`. GridFS writes outside any
     * transaction: its chunks first, its files document once all are in.
     */
    openUpload (fileId: ObjectId, filename: string): FileWriter {
      const stream: GridFSBucketWriteStream = bucketOf().openUploadStreamWithId(fileId, filename)
      return {
        write: async (piece) => {
          await new Promise<void>((resolve, reject) => {
            stream.write(piece, (error) => { if (error === null || error === undefined) resolve(); else reject(error) })
          })
        },
        finish: async () => {
          // 'finish' comes once the files document is written after the last chunk
          stream.end()
          await finished(stream)
        }
      }
    },

    /** The bytes of a file, from `start` up to (not including) `end`. */
    openDownload (fileId: ObjectId, range: { start: number, end: number }): GridFSBucketReadStream {
      return bucketOf().openDownloadStream(fileId, range)
    }
  }
}

export type MediaRepository = ReturnType<typeof mediaRepository>

/** The id of a GridFS file about to be written. */
export function newFileId (): ObjectId {
  return new ObjectId()
}
