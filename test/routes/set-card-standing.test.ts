// set-card-standing: one change of standing applied to many cards, all or
// nothing, each card changed as the operation of one card changes it.
import type { FastifyInstance } from 'fastify'
import { test } from 'tap'
import type { CardDocument } from '../../src/repositories/cards.js'
import { buildTestApp, databaseOf, expectOk, expectRefusal, makeDeck, registerUser, type TestUser } from '../helpers/app.js'

interface Counts { new: string, learning: string, review: string }

function standing (app: FastifyInstance, user: TestUser) {
  return {
    set: async (body: Record<string, unknown>) => await expectOk<{ changed: string }>(app, 'set-card-standing', { jwtToken: user.jwtToken, ...body }),
    counts: async (): Promise<Counts> => (await expectOk<{ counts: Counts }>(app, 'get-study-queue', { jwtToken: user.jwtToken })).counts,
    stored: async (cardIDs: readonly string[]) => await databaseOf(app).collection<CardDocument>('cardStates')
      .find({ _id: { $in: [...cardIDs] } }, { projection: { _id: 1, isNew: 1, suspended: 1, buriedUntil: 1, flag: 1 }, sort: { _id: 1 } }).toArray()
  }
}

test('suspend, unsuspend, bury, unbury and flag many cards at once, each as one card would change', async (t) => {
  const clock = { now: new Date('2026-04-10T10:00:00Z') }
  const app = await buildTestApp(t, import.meta.filename, { clock: () => clock.now })
  const user = await registerUser(app)
  const me = standing(app, user)
  const deck = await makeDeck(app, user, { folder: ['Languages'], name: 'Words', cards: 5 })
  const other = await makeDeck(app, user, { folder: ['Science'], name: 'Units', cards: 2 })
  const chosen = [
    { flashcardID: deck.flashcardID, cardID: deck.cardIDs[0] },
    { flashcardID: deck.flashcardID, cardID: deck.cardIDs[1] },
    { flashcardID: other.flashcardID, cardID: other.cardIDs[0] }
  ]
  const chosenIDs = chosen.map((card) => card.cardID as string)
  t.equal((await me.counts()).new, '7')

  t.strictSame(await me.set({ cards: [...chosen, chosen[0]], action: 'suspend' }), { changed: '3' }, 'a card named twice is changed once')
  t.ok((await me.stored(chosenIDs)).every((card) => card.suspended === true && card.isNew === 'suspended'), 'each suspended, out of the queues')
  t.equal((await me.counts()).new, '4', 'out of today\'s cards')
  await me.set({ cards: chosen, action: 'unsuspend' })
  t.ok((await me.stored(chosenIDs)).every((card) => card.suspended === undefined && card.isNew === true), 'each back in its queue')
  t.equal((await me.counts()).new, '7', 'back in today\'s cards')

  await me.set({ cards: chosen, action: 'bury' })
  const buried = await me.stored(chosenIDs)
  t.ok(buried.every((card) => card.isNew === 'buried' && card.buriedUntil !== undefined && card.buriedUntil > clock.now), 'buried')
  t.equal(new Set(buried.map((card) => card.buriedUntil?.getTime())).size, 1, 'each until the start of the user\'s next day')
  t.equal((await me.counts()).new, '4')
  await me.set({ cards: chosen.slice(0, 2), action: 'unbury' })
  t.equal((await me.counts()).new, '6', 'two unburied')
  clock.now = new Date('2026-04-11T10:00:00Z')
  t.equal((await me.counts()).new, '7', 'the third back the next day, as one buried card would be')

  await me.set({ cards: chosen, action: 'flag', flag: 4 })
  t.ok((await me.stored(chosenIDs)).every((card) => card.flag === 4), 'each flagged')
  await me.set({ cards: chosen.slice(1), action: 'flag', flag: 0 })
  t.strictSame((await me.stored(chosenIDs)).map((card) => card.flag).sort(), [4, undefined, undefined], 'flag 0: none')
})

test('all or nothing: an unknown card, a card of another flashcard or another user\'s, refuses the whole request and changes nothing', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app)
  const stranger = await registerUser(app)
  const me = standing(app, user)
  const deck = await makeDeck(app, user, { folder: ['Languages'], name: 'Words', cards: 3 })
  const second = await makeDeck(app, user, { folder: ['Languages'], name: 'Verbs', cards: 1 })
  const theirs = await makeDeck(app, stranger, { folder: ['Theirs'], name: 'Deck', cards: 1 })
  const mine = deck.cardIDs.map((cardID) => ({ flashcardID: deck.flashcardID, cardID }))
  const before = await me.stored(deck.cardIDs)
  const refuse = async (extra: { flashcardID: string, cardID: string }, what: string) =>
    await expectRefusal(t, app, 'set-card-standing', { jwtToken: user.jwtToken, cards: [...mine, extra], action: 'suspend' }, 404, 'card_not_found', what)
  await refuse({ flashcardID: deck.flashcardID, cardID: '1'.repeat(30) }, 'an unknown card')
  await refuse({ flashcardID: deck.flashcardID, cardID: second.cardIDs[0] as string }, 'a card of another flashcard')
  await refuse({ flashcardID: theirs.flashcardID, cardID: theirs.cardIDs[0] as string }, 'another user\'s card')
  t.strictSame(await me.stored(deck.cardIDs), before, 'no card changed')
  t.equal((await standing(app, stranger).stored(theirs.cardIDs))[0]?.isNew, true, 'the other user\'s card untouched')

  await expectRefusal(t, app, 'set-card-standing', { jwtToken: user.jwtToken, cards: mine, action: 'flag' }, 400, 'invalid_field', 'flag without a flag')
  await expectRefusal(t, app, 'set-card-standing', { jwtToken: user.jwtToken, cards: mine, action: 'bury', flag: 2 }, 400, 'invalid_field', 'a flag with bury')
  await expectRefusal(t, app, 'set-card-standing', { jwtToken: user.jwtToken, cards: [], action: 'bury' }, 400, 'invalid_field', 'no card')
  await expectRefusal(t, app, 'set-card-standing', { jwtToken: user.jwtToken, cards: Array.from({ length: 501 }, () => mine[0]), action: 'bury' }, 400, 'invalid_field', 'more than 500')
  await expectRefusal(t, app, 'set-card-standing', { jwtToken: user.jwtToken, cards: mine, action: 'delete' }, 400, 'invalid_field', 'an action of no standing')
  t.strictSame(await me.stored(deck.cardIDs), before, 'still no card changed')
})
