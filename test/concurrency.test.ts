import { test } from 'tap'
import { databaseOf, buildTestApp, makeDeck, post, registerUser } from './helpers/app.js'
import { storedNodes } from './helpers/stored.js'

const TODAY = '04/05/2026'
const TOMORROW = '05/05/2026'

function counts (statuses: readonly number[]): Record<number, number> {
  const byStatus: Record<number, number> = {}
  for (const status of statuses) byStatus[status] = (byStatus[status] ?? 0) + 1
  return byStatus
}

test('concurrent requests', async (t) => {
  let now = new Date('2026-05-04T12:00:00Z')
  const app = await buildTestApp(t, import.meta.filename, { clock: () => now })

  t.test('50 concurrent reviews of one card are all applied, each once', async (t) => {
    const user = await registerUser(app)
    const { flashcardID, cardIDs: [cardID] } = await makeDeck(app, user, { folder: ['Concurrency'], name: 'Deck of 1', cards: 1 })
    const responses = await Promise.all(Array.from({ length: 50 }, (_, i) => post(app, 'review-card', {
      jwtToken: user.jwtToken, flashcardID, cardID, rating: ['again', 'hard', 'good', 'easy'][i % 4]
    })))
    t.strictSame(counts(responses.map((response) => response.statusCode)), { 200: 50 }, 'every review accepted')

    const card = await databaseOf(app).collection<{ _id: string, reps: number, version: number }>('cardStates').findOne({ _id: cardID as string })
    t.equal(card?.reps, 50, 'the card counts 50 repetitions')
    t.equal(card?.version, 50, 'one card update per review')
    const log = await databaseOf(app).collection('reviews').find({ userID: user.userID }).toArray()
    t.equal(log.length, 50, 'one log entry per accepted review, none doubled')
    t.strictSame(log.map((review) => review.seq).sort((a, b) => a - b), Array.from({ length: 50 }, (_, i) => i + 1), 'the account numbered the reviews one after another')
    // each review was computed from the card as the one before left it: reps 0, 1, ..., 49
    t.strictSame(log.map((review) => review.before.reps).sort((a, b) => a - b), Array.from({ length: 50 }, (_, i) => i), 'each review computed from the card the one before left')
    const account = await databaseOf(app).collection<{ _id: string, totalXp: number }>('users').findOne({ _id: user.userID })
    t.equal(account?.totalXp, 500, 'exactly 10 XP per review')
    t.equal(Math.max(...responses.map((response) => Number(response.json().total_xp))), 500, 'the last answer shows the whole total')
  })

  t.test('of two create-folder calls with one name, one creates it and the other is told it exists', async (t) => {
    const user = await registerUser(app)
    for (let round = 0; round < 10; round++) {
      // odd rounds race on a missing parent too
      const path = round % 2 === 0 ? [`Race ${round}`] : [`Parent ${round}`, `Child ${round}`]
      const responses = await Promise.all([1, 2].map(() => post(app, 'create-folder', { jwtToken: user.jwtToken, path })))
      t.strictSame(responses.map((response) => response.statusCode).sort(), [201, 409], `round ${round}: ${responses.map((response) => response.body).join(' | ')}`)
      const stored = await storedNodes(app, { userID: user.userID })
      for (const name of path) {
        t.equal(stored.filter((node) => node.name === name).length, 1, `one folder ${name}`)
      }
    }
  })

  t.test('update-goal-status calls during reviews lose no progress', async (t) => {
    now = new Date('2026-05-04T12:00:00Z')
    const user = await registerUser(app)
    const { flashcardID, cardIDs } = await makeDeck(app, user, { folder: ['Concurrency'], name: 'Deck of 20', cards: 20 })
    const goals: Record<string, { type: string, target: number }> = {}
    for (const [type, target] of [['Card', 20], ['Card', 40], ['Card', 41], ['XP', 400], ['XP', 410]] as const) {
      const response = await post(app, 'create-goal', { jwtToken: user.jwtToken, type, target, end_date: TODAY })
      goals[response.json().goalID] = { type, target }
    }

    // every card twice, all at once (so reviews of one card race too), with status calls in between
    const reviews = [...cardIDs, ...cardIDs].map((cardID) => post(app, 'review-card', { jwtToken: user.jwtToken, flashcardID, cardID, rating: 'good' }))
    const statusCalls = Array.from({ length: 40 }, () => post(app, 'update-goal-status', { jwtToken: user.jwtToken }))
    const [reviewed, refreshed] = await Promise.all([Promise.all(reviews), Promise.all(statusCalls)])
    t.strictSame(counts(reviewed.map((response) => response.statusCode)), { 200: 40 }, 'every review accepted')
    t.strictSame(counts(refreshed.map((response) => response.statusCode)), { 200: 40 })
    // the goals' day is not over: a call that read the log half-way may say "in progress", never "failed"
    for (const response of refreshed) {
      for (const goal of Object.values(response.json() as Record<string, { status: string }>)) t.not(goal.status, 'failed')
    }

    // what the history says, worked out by hand: 40 reviews, 400 XP, all today
    const expected = (completedIf: (goal: { type: string, target: number }) => boolean, otherwise: string) => Object.fromEntries(
      Object.entries(goals).map(([goalID, goal]) => [goalID, completedIf(goal) ? 'completed' : otherwise])
    )
    const reached = (goal: { type: string, target: number }): boolean => (goal.type === 'Card' ? 40 : 400) >= goal.target
    const today = (await post(app, 'update-goal-status', { jwtToken: user.jwtToken })).json() as Record<string, { status: string, fail_date: string, data: Record<string, string> }>
    t.strictSame(Object.fromEntries(Object.entries(today).map(([id, goal]) => [id, goal.status])), expected(reached, 'in progress'))
    for (const [goalID, goal] of Object.entries(today)) {
      if (goals[goalID]?.type === 'Card') t.equal(goal.data.cards_revised_so_far, '40', 'every review counts toward the card goals')
    }
    const stored = await databaseOf(app).collection<{ _id: string, status: string }>('goals').find({ userID: user.userID }).toArray()
    t.strictSame(Object.fromEntries(stored.map((goal) => [goal._id, goal.status])), expected(reached, 'in progress'), 'the stored statuses agree')

    now = new Date('2026-05-05T12:00:00Z')
    const tomorrow = (await post(app, 'update-goal-status', { jwtToken: user.jwtToken })).json() as Record<string, { status: string, fail_date: string }>
    t.strictSame(Object.fromEntries(Object.entries(tomorrow).map(([id, goal]) => [id, goal.status])), expected(reached, 'failed'))
    for (const [goalID, goal] of Object.entries(tomorrow)) {
      t.equal(goal.fail_date, reached(goals[goalID] as { type: string, target: number }) ? '" "' : TOMORROW)
    }
  })
})
