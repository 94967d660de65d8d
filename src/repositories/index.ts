import type { ClientSession, Db } from 'mongodb'
import { nestingGuarded } from '../db/nesting-guard.js'
import { usersRepository, type UsersRepository } from './users.js'
import { treesRepository, type TreesRepository } from './trees.js'
import { cardsRepository, type CardsRepository } from './cards.js'
import { cardStatesRepository, type CardStatesRepository } from './card-states.js'
import { reviewsRepository, type ReviewsRepository } from './reviews.js'
import { reviewHistoriesRepository, type ReviewHistoriesRepository } from './review-histories.js'
import { goalsRepository, type GoalsRepository } from './goals.js'
import { userDataRepository, type UserDataRepository } from './user-data.js'
import { activityRepository, type ActivityRepository } from './activity.js'
import { attemptsRepository, type AttemptsRepository } from './attempts.js'
import { mediaRepository, type MediaRepository } from './media.js'
import { fitLeasesRepository, type FitLeasesRepository } from './fit-leases.js'
import { deletionLeasesRepository, type DeletionLeasesRepository } from './deletion-leases.js'
import { importsRepository, type ImportsRepository } from './imports.js'
import { searchPagesRepository, type SearchPagesRepository } from './search-pages.js'
import { accountLinksRepository, type AccountLinksRepository } from './account-links.js'
import { treeCache, type TreeCache } from './tree-cache.js'
import { noteTypesRepository, type NoteTypesRepository } from './note-types.js'
import { notesRepository, type NotesRepository } from './notes.js'

/** Every repository: the only code that talks to the database. */
export interface Repositories {
  users: UsersRepository
  /** the links mailed to reset a password or confirm a new email */
  accountLinks: AccountLinksRepository
  trees: TreesRepository
  /** the cards: their content, note, flashcard and place in creation order */
  cards: CardsRepository
  /** each learner's state of each card: schedule, standing and the queue's index (kept in the card for now) */
  cardStates: CardStatesRepository
  reviews: ReviewsRepository
  /** the review histories Anki imports brought, one document a card */
  reviewHistories: ReviewHistoriesRepository
  goals: GoalsRepository
  activity: ActivityRepository
  userData: UserDataRepository
  /** media records, their GridFS files, and the files no record holds */
  media: MediaRepository
  /** the cards' searchable text (kept by cards' own writes; read by search) */
  searchPages: SearchPagesRepository
  /** counters shared by every instance; never part of a transaction */
  attempts: AttemptsRepository
  /** who is fitting a user's parameters (optimize-schedule), across instances; never part of a transaction */
  fitLeases: FitLeasesRepository
  /** who is deleting a folder or flashcard past one transaction of cards, across instances; ended in the deletion's last transaction */
  deletionLeases: DeletionLeasesRepository
  /** imports of Anki packages, and the content changes they stage */
  imports: ImportsRepository
  /** the note types Anki imports brought: fields, card templates and CSS */
  noteTypes: NoteTypesRepository
  /** the notes Anki imports brought: fields, tags and Anki's ids, which their cards are made from */
  notes: NotesRepository
}

/** What the repositories of one instance keep between requests. */
export interface RepositoryCaches {
  trees: TreeCache
}

export function repositoryCaches (): RepositoryCaches {
  return { trees: treeCache() }
}

/**
 * Each repository, its calls made in `session` when one is given; `caches` are the instance's (see
 * tree-cache.ts). Every write the repositories make passes the nesting guard (db/nesting-guard.ts).
 */
export function repositoriesOf (unguarded: Db, session?: ClientSession, caches: RepositoryCaches = repositoryCaches()): Repositories {
  const db = nestingGuarded(unguarded)
  return {
    users: usersRepository(db, session),
    accountLinks: accountLinksRepository(db, session),
    trees: treesRepository(db, session, caches.trees),
    cards: cardsRepository(db, session),
    cardStates: cardStatesRepository(db, session),
    reviews: reviewsRepository(db, session),
    reviewHistories: reviewHistoriesRepository(db, session),
    goals: goalsRepository(db, session),
    activity: activityRepository(db, session),
    userData: userDataRepository(db, session),
    media: mediaRepository(db, session),
    searchPages: searchPagesRepository(db, session),
    attempts: attemptsRepository(db),
    fitLeases: fitLeasesRepository(db),
    deletionLeases: deletionLeasesRepository(db, session),
    imports: importsRepository(db, session),
    noteTypes: noteTypesRepository(db, session),
    notes: notesRepository(db, session)
  }
}
