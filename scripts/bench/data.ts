// Synthetic users for the benchmark. Accounts are registered through the
// service, so passwords, tokens and settings are what real use makes; their
// libraries, cards, review logs and goals are then written straight into the
// collections in the repositories' own document shapes, because creating
// 100,000 cards through the API would take longer than the benchmark itself.
import type { FastifyInstance } from 'fastify'
import type { Collection, Db, Document, OptionalUnlessRequiredId } from 'mongodb'
import { addDays, dayOf, formatDay, startOfDay, userDay, type LocalDay, type UserCalendar } from '../../src/domain/calendar.js'
import type { GoalStatus, GoalType } from '../../src/domain/goals.js'
import { newId } from '../../src/domain/ids.js'
import { CardState, newSchedule, reviewStatus, scheduleReview, XP_PER_REVIEW, type CardSchedule, type Rating } from '../../src/domain/scheduling.js'
import type { CardDocument } from '../../src/repositories/cards.js'
import type { GoalDocument } from '../../src/repositories/goals.js'
import type { LibraryNodeDocument } from '../../src/repositories/library.js'
import type { ReviewDocument } from '../../src/repositories/reviews.js'
import type { UserDocument } from '../../src/repositories/users.js'

const HOUR = 60 * 60 * 1000
const DAY = 24 * HOUR
const BATCH = 1000
const CALENDAR: UserCalendar = { timezone: 'UTC', dayStartHour: 4 }
const PASSWORD = 'bench-password-not-secret'

export interface UserProfile {
  label: string
  cards: number
  /** review cards due before the end of today; every other card is due later or new */
  dueToday: number
  /** never reviewed cards (new cards are due at once, so the big users have none) */
  newCards: number
  /** folders per level: top-level folders, children of each, grandchildren of each */
  folderShape: readonly number[]
  flashcards: number
  /** review log: this many days back from yesterday, this many reviews a day */
  historyDays: number
  historyPerDay: number
  goals: number
  /** the big users' daily limits are raised so that every due card is shown */
  raisedLimits: boolean
}

export const BIG_USERS: readonly UserProfile[] = [
  { label: '10k', cards: 10_000, dueToday: 500, newCards: 0, folderShape: [5, 4, 4], flashcards: 500, historyDays: 60, historyPerDay: 50, goals: 10, raisedLimits: true },
  { label: '100k', cards: 100_000, dueToday: 500, newCards: 0, folderShape: [5, 4, 4], flashcards: 500, historyDays: 60, historyPerDay: 50, goals: 10, raisedLimits: true }
]

/** Neighbours in the same collections: the big users' queries must skip their documents. */
export const OTHER_USERS: readonly UserProfile[] = [1, 2, 3, 4].map((n) => ({
  label: `other ${n}`, cards: 3000, dueToday: 150, newCards: 300, folderShape: [4, 3], flashcards: 60, historyDays: 30, historyPerDay: 20, goals: 3, raisedLimits: false
}))

export interface CardRef { flashcardID: string, cardID: string }

export interface GeneratedUser {
  profile: UserProfile
  userID: string
  jwtToken: string
  /** review cards due after today: reviewing them with good or easy keeps today's cards as they are */
  laterCards: CardRef[]
  counts: { folders: number, flashcards: number, cards: number, reviews: number, goals: number }
}

// A small seeded generator: the same profile gives the same data on every run
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

/** Inserts documents in batches as they are produced, so 100,000 cards never sit in memory at once. */
class BatchWriter<T extends Document> {
  private pending: Array<OptionalUnlessRequiredId<T>> = []
  count = 0
  constructor (private readonly collection: Collection<T>) {}

  async add (document: OptionalUnlessRequiredId<T>): Promise<void> {
    this.pending.push(document)
    if (this.pending.length >= BATCH) await this.flush()
  }

  async flush (): Promise<void> {
    if (this.pending.length === 0) return
    const batch = this.pending
    this.pending = []
    await this.collection.insertMany(batch, { ordered: false })
    this.count += batch.length
  }
}

const TOP_NAMES = ['Languages', 'Sciences', 'History', 'Mathematics', 'Música y arte', 'Law', 'Medicine']

function libraryOf (userID: string, profile: UserProfile, createdAt: Date): { folders: LibraryNodeDocument[], flashcards: LibraryNodeDocument[] } {
  const folders: LibraryNodeDocument[] = []
  // outline numbers ('2.3') keep names unique among siblings and readable in the output
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
          parentID: parent?._id ?? '',
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
  // flashcards live in the deepest folders, so every card sits three levels down
  const flashcards = Array.from({ length: profile.flashcards }, (_, f): LibraryNodeDocument => {
    const folder = level[f % level.length] as LibraryNodeDocument
    return {
      _id: newId(),
      userID,
      kind: 'flashcard',
      parentID: folder._id,
      name: `Set ${f + 1}`,
      ancestors: [...folder.ancestors, folder._id],
      description: `Benchmark flashcard ${f + 1}`,
      createdAt
    }
  })
  return { folders, flashcards }
}

type Role = 'due' | 'later' | 'new'

/** Which cards are due today: spread evenly, so every flashcard holds some and the tree is as wide as it gets. */
function rolesOf (profile: UserProfile): (index: number) => Role {
  const due = new Set<number>()
  const step = profile.cards / profile.dueToday
  for (let k = 0; k < profile.dueToday; k++) due.add(Math.floor(k * step) + (k * 7) % Math.max(1, Math.floor(step)))
  const newStride = profile.newCards > 0 ? Math.floor(profile.cards / profile.newCards) : 0
  return (index) => due.has(index) ? 'due' : newStride > 0 && index % newStride === 1 ? 'new' : 'later'
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

function cardSchedule (role: Role, random: () => number, now: Date, endOfToday: Date, createdAt: Date): CardSchedule {
  if (role === 'new') return newSchedule(createdAt)
  if (role === 'due') {
    // overdue by an hour to a month: due before the end of today whenever the run happens
    const due = new Date(now.getTime() - HOUR - random() * 30 * DAY)
    const interval = 1 + Math.floor(random() * 60)
    return reviewedSchedule(random, new Date(due.getTime() - interval * DAY), due)
  }
  // due from a day after today's end onwards: still not due should the day turn over mid-run
  const due = new Date(endOfToday.getTime() + DAY + random() * 120 * DAY)
  const interval = Math.ceil((due.getTime() - now.getTime()) / DAY) + 1 + Math.floor(random() * 30)
  return reviewedSchedule(random, new Date(due.getTime() - interval * DAY), due)
}

const RATING_MIX: ReadonlyArray<[Rating, number]> = [['again', 0.1], ['hard', 0.25], ['good', 0.85], ['easy', 1]]

function ratingOf (random: () => number): Rating {
  const roll = random()
  return RATING_MIX.find(([, upTo]) => roll < upTo)?.[0] ?? 'good'
}

interface GoalPlan { type: GoalType, target: number, startBack: number, endAhead: number, status: GoalStatus }

/** Mostly goals still in progress (recomputed by every call), and one of each final status. */
function goalPlans (count: number): GoalPlan[] {
  const plans: GoalPlan[] = []
  for (let n = 0; n < count; n++) {
    const type: GoalType = n % 2 === 0 ? 'Card' : 'XP'
    if (count >= 5 && n === count - 2) plans.push({ type: 'Card', target: 100, startBack: 50, endAhead: -40, status: 'completed' })
    else if (count >= 5 && n === count - 1) plans.push({ type: 'XP', target: 1_000_000, startBack: 45, endAhead: -35, status: 'failed' })
    // targets out of reach for the run, so no goal settles while it is measured
    else plans.push({ type, target: type === 'Card' ? 50_000 : 500_000, startBack: 5 + 3 * n, endAhead: 7 + 5 * n, status: 'in progress' })
  }
  return plans
}

async function register (app: FastifyInstance, profile: UserProfile, runTag: string): Promise<{ userID: string, jwtToken: string }> {
  const response = await app.inject({
    method: 'POST',
    url: '/api/register',
    payload: {
      email: `bench-${profile.label.replace(/\W+/g, '-')}-${runTag}@example.com`,
      password: PASSWORD,
      displayName: `Benchmark ${profile.label}`,
      timezone: CALENDAR.timezone
    }
  })
  if (response.statusCode !== 201) throw new Error(`register ${profile.label}: ${response.statusCode} ${response.body}`)
  return response.json()
}

async function generateUser (app: FastifyInstance, db: Db, profile: UserProfile, now: Date, runTag: string): Promise<GeneratedUser> {
  const { userID, jwtToken } = await register(app, profile, runTag)
  const random = randomSource(profile.label)
  const today = userDay(now, CALENDAR)
  const libraryCreated = new Date(now.getTime() - 400 * DAY)

  const { folders, flashcards } = libraryOf(userID, profile, libraryCreated)
  const library = new BatchWriter(db.collection<LibraryNodeDocument>('library'))
  for (const node of [...folders, ...flashcards]) await library.add(node)
  await library.flush()

  const roleOf = rolesOf(profile)
  const cards = new BatchWriter(db.collection<CardDocument>('cards'))
  const laterCards: CardRef[] = []
  for (let index = 0; index < profile.cards; index++) {
    // consecutive cards share a flashcard, as cards created together do
    const flashcard = flashcards[Math.floor(index * profile.flashcards / profile.cards)] as LibraryNodeDocument
    const role = roleOf(index)
    const createdAt = new Date(libraryCreated.getTime() + index * 1000)
    const card: CardDocument = {
      _id: newId(),
      userID,
      flashcardID: flashcard._id,
      front: `Term ${index + 1} of ${flashcard.name}`,
      back: `The meaning of term ${index + 1}, as a learner would write it on the back of the card`,
      ...cardSchedule(role, random, now, today.end, createdAt),
      isNew: role === 'new',
      createdOrder: createdAt.getTime() * 1000,
      createdAt,
      version: 0,
      lastReviewID: null
    }
    if (role === 'later') laterCards.push({ flashcardID: card.flashcardID, cardID: card._id })
    await cards.add(card)
  }
  await cards.flush()

  // a past review log (nothing today yet): what update-goal-status and today's counts read
  const reviews = new BatchWriter(db.collection<ReviewDocument>('reviews'))
  const xpBefore = new Map<LocalDay, number>()
  let totalXp = 0
  for (let back = profile.historyDays; back >= 1; back--) {
    const day = addDays(today.day, -back)
    xpBefore.set(day, totalXp)
    const dayStart = startOfDay(day, CALENDAR).getTime()
    for (let n = 0; n < profile.historyPerDay; n++) {
      const reviewedAt = new Date(dayStart + (n / profile.historyPerDay) * 20 * HOUR)
      const card = laterCards[Math.floor(random() * laterCards.length)] as CardRef
      const before = reviewedSchedule(random, new Date(reviewedAt.getTime() - 10 * DAY), new Date(reviewedAt.getTime() - random() * DAY))
      const rating = ratingOf(random)
      const after = scheduleReview(before, rating, reviewedAt, { desiredRetention: 0.9 })
      totalXp += XP_PER_REVIEW
      const reviewID = `history-${back}-${n}`
      await reviews.add({
        _id: newId(),
        userID,
        reviewID,
        cardID: card.cardID,
        flashcardID: card.flashcardID,
        rating,
        reviewedAt,
        day: dayOf(reviewedAt, CALENDAR),
        wasNew: false,
        before,
        after,
        xp: XP_PER_REVIEW,
        seq: n,
        answer: {
          cardID: card.cardID,
          review_status: reviewStatus(after),
          last_review: formatDay(day),
          due: after.due.toISOString(),
          xp_gained: String(XP_PER_REVIEW),
          total_xp: String(totalXp)
        }
      })
    }
  }
  await reviews.flush()

  const goals = new BatchWriter(db.collection<GoalDocument>('goals'))
  for (const plan of goalPlans(profile.goals)) {
    const startDay = addDays(today.day, -plan.startBack)
    const endDay = addDays(today.day, plan.endAhead)
    await goals.add({
      _id: newId(),
      userID,
      type: plan.type,
      target: plan.target,
      startDay,
      endDay,
      startingXp: xpBefore.get(startDay) ?? totalXp,
      status: plan.status,
      failDay: plan.status === 'failed' ? addDays(endDay, 1) : null,
      createdAt: new Date(startOfDay(startDay, CALENDAR).getTime() + HOUR)
    })
  }
  await goals.flush()

  const settings: Partial<UserDocument> = { totalXp }
  if (profile.raisedLimits) {
    // far above what a run can review in a day: reviews made during the run must not
    // shrink today's queue below the 500 due cards
    settings.reviewsPerDay = 1_000_000
    settings.newCardsPerDay = 9999
  }
  await db.collection<UserDocument>('users').updateOne({ _id: userID }, { $set: settings })

  return {
    profile,
    userID,
    jwtToken,
    laterCards,
    counts: { folders: folders.length, flashcards: flashcards.length, cards: cards.count, reviews: reviews.count, goals: goals.count }
  }
}

/** Generates every profile; `app` registers the accounts, `db` takes the documents. */
export async function generateUsers (app: FastifyInstance, db: Db, profiles: readonly UserProfile[], log: (line: string) => void): Promise<GeneratedUser[]> {
  const now = new Date()
  const runTag = now.getTime().toString(36)
  const users: GeneratedUser[] = []
  for (const profile of profiles) {
    const started = performance.now()
    const user = await generateUser(app, db, profile, now, runTag)
    const { folders, flashcards, cards, reviews, goals } = user.counts
    log(`  ${profile.label.padEnd(8)} ${cards.toLocaleString('en')} cards (${profile.dueToday} due today, ${profile.newCards} new), ` +
      `${folders} folders, ${flashcards} flashcards, ${reviews.toLocaleString('en')} past reviews, ${goals} goals ` +
      `in ${((performance.now() - started) / 1000).toFixed(1)} s`)
    users.push(user)
  }
  return users
}
