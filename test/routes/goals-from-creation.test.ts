import { test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { newId } from '../../src/domain/ids.js'
import { databaseOf, buildTestApp, expectOk, makeDeck, post, registerUser, type TestUser } from '../helpers/app.js'

type GoalView = { status: string, fail_date: string, data: Record<string, string> } & Record<string, unknown>

/** A learner with one card, reviewed again and again ("again" keeps it due): 10 XP a review. */
async function learner (app: FastifyInstance, fields: Record<string, unknown> = {}) {
  const user = await registerUser(app, fields)
  const { flashcardID, cardIDs: [cardID = ''] } = await makeDeck(app, user, { folder: ['Deck'], name: 'Deck', cards: 1 })
  return { user, flashcardID, cardID }
}

async function review (app: FastifyInstance, { user, flashcardID, cardID }: { user: TestUser, flashcardID: string, cardID: string }, count = 1): Promise<void> {
  for (let i = 0; i < count; i++) await expectOk(app, 'review-card', { jwtToken: user.jwtToken, flashcardID, cardID, rating: 'again' })
}

async function undo (app: FastifyInstance, user: TestUser): Promise<void> {
  await expectOk(app, 'undo-review', { jwtToken: user.jwtToken })
}

async function createGoal (app: FastifyInstance, user: TestUser, type: 'Card' | 'XP', target: number, endDate: string): Promise<{ goalID: string, goal: GoalView }> {
  return await expectOk(app, 'create-goal', { jwtToken: user.jwtToken, type, target, end_date: endDate }, 201)
}

async function goalsOf (app: FastifyInstance, user: TestUser): Promise<Record<string, GoalView>> {
  return await expectOk(app, 'update-goal-status', { jwtToken: user.jwtToken })
}

/** The user's total XP, as a client reads it. */
async function totalXp (app: FastifyInstance, user: TestUser): Promise<number> {
  return Number((await post(app, 'get-user', { jwtToken: user.jwtToken })).json().total_xp)
}

/** What a client shows as an XP goal's progress: total XP less the goal's starting_xp. */
async function clientXpProgress (app: FastifyInstance, user: TestUser, goal: GoalView | undefined): Promise<number> {
  return await totalXp(app, user) - Number(goal?.data.starting_xp)
}

test('goals count what happens after they are created', async (t) => {
  let current = new Date('2026-05-04T09:00:00Z')
  const app = await buildTestApp(t, import.meta.filename, { clock: () => current })

  await t.test('a Card goal set after a morning\'s study starts at "0", in progress, and counts the reviews after it', async (t) => {
    current = new Date('2026-05-04T09:00:00Z')
    const study = await learner(app)
    await review(app, study, 35)
    // at the very instant of those reviews: the order they were made in tells, not the clock
    const { goalID, goal } = await createGoal(app, study.user, 'Card', 30, '10/05/2026')
    t.strictSame(goal, {
      data: { cards_revised_so_far: '0', cards_to_revise: '30' },
      end_date: '10/05/2026',
      fail_date: '" "',
      status: 'in progress',
      title: 'Revise 30 cards by 10/05/2026',
      type: 'Card'
    }, 'not born completed with "35 of 30"')
    t.strictSame((await goalsOf(app, study.user))[goalID], goal, 'update-goal-status shows it so')

    await review(app, study, 2)
    t.match((await goalsOf(app, study.user))[goalID], { status: 'in progress', data: { cards_revised_so_far: '2' } }, 'reviews after it, the same instant still')
    current = new Date('2026-05-04T15:00:00Z')
    await review(app, study, 3)
    current = new Date('2026-05-06T10:00:00Z')
    await review(app, study, 24)
    t.match((await goalsOf(app, study.user))[goalID], { status: 'in progress', data: { cards_revised_so_far: '29' } })
    await review(app, study, 1)
    t.match((await goalsOf(app, study.user))[goalID], { status: 'completed', fail_date: '" "', data: { cards_revised_so_far: '30' } }, 'completed by the 30 reviews after it')
  })

  await t.test('an XP goal set after reviews starts at 0: starting_xp is the XP then, and its progress is total XP less starting_xp', async (t) => {
    current = new Date('2026-05-04T09:00:00Z')
    const study = await learner(app)
    await review(app, study, 3)
    const { goalID, goal } = await createGoal(app, study.user, 'XP', 20, '10/05/2026')
    t.strictSame(goal.data, { goal_xp: '20', start_date: '04/05/2026', starting_xp: '30' })
    t.equal(goal.status, 'in progress', 'the 30 XP of the morning do not meet it')
    t.equal(await clientXpProgress(app, study.user, goal), 0, 'a client computes 0 too')

    await review(app, study, 1)
    let goals = await goalsOf(app, study.user)
    t.equal(goals[goalID]?.status, 'in progress', '10 XP since: the service agrees with total − starting_xp')
    t.equal(await clientXpProgress(app, study.user, goals[goalID]), 10)
    current = new Date('2026-05-05T09:00:00Z')
    await review(app, study, 1)
    goals = await goalsOf(app, study.user)
    t.equal(await clientXpProgress(app, study.user, goals[goalID]), 20)
    t.match(goals[goalID], { status: 'completed', fail_date: '" "', data: { starting_xp: '30' } }, 'completed when total − starting_xp reaches goal_xp')
  })

  await t.test('goals of both types set after earlier reviews fail or complete by what happens after them, by end_date, whenever asked', async (t) => {
    current = new Date('2026-06-10T09:00:00Z')
    const study = await learner(app)
    await review(app, study, 4)
    const missed = { card: (await createGoal(app, study.user, 'Card', 3, '11/06/2026')).goalID, xp: (await createGoal(app, study.user, 'XP', 30, '11/06/2026')).goalID }
    const met = { card: (await createGoal(app, study.user, 'Card', 2, '11/06/2026')).goalID, xp: (await createGoal(app, study.user, 'XP', 20, '11/06/2026')).goalID }
    current = new Date('2026-06-11T09:00:00Z')
    await review(app, study, 2)
    // the day after end_date: more reviews than the targets, which come too late
    current = new Date('2026-06-12T09:00:00Z')
    await review(app, study, 5)

    current = new Date('2026-06-20T09:00:00Z')
    const goals = await goalsOf(app, study.user)
    t.match(goals[missed.card], { status: 'failed', fail_date: '12/06/2026', data: { cards_revised_so_far: '2' } }, 'the 4 reviews before it and the 5 after end_date do not count')
    t.match(goals[missed.xp], { status: 'failed', fail_date: '12/06/2026', data: { starting_xp: '40' } }, 'neither does their XP')
    t.match(goals[met.card], { status: 'completed', fail_date: '" "', data: { cards_revised_so_far: '2' } })
    t.match(goals[met.xp], { status: 'completed', fail_date: '" "' })
    t.equal(await clientXpProgress(app, study.user, goals[missed.xp]), 70, 'total − starting_xp now holds the XP after end_date, which a failed goal does not count')

    current = new Date('2026-09-01T09:00:00Z')
    t.strictSame(await goalsOf(app, study.user), goals, 'the same answer months later')
  })

  await t.test('undo-review takes a review back out of the goals it counted for, and out of the history they started from', async (t) => {
    current = new Date('2026-07-01T08:00:00Z')
    const study = await learner(app)
    await review(app, study, 1) // the day before the goals
    current = new Date('2026-07-02T08:00:00Z')
    await review(app, study, 2)
    current = new Date('2026-07-02T09:00:00Z')
    const card = (await createGoal(app, study.user, 'Card', 2, '10/07/2026')).goalID
    const xp = (await createGoal(app, study.user, 'XP', 20, '10/07/2026')).goalID
    let goals = await goalsOf(app, study.user)
    t.match(goals[xp], { data: { starting_xp: '30' } })

    await review(app, study, 1)
    goals = await goalsOf(app, study.user)
    t.match(goals[card], { data: { cards_revised_so_far: '1' } })
    t.equal(await clientXpProgress(app, study.user, goals[xp]), 10)

    await undo(app, study.user) // the review after the goals
    goals = await goalsOf(app, study.user)
    t.match(goals[card], { status: 'in progress', data: { cards_revised_so_far: '0' } })
    t.match(goals[xp], { status: 'in progress', data: { starting_xp: '30' } })
    t.equal(await clientXpProgress(app, study.user, goals[xp]), 0)

    await undo(app, study.user) // a review of the morning, made before the goals
    await undo(app, study.user) // and the review of the day before
    goals = await goalsOf(app, study.user)
    t.match(goals[card], { status: 'in progress', data: { cards_revised_so_far: '0' } }, 'still none after it')
    t.match(goals[xp], { status: 'in progress', data: { starting_xp: '10' } }, 'the XP it started from is the XP without the undone reviews')
    t.equal(await clientXpProgress(app, study.user, goals[xp]), 0, 'so total − starting_xp is still 0')

    await review(app, study, 1)
    goals = await goalsOf(app, study.user)
    t.match(goals[card], { status: 'in progress', data: { cards_revised_so_far: '1' } }, 'a review after the undos counts once')
    t.equal(await clientXpProgress(app, study.user, goals[xp]), 10)
    t.equal(goals[xp]?.status, 'in progress')
    await review(app, study, 1)
    goals = await goalsOf(app, study.user)
    t.match(goals[card], { status: 'completed', data: { cards_revised_so_far: '2' } })
    t.equal(await clientXpProgress(app, study.user, goals[xp]), 20)
    t.equal(goals[xp]?.status, 'completed', 'the service completes the XP goal when total − starting_xp reaches goal_xp')
  })

  await t.test("a deleted card's reviews after the goal still count", async (t) => {
    current = new Date('2026-07-05T09:00:00Z')
    const study = await learner(app)
    await review(app, study, 2)
    const goalID = (await createGoal(app, study.user, 'Card', 5, '10/07/2026')).goalID
    await review(app, study, 1)
    const deleted = await post(app, 'delete-card', { jwtToken: study.user.jwtToken, flashcardID: study.flashcardID, cardID: study.cardID })
    t.equal(deleted.statusCode, 200)
    t.match((await goalsOf(app, study.user))[goalID], { data: { cards_revised_so_far: '1' } })
  })

  await t.test('goals set while reviews are being made start exactly where the account stood', async (t) => {
    current = new Date('2026-07-20T09:00:00Z')
    const user = await registerUser(app)
    const { flashcardID, cardIDs } = await makeDeck(app, user, { folder: ['Many'], name: 'Many', cards: 15 })
    const reviews = Promise.all(cardIDs.map((cardID) => post(app, 'review-card', { jwtToken: user.jwtToken, flashcardID, cardID, rating: 'good' })))
    // one goal after the other while the reviews go on, so that they start at different points
    const created: number[] = []
    for (let index = 0; index < 6; index++) {
      created.push((await post(app, 'create-goal', { jwtToken: user.jwtToken, type: index % 2 === 0 ? 'Card' : 'XP', target: 1000, end_date: '20/07/2026' })).statusCode)
    }
    t.strictSame(created, Array(6).fill(201))
    t.strictSame((await reviews).map((response) => response.statusCode), Array(15).fill(200))

    // every review is either before a goal (in its starting point) or counted toward it, and the
    // starting XP, the day's count before it and the reviews numbered before it are of one moment
    const shown = await goalsOf(app, user)
    const stored = await databaseOf(app).collection<{ _id: string, type: string, startingXp: number, earlierThatDay: { reviews: number, xp: number }, seqAtCreation: number }>('goals')
      .find({ userID: user.userID }).toArray()
    const seqs = (await databaseOf(app).collection<{ seq: number }>('reviews').find({ userID: user.userID }).toArray()).map((logged) => logged.seq)
    t.equal(stored.length, 6)
    for (const goal of stored) {
      const before = seqs.filter((seq) => seq <= goal.seqAtCreation).length
      t.strictSame(goal.earlierThatDay, { reviews: before, xp: 10 * before }, 'the day held the reviews numbered before it')
      t.equal(goal.startingXp, 10 * before, 'and the account their XP: all of it was made that day')
      if (goal.type === 'Card') t.equal(shown[goal._id]?.data.cards_revised_so_far, String(15 - before), 'the others count toward it')
    }
  })

  await t.test('a goal stored before goals counted from their creation keeps what it showed', async (t) => {
    current = new Date('2026-08-03T09:00:00Z')
    const study = await learner(app)
    await review(app, study, 3)
    // as the earlier version stored goals, set after those 3 reviews: no record of what the day held before them
    const legacy = (type: 'Card' | 'XP', target: number) => ({
      _id: newId(),
      userID: study.user.userID,
      createdAt: new Date('2026-08-03T10:00:00Z'),
      type,
      target,
      startDay: '2026-08-03',
      endDay: '2026-08-10',
      startingXp: 30,
      status: 'in progress',
      failDay: null
    })
    const card = legacy('Card', 5)
    const xpMet = legacy('XP', 30)
    const xpOpen = legacy('XP', 100)
    await databaseOf(app).collection('goals').insertMany([card, xpMet, xpOpen] as never[])
    current = new Date('2026-08-03T10:00:00Z')

    let goals = await goalsOf(app, study.user)
    t.match(goals[card._id], { status: 'in progress', data: { cards_revised_so_far: '3' } }, 'the whole start day counts, as it did')
    t.match(goals[xpMet._id], { status: 'completed' }, 'met by the XP of its start day, as it was')
    t.match(goals[xpOpen._id], { status: 'in progress', data: { starting_xp: '30' } })

    await review(app, study, 1)
    await undo(app, study.user)
    await undo(app, study.user) // a review of the start day made before the goals
    goals = await goalsOf(app, study.user)
    t.match(goals[card._id], { data: { cards_revised_so_far: '2' } }, 'an undo takes its review out of the count, as it did')
    t.match(goals[xpOpen._id], { data: { starting_xp: '30' } }, 'and leaves starting_xp as it was')
    t.match(goals[xpMet._id], { status: 'completed' }, 'completed is final')
  })
})
