import { createHmac } from 'node:crypto'
import { t, test } from 'tap'
import { TOKEN_AUDIENCE, TOKEN_ISSUER } from '../../src/plugins/auth.js'
import { buildTestApp, databaseOf, expectOk, expectRefusal, makeDeck, post, registerUser, tamperedToken, TEST_SECRET, type TestUser } from '../helpers/app.js'

type GoalMap = Record<string, Record<string, unknown>>

const PLACEHOLDER = '" "'
const GOAL_KEYS = ['data', 'end_date', 'fail_date', 'status', 'title', 'type']
const DATE = /^\d{2}\/\d{2}\/\d{4}$/
const DIGITS = /^\d+$/

function isObject (value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function sortedKeys (value: unknown): string[] {
  return isObject(value) ? Object.keys(value).sort() : []
}

/** Everything in an update-goal-status answer that breaks the published interface; [] for a conforming one. */
function goalProblems (goals: unknown): string[] {
  if (!isObject(goals)) return ['the answer is not an object']
  const problems: string[] = []
  const leaves = (value: unknown, where: string): void => {
    if (isObject(value)) for (const [key, child] of Object.entries(value)) leaves(child, `${where}.${key}`)
    else if (typeof value !== 'string') problems.push(`${where} is ${JSON.stringify(value)}, not a string`)
  }
  for (const [goalID, goal] of Object.entries(goals)) {
    if (!/^\d{30,}$/.test(goalID)) problems.push(`${goalID}: the key is not a goal id of 30+ digits`)
    leaves(goal, goalID)
    if (!isObject(goal)) continue
    if (JSON.stringify(sortedKeys(goal)) !== JSON.stringify(GOAL_KEYS)) problems.push(`${goalID} has keys ${sortedKeys(goal).join(',')}`)
    const { data, end_date: endDate, fail_date: failDate, status, title, type } = goal
    if (!['completed', 'in progress', 'failed'].includes(status as string)) problems.push(`${goalID}.status is ${JSON.stringify(status)}`)
    if (typeof endDate !== 'string' || !DATE.test(endDate)) problems.push(`${goalID}.end_date is ${JSON.stringify(endDate)}`)
    if (status === 'failed') {
      if (typeof failDate !== 'string' || !DATE.test(failDate)) problems.push(`${goalID}.fail_date of a failed goal is ${JSON.stringify(failDate)}`)
    } else if (failDate !== PLACEHOLDER) {
      problems.push(`${goalID}.fail_date is ${JSON.stringify(failDate)} while not failed`)
    }
    if (type === 'Card') {
      if (JSON.stringify(sortedKeys(data)) !== JSON.stringify(['cards_revised_so_far', 'cards_to_revise'])) problems.push(`${goalID}.data has keys ${sortedKeys(data).join(',')}`)
      const { cards_revised_so_far: done, cards_to_revise: target } = isObject(data) ? data : {}
      if (!DIGITS.test(String(done)) || !DIGITS.test(String(target))) problems.push(`${goalID}.data holds ${JSON.stringify(data)}`)
      if (title !== `Revise ${String(target)} cards by ${String(endDate)}`) problems.push(`${goalID}.title is ${JSON.stringify(title)}`)
    } else if (type === 'XP') {
      if (JSON.stringify(sortedKeys(data)) !== JSON.stringify(['goal_xp', 'start_date', 'starting_xp'])) problems.push(`${goalID}.data has keys ${sortedKeys(data).join(',')}`)
      const { goal_xp: target, start_date: startDate, starting_xp: startingXp } = isObject(data) ? data : {}
      if (!DIGITS.test(String(target)) || !DIGITS.test(String(startingXp)) || !DATE.test(String(startDate))) problems.push(`${goalID}.data holds ${JSON.stringify(data)}`)
      if (title !== `Gain ${String(target)} XP by ${String(endDate)}`) problems.push(`${goalID}.title is ${JSON.stringify(title)}`)
    } else {
      problems.push(`${goalID}.type is ${JSON.stringify(type)}`)
    }
  }
  return problems
}

let current = new Date('2026-05-04T12:00:00Z')
// one app for the file: each test sets the clock and sets goals as users of its own
const app = await buildTestApp(t, import.meta.filename, { clock: () => current })

async function createGoal (user: TestUser, body: Record<string, unknown>) {
  return await post(app, 'create-goal', { jwtToken: user.jwtToken, ...body })
}

async function newGoal (user: TestUser, type: string, target: number, endDate: string): Promise<string> {
  return (await expectOk<{ goalID: string }>(app, 'create-goal', { jwtToken: user.jwtToken, type, target, end_date: endDate }, 201)).goalID
}

async function statuses (user: TestUser): Promise<GoalMap> {
  return await expectOk<GoalMap>(app, 'update-goal-status', { jwtToken: user.jwtToken })
}

/** A new user with goals of one end date, who then made `reviewed` reviews. */
async function learnerWithGoals (goals: Array<[string, number]>, endDate: string, reviewed: number): Promise<{ user: TestUser, goalIDs: string[] }> {
  const user = await registerUser(app)
  const goalIDs: string[] = []
  for (const [type, target] of goals) goalIDs.push(await newGoal(user, type, target, endDate))
  await reviews(user, reviewed)
  return { user, goalIDs }
}

/** The one card each user reviews, by user id: made at the user's first review. */
const studied = new Map<string, { flashcardID: string, cardID: string }>()
/** `count` reviews at the clock's now, each worth 10 XP. */
async function reviews (user: TestUser, count: number): Promise<void> {
  let card = studied.get(user.userID)
  if (card === undefined) {
    const { flashcardID, cardIDs: [cardID = ''] } = await makeDeck(app, user, { folder: ['Study'], name: 'Deck', cards: 1 })
    card = { flashcardID, cardID }
    studied.set(user.userID, card)
  }
  for (let i = 0; i < count; i++) await expectOk(app, 'review-card', { jwtToken: user.jwtToken, ...card, rating: 'again' })
}

test('the shape check used below rejects answers that break the published interface', async (t) => {
  const id = '1'.repeat(39)
  const good = { data: { cards_revised_so_far: '0', cards_to_revise: '5' }, end_date: '10/05/2026', fail_date: PLACEHOLDER, status: 'in progress', title: 'Revise 5 cards by 10/05/2026', type: 'Card' }
  t.same(goalProblems({ [id]: good }), [])
  t.not(goalProblems({ [id]: { ...good, data: { ...good.data, cards_to_revise: 5 } } }).length, 0, 'a number')
  t.not(goalProblems({ [id]: { ...good, fail_date: ' ' } }).length, 0, 'a bare space')
  t.not(goalProblems({ [id]: { ...good, status: 'in_progress' } }).length, 0, 'an unknown status')
  t.not(goalProblems({ [id]: { ...good, title: 'Revise 5 cards' } }).length, 0, 'a title without its date')
  t.not(goalProblems({ abc: good }).length, 0, 'a key that is not an id')
})

test('create-goal answers 201 with the goal as update-goal-status shows it', async (t) => {
  current = new Date('2026-05-04T12:00:00Z')
  const user = await registerUser(app)
  const card = await createGoal(user, { type: 'Card', target: 5, end_date: '10/05/2026' })
  t.equal(card.statusCode, 201)
  t.match(card.json().goalID, /^\d{30,}$/)
  t.strictSame(card.json().goal, {
    data: { cards_revised_so_far: '0', cards_to_revise: '5' },
    end_date: '10/05/2026',
    fail_date: PLACEHOLDER,
    status: 'in progress',
    title: 'Revise 5 cards by 10/05/2026',
    type: 'Card'
  })

  const xp = await createGoal(user, { type: 'XP', target: '150', end_date: '04/05/2026' })
  t.equal(xp.statusCode, 201, 'a digit string as target, and today as end_date')
  t.strictSame(xp.json().goal, {
    data: { goal_xp: '150', start_date: '04/05/2026', starting_xp: '0' },
    end_date: '04/05/2026',
    fail_date: PLACEHOLDER,
    status: 'in progress',
    title: 'Gain 150 XP by 04/05/2026',
    type: 'XP'
  })

  const goals = await statuses(user)
  t.strictSame(Object.keys(goals).sort(), [card.json().goalID, xp.json().goalID].sort(), 'one member per goal, keyed by goal id')
  t.strictSame(goals[card.json().goalID], card.json().goal)
  t.strictSame(goals[xp.json().goalID], xp.json().goal)
  t.equal(PLACEHOLDER.length, 3)
})

test('create-goal refuses bad input with 400 and stores nothing', async (t) => {
  current = new Date('2026-05-04T12:00:00Z')
  const user = await registerUser(app)
  const valid = { type: 'Card', target: 5, end_date: '10/05/2026' }
  // a field of the wrong type or out of range is malformed; a string that is not a day from today on, a value the rules refuse
  const refused: Array<[Record<string, unknown>, 'invalid_field' | 'invalid_value']> = [
    [{ ...valid, end_date: '03/05/2026' }, 'invalid_value'],
    [{ ...valid, end_date: '01/01/2020' }, 'invalid_value'],
    [{ ...valid, end_date: '31/02/2026' }, 'invalid_value'],
    [{ ...valid, end_date: '29/02/2027' }, 'invalid_value'],
    [{ ...valid, end_date: '31/06/2026' }, 'invalid_value'],
    [{ ...valid, end_date: '00/06/2026' }, 'invalid_value'],
    [{ ...valid, end_date: '10/13/2026' }, 'invalid_value'],
    [{ ...valid, end_date: '2026-05-10' }, 'invalid_value'],
    [{ ...valid, end_date: '10-05-2026' }, 'invalid_value'],
    [{ ...valid, end_date: '10/5/2026' }, 'invalid_value'],
    [{ ...valid, end_date: '10/05/26' }, 'invalid_value'],
    [{ ...valid, end_date: ' 10/05/2026' }, 'invalid_value'],
    [{ ...valid, end_date: '10/05/2026T00:00' }, 'invalid_value'],
    [{ ...valid, end_date: '' }, 'invalid_value'],
    [{ ...valid, end_date: 10052026 }, 'invalid_field'],
    [{ type: 'Card', target: 5 }, 'invalid_field'],
    [{ ...valid, target: 0 }, 'invalid_field'],
    [{ ...valid, target: -3 }, 'invalid_field'],
    [{ ...valid, target: 1.5 }, 'invalid_field'],
    [{ ...valid, target: '2.5' }, 'invalid_field'],
    [{ ...valid, target: 'five' }, 'invalid_field'],
    [{ ...valid, target: '' }, 'invalid_field'],
    [{ ...valid, target: [5] }, 'invalid_field'],
    [{ ...valid, target: 1_000_001 }, 'invalid_field'],
    [{ type: 'Card', end_date: '10/05/2026' }, 'invalid_field'],
    [{ ...valid, type: 'card' }, 'invalid_field'],
    [{ ...valid, type: 'Cards' }, 'invalid_field'],
    [{ ...valid, type: 'xp' }, 'invalid_field'],
    [{ target: 5, end_date: '10/05/2026' }, 'invalid_field']
  ]
  for (const [body, code] of refused) {
    await expectRefusal(t, app, 'create-goal', { jwtToken: user.jwtToken, ...body }, 400, code)
  }
  t.equal(await databaseOf(app).collection('goals').countDocuments({ userID: user.userID }), 0)
  t.strictSame(await statuses(user), {})

  // a leap day is a real date (the control case)
  t.equal((await createGoal(user, { ...valid, end_date: '29/02/2028' })).statusCode, 201)
})

test("end_date may not be before the user's today", async (t) => {
  // 16:00 UTC on 4 May is already 06:00 on 5 May in Kiritimati
  current = new Date('2026-05-04T16:00:00Z')
  const kiritimati = await registerUser(app, { timezone: 'Pacific/Kiritimati' })
  const utc = await registerUser(app)
  await expectRefusal(t, app, 'create-goal', { jwtToken: kiritimati.jwtToken, type: 'Card', target: 1, end_date: '04/05/2026' }, 400, 'invalid_value', 'yesterday in Kiritimati')
  t.equal((await createGoal(utc, { type: 'Card', target: 1, end_date: '04/05/2026' })).statusCode, 201)
  const xp = await createGoal(kiritimati, { type: 'XP', target: 10, end_date: '05/05/2026' })
  t.equal(xp.statusCode, 201)
  t.equal(xp.json().goal.data.start_date, '05/05/2026', "the goal starts on the user's today")
})

test('Card and XP goals side by side, completed by reviews inside their window', async (t) => {
  current = new Date('2026-06-01T12:00:00Z')
  const user = await registerUser(app)
  const earlier = await newGoal(user, 'Card', 100, '30/06/2026')
  await reviews(user, 2) // 20 XP before the other goals exist

  current = new Date('2026-06-02T12:00:00Z')
  const cardGoal = await newGoal(user, 'Card', 3, '05/06/2026')
  const xpGoal = await newGoal(user, 'XP', 30, '05/06/2026')
  let goals = await statuses(user)
  t.same(goalProblems(goals), [])
  t.strictSame(goals[xpGoal]?.data, { goal_xp: '30', start_date: '02/06/2026', starting_xp: '20' })
  t.strictSame(goals[cardGoal]?.data, { cards_revised_so_far: '0', cards_to_revise: '3' }, 'reviews of the day before do not count')
  t.strictSame(goals[earlier]?.data, { cards_revised_so_far: '2', cards_to_revise: '100' }, 'but they count for a goal started that day')

  await reviews(user, 2)
  goals = await statuses(user)
  t.strictSame(goals[cardGoal]?.data, { cards_revised_so_far: '2', cards_to_revise: '3' })
  t.equal(goals[cardGoal]?.status, 'in progress')
  t.equal(goals[xpGoal]?.status, 'in progress', '20 XP gained toward 30: the 20 XP from before do not count')

  current = new Date('2026-06-04T12:00:00Z')
  await reviews(user, 1)
  goals = await statuses(user)
  t.same(goalProblems(goals), [])
  t.match(goals[cardGoal], { status: 'completed', fail_date: PLACEHOLDER, data: { cards_revised_so_far: '3' } })
  t.match(goals[xpGoal], { status: 'completed', fail_date: PLACEHOLDER })
})

test("create-goal leaves out today's earlier reviews, as update-goal-status does", async (t) => {
  current = new Date('2026-07-01T12:00:00Z')
  const user = await registerUser(app)
  await reviews(user, 2)
  const open = await createGoal(user, { type: 'Card', target: 5, end_date: '10/07/2026' })
  t.strictSame(open.json().goal.data, { cards_revised_so_far: '0', cards_to_revise: '5' })
  const unmet = await createGoal(user, { type: 'XP', target: 20, end_date: '10/07/2026' })
  t.match(unmet.json().goal, { status: 'in progress', data: { starting_xp: '20' } }, 'not met by the XP it started from')
  const goals = await statuses(user)
  t.strictSame(goals[open.json().goalID], open.json().goal)
  t.strictSame(goals[unmet.json().goalID], unmet.json().goal)
})

test('a goal met in time is completed even when first asked after its end date', async (t) => {
  current = new Date('2026-06-10T12:00:00Z')
  const { user, goalIDs: [cardGoal = '', xpGoal = ''] } = await learnerWithGoals([['Card', 2], ['XP', 20]], '10/06/2026', 2)

  current = new Date('2026-06-20T12:00:00Z')
  const goals = await statuses(user)
  t.match(goals[cardGoal], { status: 'completed', fail_date: PLACEHOLDER })
  t.match(goals[xpGoal], { status: 'completed', fail_date: PLACEHOLDER })
})

test('reviews after end_date do not complete a goal: it fails', async (t) => {
  current = new Date('2026-06-10T12:00:00Z')
  const user = await registerUser(app)
  const cardGoal = await newGoal(user, 'Card', 2, '10/06/2026')
  const xpGoal = await newGoal(user, 'XP', 20, '10/06/2026')
  const longer = await newGoal(user, 'Card', 100, '20/06/2026')
  await reviews(user, 1)

  // nobody asks until after more reviews, the day after the end date
  current = new Date('2026-06-11T12:00:00Z')
  await reviews(user, 3)
  const goals = await statuses(user)
  t.same(goalProblems(goals), [])
  t.match(goals[cardGoal], { status: 'failed', fail_date: '11/06/2026', data: { cards_revised_so_far: '1' } })
  t.match(goals[xpGoal], { status: 'failed', fail_date: '11/06/2026' })
  t.match(goals[longer], { status: 'in progress', data: { cards_revised_so_far: '4' } }, 'the later reviews count for a goal still open')
})

test("a goal fails when the user's day after end_date begins; fail_date is that day", async (t) => {
  current = new Date('2026-07-10T12:00:00Z')
  const user = await registerUser(app)
  const goalID = await newGoal(user, 'Card', 1, '10/07/2026')

  // days start at 04:00: 11 July begins at 04:00 UTC
  current = new Date('2026-07-11T03:59:00Z')
  t.match((await statuses(user))[goalID], { status: 'in progress', fail_date: PLACEHOLDER })
  current = new Date('2026-07-11T04:00:00Z')
  t.match((await statuses(user))[goalID], { status: 'failed', fail_date: '11/07/2026' })
})

test('a goal nobody looked at for weeks failed on the day after its end date', async (t) => {
  const late = await registerUser(app)
  current = new Date('2026-07-10T12:00:00Z')
  const lateGoal = await newGoal(late, 'XP', 10, '10/07/2026')
  current = new Date('2026-08-30T12:00:00Z')
  t.match((await statuses(late))[lateGoal], { status: 'failed', fail_date: '11/07/2026' })
})

test("a goal fails by the user's own calendar: in Pago Pago (UTC-11) 12:00 UTC on 11 July is still 10 July", async (t) => {
  current = new Date('2026-07-10T20:00:00Z')
  const pagoPago = await registerUser(app, { timezone: 'Pacific/Pago_Pago' })
  const pagoGoal = await newGoal(pagoPago, 'Card', 1, '10/07/2026')
  current = new Date('2026-07-11T12:00:00Z')
  t.match((await statuses(pagoPago))[pagoGoal], { status: 'in progress' })
  current = new Date('2026-07-11T15:00:00Z')
  t.match((await statuses(pagoPago))[pagoGoal], { status: 'failed', fail_date: '11/07/2026' })
})

test('completed and failed are final', async (t) => {
  current = new Date('2026-08-03T12:00:00Z')
  const { user, goalIDs: [completed = '', failing = ''] } = await learnerWithGoals([['Card', 1], ['Card', 5]], '03/08/2026', 1)
  t.equal((await statuses(user))[completed]?.status, 'completed')

  current = new Date('2026-08-04T05:00:00Z')
  let goals = await statuses(user)
  t.match(goals[failing], { status: 'failed', fail_date: '04/08/2026' })
  t.equal(goals[completed]?.status, 'completed', 'the end date passing leaves it completed')

  // the review log loses the review (as an undo would): still completed
  await databaseOf(app).collection('reviews').deleteMany({ userID: user.userID })
  goals = await statuses(user)
  t.match(goals[completed], { status: 'completed', fail_date: PLACEHOLDER })

  // the user moves to Pago Pago, where it is 3 August again, and reviews enough: still failed
  await databaseOf(app).collection<{ _id: string }>('users').updateOne({ _id: user.userID }, { $set: { timezone: 'Pacific/Pago_Pago' } })
  await reviews(user, 5)
  const review = await databaseOf(app).collection('reviews').findOne({ userID: user.userID })
  t.equal(review?.day, '2026-08-03', 'those reviews count for 3 August, inside the window')
  goals = await statuses(user)
  t.match(goals[failing], { status: 'failed', fail_date: '04/08/2026' })
  t.match(goals[completed], { status: 'completed', fail_date: PLACEHOLDER })
  const stored = await databaseOf(app).collection<{ _id: string, status: string }>('goals').find({ userID: user.userID }).toArray()
  t.strictSame(Object.fromEntries(stored.map((goal) => [goal._id, goal.status])), { [completed]: 'completed', [failing]: 'failed' }, 'stored so')
})

test('repeated calls give the same answer', async (t) => {
  current = new Date('2026-09-01T12:00:00Z')
  const user = await registerUser(app)
  await newGoal(user, 'Card', 2, '05/09/2026')
  await newGoal(user, 'XP', 10, '01/09/2026')
  await newGoal(user, 'Card', 9, '01/09/2026')
  await reviews(user, 1)
  current = new Date('2026-09-02T12:00:00Z')
  const first = await post(app, 'update-goal-status', { jwtToken: user.jwtToken })
  t.same(goalProblems(JSON.parse(first.body)), [])
  t.strictSame(Object.values(JSON.parse(first.body) as GoalMap).map((goal) => goal.status).sort(), ['completed', 'failed', 'in progress'])
  for (const later of ['2026-09-02T12:00:00Z', '2026-09-02T18:00:00Z', '2026-09-03T03:59:00Z']) {
    current = new Date(later)
    const again = await post(app, 'update-goal-status', { jwtToken: user.jwtToken })
    t.equal(again.statusCode, 200)
    t.equal(again.body, first.body, `the same answer at ${later}`)
  }
})

test('an invalid, missing or garbage token gives 401 and exactly {}', async (t) => {
  current = new Date('2026-09-10T12:00:00Z')
  const user = await registerUser(app)
  await newGoal(user, 'Card', 1, '20/09/2026')
  const [head, payload, signature] = user.jwtToken.split('.') as [string, string, string]
  const now = Math.floor(Date.now() / 1000)
  const expiredPayload = Buffer.from(JSON.stringify({ sub: user.userID, iss: TOKEN_ISSUER, aud: TOKEN_AUDIENCE, iat: now - 7200, exp: now - 3600 })).toString('base64url')
  const expired = `${head}.${expiredPayload}.${createHmac('sha256', TEST_SECRET).update(`${head}.${expiredPayload}`).digest('base64url')}`
  const doomed = await registerUser(app)
  await databaseOf(app).collection<{ _id: string }>('users').deleteOne({ _id: doomed.userID })

  const bodies: Record<string, unknown> = {
    'no jwtToken': {},
    garbage: { jwtToken: 'garbage' },
    'three dots': { jwtToken: 'a.b.c' },
    empty: { jwtToken: '' },
    number: { jwtToken: 42 },
    null: { jwtToken: null },
    object: { jwtToken: { sub: user.userID } },
    'tampered signature': { jwtToken: tamperedToken(`${head}.${payload}.${signature}`) },
    expired: { jwtToken: expired },
    'a deleted user': { jwtToken: doomed.jwtToken }
  }
  for (const [name, body] of Object.entries(bodies)) {
    const response = await post(app, 'update-goal-status', body)
    t.equal(response.statusCode, 401, name)
    t.equal(response.body, '{}', name)
    t.match(response.headers['content-type'], /^application\/json/, name)
  }
  t.equal(Object.keys(await statuses(user)).length, 1, 'the valid token still works (the control case)')
})

test('a user with no goals gets {}', async (t) => {
  current = new Date('2026-09-10T12:00:00Z')
  const user = await registerUser(app)
  await reviews(user, 1)
  const response = await post(app, 'update-goal-status', { jwtToken: user.jwtToken })
  t.equal(response.statusCode, 200)
  t.equal(response.body, '{}')
})
