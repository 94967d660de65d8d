// Which siblings answering a card buries: by kind (new, review, interday learning), as the three
// settings say, never one out of the queues or on an intraday learning step, and, as Anki's v3
// scheduler does, none of a queue studied before the answered card's.
import { test } from 'tap'
import { siblingsToBury, type SiblingBurying, type SiblingCard } from '../../src/domain/card-states.js'
import { CardState } from '../../src/domain/scheduling.js'

const CALENDAR = { timezone: 'Europe/Madrid', dayStartHour: 4 }
const HOUR = 3_600_000
// 10:00 in Madrid on 10 April 2026; the user's day began at 04:00 (02:00 UTC) and ends at 02:00 UTC on the 11th
const NOW = new Date('2026-04-10T08:00:00Z')
const at = (hours: number) => new Date(NOW.getTime() + hours * HOUR)

const fresh: SiblingCard = { state: CardState.New, due: at(-100), lastReview: null, isNew: true }
const review: SiblingCard = { state: CardState.Review, due: at(-2), lastReview: at(-240), isNew: false }
// answered yesterday at 10:00, due on a later day: Anki's interday ("day") learning
const interday: SiblingCard = { state: CardState.Learning, due: at(-1), lastReview: at(-24), isNew: false }
// answered an hour ago, due later today: an intraday learning step
const intraday: SiblingCard = { state: CardState.Relearning, due: at(1), lastReview: at(-1), isNew: false }
const suspended: SiblingCard = { ...fresh, isNew: 'suspended' }
const buried: SiblingCard = { ...review, isNew: 'buried' }
const siblings = [fresh, review, interday, intraday, suspended, buried]

const ALL: SiblingBurying = { buryNewSiblings: true, buryReviewSiblings: true, buryInterdayLearningSiblings: true }
const NONE: SiblingBurying = { buryNewSiblings: false, buryReviewSiblings: false, buryInterdayLearningSiblings: false }

test('each setting buries its kind of sibling, and none buries one out of the queues or on an intraday step', async (t) => {
  // an intraday learning card answered: every queue is studied after it
  const answered = intraday
  t.strictSame(siblingsToBury(answered, siblings, ALL, CALENDAR), [0, 1, 2])
  t.strictSame(siblingsToBury(answered, siblings, NONE, CALENDAR), [])
  t.strictSame(siblingsToBury(answered, siblings, { ...NONE, buryNewSiblings: true }, CALENDAR), [0])
  t.strictSame(siblingsToBury(answered, siblings, { ...NONE, buryReviewSiblings: true }, CALENDAR), [1])
  t.strictSame(siblingsToBury(answered, siblings, { ...NONE, buryInterdayLearningSiblings: true }, CALENDAR), [2])
})

test('a learning step is interday when it ends on a later day of the user\'s than the answer it came from', async (t) => {
  // answered at 03:00 Madrid on the 10th (still the 9th's day), due at 05:00 (the 10th's): interday
  const acrossTheStart: SiblingCard = { state: CardState.Learning, due: new Date('2026-04-10T03:00:00Z'), lastReview: new Date('2026-04-10T01:00:00Z'), isNew: false }
  // answered at 05:00 Madrid, due at 23:00 the same day: intraday
  const sameDay: SiblingCard = { state: CardState.Learning, due: new Date('2026-04-10T21:00:00Z'), lastReview: new Date('2026-04-10T03:00:00Z'), isNew: false }
  t.strictSame(siblingsToBury(intraday, [acrossTheStart, sameDay], ALL, CALENDAR), [0])
  t.strictSame(siblingsToBury(intraday, [{ ...sameDay, lastReview: null }], ALL, CALENDAR), [], 'a learning card with no answer known is kept on its step')
})

test('as in Anki, answering a card buries no sibling of a queue studied before its own', async (t) => {
  t.strictSame(siblingsToBury(interday, siblings, ALL, CALENDAR), [0, 1, 2], 'an interday learning card: all three kinds')
  t.strictSame(siblingsToBury(review, siblings, ALL, CALENDAR), [0, 1], 'a review card: new and review siblings')
  t.strictSame(siblingsToBury(fresh, siblings, ALL, CALENDAR), [0], 'a new card: only new siblings')
})
