import { test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { databaseOf, buildTestApp, expectOk, makeDeck, post, registerUser, type TestUser } from '../helpers/app.js'

const UNKNOWN_GOAL = '1'.repeat(39)

async function createGoal (app: FastifyInstance, user: TestUser, type: 'Card' | 'XP', target: number, endDate: string): Promise<string> {
  return (await expectOk<{ goalID: string }>(app, 'create-goal', { jwtToken: user.jwtToken, type, target, end_date: endDate }, 201)).goalID
}

/** Reviews `count` new cards of a fresh flashcard. */
async function reviewCards (app: FastifyInstance, user: TestUser, name: string, count: number): Promise<void> {
  const { flashcardID, cardIDs } = await makeDeck(app, user, { folder: [name], name, cards: count })
  for (const cardID of cardIDs) await expectOk(app, 'review-card', { jwtToken: user.jwtToken, flashcardID, cardID, rating: 'good' })
}

async function goalsOf (app: FastifyInstance, user: TestUser): Promise<Record<string, Record<string, unknown>>> {
  return await expectOk(app, 'update-goal-status', { jwtToken: user.jwtToken })
}

test('edit-goal and delete-goal', async (t) => {
  let current = new Date('2026-03-10T12:00:00Z')
  const app = await buildTestApp(t, import.meta.filename, { clock: () => current })
  const edit = async (user: TestUser, goalID: string, changes: Record<string, unknown>) =>
    await post(app, 'edit-goal', { jwtToken: user.jwtToken, goalID, ...changes })

  await t.test('a goal in progress takes a new target, a new end date, or both', async (t) => {
    const user = await registerUser(app)
    current = new Date('2026-03-10T12:00:00Z')
    const goalID = await createGoal(app, user, 'Card', 5, '20/03/2026')

    const target = await edit(user, goalID, { target: 8 })
    t.equal(target.statusCode, 200)
    t.same(target.json(), {
      goalID,
      goal: {
        data: { cards_revised_so_far: '0', cards_to_revise: '8' },
        end_date: '20/03/2026',
        fail_date: '" "',
        status: 'in progress',
        title: 'Revise 8 cards by 20/03/2026',
        type: 'Card'
      }
    })

    const endDate = await edit(user, goalID, { end_date: '25/03/2026' })
    t.equal(endDate.statusCode, 200)
    t.match(endDate.json().goal, { end_date: '25/03/2026', title: 'Revise 8 cards by 25/03/2026' })

    const both = await edit(user, goalID, { target: '12', end_date: '10/03/2026' })
    t.equal(both.statusCode, 200, 'a digit string target and today as end date')
    t.match(both.json().goal, { end_date: '10/03/2026', title: 'Revise 12 cards by 10/03/2026', data: { cards_to_revise: '12' } })
    t.same((await goalsOf(app, user))[goalID], both.json().goal, 'update-goal-status shows the edited goal')
  })

  await t.test('an XP goal keeps its start and starting XP', async (t) => {
    const user = await registerUser(app)
    current = new Date('2026-03-10T12:00:00Z')
    await reviewCards(app, user, 'Before', 2)
    const goalID = await createGoal(app, user, 'XP', 100, '15/03/2026')
    current = new Date('2026-03-12T12:00:00Z')
    const response = await edit(user, goalID, { target: 50, end_date: '31/03/2026' })
    t.equal(response.statusCode, 200)
    t.same(response.json().goal, {
      data: { goal_xp: '50', start_date: '10/03/2026', starting_xp: '20' },
      end_date: '31/03/2026',
      fail_date: '" "',
      status: 'in progress',
      title: 'Gain 50 XP by 31/03/2026',
      type: 'XP'
    })
  })

  await t.test('a target lowered to what is already done completes the goal', async (t) => {
    const user = await registerUser(app)
    current = new Date('2026-03-10T12:00:00Z')
    const goalID = await createGoal(app, user, 'Card', 5, '20/03/2026')
    await reviewCards(app, user, 'Three', 3)
    const response = await edit(user, goalID, { target: 3 })
    t.equal(response.statusCode, 200)
    t.match(response.json().goal, { status: 'completed', data: { cards_revised_so_far: '3', cards_to_revise: '3' } })
    t.equal((await goalsOf(app, user))[goalID]?.status, 'completed')
    const again = await edit(user, goalID, { target: 10 })
    t.equal(again.statusCode, 409, 'and it is final')
  })

  await t.test('a completed or failed goal cannot be changed, even before anyone asked its status', async (t) => {
    const user = await registerUser(app)
    current = new Date('2026-03-10T12:00:00Z')
    const completed = await createGoal(app, user, 'Card', 2, '20/03/2026')
    const failed = await createGoal(app, user, 'XP', 500, '11/03/2026')
    await reviewCards(app, user, 'Two', 2)
    current = new Date('2026-03-13T12:00:00Z')

    const stored = databaseOf(app).collection('goals')
    t.equal((await stored.findOne({ _id: completed as never }))?.status, 'in progress', 'the stored status lags')
    const done = await edit(user, completed, { target: 10 })
    t.equal(done.statusCode, 409)
    t.match(done.json().error, /completed/)
    const late = await edit(user, failed, { end_date: '30/03/2026' })
    t.equal(late.statusCode, 409)
    t.match(late.json().error, /failed/)

    t.match(await stored.findOne({ _id: completed as never }), { status: 'completed', target: 2 }, 'the status the history gives is stored, the target kept')
    t.match(await stored.findOne({ _id: failed as never }), { status: 'failed', endDay: '2026-03-11', failDay: '2026-03-12' })
    const goals = await goalsOf(app, user)
    t.match(goals[failed], { status: 'failed', end_date: '11/03/2026', fail_date: '12/03/2026' })
  })

  await t.test('malformed edits give 400 and change nothing', async (t) => {
    const user = await registerUser(app)
    current = new Date('2026-03-10T12:00:00Z')
    const goalID = await createGoal(app, user, 'Card', 5, '20/03/2026')
    const before = await goalsOf(app, user)
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{}, /target, a new end_date or both/],
      [{ end_date: '09/03/2026' }, /in the past/],
      [{ end_date: '31/02/2026' }, /not a calendar date/],
      [{ end_date: '2026-03-20' }, /DD\/MM\/YYYY/],
      [{ target: 0 }, /target/],
      [{ target: -3 }, /target/],
      [{ target: 2.5 }, /target/],
      [{ target: 'many' }, /target/],
      [{ target: 6, end_date: 'soon' }, /not a calendar date/]
    ]
    for (const [changes, message] of cases) {
      const response = await edit(user, goalID, changes)
      t.equal(response.statusCode, 400, JSON.stringify(changes))
      t.match(response.json().error, message)
    }
    const badID = await edit(user, 'abc', { target: 3 })
    t.equal(badID.statusCode, 400, 'a goalID that is not an id')
    t.same(await goalsOf(app, user), before)
  })

  await t.test('an unknown goal or another user\'s gives 404, and that goal is untouched', async (t) => {
    const owner = await registerUser(app)
    const other = await registerUser(app)
    current = new Date('2026-03-10T12:00:00Z')
    const goalID = await createGoal(app, owner, 'Card', 5, '20/03/2026')
    const before = await goalsOf(app, owner)
    for (const [user, id] of [[owner, UNKNOWN_GOAL], [other, goalID]] as const) {
      const edited = await edit(user, id, { target: 1 })
      t.equal(edited.statusCode, 404)
      t.match(edited.json().error, /no goal/)
      const deleted = await post(app, 'delete-goal', { jwtToken: user.jwtToken, goalID: id })
      t.equal(deleted.statusCode, 404)
    }
    t.same(await goalsOf(app, owner), before)
  })

  await t.test('delete-goal removes a goal of any status, once', async (t) => {
    const user = await registerUser(app)
    current = new Date('2026-03-10T12:00:00Z')
    const kept = await createGoal(app, user, 'Card', 5, '20/03/2026')
    const inProgress = await createGoal(app, user, 'XP', 50, '20/03/2026')
    const failed = await createGoal(app, user, 'Card', 50, '10/03/2026')
    current = new Date('2026-03-11T12:00:00Z')
    t.equal((await goalsOf(app, user))[failed]?.status, 'failed')

    for (const goalID of [inProgress, failed]) {
      const response = await post(app, 'delete-goal', { jwtToken: user.jwtToken, goalID })
      t.equal(response.statusCode, 200)
      t.same(response.json(), { goalID, deleted: 'true' })
    }
    t.same(Object.keys(await goalsOf(app, user)), [kept], 'only the other goal is left')
    t.equal(await databaseOf(app).collection('goals').countDocuments({ userID: user.userID }), 1)
    const again = await post(app, 'delete-goal', { jwtToken: user.jwtToken, goalID: inProgress })
    t.equal(again.statusCode, 404)
  })

  await t.test('an invalid token gives 401', async (t) => {
    for (const operation of ['edit-goal', 'delete-goal']) {
      const response = await post(app, operation, { jwtToken: 'not.a.token', goalID: UNKNOWN_GOAL, target: 3 })
      t.equal(response.statusCode, 401, operation)
      t.same(response.json(), { error: 'invalid or expired token', code: 'invalid_token' })
    }
  })
})
