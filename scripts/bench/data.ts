// The benchmark's data: about a million cards. A measured user of 10,000 cards
// among 99 others of 8,500, a user of 100 cards, and the queue shapes of
// today's cards: a user whose 100,000 cards are all new (a deck just
// imported), one whose 50,000 cards are all overdue (back from a month away),
// and for each a user of 100 cards with as many cards in today's answer. Accounts are registered through the service, so
// passwords and settings are what real use makes; libraries, cards, review
// logs and goals are written straight into the collections in the documents
// the service itself writes (see the types imported below), because a million
// cards through the API would take hours. Insertion goes round the users one
// flashcard at a time, so that a user's cards lie scattered through the
// collection as they do once many people use the service.
import type { FastifyInstance } from 'fastify'
import type { Collection, Db, Document, OptionalUnlessRequiredId } from 'mongodb'
import { addDays, dayOf, displayDayOf, startOfDay, userDay, type LocalDay, type UserCalendar } from '../../src/domain/calendar.js'
import type { GoalStatus, GoalType } from '../../src/domain/goals.js'
import { newId } from '../../src/domain/ids.js'
import { NO_CARD } from '../../src/domain/queues.js'
import { TOP_LEVEL, treeFromNodes, type ParentLinkedNode } from '../../src/domain/library-tree.js'
import { CardState, newSchedule, reviewStatus, scheduleReview, XP_PER_REVIEW, type CardSchedule, type Rating } from '../../src/domain/scheduling.js'
import type { CardDocument } from '../../src/repositories/cards.js'
import { splitCard, type CardContentDocument, type CardStateDocument } from '../../src/repositories/card-states.js'
import type { GoalDocument } from '../../src/repositories/goals.js'
import type { TreeDocument } from '../../src/repositories/trees.js'
import type { ReviewDocument } from '../../src/repositories/reviews.js'
import { activityId, type DayActivityDocument } from '../../src/repositories/activity.js'
import type { StudyDay, UserDocument } from '../../src/repositories/users.js'
import { newCards } from '../../src/services/library.js'

/** Bump whenever what is generated changes: a kept data directory of another version is built again. */
export const DATA_VERSION = 5
/**
 * Cards not due yet fall due from this many days after seeding on, and goals
 * in progress end later still: until then every run sees the same cards due
 * today and the same goals. Older data is built again.
 */
export const DATA_DAYS_VALID = 30

/** Where the seeding's facts are kept, in the benchmark's own database next to the service's collections. */
export const MARKER_COLLECTION = 'benchmark'
export const PASSWORD = 'bench-password-not-a-secret'

const MINUTE = 60_000
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR
const BATCH = 1000

interface GoalPlan { type: GoalType, target: number, startBack: number, endAhead: number, status: GoalStatus }

export interface UserProfile {
  label: string
  email: string
  timezone: string
  cards: number
  /** learning, relearning and review cards due when the data is made: they stay due */
  due: number
  /** never reviewed: the cards of the newest flashcards */
  newCards: number
  /** folders per level: top-level folders, children of each, grandchildren of each */
  folderShape: readonly number[]
  /** each holds cards / flashcards cards, in the deepest folders */
  flashcards: number
  /** the review log: this many days up to yesterday, this many reviews a day */
  historyDays: number
  historyReviewsPerDay: number
  goals: readonly GoalPlan[]
  /** changed through update-settings after registering */
  settings?: { reviewsPerDay?: number, newCardsPerDay?: number }
  /**
   * flashcards created one after another this many milliseconds apart, the
   * last one a day before the data is made, as one import of many
   * create-flashcard requests would; otherwise spread over the last year
   */
  createdEveryMs?: number
}

// targets out of reach and end days past DATA_DAYS_VALID: these goals stay in progress, so every call recomputes them
const GOALS_IN_PROGRESS: readonly GoalPlan[] = [
  { type: 'Card', target: 50_000, startBack: 20, endAhead: 60, status: 'in progress' },
  { type: 'XP', target: 500_000, startBack: 10, endAhead: 90, status: 'in progress' }
]

/** The measured user: 500 cards due, 1,500 new, the rest due over the coming months. */
export const BIG_USER: UserProfile = {
  label: 'big',
  email: 'bench-big@example.com',
  timezone: 'Europe/Berlin',
  cards: 10_000,
  due: 500,
  newCards: 1500,
  folderShape: [4, 3, 2],
  flashcards: 100,
  historyDays: 60,
  historyReviewsPerDay: 40,
  goals: [
    ...GOALS_IN_PROGRESS,
    { type: 'Card', target: 5000, startBack: 5, endAhead: 45, status: 'in progress' },
    { type: 'XP', target: 100_000, startBack: 3, endAhead: 120, status: 'in progress' },
    { type: 'Card', target: 100, startBack: 50, endAhead: -40, status: 'completed' },
    { type: 'XP', target: 1_000_000, startBack: 45, endAhead: -35, status: 'failed' }
  ],
  // all 500 due cards in one answer (the default shows 200 a day)
  settings: { reviewsPerDay: 9999 }
}

export const SMALL_USER: UserProfile = {
  label: 'small',
  email: 'bench-small@example.com',
  timezone: 'UTC',
  cards: 100,
  due: 10,
  newCards: 20,
  folderShape: [2, 2],
  flashcards: 5,
  historyDays: 20,
  historyReviewsPerDay: 8,
  goals: [
    { type: 'Card', target: 500, startBack: 10, endAhead: 50, status: 'in progress' },
    { type: 'XP', target: 5000, startBack: 5, endAhead: 60, status: 'in progress' }
  ]
}

/** 100,000 new cards, as an import of a large deck leaves them: 100 create-flashcard requests of 1,000 cards, 5 ms apart. */
export const NEW_CARDS_USER: UserProfile = {
  label: 'new-100k',
  email: 'bench-new-100k@example.com',
  timezone: 'UTC',
  cards: 100_000,
  due: 0,
  newCards: 100_000,
  folderShape: [4, 5],
  flashcards: 100,
  historyDays: 0,
  historyReviewsPerDay: 0,
  goals: [],
  createdEveryMs: 5
}

/** The 100-card user with as many cards in today's answer as NEW_CARDS_USER: 100 new cards of one request, 20 a day shown. */
export const NEW_CARDS_PEER: UserProfile = {
  label: 'new-100',
  email: 'bench-new-100@example.com',
  timezone: 'UTC',
  cards: 100,
  due: 0,
  newCards: 100,
  folderShape: [1],
  flashcards: 1,
  historyDays: 0,
  historyReviewsPerDay: 0,
  goals: [],
  createdEveryMs: 5
}

/** 50,000 cards all overdue, by up to a month: 100 shown a day, as many as OVERDUE_PEER shows. */
export const OVERDUE_USER: UserProfile = {
  label: 'overdue-50k',
  email: 'bench-overdue-50k@example.com',
  timezone: 'America/New_York',
  cards: 50_000,
  due: 50_000,
  newCards: 0,
  folderShape: [4, 5],
  flashcards: 50,
  historyDays: 0,
  historyReviewsPerDay: 0,
  goals: [],
  settings: { reviewsPerDay: 100 }
}

/** The 100-card user with as many cards in today's answer as OVERDUE_USER: 100 overdue cards, all shown (200 reviews a day by default). */
export const OVERDUE_PEER: UserProfile = {
  label: 'overdue-100',
  email: 'bench-overdue-100@example.com',
  timezone: 'America/New_York',
  cards: 100,
  due: 100,
  newCards: 0,
  folderShape: [2],
  flashcards: 2,
  historyDays: 0,
  historyReviewsPerDay: 0,
  goals: []
}

/** Cards in today's answer: the due ones and the day's new ones, each within its daily allowance (200 and 20 by default). */
export function expectedTodayCards (profile: UserProfile): number {
  return Math.min(profile.due, profile.settings?.reviewsPerDay ?? 200) + Math.min(profile.newCards, profile.settings?.newCardsPerDay ?? 20)
}

/** The 99 other users with 8,500 cards: their documents lie between the measured users' ones. */
function otherUsers (count: number): UserProfile[] {
  return Array.from({ length: count }, (_, n) => ({
    label: `other-${n + 1}`,
    email: `bench-other-${n + 1}@example.com`,
    timezone: ['UTC', 'Europe/Paris', 'America/New_York', 'Asia/Tokyo'][n % 4] as string,
    cards: 8500,
    due: 100 + (n * 37) % 600,
    newCards: 500 + (n * 113) % 2500,
    folderShape: [4, 3, 2],
    flashcards: 100,
    historyDays: 30,
    historyReviewsPerDay: 10 + n % 40,
    goals: GOALS_IN_PROGRESS
  }))
}

/** Every user of the bench database, the measured ones in the middle of the insertion order. */
export function benchUsers (): UserProfile[] {
  const others = otherUsers(99)
  return [...others.slice(0, 50), BIG_USER, NEW_CARDS_USER, OVERDUE_USER, ...others.slice(50), SMALL_USER, NEW_CARDS_PEER, OVERDUE_PEER]
}

// A small seeded generator: the same profile gives the same shapes on every build
function randomSource (seed: string): () => number {
  let state = 0
  for (const char of seed) state = (Math.imul(state, 31) + char.charCodeAt(0)) | 0
  return () => {
    state = (state + 0x6D2B79F5) | 0
    let t = Math.imul(state ^ (state >>> 15), 1 | state)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** insertMany in batches, the next batch generated while the last one is written. */
class BatchWriter<T extends Document> {
  private batch: Array<OptionalUnlessRequiredId<T>> = []
  private inFlight: Promise<unknown> = Promise.resolve()
  count = 0
  constructor (private readonly collection: Collection<T>) {}

  async add (documents: ReadonlyArray<OptionalUnlessRequiredId<T>>): Promise<void> {
    this.batch.push(...documents)
    if (this.batch.length >= BATCH) await this.send()
  }

  private async send (): Promise<void> {
    const batch = this.batch
    this.batch = []
    await this.inFlight
    const sending = this.collection.insertMany(batch, { ordered: false })
    // awaited by the next send or by finish; until then a failure must not count as unhandled
    sending.catch(() => {})
    this.inFlight = sending
    this.count += batch.length
  }

  async finish (): Promise<void> {
    if (this.batch.length > 0) await this.send()
    await this.inFlight
  }
}

/** A folder or flashcard as generated: linked to its parent, the tree built from them at the end. */
interface LibraryNodeDocument extends ParentLinkedNode {
  userID: string
  ancestors: string[]
  createdAt: Date
}

const TOP_NAMES = ['Languages', 'Sciences', 'History', 'Mathematics', 'Música y arte', 'Law', 'Medicine']

function libraryOf (userID: string, profile: UserProfile, createdAt: Date): { folders: LibraryNodeDocument[], flashcards: LibraryNodeDocument[] } {
  const folders: LibraryNodeDocument[] = []
  // outline numbers ('2.3') keep names unique among siblings
  const numbers = new Map<string, string>()
  let level: LibraryNodeDocument[] = []
  for (const [depth, count] of profile.folderShape.entries()) {
    const parents: Array<LibraryNodeDocument | null> = depth === 0 ? [null] : level
    level = []
    for (const parent of parents) {
      for (let n = 0; n < count; n++) {
        const number = parent === null ? String(n + 1) : `${numbers.get(parent._id) ?? ''}.${n + 1}`
        const folder: LibraryNodeDocument = {
          _id: newId(),
          userID,
          kind: 'folder',
          parentID: parent?._id ?? TOP_LEVEL,
          name: parent === null ? TOP_NAMES[n] ?? `Subject ${number}` : `${depth === 1 ? 'Topic' : 'Unit'} ${number}`,
          ancestors: parent === null ? [] : [...parent.ancestors, parent._id],
          createdAt
        }
        numbers.set(folder._id, number)
        level.push(folder)
        folders.push(folder)
      }
    }
  }
  const flashcards = Array.from({ length: profile.flashcards }, (_, f): LibraryNodeDocument => {
    const folder = level[f % level.length] as LibraryNodeDocument
    return {
      _id: newId(),
      userID,
      kind: 'flashcard',
      parentID: folder._id,
      name: `Set ${f + 1}`,
      ancestors: [...folder.ancestors, folder._id],
      description: `Flashcard ${f + 1} of ${folder.name}`,
      createdAt
    }
  })
  return { folders, flashcards }
}

function reviewedSchedule (random: () => number, lastReview: Date, due: Date): CardSchedule {
  const scheduledDays = Math.max(1, Math.round((due.getTime() - lastReview.getTime()) / DAY))
  return {
    state: CardState.Review,
    due,
    stability: scheduledDays * (0.9 + random() * 0.3),
    difficulty: 3 + random() * 5,
    elapsedDays: Math.max(1, Math.round(scheduledDays / 2.5)),
    scheduledDays,
    learningSteps: 0,
    reps: 3 + Math.floor(random() * 12),
    lapses: Math.floor(random() * 3),
    lastReview
  }
}

/** A card in (re)learning, due within the day it was last seen. */
function learningSchedule (random: () => number, due: Date, relearning: boolean): CardSchedule {
  return {
    state: relearning ? CardState.Relearning : CardState.Learning,
    due,
    stability: relearning ? 2 + random() * 5 : 0.5 + random(),
    difficulty: 4 + random() * 4,
    elapsedDays: 0,
    scheduledDays: 0,
    learningSteps: 1,
    reps: relearning ? 5 + Math.floor(random() * 10) : 1,
    lapses: relearning ? 1 + Math.floor(random() * 2) : 0,
    lastReview: new Date(due.getTime() - 10 * MINUTE)
  }
}

type Role = 'due' | 'later' | 'new'

const RATING_MIX: ReadonlyArray<[Rating, number]> = [['again', 0.1], ['hard', 0.25], ['good', 0.85], ['easy', 1]]

function ratingOf (random: () => number): Rating {
  const roll = random()
  return RATING_MIX.find(([, upTo]) => roll < upTo)?.[0] ?? 'good'
}

/** A card the history's reviews can name. */
interface ReviewedCard { cardID: string, flashcardID: string, createdAt: Date }

/** One user being generated: its library, then its cards one flashcard at a time, then its log. */
class UserData {
  readonly random: () => number
  readonly calendar: UserCalendar
  readonly folders: LibraryNodeDocument[]
  readonly flashcards: LibraryNodeDocument[]
  readonly sample: ReviewedCard[] = []
  private nextFlashcard = 0
  totalXp = 0
  reviewCount = 0
  studyDay: StudyDay | undefined
  /** the user's XP before each day of the log: what a goal started that day records */
  readonly xpBefore = new Map<LocalDay, number>()
  /** the earliest due instant of each queue of today's cards */
  readonly firstDue: { new?: Date, due?: Date } = {}

  constructor (readonly profile: UserProfile, readonly userID: string, readonly now: Date) {
    this.random = randomSource(profile.label)
    this.calendar = { timezone: profile.timezone, dayStartHour: 4 }
    ;({ folders: this.folders, flashcards: this.flashcards } = libraryOf(userID, profile, new Date(now.getTime() - 400 * DAY)))
  }

  get done (): boolean {
    return this.nextFlashcard >= this.flashcards.length
  }

  private roleOf (index: number): Role {
    const reviewed = this.profile.cards - this.profile.newCards
    if (index >= reviewed) return 'new'
    // the due cards spread evenly, so that they hang in every part of the tree
    return Math.floor((index + 1) * this.profile.due / reviewed) > Math.floor(index * this.profile.due / reviewed) ? 'due' : 'later'
  }

  private scheduleOf (role: Role, index: number): CardSchedule {
    const { random, now } = this
    if (role === 'due') {
      // one in ten in (re)learning, due within the last hours; the others overdue by up to a month
      if (index % 10 === 0) return learningSchedule(random, new Date(now.getTime() - HOUR - random() * 5 * HOUR), index % 20 === 0)
      const due = new Date(now.getTime() - HOUR - random() * 30 * DAY)
      return reviewedSchedule(random, new Date(due.getTime() - (1 + Math.floor(random() * 60)) * DAY), due)
    }
    const due = new Date(now.getTime() + (DATA_DAYS_VALID + 2) * DAY + random() * 150 * DAY)
    return reviewedSchedule(random, new Date(now.getTime() - (1 + Math.floor(random() * 60)) * DAY), due)
  }

  /** The next flashcard's cards, as create-flashcard writes them, with the schedules their reviews left. */
  nextCards (): CardDocument[] {
    const f = this.nextFlashcard++
    const flashcard = this.flashcards[f] as LibraryNodeDocument
    const perFlashcard = Math.ceil(this.profile.cards / this.profile.flashcards)
    const first = f * perFlashcard
    const count = Math.max(0, Math.min(perFlashcard, this.profile.cards - first))
    // older flashcards first: the newest ones, created in the last weeks, hold the new cards
    const every = this.profile.createdEveryMs
    const createdAt = every === undefined
      ? new Date(this.now.getTime() - (365 - 340 * f / this.profile.flashcards) * DAY)
      : new Date(this.now.getTime() - DAY - (this.profile.flashcards - 1 - f) * every)
    const texts = Array.from({ length: count }, (_, n) => ({
      front: `${flashcard.name}, term ${n + 1}`,
      back: `What term ${n + 1} of ${flashcard.name} means, in the words a learner would write on the back of a card`
    }))
    const cards = newCards(this.userID, flashcard._id, texts, createdAt)
    for (const [n, card] of cards.entries()) {
      const role = this.roleOf(first + n)
      if (role !== 'new') {
        const schedule = this.scheduleOf(role, first + n)
        Object.assign(card, schedule, { isNew: false, version: schedule.reps, lastReviewID: `server-${newId()}` })
        if (role === 'later' && n % 5 === 0 && this.sample.length < 400) this.sample.push({ cardID: card._id, flashcardID: card.flashcardID, createdAt })
      }
      const queue = card.isNew ? 'new' : 'due'
      if (this.firstDue[queue] === undefined || card.due < this.firstDue[queue]) this.firstDue[queue] = card.due
    }
    return cards
  }

  /** The day's reviews in the log, as review-card writes them; `back` days before today. */
  reviewsOf (back: number): ReviewDocument[] {
    const { random, calendar, profile } = this
    const day = addDays(userDay(this.now, calendar).day, -back)
    this.xpBefore.set(day, this.totalXp)
    const dayStart = startOfDay(day, calendar).getTime()
    const reviews: ReviewDocument[] = []
    let newOnes = 0
    for (let n = 0; n < profile.historyReviewsPerDay; n++) {
      const reviewedAt = new Date(dayStart + 2 * HOUR + (n / profile.historyReviewsPerDay) * 16 * HOUR)
      const card = this.sample[Math.floor(random() * this.sample.length)] as ReviewedCard
      // one review in ten starts a card that was new then
      const wasNew = n % 10 === 0
      const before = wasNew ? newSchedule(card.createdAt) : reviewedSchedule(random, new Date(reviewedAt.getTime() - 10 * DAY), new Date(reviewedAt.getTime() - random() * DAY))
      const rating = ratingOf(random)
      const after = scheduleReview(before, rating, reviewedAt, { desiredRetention: 0.9 })
      this.totalXp += XP_PER_REVIEW
      this.reviewCount += 1
      if (wasNew) newOnes += 1
      reviews.push({
        _id: newId(),
        userID: this.userID,
        reviewID: `server-${newId()}`,
        cardID: card.cardID,
        flashcardID: card.flashcardID,
        rating,
        reviewedAt,
        day: dayOf(reviewedAt, calendar),
        wasNew,
        before,
        after,
        xp: XP_PER_REVIEW,
        seq: this.reviewCount,
        answer: {
          cardID: card.cardID,
          review_status: reviewStatus(after),
          last_review: displayDayOf(reviewedAt, calendar),
          due: after.due.toISOString(),
          xp_gained: String(XP_PER_REVIEW),
          total_xp: String(this.totalXp)
        }
      })
    }
    if (reviews.length > 0) {
      const { start, end } = userDay(new Date(dayStart), calendar)
      this.studyDay = { day, start, end, reviews: reviews.length - newOnes, newCards: newOnes }
    }
    return reviews
  }

  goals (): GoalDocument[] {
    const today = userDay(this.now, this.calendar).day
    return this.profile.goals.map((plan) => {
      const startDay = addDays(today, -plan.startBack)
      const endDay = addDays(today, plan.endAhead)
      return {
        _id: newId(),
        userID: this.userID,
        createdAt: new Date(startOfDay(startDay, this.calendar).getTime() + HOUR),
        type: plan.type,
        target: plan.target,
        startDay,
        endDay,
        startingXp: this.xpBefore.get(startDay) ?? this.totalXp,
        status: plan.status,
        failDay: plan.status === 'failed' ? addDays(endDay, 1) : null
      }
    })
  }

  /** What the account holds once its reviews and library writes were made through the service. */
  accountChanges (): Partial<UserDocument> {
    const changes: Partial<UserDocument> = {
      totalXp: this.totalXp,
      reviewCount: this.reviewCount,
      // every folder, flashcard and goal was one write transaction of the user's
      writes: this.folders.length + this.flashcards.length + this.profile.goals.length,
      usage: { cards: this.profile.cards, nodes: this.folders.length + this.flashcards.length, goals: this.profile.goals.length },
      // where the migration would start each queue (its earliest due instant, any card there); the first reads move the starts to the cards
      queueFrom: {
        new: this.firstDue.new === undefined ? { at: NO_CARD, order: Infinity } : { at: this.firstDue.new, order: -Infinity },
        due: this.firstDue.due === undefined ? { at: NO_CARD, order: Infinity } : { at: this.firstDue.due, order: -Infinity },
        writes: 0
      }
    }
    if (this.studyDay !== undefined) changes.studyDay = this.studyDay
    return changes
  }
}

async function inject (app: FastifyInstance, url: string, payload: object, expected: number): Promise<Record<string, string>> {
  const response = await app.inject({ method: 'POST', url, payload })
  if (response.statusCode !== expected) throw new Error(`${url}: ${response.statusCode} ${response.body}`)
  return response.json()
}

async function register (app: FastifyInstance, profile: UserProfile): Promise<string> {
  const { userID, jwtToken } = await inject(app, '/api/register', {
    email: profile.email, password: PASSWORD, displayName: `Benchmark ${profile.label}`, timezone: profile.timezone
  }, 201) as { userID: string, jwtToken: string }
  if (profile.settings !== undefined) await inject(app, '/api/update-settings', { jwtToken, ...profile.settings }, 200)
  return userID
}

export interface SeededUser { label: string, email: string, userID: string }

export interface SeedResult {
  users: SeededUser[]
  counts: Record<string, number>
}

/**
 * Fills an empty database with `profiles`. `app` is the service built on the
 * same database (it created the indexes while the collections were empty) and
 * registers the accounts; `db` takes the documents.
 */
export async function seedUsers (app: FastifyInstance, db: Db, profiles: readonly UserProfile[], log: (line: string) => void): Promise<SeedResult> {
  const now = new Date()
  const users: UserData[] = []
  let started = performance.now()
  const seconds = (): string => `${((performance.now() - started) / 1000).toFixed(1)} s`
  // two at a time: each registration is a deliberately slow password hash
  for (let n = 0; n < profiles.length; n += 2) {
    const pair = profiles.slice(n, n + 2)
    const ids = await Promise.all(pair.map((profile) => register(app, profile)))
    pair.forEach((profile, k) => users.push(new UserData(profile, ids[k] as string, now)))
  }
  log(`  ${users.length} accounts registered through the service in ${seconds()}`)

  started = performance.now()
  const trees = new BatchWriter(db.collection<TreeDocument>('trees'))
  let nodes = 0
  for (const user of users) {
    const { tree } = treeFromNodes([...user.folders, ...user.flashcards])
    await trees.add([{ _id: user.userID, userID: user.userID, version: 1, folders: tree.folders }])
    nodes += user.folders.length + user.flashcards.length
  }
  await trees.finish()
  // each card's content in cards, its learner's state in cardStates, as the service keeps them
  const cards = new BatchWriter(db.collection<CardContentDocument>('cards'))
  const states = new BatchWriter(db.collection<CardStateDocument>('cardStates'))
  let reported = 0
  while (users.some((user) => !user.done)) {
    for (const user of users) {
      if (user.done) continue
      const parts = user.nextCards().map(splitCard)
      await cards.add(parts.map((part) => part.content))
      await states.add(parts.map((part) => part.state))
    }
    if (cards.count - reported >= 200_000) {
      reported = cards.count
      log(`  ${cards.count.toLocaleString('en')} cards written (${seconds()})`)
    }
  }
  await cards.finish()
  await states.finish()
  log(`  ${nodes.toLocaleString('en')} folders and flashcards, ${cards.count.toLocaleString('en')} cards in ${seconds()}`)

  started = performance.now()
  const reviews = new BatchWriter(db.collection<ReviewDocument>('reviews'))
  const activity = new BatchWriter(db.collection<DayActivityDocument>('activity'))
  const longest = Math.max(...profiles.map((profile) => profile.historyDays))
  // day by day, as the log grows, with each day's count as review-card keeps it
  for (let back = longest; back >= 1; back--) {
    for (const user of users) {
      if (back > user.profile.historyDays) continue
      const logged = user.reviewsOf(back)
      await reviews.add(logged)
      const day = logged[0]?.day
      if (day !== undefined) {
        await activity.add([{ _id: activityId(user.userID, day), userID: user.userID, day, reviews: logged.length, xp: logged.reduce((sum, review) => sum + review.xp, 0) }])
      }
    }
  }
  await reviews.finish()
  await activity.finish()
  const goals = new BatchWriter(db.collection<GoalDocument>('goals'))
  for (const user of users) await goals.add(user.goals())
  await goals.finish()
  const accounts = db.collection<UserDocument>('users')
  await accounts.bulkWrite(users.map((user) => ({ updateOne: { filter: { _id: user.userID }, update: { $set: user.accountChanges() } } })), { ordered: false })
  log(`  ${reviews.count.toLocaleString('en')} reviews in the log, ${goals.count} goals in ${seconds()}`)

  return {
    users: users.map((user) => ({ label: user.profile.label, email: user.profile.email, userID: user.userID })),
    counts: { users: users.length, library: nodes, cards: cards.count, reviews: reviews.count, goals: goals.count }
  }
}
