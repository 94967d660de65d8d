import type { ClientSession, Db } from 'mongodb'
import type { LocalDay } from '../domain/calendar.js'
import { NOTHING_DONE, type DayActivity, type Goal } from '../domain/goals.js'

export interface GoalDocument extends Omit<Goal, 'id' | 'earlierThatDay'> {
  _id: string
  userID: string
  createdAt: Date
  /**
   * Absent on goals stored before goals counted from their creation: those count
   * their whole start day, as they did then (see toGoal).
   */
  earlierThatDay?: DayActivity
  /**
   * The account's review count when the goal was created: the reviews whose `seq` is
   * at most this were made before it, even those of the same instant. Absent on goals
   * stored before goals counted from their creation, which undo leaves as they were.
   */
  seqAtCreation?: number
}

export function toGoal (document: GoalDocument): Goal {
  return {
    id: document._id,
    type: document.type,
    target: document.target,
    startDay: document.startDay,
    endDay: document.endDay,
    startingXp: document.startingXp,
    earlierThatDay: document.earlierThatDay ?? NOTHING_DONE,
    status: document.status,
    failDay: document.failDay
  }
}

export function goalsRepository (db: Db, session?: ClientSession) {
  const goals = db.collection<GoalDocument>('goals')
  const inSession = { session }
  return {
    async insert (document: GoalDocument): Promise<void> {
      await goals.insertOne(document, inSession)
    },

    /** Index user_created. */
    all (userID: string): Promise<GoalDocument[]> {
      return goals.find({ userID }, inSession).sort({ createdAt: 1, _id: 1 }).toArray()
    },

    /**
     * Stores a goal's new status. Only a goal still in progress is changed,
     * so a final status written by a concurrent call is never overwritten.
     */
    async settle (userID: string, settled: readonly Goal[]): Promise<void> {
      if (settled.length === 0) return
      await goals.bulkWrite(settled.map((goal) => ({
        updateOne: {
          filter: { _id: goal.id, userID, status: 'in progress' as const },
          update: { $set: { status: goal.status, failDay: goal.failDay } }
        }
      })), { ordered: false, session })
    },

    findOne (userID: string, goalID: string): Promise<GoalDocument | null> {
      return goals.findOne({ _id: goalID, userID }, inSession)
    },

    /**
     * Stores a new target and end day, with the status they give. Only a goal
     * still in progress changes: false when it became final in the meantime.
     */
    async edit (userID: string, goal: Goal): Promise<boolean> {
      const result = await goals.updateOne(
        { _id: goal.id, userID, status: 'in progress' },
        { $set: { target: goal.target, endDay: goal.endDay, status: goal.status, failDay: goal.failDay } },
        inSession
      )
      return result.matchedCount === 1
    },

    /**
     * Takes an undone review out of the history the user's later goals started from,
     * as if it had never been made: out of their starting XP, and out of what their
     * start day held before them if it was made that day. Their progress, which
     * counts only what came after them, stays what it was; an XP goal's stays its
     * total XP less its starting XP. Goals without `seqAtCreation` are left alone.
     */
    async forgetReview (userID: string, review: { seq: number, day: LocalDay, xp: number }): Promise<void> {
      const madeBefore = { userID, seqAtCreation: { $gte: review.seq } }
      await goals.bulkWrite([
        { updateMany: { filter: madeBefore, update: { $inc: { startingXp: -review.xp } } } },
        { updateMany: { filter: { ...madeBefore, startDay: review.day }, update: { $inc: { 'earlierThatDay.reviews': -1, 'earlierThatDay.xp': -review.xp } } } }
      ], { ordered: false, session })
    },

    /** false when the user has no such goal */
    async remove (userID: string, goalID: string): Promise<boolean> {
      const result = await goals.deleteOne({ _id: goalID, userID }, inSession)
      return result.deletedCount === 1
    }
  }
}

export type GoalsRepository = ReturnType<typeof goalsRepository>
