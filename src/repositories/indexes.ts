import type { Db, IndexDescription } from 'mongodb'

/**
 * Every index the service relies on, in one place. Each query names the index
 * it is meant to use next to its code; the benchmark's explain output checks it.
 */
export const INDEXES: Record<string, IndexDescription[]> = {
  users: [
    { key: { email: 1 }, name: 'email_unique', unique: true },
    // deleted accounts whose documents are still to remove, by when their holder's hold ends (services/account-deletion.ts);
    // only those are in it
    { key: { removalUntil: 1 }, name: 'removals', partialFilterExpression: { removalUntil: { $exists: true } } }
  ],
  cards: [
    { key: { userID: 1, flashcardID: 1 }, name: 'user_flashcard' },
    // the pages of cards with their content, each a range from the last page's card on (cards.flashcardInCreationOrder,
    // libraryInCreationOrder): a flashcard's cards, and all of a user's, in creation order
    { key: { userID: 1, flashcardID: 1, createdOrder: 1, _id: 1 }, name: 'user_flashcard_order' },
    { key: { userID: 1, createdOrder: 1, _id: 1 }, name: 'user_order' },
    // whether a card still shows a media file (the clean-up of media, services/media.ts); only cards
    // that show media are in it, so that the others cost it nothing
    { key: { userID: 1, media: 1 }, name: 'user_media', partialFilterExpression: { media: { $exists: true } } },
    // the other cards of a card's note, which answering it may bury (cardStates.siblingsOf): a cloze note's, and an Anki
    // note's by its guid; only cards of such notes are in them, so that the others cost them nothing
    { key: { userID: 1, noteID: 1 }, name: 'user_note', partialFilterExpression: { noteID: { $exists: true } } },
    { key: { userID: 1, ankiGuid: 1 }, name: 'user_anki_note', partialFilterExpression: { ankiGuid: { $exists: true } } }
  ],
  // each learner's state of each card, under the card's id (repositories/card-states.ts)
  cardStates: [
    // today's cards: due ones by due, then new ones by creation (see cardStates.todayQueue)
    { key: { userID: 1, isNew: 1, due: 1, createdOrder: 1 }, name: 'user_queue' },
    // a flashcard's cards (its queues when read whole, the tree, a move, a removal), and the browser's in creation order
    { key: { userID: 1, flashcardID: 1, createdOrder: 1, _id: 1 }, name: 'user_flashcard_order' },
    // the browser's whole library in creation order, and the removal of a deleted account a window at a time
    { key: { userID: 1, createdOrder: 1, _id: 1 }, name: 'user_order' },
    // the card browser's flagged cards (cardStates.browsedOfStanding): only those are in it, so that the others cost it
    // nothing and a browse of them reads them alone
    { key: { userID: 1, flag: 1 }, name: 'user_flag', partialFilterExpression: { flag: { $exists: true } } }
  ],
  reviews: [
    // a retried review (same reviewID) can only ever be stored once
    { key: { userID: 1, reviewID: 1 }, name: 'user_reviewID_unique', unique: true },
    // undo takes back the latest review; reviews of one instant are ordered by seq
    { key: { userID: 1, reviewedAt: 1, seq: 1 }, name: 'user_reviewedAt_seq' }
  ],
  // one document per card an Anki import brought reviews for: fitting and export read a user's kept imports' histories
  reviewHistories: [
    { key: { userID: 1, importID: 1 }, name: 'user_import' }
  ],
  // one document per user and day: goals, streaks and the heatmap read a range of them
  activity: [
    { key: { userID: 1, day: 1 }, name: 'user_day' }
  ],
  goals: [
    { key: { userID: 1, createdAt: 1 }, name: 'user_created' }
  ],
  // a user keeps one record per content; serving reads a record by _id
  media: [
    { key: { userID: 1, sha256: 1 }, name: 'user_sha256_unique', unique: true },
    // the sweep's next look at a file
    { key: { checkAt: 1 }, name: 'check_at' }
  ],
  // GridFS files no record holds (an upload under way, a file whose record went), by when to remove them
  media_unrecorded: [
    { key: { after: 1 }, name: 'after' }
  ],
  // GridFS's own indexes, under the names its driver gives them, made here before any file arrives
  'media.files': [
    { key: { filename: 1, uploadDate: 1 }, name: 'filename_1_uploadDate_1' }
  ],
  'media.chunks': [
    { key: { files_id: 1, n: 1 }, name: 'files_id_1_n_1', unique: true }
  ],
  // imports of Anki packages: a user's by creation, and those whose instance stopped renewing them
  imports: [
    { key: { userID: 1, createdAt: 1 }, name: 'user_created' },
    { key: { state: 1, until: 1 }, name: 'state_until' }
  ],
  importUpdates: [
    { key: { importID: 1 }, name: 'import' }
  ],
  // the note types Anki imports brought: an account's, by name (get-note-types), and those an import staged (by its owner)
  noteTypes: [
    { key: { userID: 1, name: 1 }, name: 'user_name' },
    // renderings of cards after an edit whose instance stopped (services/note-type-renders.ts); only those under way are in it
    { key: { 'rendering.until': 1 }, name: 'rendering_until', partialFilterExpression: { rendering: { $exists: true } } }
  ],
  // the notes Anki imports brought: an account's by guid, and those an import staged (by its owner, the prefix)
  notes: [
    { key: { userID: 1, guid: 1 }, name: 'user_guid' },
    // a note type's notes (edit-note-type, delete-note-type)
    { key: { userID: 1, noteTypeID: 1, _id: 1 }, name: 'user_noteType' },
    // the new notes an import wrote, removed with it when it is not kept; only those are in it
    { key: { importID: 1 }, name: 'import', partialFilterExpression: { importID: { $exists: true } } }
  ],
  // the cards' searchable text, many cards to a page: a search reads the user's pages (the userID prefix);
  // adding cards to a flashcard finds the page that takes more without reading the full ones
  searchPages: [
    { key: { userID: 1, flashcardID: 1, open: 1 }, name: 'user_flashcard_open' }
  ],
  // the links mailed to reset a password or confirm a new email, under their token's digest: an account's own
  // (ended when its email changes, removed with it), and removed a day after they expired
  accountLinks: [
    { key: { userID: 1 }, name: 'user_links' },
    { key: { expiresAt: 1 }, name: 'expires_ttl', expireAfterSeconds: 86_400 }
  ],
  // login and register attempt counters: removed an hour after their window closes
  attempts: [
    { key: { resetsAt: 1 }, name: 'resets_ttl', expireAfterSeconds: 3600 }
  ],
  // the lease of a fit under way (optimize-schedule): one left by an instance that died goes an hour after it ran out
  fitLeases: [
    { key: { until: 1 }, name: 'until_ttl', expireAfterSeconds: 3600 }
  ],
  // the lease of a deletion of a folder or flashcard past one transaction (services/library.ts): one left by an instance
  // that died, or ended with its answer, goes an hour after its until
  deletionLeases: [
    { key: { until: 1 }, name: 'until_ttl', expireAfterSeconds: 3600 }
  ]
}

/**
 * Creates the indexes that are missing, before any data arrives on a new
 * database. Building one over a large collection is slow (on the embedded
 * database pathologically so), so an index added later needs a migration run
 * at full size first.
 */
export async function ensureIndexes (db: Db): Promise<void> {
  for (const [name, indexes] of Object.entries(INDEXES)) {
    await db.collection(name).createIndexes(indexes)
  }
}
