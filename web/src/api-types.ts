// The shapes of the service's operations, as docs/api.md and src/schemas/ give them.
// Every value the service answers is a string, counts and numbers included.

export type Rating = 'again' | 'hard' | 'good' | 'easy'
export const RATINGS: readonly Rating[] = ['again', 'hard', 'good', 'easy']

export interface SessionAnswer { userID: string, jwtToken: string }

export interface Profile {
  userID: string
  email: string
  displayName: string
  timezone: string
  dayStartHour: string
  newCardsPerDay: string
  reviewsPerDay: string
  desiredRetention: string
  total_xp: string
  createdAt: string
}

export interface SettingsChange {
  displayName?: string
  timezone?: string
  dayStartHour?: number
  newCardsPerDay?: number
  reviewsPerDay?: number
  desiredRetention?: number
}

/** A card as the published tree shows it. */
export interface TreeCard { last_review: string, review_status: string }
/** A flashcard in the tree: exactly these three members, which is how it differs from a folder. */
export interface TreeFlashcard { cards: Record<string, TreeCard>, flashcardID: string, flashcardName: string }
/** A folder in the tree: its members keyed by name, folders and flashcards alike. */
export interface TreeFolder { [name: string]: TreeFolder | TreeFlashcard }

/** A flashcard in get-library's outline; `cards` is how many cards it holds. */
export interface OutlineFlashcard { flashcardID: string, flashcardName: string, description: string, cards: string }
/** A folder in get-library's outline, with its ids: what the library's edits take. */
export interface OutlineFolder { folderID: string, name: string, folders: OutlineFolder[], flashcards: OutlineFlashcard[] }

/** Where a card stands in its schedule: what every answer about one card tells. */
export interface CardState { cardID: string, review_status: string, last_review: string, due: string }

export interface CardDetails extends CardState { front: string, back: string }

export interface Flashcard {
  flashcardID: string
  flashcardName: string
  description: string
  folder: string[]
  cards: CardDetails[]
}

export interface CardText { front: string, back: string }

export interface PlacedFolder { folderID: string, path: string[] }

export type CardFormat = 'quizlet' | 'csv'

export interface ReviewAnswer extends CardState { xp_gained: string, total_xp: string }

export interface IntervalPreview { due: string, interval: string }
export type ReviewPreview = { cardID: string } & Record<Rating, IntervalPreview>

/** The card as it is again once its latest review is taken back, and the flashcard holding it. */
export interface UndoneReview extends CardState { flashcardID: string, total_xp: string, undone_reviewID: string }

export type GoalType = 'Card' | 'XP'
export type GoalStatus = 'in progress' | 'completed' | 'failed'

export interface Goal {
  data: { cards_revised_so_far: string, cards_to_revise: string } | { goal_xp: string, start_date: string, starting_xp: string }
  end_date: string
  fail_date: string
  status: GoalStatus
  title: string
  type: GoalType
}

export interface Stats {
  total_xp: string
  weekly_xp: string
  streak: string
  heatmap: Record<string, string>
  cards: { new: string, learning: string, review: string, relearning: string, total: string }
}

/** Each operation: what it takes besides the token, and what it answers. */
export interface Operations {
  register: { body: { email: string, password: string, displayName?: string, timezone?: string }, answer: SessionAnswer }
  login: { body: { email: string, password: string }, answer: SessionAnswer }
  'get-user': { body: object, answer: Profile }
  'update-settings': { body: SettingsChange, answer: Profile }
  'logout-everywhere': { body: object, answer: { loggedOut: 'true' } }

  'get-library': { body: object, answer: { folders: OutlineFolder[] } }
  'create-folder': { body: { path: string[] }, answer: PlacedFolder }
  'rename-folder': { body: { folderID: string, name: string }, answer: PlacedFolder }
  'move-folder': { body: { folderID: string, parentID?: string }, answer: PlacedFolder }
  'delete-folder': { body: { folderID: string }, answer: { folderID: string, folders: string, flashcards: string, cards: string } }
  'create-flashcard': { body: { folder: string[], flashcardName: string, description?: string, cards: CardText[] }, answer: { flashcardID: string, cardIDs: string[] } }
  'get-flashcard': { body: { flashcardID: string }, answer: Flashcard }
  'rename-flashcard': { body: { flashcardID: string, name: string }, answer: { flashcardID: string, flashcardName: string } }
  'move-flashcard-set': { body: { flashcardID: string, folderID: string }, answer: { flashcardID: string, folderID: string, folder: string[] } }
  'delete-flashcard': { body: { flashcardID: string }, answer: { flashcardID: string, cards: string } }
  'add-cards': { body: { flashcardID: string, cards: CardText[] }, answer: { cardIDs: string[] } }
  'edit-card': { body: { flashcardID: string, cardID: string, front?: string, back?: string }, answer: CardDetails }
  'delete-card': { body: { flashcardID: string, cardID: string }, answer: { flashcardID: string, cardID: string } }

  'import-cards': {
    body: { folder: string[], flashcardName: string, text: string, format?: CardFormat, termSeparator?: string, cardSeparator?: string, header?: boolean | 'auto' }
    answer: { flashcardID: string, cardIDs: string[], imported: string }
  }
  'export-flashcard': {
    body: { flashcardID: string, format?: CardFormat, termSeparator?: string, cardSeparator?: string }
    answer: { flashcardID: string, flashcardName: string, format: CardFormat, text: string }
  }

  'get-today-cards': { body: object, answer: TreeFolder }
  'preview-review': { body: { flashcardID: string, cardID: string }, answer: ReviewPreview }
  'review-card': { body: { flashcardID: string, cardID: string, rating: Rating, reviewID: string }, answer: ReviewAnswer }
  'undo-review': { body: object, answer: UndoneReview }

  'update-goal-status': { body: object, answer: Record<string, Goal> }
  'create-goal': { body: { type: GoalType, target: number, end_date: string }, answer: { goalID: string, goal: Goal } }
  'edit-goal': { body: { goalID: string, target?: number, end_date?: string }, answer: { goalID: string, goal: Goal } }
  'delete-goal': { body: { goalID: string }, answer: { goalID: string, deleted: 'true' } }
  'get-stats': { body: object, answer: Stats }
}

export type Operation = keyof Operations
