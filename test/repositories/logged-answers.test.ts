import { test } from 'tap'
import { BSON, Double, Int32, Long } from 'mongodb'
import { visitLoggedAnswer } from '../../src/repositories/logged-answers.js'

function visited (document: Record<string, unknown>): unknown[] {
  let values: unknown[] = []
  visitLoggedAnswer(BSON.serialize(document), (...read) => { values = read })
  return values
}

test('the five values fitting reads come out of a review\'s BSON, whatever else it holds and in whatever order', async (t) => {
  const reviewedAt = new Date('2026-03-01T10:20:30.456Z')
  t.strictSame(visited({ cardID: '12345', reviewedAt, day: '2026-03-01', rating: 'good', before: { state: 2 } }), ['12345', reviewedAt.getTime(), '2026-03-01', 'good', 2])
  t.strictSame(visited({
    answer: { cardID: 'x', due: 'y' },
    before: { due: new Date(0), stability: new Double(3.5), state: new Int32(3), lastReview: null, flags: [1, 'a'] },
    rating: 'again',
    _id: new BSON.ObjectId(),
    seq: Long.fromNumber(7),
    day: '2025-12-31',
    wasNew: false,
    reviewedAt,
    cardID: 'carte-é'
  }), ['carte-é', reviewedAt.getTime(), '2025-12-31', 'again', 3])
  for (const rating of ['again', 'hard', 'good', 'easy']) t.equal(visited({ rating })[3], rating)
  t.equal(visited({ rating: 'perfect' })[3], null, 'a rating that is none of the four')
  t.equal(visited({ before: { state: new Double(1) } })[4], 1, 'a state stored as a double')
})
