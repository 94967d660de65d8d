import { test } from 'tap'
import { buildTestApp, makeDeck, post, registerUser } from '../helpers/app.js'
import { storedState } from '../helpers/stored.js'

const RATINGS = ['again', 'hard', 'good', 'easy'] as const

test('preview-review shows what each answer would do, and review-card then does exactly that', async (t) => {
  let current = new Date('2026-05-04T12:00:00Z')
  const app = await buildTestApp(t, import.meta.filename, { clock: () => current })
  const user = await registerUser(app)
  const { flashcardID, cardIDs: [cardID] } = await makeDeck(app, user, { folder: ['Preview'], name: 'Preview', cards: 2 })

  const before = await storedState(app)
  const preview = await post(app, 'preview-review', { jwtToken: user.jwtToken, flashcardID, cardID })
  t.equal(preview.statusCode, 200)
  const outcomes = preview.json() as Record<string, unknown>
  t.strictSame(Object.keys(outcomes).sort(), ['again', 'cardID', 'easy', 'good', 'hard'])
  t.equal(outcomes.cardID, cardID)
  t.equal(await storedState(app), before, 'a preview stores nothing')

  // a new card: again and hard keep it in learning (minutes), easy sends it days away
  const of = (rating: typeof RATINGS[number]) => outcomes[rating] as { due: string, interval: string }
  t.match(of('again').interval, /^\d+ min$/)
  t.match(of('easy').interval, /^\d+ days?$/)
  const dues = RATINGS.map((rating) => Date.parse(of(rating).due))
  t.strictSame([...dues].sort((a, b) => a - b), dues, 'a better answer never comes back sooner')
  t.ok(dues.every((due) => due > current.getTime()), 'every answer schedules the card ahead')

  // later, a review with "good" stores the due instant the preview showed at that moment
  current = new Date('2026-05-04T12:05:00Z')
  const atReview = (await post(app, 'preview-review', { jwtToken: user.jwtToken, flashcardID, cardID })).json() as Record<string, { due: string }>
  const reviewed = await post(app, 'review-card', { jwtToken: user.jwtToken, flashcardID, cardID, rating: 'good' })
  t.equal(reviewed.statusCode, 200)
  t.equal(reviewed.json().due, atReview.good?.due)

  // and the preview of the reviewed card moves on from its new state
  const next = (await post(app, 'preview-review', { jwtToken: user.jwtToken, flashcardID, cardID })).json() as Record<string, { due: string }>
  t.not(next.good?.due, atReview.good?.due)
})

test('preview-review refuses what is not the user\'s card', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app)
  const other = await registerUser(app)
  const { flashcardID, cardIDs: [cardID] } = await makeDeck(app, user, { folder: ['Mine'], name: 'Mine', cards: 1 })
  const theirs = await makeDeck(app, other, { folder: ['Theirs'], name: 'Theirs', cards: 1 })

  const refused: Array<[number, Record<string, unknown>, string]> = [
    [404, { flashcardID, cardID: theirs.cardIDs[0] }, "another user's card"],
    [404, { flashcardID: theirs.flashcardID, cardID }, 'a card under another flashcard id'],
    [404, { flashcardID, cardID: '1'.repeat(39) }, 'an unknown card'],
    [400, { flashcardID }, 'no cardID'],
    [400, { flashcardID, cardID: 'not-an-id' }, 'a malformed id']
  ]
  for (const [status, body, what] of refused) {
    const response = await post(app, 'preview-review', { jwtToken: user.jwtToken, ...body })
    t.equal(response.statusCode, status, what)
    t.type(response.json().error, 'string', what)
  }
  const forged = await post(app, 'preview-review', { jwtToken: 'not.a.token', flashcardID, cardID })
  t.equal(forged.statusCode, 401)
})
