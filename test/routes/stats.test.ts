import { test } from 'tap'
import { migrate } from '../../src/repositories/migrations.js'
import { addDays } from '../../src/domain/calendar.js'
import { newSchedule } from '../../src/domain/scheduling.js'
import { databaseOf, buildTestApp, expectOk, makeDeck, post, registerUser, type TestUser } from '../helpers/app.js'

test('get-stats', async (t) => {
  let current = new Date('2026-03-01T10:00:00Z')
  const app = await buildTestApp(t, import.meta.filename, { clock: () => current })
  const stats = async (user: TestUser) => await expectOk<{ streak: string, weekly_xp: string, total_xp: string, heatmap: Record<string, string> }>(app, 'get-stats', { jwtToken: user.jwtToken })

  await t.test('XP, week, streak, heatmap and card counts follow the user\'s days', async (t) => {
    // UTC, the day turning over at 04:00 (the default)
    const user = await registerUser(app)
    current = new Date('2026-03-01T10:00:00Z')
    const { flashcardID, cardIDs } = await makeDeck(app, user, { folder: ['Mixed'], name: 'Mixed', cards: 6 })
    t.same(await stats(user), {
      total_xp: '0',
      weekly_xp: '0',
      streak: '0',
      heatmap: {},
      cards: { new: '6', learning: '0', review: '0', relearning: '0', total: '6' }
    }, 'a new account with six new cards')

    const review = async (at: string, card: number, rating: string): Promise<void> => {
      current = new Date(at)
      const response = await post(app, 'review-card', { jwtToken: user.jwtToken, flashcardID, cardID: cardIDs[card], rating })
      t.equal(response.statusCode, 200, `${at} card ${card} ${rating}`)
    }
    await review('2026-03-08T12:00:00Z', 3, 'easy') // Sunday, the week before
    await review('2026-03-08T12:01:00Z', 1, 'easy')
    await review('2026-03-09T12:00:00Z', 0, 'again') // Monday
    await review('2026-03-10T03:00:00Z', 0, 'again') // before 04:00: still Monday
    await review('2026-03-10T15:00:00Z', 2, 'again') // Tuesday
    await review('2026-03-11T12:00:00Z', 3, 'again') // Wednesday; a lapse: relearning
    await review('2026-03-11T12:01:00Z', 2, 'again')
    await review('2026-03-11T12:02:00Z', 0, 'again')

    current = new Date('2026-03-12T10:00:00Z') // Thursday, nothing reviewed yet
    t.same(await stats(user), {
      total_xp: '80',
      weekly_xp: '60',
      streak: '4',
      heatmap: { '08/03/2026': '2', '09/03/2026': '2', '10/03/2026': '1', '11/03/2026': '3' },
      cards: { new: '2', learning: '2', review: '1', relearning: '1', total: '6' }
    }, 'the streak holds through yesterday while today has no review yet')

    await review('2026-03-12T12:00:00Z', 4, 'again')
    t.match(await stats(user), {
      total_xp: '90',
      weekly_xp: '70',
      streak: '5',
      heatmap: { '12/03/2026': '1' },
      cards: { new: '1', learning: '3', review: '1', relearning: '1', total: '6' }
    }, 'a review today extends the streak')

    current = new Date('2026-03-14T10:00:00Z') // Saturday: Friday was missed
    t.match(await stats(user), { weekly_xp: '70', streak: '0' })

    current = new Date('2026-03-16T10:00:00Z') // Monday: a new week
    const monday = await stats(user)
    t.match(monday, { total_xp: '90', weekly_xp: '0', streak: '0' })
    t.equal(Object.keys(monday.heatmap).length, 5, 'the heatmap keeps the days of last week')
  })

  await t.test('the week starts on Monday in the user\'s own time zone', async (t) => {
    const tokyo = await registerUser(app, { timezone: 'Asia/Tokyo' })
    const london = await registerUser(app, { timezone: 'Europe/London' })
    current = new Date('2026-03-15T10:00:00Z')
    for (const user of [tokyo, london]) {
      const { flashcardID, cardIDs } = await makeDeck(app, user, { folder: ['Week'], name: 'Week', cards: 2 })
      // Sunday 20:00 in London is Monday 05:00 in Tokyo
      current = new Date('2026-03-15T20:00:00Z')
      await expectOk(app, 'review-card', { jwtToken: user.jwtToken, flashcardID, cardID: cardIDs[0], rating: 'good' })
    }
    current = new Date('2026-03-15T21:00:00Z')
    t.match(await stats(tokyo), { weekly_xp: '10', streak: '1', heatmap: { '16/03/2026': '1' } })
    t.match(await stats(london), { weekly_xp: '10', streak: '1', heatmap: { '15/03/2026': '1' } })
    // Monday 10:00 in London, 19:00 in Tokyo
    current = new Date('2026-03-16T10:00:00Z')
    t.match(await stats(tokyo), { weekly_xp: '10', streak: '1' }, 'Tokyo: still the Monday of that review')
    t.match(await stats(london), { weekly_xp: '0', streak: '1' }, 'London: a new week; the streak holds through yesterday')
  })

  await t.test('the heatmap covers the last 365 days; a longer streak is read further back', async (t) => {
    const user = await registerUser(app)
    const today = '2026-06-30'
    current = new Date('2026-06-30T10:00:00Z')
    // a log written straight into the database by an earlier version, without daily counts: one review a day, 500 days in a row
    const schedule = newSchedule(current)
    const documents = Array.from({ length: 500 }, (_, age) => {
      const day = addDays(today, -age)
      return {
        _id: `9${String(age).padStart(38, '0')}`,
        userID: user.userID,
        reviewID: `seeded-${age}`,
        cardID: '1'.repeat(39),
        flashcardID: '2'.repeat(39),
        rating: 'good',
        reviewedAt: new Date(`${day}T12:00:00Z`),
        day,
        wasNew: false,
        before: schedule,
        after: schedule,
        xp: 10,
        seq: 500 - age
      }
    })
    await databaseOf(app).collection('reviews').insertMany(documents as never[])
    // what the next start of the service does: count the log into days, once (and again, as if cut off and run again)
    t.equal((await stats(user)).streak, '0', 'before the migration, nothing is counted')
    await databaseOf(app).collection('migrations').deleteOne({ _id: 'activity-from-review-log' as never })
    await migrate(databaseOf(app), () => {})
    await databaseOf(app).collection('migrations').deleteOne({ _id: 'activity-from-review-log' as never })
    await migrate(databaseOf(app), () => {})

    const answer = await stats(user)
    t.equal(answer.streak, '500', 'the streak is not cut at the heatmap\'s year')
    t.equal(Object.keys(answer.heatmap).length, 365, 'one entry for each of the 365 days')
    t.equal(answer.heatmap['30/06/2026'], '1', 'today is in')
    t.equal(answer.heatmap['01/07/2025'], '1', 'the 365th day back is in')
    t.equal(answer.heatmap['30/06/2025'], undefined, 'the day before it is out')
    t.same(Object.keys(answer.heatmap).slice(0, 2), ['01/07/2025', '02/07/2025'], 'oldest first')
    t.equal(answer.weekly_xp, '20', 'Monday 29/06 and Tuesday 30/06')
    t.equal(answer.total_xp, '0', 'total XP is the account\'s, not recounted from the log')
  })

  await t.test('an invalid token gives 401', async (t) => {
    const response = await post(app, 'get-stats', { jwtToken: 'not.a.token' })
    t.equal(response.statusCode, 401)
    t.same(response.json(), { error: 'invalid or expired token', code: 'invalid_token' })
  })
})
