// The shapes of the service's operations, taken from the route schemas of src/schemas/:
// a change there fails `tsc -p web` wherever the page relies on what changed.
//
// Type-only imports: `import type` is erased by esbuild (verbatimModuleSyntax makes any
// other import of src/ keep its value, and so its code, in the bundle), so the page
// carries nothing of the server. Every value the service answers is a string, counts
// and numbers included.
import type { Static, TSchema } from '@sinclair/typebox'
import type { RefusalCode } from '../../src/domain/refusals.js'
import type * as accounts from '../../src/schemas/accounts.js'
import type * as anki from '../../src/schemas/anki.js'
import type * as goals from '../../src/schemas/goals.js'
import type * as library from '../../src/schemas/library.js'
import type * as manage from '../../src/schemas/library-manage.js'
import type * as media from '../../src/schemas/media.js'
import type * as progress from '../../src/schemas/progress.js'
import type * as schedule from '../../src/schemas/schedule.js'
import type * as study from '../../src/schemas/study.js'
import type * as studySession from '../../src/schemas/study-session.js'
import type * as cardStates from '../../src/schemas/card-states.js'
import type * as search from '../../src/schemas/search.js'
import type * as browse from '../../src/schemas/browse.js'
import type * as transfer from '../../src/schemas/transfer.js'

/** What the page sends: the schema's body less jwtToken, which callApi adds (api.ts). */
type Body<Schema extends TSchema> = Omit<Static<Schema>, 'jwtToken'>

/** An operation: what the page sends, and what the service answers when it succeeds. */
interface Exchange<BodySchema extends TSchema, Answer> { body: Body<BodySchema>, answer: Answer }
/** An operation by the schemas of its route: its body, and its answer of 200 or 201. */
type Op<BodySchema extends TSchema, AnswerSchema extends TSchema> = Exchange<BodySchema, Static<AnswerSchema>>

/** Compiles only when T is true: checks made by the compiler, nothing at run time. */
type Check<T extends true> = T

/** Why the service refused a request: the stable codes of docs/api.md, the one thing the page branches on. */
export type { RefusalCode }

/**
 * The page's own codes, for a failure that brought no refusal of the service's:
 * network_failure, no answer at all (offline, the connection cut); unreadable_answer,
 * an answer that is not the service's JSON (a proxy's error page, a cut-off body);
 * not_logged_in, no token stored in this browser to send.
 */
export type PageErrorCode = 'network_failure' | 'unreadable_answer' | 'not_logged_in'
/** None of the page's codes is one of the service's, so a code always says who gave it. */
export type PageCodesAreItsOwn = Check<[Extract<PageErrorCode, RefusalCode>] extends [never] ? true : false>
export type ErrorCode = RefusalCode | PageErrorCode

export type Rating = Static<typeof study.ReviewCardBody>['rating']

/** The four answers, in the order of their buttons and of the keys 1-4. */
export const RATINGS = ['again', 'hard', 'good', 'easy'] as const satisfies readonly Rating[]
/** Every rating the service takes has its button: a rating added to the schema fails here. */
export type EveryRatingHasAButton = Check<[Rating] extends [typeof RATINGS[number]] ? true : false>

export type SessionAnswer = Static<typeof accounts.Session>
export type Profile = Static<typeof accounts.UserProfile>
export type SettingsChange = Body<typeof accounts.UpdateSettingsBody>

export type { TreeCard, TreeFlashcard, TreeFolder } from '../../src/schemas/study.js'

/** A folder in get-library's outline, with its ids: what the library's edits take. */
export type OutlineFolder = Static<typeof manage.FolderOutline>
/** A flashcard in get-library's outline; `cards` is how many cards it holds. */
export type OutlineFlashcard = Static<typeof manage.FlashcardOutline>

export type CardDetails = Static<typeof manage.CardDetails>
export type Flashcard = Static<typeof manage.Flashcard>
export type CardText = Static<typeof library.CardText>
export type PlacedFolder = Static<typeof manage.PlacedFolder>
export type CardFormat = Static<typeof transfer.ExportedFlashcard>['format']
/** How a card's text is written: text (shown as written) or html (reduced to the service's allowlist). */
export type TextFormat = Static<typeof library.TextFormat>
/** The answer of edit-card: the card, or for a card of a cloze note, the note with what the edit kept, added and removed. */
export type EditedCard = Static<typeof manage.EditedCard>

/** What upload-media answers: the mediaID a card refers to as media:<mediaID>, and a signed URL to show it now. */
export type UploadedMedia = Static<typeof media.UploadedMedia>
/** The fields of upload-media's multipart form, sent in this order: jwtToken, then file. */
export type UploadField = keyof Static<typeof media.UploadMediaForm>

/** What import-anki answers once the package has arrived: the import to follow with get-import-status. */
export type ImportStarted = Static<typeof anki.ImportStarted>
/** The fields of import-anki's multipart form; jwtToken first and the file last (api.ts sends them so). */
export type AnkiImportField = keyof Static<typeof anki.ImportAnkiForm>
/** What export-anki exports: {folderID} (that folder and everything below it), {flashcardID}, or {} for the whole account. */
export type AnkiExportScope = Body<typeof anki.ExportAnkiBody>
/** Where an import of an Anki package stands: queued, running, done or failed, and what it counted. */
export type ImportStatus = Static<typeof anki.ImportStatus>

/** A row of the card browser (browse-cards), and what it asks for. */
export type BrowsedCard = Static<typeof browse.BrowsedCard>
export type BrowseRequest = Body<typeof browse.BrowseCardsBody>
export type StandingAction = Static<typeof cardStates.SetCardStandingBody>['action']

export type ReviewAnswer = Static<typeof study.ReviewAnswer>
/** A card of get-study-queue: where it is, which count it is in, and the card as get-flashcard shows it. */
export type StudyQueueCard = Static<typeof studySession.StudyQueueCard>
export type ReviewPreview = Static<typeof study.ReviewPreview>
/** The card as it is again once its latest review is taken back, and the flashcard holding it. */
export type UndoneReview = Static<typeof progress.UndoneReview>

export type Goal = Static<typeof goals.GoalObject>
export type GoalType = Goal['type']
export type GoalStatus = Goal['status']

export type Stats = Static<typeof progress.Stats>

/** The FSRS parameters the user's reviews are scheduled with, and their last fit. */
export type ScheduleStatus = Static<typeof schedule.ScheduleStatus>
/** A fit of the user's parameters: its figures against the defaults', and what each desired retention costs. */
export type ScheduleFit = Static<typeof schedule.ScheduleFit>

/** Each operation the page calls: what it takes besides the token, and what it answers. */
export interface Operations {
  register: Op<typeof accounts.RegisterBody, typeof accounts.Session>
  login: Op<typeof accounts.LoginBody, typeof accounts.Session>
  'get-user': Op<typeof accounts.TokenBody, typeof accounts.UserProfile>
  'update-settings': Op<typeof accounts.UpdateSettingsBody, typeof accounts.UserProfile>
  'logout-everywhere': Op<typeof accounts.TokenBody, typeof accounts.LoggedOut>
  'request-password-reset': Op<typeof accounts.RequestPasswordResetBody, typeof accounts.ResetRequested>
  'reset-password': Op<typeof accounts.ResetPasswordBody, typeof accounts.Session>
  'change-email': Op<typeof accounts.ChangeEmailBody, typeof accounts.EmailChangeRequested>
  'confirm-email-change': Op<typeof accounts.ConfirmEmailChangeBody, typeof accounts.EmailChanged>

  'get-library': Op<typeof manage.LibraryBody, typeof manage.LibraryOutline>
  'create-folder': Op<typeof library.CreateFolderBody, typeof library.CreatedFolder>
  'rename-folder': Op<typeof manage.RenameFolderBody, typeof manage.PlacedFolder>
  'move-folder': Op<typeof manage.MoveFolderBody, typeof manage.PlacedFolder>
  'delete-folder': Op<typeof manage.FolderBody, typeof manage.DeletedFolder>
  'create-flashcard': Op<typeof library.CreateFlashcardBody, typeof library.CreatedFlashcard>
  'get-flashcard': Op<typeof manage.GetFlashcardBody, typeof manage.Flashcard>
  'rename-flashcard': Op<typeof manage.RenameFlashcardBody, typeof manage.RenamedFlashcard>
  'move-flashcard-set': Op<typeof manage.MoveFlashcardBody, typeof manage.MovedFlashcard>
  'delete-flashcard': Op<typeof manage.FlashcardBody, typeof manage.DeletedFlashcard>
  'add-cards': Op<typeof manage.AddCardsBody, typeof manage.AddedCards>
  'edit-card': Op<typeof manage.EditCardBody, typeof manage.EditedCard>
  'delete-card': Op<typeof manage.CardBody, typeof manage.DeletedCard>
  'delete-cards': Op<typeof manage.DeleteCardsBody, typeof manage.DeletedCards>
  'move-cards': Op<typeof manage.MoveCardsBody, typeof manage.MovedCards>
  'get-note-types': Op<typeof manage.NoteTypesBody, typeof manage.NoteTypes>
  'get-note': Op<typeof manage.NoteBody, typeof manage.Note>
  'edit-note': Op<typeof manage.EditNoteBody, typeof manage.NoteEdited>
  'add-note': Op<typeof manage.AddNoteBody, typeof manage.AddedNote>
  'create-note-type': Op<typeof manage.CreateNoteTypeBody, typeof manage.NoteType>
  'edit-note-type': Op<typeof manage.EditNoteTypeBody, typeof manage.NoteTypeEdited>
  'delete-note-type': Op<typeof manage.DeleteNoteTypeBody, typeof manage.NoteTypeDeleted>

  'import-cards': Op<typeof transfer.ImportCardsBody, typeof transfer.ImportedCards>
  'export-flashcard': Op<typeof transfer.ExportFlashcardBody, typeof transfer.ExportedFlashcard>
  'get-import-status': Op<typeof anki.ImportStatusBody, typeof anki.ImportStatus>

  // the schema of the tree can say only "an object" (its keys are names): TreeFolder says the rest
  'get-today-cards': Exchange<typeof study.TodayCardsBody, study.TreeFolder>
  'preview-review': Op<typeof study.PreviewReviewBody, typeof study.ReviewPreview>
  'review-card': Op<typeof study.ReviewCardBody, typeof study.ReviewAnswer>
  'undo-review': Op<typeof progress.UndoReviewBody, typeof progress.UndoneReview>
  'search-cards': Op<typeof search.SearchCardsBody, typeof search.FoundCards>
  'get-study-queue': Op<typeof studySession.StudyQueueBody, typeof studySession.StudyQueue>
  'suspend-card': Op<typeof cardStates.CardStandingBody, typeof manage.CardDetails>
  'unsuspend-card': Op<typeof cardStates.CardStandingBody, typeof manage.CardDetails>
  'bury-card': Op<typeof cardStates.CardStandingBody, typeof manage.CardDetails>
  'unbury-card': Op<typeof cardStates.CardStandingBody, typeof manage.CardDetails>
  'flag-card': Op<typeof cardStates.FlagCardBody, typeof manage.CardDetails>
  'set-card-standing': Op<typeof cardStates.SetCardStandingBody, typeof cardStates.ChangedStanding>
  'browse-cards': Op<typeof browse.BrowseCardsBody, typeof browse.BrowsedCards>

  'update-goal-status': Op<typeof goals.UpdateGoalStatusBody, typeof goals.GoalMap>
  'create-goal': Op<typeof goals.CreateGoalBody, typeof goals.CreatedGoal>
  'edit-goal': Op<typeof goals.EditGoalBody, typeof goals.CreatedGoal>
  'delete-goal': Op<typeof goals.DeleteGoalBody, typeof goals.DeletedGoal>
  'get-stats': Op<typeof progress.StatsBody, typeof progress.Stats>

  'get-schedule': Op<typeof schedule.ScheduleBody, typeof schedule.ScheduleStatus>
  'optimize-schedule': Op<typeof schedule.OptimizeScheduleBody, typeof schedule.ScheduleFit>
  'reset-schedule': Op<typeof schedule.ResetScheduleBody, typeof schedule.ScheduleReset>
}

export type Operation = keyof Operations
