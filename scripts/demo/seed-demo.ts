// The demo learner, made through the service: the account, every deck, image
// and sound, and every goal are made by the API at the moment the plan says,
// with the service's clock moved there. The reviews of the last days go
// through review-card the same way; those of the year before are written in
// bulk, a day at a time, in the documents review-card writes (its schedule,
// log entry, day count and account totals), because a year of answers one
// request at a time would take many minutes. Either way the XP, the streak,
// the heatmap and the goals read what a year of real use would have left.
import { randomBytes } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { displayDayOf, formatDay, userDay, type LocalDay, type UserCalendar } from '../../src/domain/calendar.js'
import { queueKeyAfterSchedule } from '../../src/domain/card-states.js'
import { newId } from '../../src/domain/ids.js'
import { reviewStatus, XP_PER_REVIEW, type CardSchedule } from '../../src/domain/scheduling.js'
import { activityId, type DayActivityDocument } from '../../src/repositories/activity.js'
import type { CardDocument } from '../../src/repositories/cards.js'
import type { ReviewDocument } from '../../src/repositories/reviews.js'
import type { StudyDay, UserDocument } from '../../src/repositories/users.js'
import { libraryParts, type DeckPart } from './content.js'
import type { GivenAnswer } from './learner.js'
import { DEMO_SETTINGS, planDemo, type PlannedDay } from './plan.js'

export const DEMO_ACCOUNT = { email: 'demo@example.com', password: 'demo-password', displayName: 'Demo Learner' } as const

/** Sets the instant the service's clock reads. */
export type SetClock = (instant: Date) => void

export interface DemoFacts {
  userID: string
  jwtToken: string
  cards: number
  media: number
  /** answers given, in bulk and through review-card */
  answers: { inBulk: number, throughService: number }
  days: { studied: number, first: LocalDay }
  fit: { adopted: string, items: string }
  dueToday: number
}

async function call<T> (app: FastifyInstance, operation: string, body: object, expected = [200, 201]): Promise<T> {
  const response = await app.inject({ method: 'POST', url: `/api/${operation}`, payload: body })
  if (!expected.includes(response.statusCode)) throw new Error(`${operation} answered ${response.statusCode}: ${response.body}`)
  return response.json<T>()
}

/** upload-media, as a browser's FormData sends it: the token, then the file. */
async function upload (app: FastifyInstance, jwtToken: string, file: { name: string, type: string, bytes: Buffer }): Promise<string> {
  const boundary = `----demo${randomBytes(8).toString('hex')}`
  const payload = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="jwtToken"\r\n\r\n${jwtToken}\r\n`),
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\nContent-Type: ${file.type}\r\n\r\n`),
    file.bytes,
    Buffer.from(`\r\n--${boundary}--\r\n`)
  ])
  const response = await app.inject({ method: 'POST', url: '/api/upload-media', payload, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } })
  if (response.statusCode !== 201 && response.statusCode !== 200) throw new Error(`upload-media answered ${response.statusCode}: ${response.body}`)
  return response.json<{ mediaID: string }>().mediaID
}

/** Where a placeholder card of the plan is in the library. */
interface MadeCard { cardID: string, flashcardID: string }

/**
 * The reviews of one day, written as review-card writes them: the log
 * entries (each with the answer it gave), the day's count, and the account's
 * XP, review count, today's counts and the start of its due queue; the cards'
 * schedules once, when the bulk part of the year ends.
 */
class HistoryWriter {
  private totalXp = 0
  private reviewCount = 0
  /** each card's last answer in bulk: its schedule, reviews and the review that left it */
  private readonly lastAnswers = new Map<string, { after: CardSchedule, reviews: number, reviewID: string }>()
  private readonly pendingReviews: ReviewDocument[] = []

  constructor (private readonly app: FastifyInstance, private readonly userID: string, private readonly calendar: UserCalendar) {}

  async day (day: LocalDay, answers: ReadonlyArray<{ answer: GivenAnswer, card: MadeCard }>): Promise<void> {
    if (answers.length === 0) return
    const db = this.app.databaseClient.db()
    const reviews: ReviewDocument[] = answers.map(({ answer, card }) => {
      this.totalXp += XP_PER_REVIEW
      this.reviewCount += 1
      const reviewID = `server-${newId()}`
      const last = this.lastAnswers.get(card.cardID)
      this.lastAnswers.set(card.cardID, { after: answer.after, reviews: (last?.reviews ?? 0) + 1, reviewID })
      return {
        _id: newId(),
        userID: this.userID,
        reviewID,
        cardID: card.cardID,
        flashcardID: card.flashcardID,
        rating: answer.rating,
        reviewedAt: answer.at,
        day: answer.day,
        wasNew: answer.wasNew,
        before: answer.before,
        after: answer.after,
        xp: XP_PER_REVIEW,
        seq: this.reviewCount,
        answer: {
          cardID: card.cardID,
          review_status: reviewStatus(answer.after),
          last_review: displayDayOf(answer.at, this.calendar),
          due: answer.after.due.toISOString(),
          xp_gained: String(XP_PER_REVIEW),
          total_xp: String(this.totalXp)
        }
      }
    })
    // the log is read by nothing the year's later requests make (goals read the day counts and the account): it is sent in large batches
    this.pendingReviews.push(...reviews)
    if (this.pendingReviews.length >= 5000) await this.sendReviews()
    await db.collection<DayActivityDocument>('activity').updateOne(
      { _id: activityId(this.userID, day) },
      { $inc: { reviews: reviews.length, xp: reviews.length * XP_PER_REVIEW }, $setOnInsert: { userID: this.userID, day } },
      { upsert: true }
    )
    const { start, end } = userDay(answers[0]?.answer.at ?? new Date(), this.calendar)
    const newCards = answers.filter(({ answer }) => answer.wasNew).length
    const studyDay: StudyDay = { day, start, end, reviews: answers.length - newCards, newCards }
    const earliestDue = Math.min(...answers.map(({ answer }) => answer.after.due.getTime()))
    await db.collection<UserDocument>('users').updateOne({ _id: this.userID }, {
      $inc: { totalXp: reviews.length * XP_PER_REVIEW, reviewCount: reviews.length, 'queueFrom.writes': reviews.length },
      $min: { 'queueFrom.due.at': new Date(earliestDue - 1) },
      $set: { studyDay }
    })
  }

  private async sendReviews (): Promise<void> {
    if (this.pendingReviews.length === 0) return
    await this.app.databaseClient.db().collection<ReviewDocument>('reviews').insertMany(this.pendingReviews.splice(0), { ordered: false })
  }

  /**
   * Ends the bulk part: the log entries still to send, and every card answered in bulk
   * given the schedule its last answer left, as review-card's last update of it would have.
   */
  async finish (): Promise<void> {
    await this.sendReviews()
    const cards = this.app.databaseClient.db().collection<CardDocument>('cardStates')
    const updates = [...this.lastAnswers].map(([cardID, last]) => ({
      updateOne: {
        filter: { _id: cardID, userID: this.userID },
        update: { $set: { ...last.after, isNew: queueKeyAfterSchedule(true, last.after.state), lastReviewID: last.reviewID, version: last.reviews } }
      }
    }))
    for (let start = 0; start < updates.length; start += 1000) await cards.bulkWrite(updates.slice(start, start + 1000), { ordered: false })
  }
}

/**
 * Makes the demo learner as of `now`, replacing an earlier one. `setClock`
 * moves the clock `app` was built with; it is left at `now`.
 */
export async function seedDemo (app: FastifyInstance, setClock: SetClock, now: Date, log: (line: string) => void = () => {}): Promise<DemoFacts> {
  const started = performance.now()
  const seconds = (): string => `${((performance.now() - started) / 1000).toFixed(1)} s`
  const parts = libraryParts()
  const plan = planDemo(parts, now)
  log(`planned a year of ${plan.days.reduce((sum, day) => sum + day.answers.length, 0).toLocaleString('en')} answers in ${seconds()}`)

  const existing = await app.repositories.users.findByEmail(DEMO_ACCOUNT.email)
  if (existing !== null) await app.services.accountDeletion.deleteAndWait(existing._id)
  setClock(plan.registeredAt)
  const { userID, jwtToken } = await call<{ userID: string, jwtToken: string }>(app, 'register', { ...DEMO_ACCOUNT, timezone: DEMO_SETTINGS.timezone })
  const { dayStartHour, newCardsPerDay, reviewsPerDay, desiredRetention } = DEMO_SETTINGS
  await call(app, 'update-settings', { jwtToken, dayStartHour, newCardsPerDay, reviewsPerDay, desiredRetention })
  const calendar: UserCalendar = { timezone: DEMO_SETTINGS.timezone, dayStartHour: DEMO_SETTINGS.dayStartHour }

  const made = new Map<string, MadeCard>()
  const decks = new Map<string, string>()
  let media = 0
  const addPart = async (part: DeckPart, placeholders: readonly string[]): Promise<void> => {
    const mediaIDs = new Map<string, string>()
    for (const file of part.files) mediaIDs.set(file.key, await upload(app, jwtToken, { name: file.name, type: file.type, bytes: file.bytes() }))
    media += part.files.length
    const cards = part.cards(mediaIDs)
    const deckKey = [...part.folder, part.deck].join('\u0000')
    let flashcardID = decks.get(deckKey)
    let cardIDs: string[]
    if (flashcardID === undefined) {
      await call(app, 'create-folder', { jwtToken, path: part.folder }, [201, 409])
      const created = await call<{ flashcardID: string, cardIDs: string[] }>(app, 'create-flashcard', {
        jwtToken, folder: part.folder, flashcardName: part.deck, description: part.description, cards
      })
      flashcardID = created.flashcardID
      cardIDs = created.cardIDs
      decks.set(deckKey, flashcardID)
    } else {
      cardIDs = (await call<{ cardIDs: string[] }>(app, 'add-cards', { jwtToken, flashcardID, cards })).cardIDs
    }
    if (cardIDs.length !== placeholders.length) throw new Error(`${part.deck}: ${cardIDs.length} cards made, ${placeholders.length} planned`)
    placeholders.forEach((placeholder, index) => { made.set(placeholder, { cardID: cardIDs[index] as string, flashcardID: flashcardID as string }) })
  }
  const cardOf = (answer: GivenAnswer): MadeCard => {
    const card = made.get(answer.card.cardID)
    if (card === undefined) throw new Error(`card ${answer.card.cardID} was answered before it was made`)
    return card
  }

  const history = new HistoryWriter(app, userID, calendar)
  const answers = { inBulk: 0, throughService: 0 }
  let bulkDone = false
  const live = async (day: PlannedDay): Promise<void> => {
    if (!bulkDone) {
      await history.finish()
      bulkDone = true
      log(`  ${answers.inBulk.toLocaleString('en')} answers written in bulk, ${made.size.toLocaleString('en')} cards and ${media} media made through the service (${seconds()})`)
    }
    for (const answer of day.answers) {
      setClock(answer.at)
      const card = cardOf(answer)
      const recorded = await call<{ due: string }>(app, 'review-card', { jwtToken, flashcardID: card.flashcardID, cardID: card.cardID, rating: answer.rating })
      // the plan scheduled it with the service's own function: a difference is a plan out of step with the data
      if (recorded.due !== answer.after.due.toISOString()) throw new Error(`review-card scheduled card ${card.cardID} for ${recorded.due}, the plan for ${answer.after.due.toISOString()}`)
      answers.throughService += 1
    }
  }

  for (const day of plan.days) {
    for (const part of day.parts) {
      setClock(part.at)
      await addPart(parts[part.part] as DeckPart, part.cardIDs)
    }
    for (const goal of day.goals) {
      setClock(goal.at)
      await call(app, 'create-goal', { jwtToken, type: goal.type, target: goal.target, end_date: formatDay(goal.endDay) })
    }
    if (day.throughService) {
      await live(day)
    } else {
      await history.day(day.day, day.answers.map((answer) => ({ answer, card: cardOf(answer) })))
      answers.inBulk += day.answers.length
    }
  }
  log(`  ${answers.throughService.toLocaleString('en')} answers of the last days through review-card (${seconds()})`)

  setClock(now)
  await call(app, 'update-goal-status', { jwtToken })
  const fit = await call<{ adopted: string, items: string }>(app, 'optimize-schedule', { jwtToken })
  log(`  parameters fitted to ${Number(fit.items).toLocaleString('en')} reviews, adopted: ${fit.adopted} (${seconds()})`)
  const today = await call<Record<string, unknown>>(app, 'get-today-cards', { jwtToken })
  const studied = plan.days.filter((day) => day.answers.length > 0)
  return {
    userID,
    jwtToken,
    cards: made.size,
    media,
    answers,
    days: { studied: studied.length, first: studied[0]?.day ?? '' },
    fit: { adopted: fit.adopted, items: fit.items },
    dueToday: JSON.stringify(today).match(/"review_status"/g)?.length ?? 0
  }
}
