import { kindOfAnkiEntry, lastReviewRole } from '../domain/anki-revlog.js'
import { userDay } from '../domain/calendar.js'
import { newId } from '../domain/ids.js'
import { DEFAULT_PARAMETERS, type MemoryState, type Parameters } from '../domain/memory-model.js'
import { invalidToken, Refusal } from '../domain/refusals.js'
import { moreHistoryNeeded, RETENTIONS_COMPARED, rescheduledCard, type FitReport } from '../domain/schedule-fit.js'
import { CardState, type Rating } from '../domain/scheduling.js'
import { dayNumber, type ReviewKind } from '../domain/training-items.js'
import { KINDS, type PackedLog, type PackedStates } from '../fitting/jobs.js'
import type { Fitter } from '../fitting/fitter.js'
import type { Rescheduled } from '../repositories/card-states.js'
import type { UserDocument } from '../repositories/users.js'
import type { ServiceContext } from './context.js'
import { fitAnswer, scheduleAnswer, type FitAnswer } from './wire.js'

/** How fits share the work between instances and with the requests of others. */
export interface FittingSettings {
  /** how long a fit's lease lasts unless its instance renews it; an instance that dies leaves the user's fits blocked this long at most */
  leaseMs: number
  /** how often a call waiting on another instance's fit looks whether it is done */
  waitPollMs: number
  /** reviews read from the log in one batch: a small one holds the database, and the event loop, for a short while each, so that other users' requests pass in between */
  logBatch: number
  /** cards given new schedules in one transaction */
  rescheduleBatch: number
}

export const DEFAULT_FITTING_SETTINGS: FittingSettings = { leaseMs: 30_000, waitPollMs: 250, logBatch: 200, rescheduleBatch: 200 }

const RATING_NUMBERS: Readonly<Record<Rating, number>> = { again: 1, hard: 2, good: 3, easy: 4 }

const KIND_OF_STATE: Readonly<Record<number, number>> = {
  [CardState.New]: KINDS.indexOf('learning'),
  [CardState.Learning]: KINDS.indexOf('learning'),
  [CardState.Review]: KINDS.indexOf('review'),
  [CardState.Relearning]: KINDS.indexOf('relearning')
}

/**
 * The user's log packed for the worker, with the ids of its cards by index; and for each card the time of its last
 * answer, and of its last answer that rescheduled it as Anki counts one (a cram answer is not one;
 * a forget after it leaves none, 0): an imported card's last review is the second, or the first
 * for cards imported before the two were told apart.
 */
interface ReadLog { log: PackedLog, cardIDs: string[], lastAnswer: Float64Array, lastScheduled: Float64Array }

function grown<T extends Int32Array | Float64Array | Uint8Array> (array: T, length: number): T {
  const larger = new (array.constructor as new (length: number) => T)(length)
  larger.set(array)
  return larger
}

/** FSRS parameters fitted to each user's review log: optimize-schedule, get-schedule and reset-schedule. */
export function scheduleService (context: ServiceContext, fitter: Fitter, settings: FittingSettings, instance: string) {
  const { repositories } = context
  // one fit per user on this instance: a second call gets the first one's answer
  const fitsUnderWay = new Map<string, Promise<FitReport>>()

  /** The user's whole log, packed for the worker as it arrives. */
  async function readLog (userID: string): Promise<ReadLog> {
    let capacity = 1024
    let log: PackedLog = { card: new Int32Array(capacity), at: new Float64Array(capacity), day: new Int32Array(capacity), rating: new Uint8Array(capacity), kind: new Uint8Array(capacity) }
    const cardIndex = new Map<string, number>()
    const cardIDs: string[] = []
    const days = new Map<string, number>()
    let lastAnswer = new Float64Array(256)
    let lastScheduled = new Float64Array(256)
    let length = 0
    const add = (cardID: string, at: number, reviewDay: string, rating: Rating | null, kind: number): void => {
      if (length === capacity) {
        capacity *= 2
        log = { card: grown(log.card, capacity), at: grown(log.at, capacity), day: grown(log.day, capacity), rating: grown(log.rating, capacity), kind: grown(log.kind, capacity) }
      }
      let card = cardIndex.get(cardID)
      if (card === undefined) {
        card = cardIDs.length
        cardIndex.set(cardID, card)
        cardIDs.push(cardID)
        if (card === lastAnswer.length) {
          lastAnswer = grown(lastAnswer, card * 2)
          lastScheduled = grown(lastScheduled, card * 2)
        }
      }
      let day = days.get(reviewDay)
      if (day === undefined) {
        day = dayNumber(reviewDay)
        days.set(reviewDay, day)
      }
      log.card[length] = card
      log.at[length] = at
      log.day[length] = day
      log.rating[length] = rating === null ? 0 : RATING_NUMBERS[rating]
      log.kind[length] = kind
      // a manual change (no rating) is no answer: the card's schedule is still its last answer's
      if (rating !== null) lastAnswer[card] = Math.max(lastAnswer[card] as number, at)
      const role = lastReviewRole(KINDS[kind] as ReviewKind, rating !== null)
      if (role === 'sets') lastScheduled[card] = Math.max(lastScheduled[card] as number, at)
      else if (role === 'clears' && (lastScheduled[card] as number) < at) lastScheduled[card] = 0
      length += 1
    }
    await repositories.reviews.visitWholeLog(userID, settings.logBatch, (cardID, at, reviewDay, rating, stateBefore) => {
      add(cardID, at, reviewDay, rating, KIND_OF_STATE[stateBefore] ?? KINDS.indexOf('review'))
    })
    // and the histories Anki imports brought, once each import is done, each row of the kind Anki's training reads it as
    await repositories.reviewHistories.visitImported(userID, await repositories.imports.keptOf(userID), settings.logBatch, (cardID, at, reviewDay, rating, row) => {
      add(cardID, at, reviewDay, rating, KINDS.indexOf(kindOfAnkiEntry(row)))
    })
    const trimmed: PackedLog = { card: log.card.slice(0, length), at: log.at.slice(0, length), day: log.day.slice(0, length), rating: log.rating.slice(0, length), kind: log.kind.slice(0, length) }
    return { log: trimmed, cardIDs, lastAnswer, lastScheduled }
  }

  /**
   * Gives the user's studied cards the schedules `w` gives them, from the
   * memory states replayed from the log, in transactions of a batch of cards;
   * each card only over the version read, and only if its last review is the
   * last one the log held for it (one reviewed since keeps that review's
   * schedule). How many cards changed.
   */
  async function reschedule (user: UserDocument, states: PackedStates, read: ReadLog, w: Parameters): Promise<number> {
    const memory = new Map<string, MemoryState & { lastAnswer: number, lastScheduled: number }>()
    for (let index = 0; index < states.card.length; index++) {
      const card = states.card[index] as number
      const cardID = read.cardIDs[card]
      if (cardID === undefined) continue
      memory.set(cardID, { stability: states.stability[index] as number, difficulty: states.difficulty[index] as number, lastAnswer: read.lastAnswer[card] as number, lastScheduled: read.lastScheduled[card] as number })
    }
    const changes: Rescheduled[] = []
    for (const card of await repositories.cardStates.studied(user._id)) {
      const state = memory.get(card._id)
      const lastReview = card.lastReview?.getTime()
      if (state === undefined || (lastReview !== state.lastScheduled && lastReview !== state.lastAnswer)) continue
      changes.push({ _id: card._id, version: card.version, schedule: rescheduledCard(card, state, w, user.desiredRetention) })
    }
    let changed = 0
    for (let start = 0; start < changes.length; start += settings.rescheduleBatch) {
      const batch = changes.slice(start, start + settings.rescheduleBatch)
      const firstDue = new Date(Math.min(...batch.map((change) => change.schedule.due.getTime())))
      changed += await context.transaction(async ({ cardStates, users }) => {
        // a card moved earlier must not lie before the start of the due queue, where today's cards never look
        await users.queueDueCards(user._id, firstDue)
        return await cardStates.reschedule(user._id, batch)
      })
    }
    return changed
  }

  /** Waits while another instance holds the user's lease (seen held by `fitID`); the fit that held it last. */
  async function waitForOtherFit (userID: string, fitID: string): Promise<string> {
    let seen = fitID
    for (;;) {
      const lease = await repositories.fitLeases.read(userID)
      if (lease === null || lease.until.getTime() <= Date.now()) return seen
      seen = lease.fitID
      await new Promise((resolve) => setTimeout(resolve, settings.waitPollMs))
    }
  }

  /**
   * Runs `work` holding the user's lease, renewed while it runs, so that one
   * fit runs for a user whatever the instance. When another instance holds
   * it, waits until it is done: `onOther` then says whether that fit's
   * result answers this call too (a value), or the lease is taken again.
   * Leases run on the wall clock, not the service's: they are about
   * processes dying, not the user's days.
   */
  async function underLease<T> (userID: string, work: (fitID: string) => Promise<T>, onOther: (fitID: string) => Promise<T | null>): Promise<T> {
    const fitID = newId()
    for (let tries = 0; ; tries++) {
      const now = Date.now()
      const holder = await repositories.fitLeases.acquire(userID, fitID, instance, new Date(now), new Date(now + settings.leaseMs))
      if (holder === null) break
      const answered = await onOther(await waitForOtherFit(userID, holder))
      if (answered !== null) return answered
      if (tries >= 3) throw new Refusal('changed_meanwhile', 'another fit of your parameters kept starting meanwhile: try again')
    }
    const renewal = setInterval(() => {
      repositories.fitLeases.renew(userID, fitID, new Date(Date.now() + settings.leaseMs)).catch(() => {})
    }, Math.max(10, settings.leaseMs / 3))
    try {
      return await work(fitID)
    } finally {
      clearInterval(renewal)
      await repositories.fitLeases.release(userID, fitID).catch(() => {})
    }
  }

  async function fitOnce (user: UserDocument, withReschedule: boolean): Promise<FitReport> {
    return await underLease(user._id, async (fitID) => {
      const read = await readLog(user._id)
      const retentions = [...new Set([...RETENTIONS_COMPARED, user.desiredRetention])].sort((a, b) => a - b)
      const outcome = await fitter.run({
        type: 'fit',
        log: read.log,
        inUse: user.fsrsParameters ?? null,
        retentions,
        newCardsPerDay: user.newCardsPerDay,
        today: dayNumber(userDay(context.clock(), user).day),
        withStates: withReschedule
      })
      if (outcome.type === 'too-little') throw new Refusal('not_enough_history', moreHistoryNeeded(outcome.items))
      const report: FitReport = {
        fitID,
        fittedAt: context.clock(),
        reviews: outcome.reviews,
        items: outcome.items,
        parameters: outcome.parameters,
        default: outcome.default,
        fitted: outcome.fitted,
        adopted: outcome.adopted,
        workload: outcome.workload,
        newCardsPerDay: user.newCardsPerDay,
        rescheduled: 0
      }
      const account = await repositories.users.recordFit(user._id, report, outcome.adopted ? outcome.parameters : undefined)
      if (account === null) throw invalidToken()
      if (outcome.states === undefined) return report
      report.rescheduled = await reschedule(account, outcome.states, read, outcome.parameters)
      await repositories.users.recordFit(user._id, report)
      return report
    }, async (otherFit) => {
      // the fit another instance ran is this call's answer, as it would be on one instance
      const account = await repositories.users.findById(user._id)
      if (account === null) throw invalidToken()
      return otherFit !== '' && account.scheduleFit?.fitID === otherFit ? account.scheduleFit : null
    })
  }

  return {
    /**
     * Fits the user's parameters to their review log, adopts them when they
     * predict better than the defaults, and gives the studied cards new
     * schedules with them if asked. One fit per user at a time: a call made
     * while one runs, on any instance, waits for it and answers what it found.
     */
    async optimize (user: UserDocument, options: { reschedule?: boolean }): Promise<FitAnswer> {
      let fit = fitsUnderWay.get(user._id)
      if (fit === undefined) {
        fit = fitOnce(user, options.reschedule === true).finally(() => fitsUnderWay.delete(user._id))
        fitsUnderWay.set(user._id, fit)
      }
      return fitAnswer(await fit)
    },

    /** The parameters in use, the desired retention, and the last fit with what each retention costs. */
    status (user: UserDocument) {
      // whoever looks at their parameters may well fit them next: the worker loads meanwhile
      fitter.warm()
      return scheduleAnswer(user)
    },

    /**
     * Schedules with the default parameters again, and gives the studied cards
     * new schedules with them if asked; the last fit's report stays, for the
     * learner to compare. Waits for a fit of the user under way.
     */
    async useDefaults (user: UserDocument, options: { reschedule?: boolean }) {
      await fitsUnderWay.get(user._id)?.catch(() => {})
      return await underLease(user._id, async () => {
        const account = await repositories.users.useDefaultParameters(user._id)
        if (account === null) throw invalidToken()
        let rescheduled = 0
        if (options.reschedule === true) {
          const read = await readLog(user._id)
          const states = await fitter.run({ type: 'states', log: read.log, parameters: [...DEFAULT_PARAMETERS] })
          rescheduled = await reschedule(account, states, read, DEFAULT_PARAMETERS)
        }
        return { ...scheduleAnswer(account), rescheduled: String(rescheduled) }
      }, async () => null)
    }
  }
}

export type ScheduleService = ReturnType<typeof scheduleService>
