import { test } from 'tap'
import { addDays, cardDue, creationDate, nextDayAt } from '../../../src/domain/anki/days.js'
import { cardFor, expected, readFixture } from '../../helpers/anki.js'

for (const name of ['collection.apkg', 'legacy-anki21.apkg', 'legacy-anki2.apkg']) {
  test(`${name}: every card is due on the calendar day Anki showed`, async (t) => {
    const { pkg } = await readFixture(name)
    const collection = pkg.collection
    t.equal(creationDate(collection.timing), expected.creationDate, 'the creation day')
    let days = 0
    for (const want of expected.cards) {
      const card = cardFor(collection, want)
      const due = cardDue(card, collection.timing)
      const label = want.label ?? `${want.noteGuid}/${want.ord}`
      if (want.dueDay === null) {
        t.same(due, { kind: 'new', position: want.due }, `${label}: a new card keeps its position`)
      } else {
        t.equal(due.kind === 'new' ? undefined : due.day, want.dueDay, `${label}: due ${want.dueDay}`)
        t.equal(due.kind, want.queue === 1 ? 'instant' : 'day', `${label}: ${want.queue === 1 ? 'an instant' : 'a day number'}`)
        days++
      }
    }
    t.ok(days >= 10, `due days compared: ${days}`)
  })
}

test('the next day starts at the rollover hour in the collection\'s offset', async (t) => {
  // UTC-5, rollover 04:00 local = 09:00 UTC
  t.equal(nextDayAt(Date.UTC(2025, 0, 10, 8, 59) / 1000, 300, 4), Date.UTC(2025, 0, 10, 9) / 1000)
  t.equal(nextDayAt(Date.UTC(2025, 0, 10, 9, 0) / 1000, 300, 4), Date.UTC(2025, 0, 11, 9) / 1000)
  // UTC+10, rollover 04:00 local = 18:00 UTC the day before
  t.equal(nextDayAt(Date.UTC(2025, 0, 10, 17) / 1000, -600, 4), Date.UTC(2025, 0, 10, 18) / 1000)
  t.equal(addDays('2024-02-28', 2), '2024-03-01')
})
