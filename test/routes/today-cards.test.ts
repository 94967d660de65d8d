import { t, test } from 'tap'
import { newSchedule, scheduleReview } from '../../src/domain/scheduling.js'
import { buildTestApp, databaseOf, expectOk, makeDeck, makeFolder, post, registerUser, tamperedToken, type TestUser } from '../helpers/app.js'

type Tree = Record<string, unknown>

const HOUR = 3600_000
const DAY = 24 * HOUR
const FLASHCARD_KEYS = ['cards', 'flashcardID', 'flashcardName']
const CARD_KEYS = ['last_review', 'review_status']

/** How far ahead a new card rated easy is scheduled (FSRS defaults); tests place due instants with it. */
const EASY_INTERVAL = (() => {
  const at = new Date('2026-01-01T00:00:00Z')
  return scheduleReview(newSchedule(at), 'easy', at, { desiredRetention: 0.9 }).due.getTime() - at.getTime()
})()

function isObject (value: unknown): value is Tree {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function isFlashcard (value: Tree): boolean {
  return FLASHCARD_KEYS.some((key) => Object.hasOwn(value, key))
}

/**
 * Everything in a today's-cards tree that breaks the published interface (or the pruning rule:
 * no empty folder, no flashcard without cards); [] for a conforming tree.
 */
function shapeProblems (tree: unknown): string[] {
  const problems: string[] = []
  if (!isObject(tree)) return ['the tree is not an object']

  const walkCards = (cards: unknown, where: string): void => {
    if (!isObject(cards)) {
      problems.push(`${where}.cards is not an object`)
      return
    }
    if (Object.keys(cards).length === 0) problems.push(`${where}.cards is empty`)
    for (const [cardID, record] of Object.entries(cards)) {
      const at = `${where}.cards.${cardID}`
      if (!/^\d{30,}$/.test(cardID)) problems.push(`${at}: card id is not 30+ digits`)
      if (!isObject(record)) {
        problems.push(`${at} is not an object`)
        continue
      }
      if (JSON.stringify(Object.keys(record).sort()) !== JSON.stringify(CARD_KEYS)) {
        problems.push(`${at} has keys ${Object.keys(record).join(',')}`)
      }
      if (typeof record.last_review !== 'string' || !/^\d{2}\/\d{2}\/\d{4}$/.test(record.last_review)) {
        problems.push(`${at}.last_review is ${JSON.stringify(record.last_review)}`)
      }
      if (typeof record.review_status !== 'string' || !/^\d+\.\d$/.test(record.review_status)) {
        problems.push(`${at}.review_status is ${JSON.stringify(record.review_status)}`)
      }
    }
  }

  const walk = (node: Tree, where: string, topLevel: boolean): void => {
    if (Object.keys(node).length === 0 && where !== '') problems.push(`${where} is an empty folder`)
    for (const [name, child] of Object.entries(node)) {
      const at = `${where}/${name}`
      if (!isObject(child)) {
        problems.push(`${at} is ${JSON.stringify(child)}, not a folder or flashcard`)
        continue
      }
      if (!isFlashcard(child)) {
        walk(child, at, false)
        continue
      }
      if (topLevel) problems.push(`${at} is a flashcard at the top level`)
      if (JSON.stringify(Object.keys(child).sort()) !== JSON.stringify(FLASHCARD_KEYS)) {
        problems.push(`${at} has keys ${Object.keys(child).join(',')}`)
      }
      if (typeof child.flashcardID !== 'string' || !/^\d{30,}$/.test(child.flashcardID)) {
        problems.push(`${at}.flashcardID is ${JSON.stringify(child.flashcardID)}`)
      }
      if (child.flashcardName !== name) problems.push(`${at}.flashcardName is ${JSON.stringify(child.flashcardName)}`)
      walkCards(child.cards, at)
    }
  }

  walk(tree, '', true)
  return problems
}

/** Every leaf of a JSON value that is not a string, by path. */
function nonStringLeaves (value: unknown, where = ''): string[] {
  if (isObject(value)) return Object.entries(value).flatMap(([key, child]) => nonStringLeaves(child, `${where}/${key}`))
  if (Array.isArray(value)) return [`${where} is an array`]
  return typeof value === 'string' ? [] : [`${where} is ${JSON.stringify(value)}`]
}

interface FoundCard { path: string[], flashcardID: string, last_review: string, review_status: string }

/** The cards of a tree by id, in the order the tree lists them. */
function cardsOf (tree: Tree, path: string[] = []): Map<string, FoundCard> {
  const found = new Map<string, FoundCard>()
  for (const [name, child] of Object.entries(tree)) {
    if (!isObject(child)) continue
    if (isFlashcard(child)) {
      for (const [cardID, record] of Object.entries(child.cards as Record<string, { last_review: string, review_status: string }>)) {
        found.set(cardID, { path: [...path, name], flashcardID: child.flashcardID as string, ...record })
      }
    } else {
      for (const [cardID, card] of cardsOf(child, [...path, name])) found.set(cardID, card)
    }
  }
  return found
}

function cardIDsOf (tree: Tree): string[] {
  return [...cardsOf(tree).keys()]
}

let current = new Date('2026-05-04T12:00:00Z')
// one app for the file: each test sets the clock and studies as users of its own
const app = await buildTestApp(t, import.meta.filename, { clock: () => current })

async function today (user: TestUser): Promise<Tree> {
  return await expectOk<Tree>(app, 'get-today-cards', { jwtToken: user.jwtToken })
}

async function review (user: TestUser, flashcardID: string, cardID: string, rating: string): Promise<{ due: string, last_review: string, review_status: string }> {
  return await expectOk(app, 'review-card', { jwtToken: user.jwtToken, flashcardID, cardID, rating })
}

async function setSettings (user: TestUser, settings: Record<string, unknown>): Promise<void> {
  await databaseOf(app).collection<{ _id: string }>('users').updateOne({ _id: user.userID }, { $set: settings })
}

/**
 * A card in review, due exactly at `due`: created and rated easy one easy
 * interval earlier. Leaves the clock at the review instant.
 */
async function cardDueAt (user: TestUser, folder: string[], flashcardName: string, due: Date): Promise<{ flashcardID: string, cardID: string }> {
  current = new Date(due.getTime() - EASY_INTERVAL)
  const { flashcardID, cardIDs: [cardID] } = await makeDeck(app, user, { folder, name: flashcardName, cards: 1 })
  const answer = await review(user, flashcardID, cardID as string, 'easy')
  if (answer.due !== due.toISOString()) throw new Error(`the card is due at ${answer.due}, not ${due.toISOString()}`)
  return { flashcardID, cardID: cardID as string }
}

test('the shape check used below rejects trees that break the published interface', async (t) => {
  const id = '1'.repeat(39)
  const good = { F: { S: { cards: { [id]: { last_review: '01/02/2026', review_status: '0.0' } }, flashcardID: id, flashcardName: 'S' } } }
  t.same(shapeProblems(good), [])
  t.not(shapeProblems({ S: good.F.S }).length, 0, 'a flashcard at the top level')
  t.not(shapeProblems({ F: { S: { ...good.F.S, extra: 'x' } } }).length, 0, 'a fourth member')
  t.not(shapeProblems({ F: { S: { ...good.F.S, flashcardID: 'abc' } } }).length, 0, 'an id that is not digits')
  t.not(shapeProblems({ F: { S: { ...good.F.S, cards: { [id]: { last_review: '2026-02-01', review_status: '0.0' } } } } }).length, 0, 'an ISO date')
  t.not(shapeProblems({ F: { S: { ...good.F.S, cards: { [id]: { last_review: '01/02/2026', review_status: '0' } } } } }).length, 0, 'a status without its decimal')
  t.not(shapeProblems({ F: {} }).length, 0, 'an empty folder')
  t.not(nonStringLeaves({ F: { n: 1 } }).length, 0, 'a number leaf')
})

test('the tree has the shape of the published tree (docs/interface.md), at one and at three levels of folders', async (t) => {
  current = new Date('2026-05-04T12:00:00Z')
  const user = await registerUser(app)
  const spanish = await makeDeck(app, user, { folder: ['Languages'], name: 'Spanish', cards: 2 })
  const membranes = await makeDeck(app, user, { folder: ['Science', 'Biology', 'Cells'], name: 'Membranes', cards: 1 })

  const response = await post(app, 'get-today-cards', { jwtToken: user.jwtToken })
  t.equal(response.statusCode, 200)
  t.match(response.headers['content-type'], /^application\/json/)
  const tree = JSON.parse(response.body) as Tree
  t.same(shapeProblems(tree), [])
  t.same(nonStringLeaves(tree), [], 'every leaf is a string')

  const newCard = { last_review: '04/05/2026', review_status: '0.0' }
  t.strictSame(tree, {
    Languages: {
      Spanish: {
        cards: { [spanish.cardIDs[0] as string]: newCard, [spanish.cardIDs[1] as string]: newCard },
        flashcardID: spanish.flashcardID,
        flashcardName: 'Spanish'
      }
    },
    Science: {
      Biology: {
        Cells: {
          Membranes: {
            cards: { [membranes.cardIDs[0] as string]: newCard },
            flashcardID: membranes.flashcardID,
            flashcardName: 'Membranes'
          }
        }
      }
    }
  })
})

test('only the folders and flashcards that lead to a card due today appear', async (t) => {
  current = new Date('2026-05-04T12:00:00Z')
  const user = await registerUser(app)
  await makeFolder(app, user, ['Empty folder'])
  await makeDeck(app, user, { folder: ['Languages', 'French'], name: 'No cards yet', cards: 0 })
  const verbs = await makeDeck(app, user, { folder: ['Languages', 'German'], name: 'Verbs', cards: 1 })
  const optics = await makeDeck(app, user, { folder: ['Science', 'Physics'], name: 'Optics', cards: 1 })

  const before = await today(user)
  t.same(Object.keys(before).sort(), ['Languages', 'Science'], 'folders with a new card appear (the control case)')
  t.ok(isObject((before.Science as Tree)?.Physics), 'Physics holds a new card, so it appears')

  // once rated easy, the Optics card is not due for days: its whole branch goes
  await review(user, optics.flashcardID, optics.cardIDs[0] as string, 'easy')
  const after = await today(user)
  t.same(shapeProblems(after), [])
  t.strictSame(Object.keys(after), ['Languages'])
  t.strictSame(Object.keys(after.Languages as Tree), ['German'], 'neither the French folder (no cards) nor the empty folder')
  t.strictSame(cardIDsOf(after), verbs.cardIDs)
})

test('a user with no cards gets {}', async (t) => {
  current = new Date('2026-05-04T12:00:00Z')
  const newcomer = await registerUser(app)
  const empty = await post(app, 'get-today-cards', { jwtToken: newcomer.jwtToken })
  t.equal(empty.statusCode, 200)
  t.equal(empty.body, '{}')
})

test('a user whose cards are all scheduled for later days gets {}, and the cards come back on the day they are due', async (t) => {
  current = new Date('2026-05-04T12:00:00Z')
  const user = await registerUser(app)
  const { flashcardID, cardIDs } = await makeDeck(app, user, { folder: ['Done'], name: 'All reviewed', cards: 2 })
  for (const cardID of cardIDs) await review(user, flashcardID, cardID, 'easy')
  const response = await post(app, 'get-today-cards', { jwtToken: user.jwtToken })
  t.equal(response.statusCode, 200)
  t.equal(response.body, '{}', 'every card reviewed and scheduled for a later day')

  current = new Date(current.getTime() + EASY_INTERVAL)
  t.strictSame(cardIDsOf(await today(user)).sort(), [...cardIDs].sort(), 'the cards come back on the day they are due')
})

test('a user sees only their own cards', async (t) => {
  current = new Date('2026-05-04T12:00:00Z')
  const ann = await registerUser(app)
  const bob = await registerUser(app)
  const annDeck = await makeDeck(app, ann, { folder: ['Shared name'], name: 'Deck', cards: 2 })
  const bobDeck = await makeDeck(app, bob, { folder: ['Shared name'], name: 'Deck', cards: 3 })
  const bobOther = await makeDeck(app, bob, { folder: ['Only Bob'], name: 'Private', cards: 1 })

  const annTree = await today(ann)
  t.strictSame(Object.keys(annTree), ['Shared name'])
  t.equal(((annTree['Shared name'] as Tree).Deck as Tree).flashcardID, annDeck.flashcardID)
  t.strictSame(cardIDsOf(annTree), annDeck.cardIDs)

  const bobTree = await today(bob)
  t.strictSame(Object.keys(bobTree), ['Only Bob', 'Shared name'])
  t.strictSame(cardIDsOf(bobTree).sort(), [...bobDeck.cardIDs, ...bobOther.cardIDs].sort())
  t.notOk(JSON.stringify(annTree).includes(bobDeck.flashcardID))
})

test("today is the user's day: the same cards at one instant are due in Kiritimati, not yet in Pago Pago", async (t) => {
  // Kiritimati is UTC+14, Pago Pago UTC-11: at one instant their calendars are a day apart
  const reviewedAt = new Date('2026-05-01T20:00:00Z')
  current = reviewedAt
  const kiritimati = await registerUser(app, { timezone: 'Pacific/Kiritimati' })
  const pagoPago = await registerUser(app, { timezone: 'Pacific/Pago_Pago' })
  const decks: Record<string, { flashcardID: string, cardID: string }> = {}
  for (const user of [kiritimati, pagoPago]) {
    current = reviewedAt
    const { flashcardID, cardIDs: [cardID] } = await makeDeck(app, user, { folder: ['Travel'], name: 'Phrases', cards: 1 })
    const answer = await review(user, flashcardID, cardID as string, 'easy')
    t.equal(answer.due, new Date(reviewedAt.getTime() + EASY_INTERVAL).toISOString(), 'both cards are due at the same instant')
    decks[user.userID] = { flashcardID, cardID: cardID as string }
  }
  const due = reviewedAt.getTime() + EASY_INTERVAL

  // 5.5 hours before the due instant: 04:30 in Kiritimati, a day that ends after the due
  // instant; 03:30 in Pago Pago, still the previous day (days start at 04:00), ending before it
  current = new Date(due - 5.5 * HOUR)
  const kiritimatiTree = await today(kiritimati)
  const pagoPagoTree = await today(pagoPago)
  t.strictSame(cardIDsOf(kiritimatiTree), [decks[kiritimati.userID]?.cardID])
  t.strictSame(pagoPagoTree, {})
  t.equal(cardsOf(kiritimatiTree).get(decks[kiritimati.userID]?.cardID as string)?.last_review, '02/05/2026',
    'reviewed at 10:00 on 2 May, Kiritimati time')

  // an hour later a new day begins in Pago Pago too
  current = new Date(due - 4.5 * HOUR)
  const later = cardsOf(await today(pagoPago))
  t.strictSame([...later.keys()], [decks[pagoPago.userID]?.cardID])
  t.equal(later.get(decks[pagoPago.userID]?.cardID as string)?.last_review, '01/05/2026', 'reviewed at 09:00 on 1 May, Pago Pago time')
})

test('dayStartHour moves the end of today', async (t) => {
  current = new Date('2026-04-01T12:00:00Z')
  const user = await registerUser(app)
  // due at 02:00 UTC on 9 May
  const due = new Date('2026-05-09T02:00:00Z')
  const { cardID } = await cardDueAt(user, ['Night owl'], 'Late cards', due)

  current = new Date('2026-05-08T23:00:00Z')
  const expected: Array<[number, boolean]> = [[4, true], [3, true], [2, false], [1, false], [0, false]]
  for (const [dayStartHour, isDue] of expected) {
    await setSettings(user, { dayStartHour })
    const ids = cardIDsOf(await today(user))
    t.strictSame(ids, isDue ? [cardID] : [], `with days starting at ${dayStartHour}:00 the card is ${isDue ? '' : 'not '}due by the end of today`)
  }

  // the card was reviewed at 02:00 UTC on 1 May: still 30 April for a day that starts at 04:00
  await setSettings(user, { dayStartHour: 4 })
  t.equal(cardsOf(await today(user)).get(cardID)?.last_review, '30/04/2026')
  current = new Date('2026-05-09T01:00:00Z')
  await setSettings(user, { dayStartHour: 0 })
  t.equal(cardsOf(await today(user)).get(cardID)?.last_review, '01/05/2026')
})

test('daylight-saving nights neither skip nor repeat a day (Europe/Berlin)', async (t) => {
  // days start at 02:00: the hour Berlin skips on 29 March and repeats on 25 October 2026
  current = new Date('2026-03-20T12:00:00Z')
  const user = await registerUser(app, { timezone: 'Europe/Berlin' })
  await setSettings(user, { dayStartHour: 2 })
  const { flashcardID, cardIDs: [cardID] } = await makeDeck(app, user, { folder: ['Sweep'], name: 'Hourly', cards: 1 })

  /** The last_review a review shows, once an hour over three days around `change`. */
  async function daysAround (change: string): Promise<Array<{ at: string, day: string }>> {
    const samples: Array<{ at: string, day: string }> = []
    const middle = new Date(change).getTime()
    for (let hour = -36; hour <= 36; hour++) {
      current = new Date(middle + hour * HOUR)
      const answer = await review(user, flashcardID, cardID as string, 'good')
      samples.push({ at: current.toISOString(), day: answer.last_review })
    }
    return samples
  }

  function hoursPerDay (samples: Array<{ day: string }>): Array<[string, number]> {
    const counts: Array<[string, number]> = []
    for (const { day } of samples) {
      const last = counts[counts.length - 1]
      if (last !== undefined && last[0] === day) last[1] += 1
      else counts.push([day, 1])
    }
    return counts
  }

  // spring forward at 01:00 UTC on 29 March: 02:00 never happens, 29 March starts at 03:00 CEST
  const spring = await daysAround('2026-03-29T01:00:00Z')
  t.strictSame(hoursPerDay(spring).map(([day]) => day), ['27/03/2026', '28/03/2026', '29/03/2026', '30/03/2026'],
    'each day once, in order')
  t.equal(hoursPerDay(spring)[1]?.[1], 24, '28 March runs from 02:00 CET to 03:00 CEST: 24 hours')
  t.equal(hoursPerDay(spring)[2]?.[1], 23, '29 March runs from 03:00 CEST to 02:00 CEST: 23 hours')
  t.match(spring.find(({ at }) => at === '2026-03-29T00:00:00.000Z'), { day: '28/03/2026' }, '01:00 CET is still 28 March')
  t.match(spring.find(({ at }) => at === '2026-03-29T01:00:00.000Z'), { day: '29/03/2026' }, '03:00 CEST is 29 March')

  // fall back at 01:00 UTC on 25 October: 02:00-03:00 happens twice, 25 October starts at the first
  const autumn = await daysAround('2026-10-25T01:00:00Z')
  t.strictSame(hoursPerDay(autumn).map(([day]) => day), ['23/10/2026', '24/10/2026', '25/10/2026', '26/10/2026'],
    'each day once, in order')
  t.equal(hoursPerDay(autumn)[1]?.[1], 24, '24 October: 24 hours')
  t.equal(hoursPerDay(autumn)[2]?.[1], 25, '25 October runs from the first 02:00 to 02:00 the next day: 25 hours')
  t.match(autumn.find(({ at }) => at === '2026-10-24T23:00:00.000Z'), { day: '24/10/2026' }, '01:00 CEST is still 24 October')
  t.match(autumn.find(({ at }) => at === '2026-10-25T00:00:00.000Z'), { day: '25/10/2026' }, 'the first 02:00 (CEST) starts 25 October')
  t.match(autumn.find(({ at }) => at === '2026-10-25T01:00:00.000Z'), { day: '25/10/2026' }, 'the repeated 02:00 (CET) is still 25 October')
})

test('the due set follows the 23-hour day of Europe/Berlin in March', async (t) => {
  current = new Date('2026-03-01T12:00:00Z')
  const user = await registerUser(app, { timezone: 'Europe/Berlin' })
  // days start at 04:00 local: 28 March 2026 ends at 04:00 CEST = 02:00 UTC on 29 March
  const inShortDay = await cardDueAt(user, ['DST'], 'Due 03:30 CEST', new Date('2026-03-29T01:30:00Z'))
  const afterShortDay = await cardDueAt(user, ['DST'], 'Due 04:30 CEST', new Date('2026-03-29T02:30:00Z'))

  current = new Date('2026-03-28T12:00:00Z')
  t.strictSame(cardIDsOf(await today(user)), [inShortDay.cardID], 'on 28 March: only the card due before 04:00 CEST')
  current = new Date('2026-03-29T01:59:00Z')
  t.strictSame(cardIDsOf(await today(user)), [inShortDay.cardID], 'at 03:59 CEST it is still 28 March')
  current = new Date('2026-03-29T02:00:00Z')
  t.strictSame(cardIDsOf(await today(user)), [inShortDay.cardID, afterShortDay.cardID], 'from 04:00 CEST it is 29 March')
})

test('the due set follows the 25-hour day of Europe/Berlin in October', async (t) => {
  current = new Date('2026-10-01T12:00:00Z')
  const user = await registerUser(app, { timezone: 'Europe/Berlin' })
  // 24 October 2026 ends at 04:00 CET = 03:00 UTC on 25 October
  const inLongDay = await cardDueAt(user, ['DST'], 'Due 03:30 CET', new Date('2026-10-25T02:30:00Z'))
  const afterLongDay = await cardDueAt(user, ['DST'], 'Due 04:30 CET', new Date('2026-10-25T03:30:00Z'))

  current = new Date('2026-10-24T12:00:00Z')
  t.strictSame(cardIDsOf(await today(user)), [inLongDay.cardID], 'on 24 October the day lasts until 04:00 CET')
  current = new Date('2026-10-25T02:59:00Z')
  t.strictSame(cardIDsOf(await today(user)), [inLongDay.cardID], 'at 03:59 CET it is still 24 October')
  current = new Date('2026-10-25T03:00:00Z')
  t.strictSame(cardIDsOf(await today(user)), [inLongDay.cardID, afterLongDay.cardID], 'from 04:00 CET it is 25 October')
})

test('newCardsPerDay limits new cards, in creation order, less those started today', async (t) => {
  current = new Date('2026-06-01T12:00:00Z')
  const user = await registerUser(app)
  await setSettings(user, { newCardsPerDay: 3 })
  const first = await makeDeck(app, user, { folder: ['New'], name: 'Zebra first', cards: 3 })
  current = new Date('2026-06-01T12:01:00Z')
  const second = await makeDeck(app, user, { folder: ['New'], name: 'Aardvark second', cards: 2 })
  const [f0, f1, f2] = first.cardIDs as [string, string, string]

  const initial = await today(user)
  t.same(shapeProblems(initial), [])
  t.strictSame(cardIDsOf(initial), [f0, f1, f2], 'the first three cards created')

  // two new cards started today: one new card left for today
  await review(user, first.flashcardID, f0, 'easy')
  await review(user, first.flashcardID, f1, 'easy')
  t.strictSame(cardIDsOf(await today(user)), [f2])

  await review(user, first.flashcardID, f2, 'easy')
  t.strictSame(await today(user), {}, 'the allowance for today is used up')

  // the next user-day (days start at 04:00 UTC) brings a fresh allowance
  current = new Date('2026-06-02T03:59:00Z')
  t.strictSame(await today(user), {}, 'at 03:59 it is still 1 June')
  current = new Date('2026-06-02T04:00:00Z')
  t.strictSame(cardIDsOf(await today(user)), second.cardIDs)
})

test('reviewsPerDay limits due cards, most overdue first, less the reviews done today', async (t) => {
  current = new Date('2026-07-01T10:00:00Z')
  const user = await registerUser(app)
  await setSettings(user, { reviewsPerDay: 3 })
  const { flashcardID, cardIDs } = await makeDeck(app, user, { folder: ['Reviews'], name: 'Five', cards: 5 })
  const [c0, c1, c2, c3, c4] = cardIDs as [string, string, string, string, string]
  // rated easy an hour apart, in an order unlike creation order: due in that order too
  const overdueOrder = [c2, c4, c0, c3, c1]
  for (const [hour, cardID] of overdueOrder.entries()) {
    current = new Date(Date.parse('2026-07-01T10:00:00Z') + hour * HOUR)
    await review(user, flashcardID, cardID, 'easy')
  }

  // two days after all five fell due
  current = new Date(Date.parse('2026-07-01T10:00:00Z') + EASY_INTERVAL + 2 * DAY)
  const initial = await today(user)
  t.same(shapeProblems(initial), [])
  t.strictSame(cardIDsOf(initial), [c2, c4, c0], 'the three most overdue, most overdue first')
  t.strictSame(Object.keys(((initial.Reviews as Tree).Five as Tree).cards as Tree), [c2, c4, c0])

  // one review today leaves two
  await review(user, flashcardID, c2, 'good')
  t.strictSame(cardIDsOf(await today(user)), [c4, c0])
  await review(user, flashcardID, c4, 'good')
  await review(user, flashcardID, c0, 'good')
  t.strictSame(await today(user), {}, 'three reviews today: none left, though two cards are overdue')

  current = new Date(current.getTime() + DAY)
  t.strictSame(cardIDsOf(await today(user)), [c3, c1], 'the next day the allowance is back')
})

test('the two limits are separate', async (t) => {
  current = new Date('2026-08-01T10:00:00Z')
  const user = await registerUser(app)
  await setSettings(user, { reviewsPerDay: 1, newCardsPerDay: 1 })
  const { flashcardID, cardIDs } = await makeDeck(app, user, { folder: ['Mixed'], name: 'Four', cards: 4 })
  const [c0, c1, c2] = cardIDs as [string, string, string, string]
  await review(user, flashcardID, c0, 'easy')
  current = new Date('2026-08-02T10:00:00Z')
  await review(user, flashcardID, c1, 'easy')

  current = new Date(Date.parse('2026-08-02T10:00:00Z') + EASY_INTERVAL + DAY)
  t.strictSame(cardIDsOf(await today(user)), [c0, c2], 'one review card (the more overdue) and one new card')
  await review(user, flashcardID, c2, 'easy')
  t.strictSame(cardIDsOf(await today(user)), [c0], 'starting a new card leaves the review allowance whole')
  await review(user, flashcardID, c0, 'good')
  t.strictSame(await today(user), {}, 'both used up, though a card is overdue and another new')
})

test('an invalid token gives 401', async (t) => {
  current = new Date('2026-05-04T12:00:00Z')
  const user = await registerUser(app)
  await makeDeck(app, user, { folder: ['Mine'], name: 'Cards', cards: 1 })
  const [head, payload, signature] = user.jwtToken.split('.') as [string, string, string]
  const otherUser = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), sub: '1'.repeat(39) })).toString('base64url')
  const doomed = await registerUser(app)
  await databaseOf(app).collection<{ _id: string }>('users').deleteOne({ _id: doomed.userID })
  const tokens = {
    garbage: 'not.a.token',
    empty: '',
    'tampered signature': tamperedToken(`${head}.${payload}.${signature}`),
    'another subject, same signature': `${head}.${otherUser}.${signature}`,
    'a deleted user': doomed.jwtToken
  }
  for (const [name, jwtToken] of Object.entries(tokens)) {
    const response = await post(app, 'get-today-cards', { jwtToken })
    t.equal(response.statusCode, 401, name)
    t.same(response.json(), { error: 'invalid or expired token', code: 'invalid_token' }, name)
  }
  t.equal((await post(app, 'get-today-cards', { jwtToken: user.jwtToken })).statusCode, 200, 'the untouched token works (the control case)')
})
