// What each hot query of the service reads. Every query is made by the
// repository's own method (nothing is restated here, so this follows the
// repositories as they change), the command it sent is caught through the
// driver's command monitoring, and that command is explained (executionStats).
import type { CommandStartedEvent, Db, Document, MongoClient } from 'mongodb'
import { userDay } from '../../src/domain/calendar.js'
import { startsAfterRead, todayQueueRanges } from '../../src/domain/queues.js'
import { heatmapStart } from '../../src/domain/stats.js'
import { cardsRepository, type CreationOrderReader } from '../../src/repositories/cards.js'
import { cardStatesRepository } from '../../src/repositories/card-states.js'
import { creationBounds } from '../../src/domain/card-pages.js'
import { MAX_CARDS_PER_PAGE } from '../../src/domain/limits.js'
import { goalsRepository } from '../../src/repositories/goals.js'
import { mediaRepository } from '../../src/repositories/media.js'
import { flashcardIDsIn } from '../../src/domain/library-tree.js'
import { treesRepository } from '../../src/repositories/trees.js'
import { reviewsRepository } from '../../src/repositories/reviews.js'
import { activityRepository } from '../../src/repositories/activity.js'
import { usersRepository } from '../../src/repositories/users.js'
import { percentile } from './load.js'

const READS = new Set(['find', 'aggregate', 'count', 'distinct'])
// session, cluster and write-concern fields belong to the sent command, not to what explain takes
const ENVELOPE = new Set(['lsid', 'txnNumber', 'autocommit', 'startTransaction', 'writeConcern', 'readConcern', 'apiVersion', 'apiStrict', 'apiDeprecationErrors'])
const TIMED_CALLS = 5

export interface ExplainRow {
  query: string
  usedBy: string
  command: string
  /** stages of the winning plan from the scan up, then the pipeline's later stages */
  plan: string
  indexes: string[]
  keysExamined: number
  docsExamined: number
  /** what the query layer passed on (before a $group, say) */
  returned: number
  /** documents that match the query's filter, whatever its limit: on the embedded database a query's time follows them */
  matching: number
  /** median time of the repository call from this process, all of its commands */
  callMs: number
}

/** The stages of a plan tree from the leaves up: IXSCAN > FETCH > SORT. */
function stagesOf (plan: Document | undefined): string[] {
  if (plan === undefined) return []
  // MongoDB's slot-based engine nests the classic tree one level down
  if (plan.queryPlan !== undefined) return stagesOf(plan.queryPlan as Document)
  const below: string[] = plan.inputStage !== undefined
    ? stagesOf(plan.inputStage as Document)
    : Array.isArray(plan.inputStages) ? [`(${(plan.inputStages as Document[]).map((input) => stagesOf(input).join(' > ')).join(' | ')})`] : []
  return [...below, String(plan.stage)]
}

function indexNames (node: unknown, into: Set<string>): Set<string> {
  if (Array.isArray(node)) {
    for (const item of node) indexNames(item, into)
  } else if (node !== null && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === 'indexName' && typeof value === 'string') into.add(value)
      else indexNames(value, into)
    }
  }
  return into
}

/** The winning plan (only that: rejected plans are left out) and its execution figures. */
export function summarise (explained: Document): Omit<ExplainRow, 'query' | 'usedBy' | 'command' | 'callMs' | 'matching'> {
  // a find, or a pipeline the query layer took whole, answers at the top; else the first stage is the query
  const stages = explained.stages as Document[] | undefined
  const cursor = (explained.queryPlanner !== undefined ? explained : stages?.[0]?.$cursor ?? {}) as Document
  const later = (explained.queryPlanner !== undefined ? [] : stages?.slice(1) ?? [])
    .map((stage) => Object.keys(stage).find((key) => key.startsWith('$')) ?? '?')
  const winning = (cursor.queryPlanner as Document | undefined)?.winningPlan as Document | undefined
  const stats = (cursor.executionStats ?? {}) as Document
  return {
    plan: [...stagesOf(winning), ...later].join(' > '),
    indexes: [...indexNames(winning, new Set())],
    keysExamined: Number(stats.totalKeysExamined ?? NaN),
    docsExamined: Number(stats.totalDocsExamined ?? NaN),
    returned: Number(stats.nReturned ?? NaN)
  }
}

/**
 * Explains the hot queries as the service makes them for `userID`: with the
 * arguments its routes pass (today's bounds, the daily allowances, the goals'
 * window, the flashcards of today's cards); and the queues of today's cards
 * of `queueUsers` too.
 */
export async function explainHotQueries (client: MongoClient, db: Db, userID: string, now: Date, log: (line: string) => void, queueUsers: ReadonlyArray<{ label: string, userID: string }> = []): Promise<ExplainRow[]> {
  const users = usersRepository(db)
  const cards = cardsRepository(db)
  const cardStates = cardStatesRepository(db)
  const trees = treesRepository(db)
  const reviews = reviewsRepository(db)
  const activity = activityRepository(db)
  const goals = goalsRepository(db)
  const media = mediaRepository(db)

  /**
   * As services/study.ts todayCards reads a user's queues: the allowances less
   * what the account counted today, each queue from its start as the reads
   * before left it (the first reads move the starts up to the cards).
   */
  async function todayQueues (owner: string) {
    for (let read = 0; ; read++) {
      const user = await users.findById(owner)
      if (user === null) throw new Error(`no user ${owner} in ${db.databaseName}`)
      const today = userDay(now, { timezone: user.timezone, dayStartHour: user.dayStartHour })
      const counted = user.studyDay?.day === today.day ? user.studyDay : { reviews: 0, newCards: 0 }
      const allowance = { reviews: Math.max(0, user.reviewsPerDay - counted.reviews), newCards: Math.max(0, user.newCardsPerDay - counted.newCards) }
      const ranges = todayQueueRanges(user.queueFrom, today.end, now)
      const queues = await cardStates.todayQueue(owner, ranges, allowance)
      const raised = startsAfterRead(ranges, queues, allowance)
      const writes = user.queueFrom?.writes
      if (Object.keys(raised).length === 0 || writes === undefined || read === 3) return { user, today, allowance, ranges, queues }
      await users.raiseQueueStarts(owner, writes, raised)
    }
  }

  const { user, today, allowance, ranges, queues } = await todayQueues(userID)
  const queue = [...queues.due, ...queues.new]
  const allFlashcardIDs = flashcardIDsIn((await trees.read(userID)).folders)
  // as services/goals.ts goalStatuses: one window over every goal
  const userGoals = await goals.all(userID)
  const from = userGoals.reduce((earliest, goal) => goal.startDay < earliest ? goal.startDay : earliest, userGoals[0]?.startDay ?? today.day)
  const to = userGoals.reduce((latest, goal) => goal.endDay > latest ? goal.endDay : latest, from)
  const lastReview = await reviews.latest(userID)
  const someCard = queue[0]
  if (someCard === undefined || lastReview === null) throw new Error(`user ${userID} has no cards due or no reviews: the data is not the benchmark's`)
  const bounds = creationBounds(user.createdAt, now)
  const firstPage = async (reader: CreationOrderReader<unknown>) => [...await reader.next(32), ...await reader.next(MAX_CARDS_PER_PAGE - 32 + 1)]

  const hot: Array<{ query: string, usedBy: string, call: () => Promise<unknown> }> = [
    { query: 'users.findById', usedBy: 'every request (authentication)', call: () => users.findById(userID) },
    { query: 'cardStates.dueQueue', usedBy: 'get-today-cards', call: () => cardStates.dueQueue(userID, ranges.due, allowance.reviews) },
    { query: 'cardStates.newQueue', usedBy: 'get-today-cards', call: () => cardStates.newQueue(userID, ranges.new, allowance.newCards) },
    { query: 'trees.read', usedBy: 'get-today-cards (alongside the cards)', call: () => trees.read(userID) },
    { query: 'goals.all', usedBy: 'update-goal-status', call: () => goals.all(userID) },
    { query: 'activity.byDay', usedBy: 'update-goal-status (the goals\' window)', call: () => activity.byDay(userID, from, to) },
    { query: 'cards.findOne', usedBy: 'review-card', call: () => cards.findOne(userID, someCard.flashcardID, someCard._id) },
    { query: 'reviews.findByReviewID', usedBy: 'review-card (a retried reviewID)', call: () => reviews.findByReviewID(userID, lastReview.reviewID) },
    { query: 'reviews.latest', usedBy: 'undo-review', call: () => reviews.latest(userID, user.studyDay?.start) },
    { query: 'cardStates.ofFlashcards', usedBy: 'get-all-cards', call: () => cardStates.ofFlashcards(userID, allFlashcardIDs) },
    { query: 'trees.read', usedBy: 'get-all-cards', call: () => trees.read(userID) },
    // a page as services/library.ts reads one: a few cards first, then as many as the page is estimated to take
    { query: 'cards.flashcardInCreationOrder', usedBy: 'get-flashcard (its first page)', call: () => firstPage(cards.flashcardInCreationOrder(userID, someCard.flashcardID, null, bounds)) },
    { query: 'cards.libraryInCreationOrder', usedBy: 'get-all-cards with content (its first page)', call: () => firstPage(cards.libraryInCreationOrder(userID, null, bounds)) },
    { query: 'activity.byDay', usedBy: 'get-stats (a year)', call: () => activity.byDay(userID, heatmapStart(today.day), today.day) },
    { query: 'cardStates.countByState', usedBy: 'get-stats', call: () => cardStates.countByState(userID) },
    // the bench data holds no media: these show that each is one range of its index on a full collection
    { query: 'cards.referencedMedia', usedBy: 'deletions, media sweep', call: () => cards.referencedMedia(userID, [someCard._id, lastReview.reviewID]) },
    { query: 'cards.mediaOf', usedBy: 'delete-flashcard (an account with media)', call: () => cards.mediaOf(userID, [someCard.flashcardID]) },
    { query: 'media.findOwned', usedBy: 'GET /media (a media URL)', call: () => media.findOwned(userID, someCard._id) },
    { query: 'media.dueForCheck', usedBy: 'media sweep', call: () => media.dueForCheck(now, 200) }
  ]

  for (const { label, userID: owner } of queueUsers) {
    const their = await todayQueues(owner)
    hot.push(
      { query: 'cardStates.dueQueue', usedBy: `get-today-cards (${label})`, call: () => cardStates.dueQueue(owner, their.ranges.due, their.allowance.reviews) },
      { query: 'cardStates.newQueue', usedBy: `get-today-cards (${label})`, call: () => cardStates.newQueue(owner, their.ranges.new, their.allowance.newCards) }
    )
  }

  const rows: ExplainRow[] = []
  for (const { query, usedBy, call } of hot) {
    const sent: CommandStartedEvent[] = []
    const listen = (event: CommandStartedEvent): void => {
      if (event.databaseName === db.databaseName && READS.has(event.commandName)) sent.push(event)
    }
    client.on('commandStarted', listen)
    try {
      await call()
    } finally {
      client.off('commandStarted', listen)
    }
    const times: number[] = []
    for (let n = 0; n < TIMED_CALLS; n++) {
      const started = performance.now()
      await call()
      times.push(performance.now() - started)
    }
    for (const event of sent) {
      const command: Document = {}
      for (const [key, value] of Object.entries(event.command)) {
        if (!key.startsWith('$') && !ENVELOPE.has(key)) command[key] = value
      }
      const started = performance.now()
      const explained = await db.command({ explain: command, verbosity: 'executionStats' })
      log(`${query}: ${event.commandName} explained in ${((performance.now() - started) / 1000).toFixed(1)} s`)
      const collection = String(event.command[event.commandName])
      const filter = (event.commandName === 'aggregate' ? (command.pipeline as Document[])[0]?.$match : command.filter) as Document | undefined
      rows.push({
        query,
        usedBy,
        command: `${collection}.${event.commandName}`,
        ...summarise(explained),
        matching: await db.collection(collection).countDocuments(filter ?? {}),
        callMs: percentile(times, 0.5)
      })
    }
  }
  return rows
}

/** Why a row deserves a look, or '' when the plan reads about what it returns. */
export function concernOf (row: ExplainRow): string {
  if (row.plan.includes('COLLSCAN')) return 'scans the whole collection'
  const read = Math.max(row.keysExamined, row.docsExamined)
  if (read > 2 * row.returned + 10) return `examines ${read.toLocaleString('en')} for ${row.returned.toLocaleString('en')} returned`
  if (row.matching > 2 * row.returned + 10) return `${row.matching.toLocaleString('en')} match the filter for ${row.returned.toLocaleString('en')} returned`
  return ''
}
