// The study page in Chromium studies a queue larger than one page of get-study-queue:
// it asks for the next page while the learner still has cards of the first, and goes on
// without stopping; its counts are those of the whole queue.
import type { HTTPResponse } from 'puppeteer-core'
import { test } from 'tap'
import { MAX_PAGE_BYTES } from '../src/domain/limits.js'
import { expectOk } from './helpers/app.js'
import { goTo, openStudyPage, withoutChromium } from './helpers/study-page.js'

const BROWSER_TEST = { skip: withoutChromium, timeout: 110_000 }
const DAY = 86_400_000
const CARDS = 50

interface QueueAnswer { cursor: boolean, bytes: number, cards: number, answersBefore: number }

test('a learner with reviewsPerDay set high studies a queue of several pages without the page stopping', BROWSER_TEST, async (t) => {
  // the service's clock is moved back to make the cards reviewed two months ago, due again today
  let offset = -60 * DAY
  const study = await openStudyPage(t, import.meta.filename, { clock: () => new Date(Date.now() + offset) })
  const { page, app, token } = study
  await expectOk(app, 'update-settings', { jwtToken: token, reviewsPerDay: 9999 })
  await expectOk(app, 'create-folder', { jwtToken: token, path: ['Long'] }, 201)
  // sides of 10,000 characters, '&' shown as "&amp;": a card's JSON is about 120 KB, so a page of 4 MiB holds about 34
  const side = (n: number, what: string) => `${what} ${n} `.padEnd(10_000, '&')
  const deck = await expectOk<{ flashcardID: string, cardIDs: string[] }>(app, 'create-flashcard', {
    jwtToken: token, folder: ['Long'], flashcardName: 'Long sides', cards: Array.from({ length: 40 }, (_, n) => ({ front: side(n, 'front'), back: side(n, 'back') }))
  }, 201)
  const added = await expectOk<{ cardIDs: string[] }>(app, 'add-cards', {
    jwtToken: token, flashcardID: deck.flashcardID, cards: Array.from({ length: CARDS - 40 }, (_, n) => ({ front: side(40 + n, 'front'), back: side(40 + n, 'back') }))
  }, 201)
  for (const cardID of [...deck.cardIDs, ...added.cardIDs]) await expectOk(app, 'review-card', { jwtToken: token, flashcardID: deck.flashcardID, cardID, rating: 'easy' })
  offset = 0

  // every answer of get-study-queue the page gets, and how many cards the learner had answered when it came
  let answersGiven = 0
  const answers: QueueAnswer[] = []
  page.on('response', (response: HTTPResponse) => {
    if (!response.url().endsWith('/api/get-study-queue')) return
    const request = response.request()
    const answersBefore = answersGiven
    response.text().then((body) => {
      answers.push({ cursor: (JSON.parse(request.postData() ?? '{}') as { cursor?: string }).cursor !== undefined, bytes: Buffer.byteLength(body), cards: (JSON.parse(body) as { cards: unknown[] }).cards.length, answersBefore })
    }, () => {})
  })

  await goTo(page, 'study')
  await page.waitForSelector('#card-front')
  const counts = async () => await page.evaluate(() => ['new', 'learning', 'review'].map((state) => Number(document.querySelector(`#count-${state}`)?.getAttribute('data-count'))))
  t.strictSame(await counts(), [0, 0, CARDS], 'the header counts the whole queue, not only the first page')

  const fronts: string[] = []
  while (answersGiven < CARDS) {
    await page.waitForFunction(() => document.querySelector('#card-front') !== null && document.querySelector('#card-back') === null)
    t.notOk(await page.$('#session-end'), 'the sitting goes on')
    fronts.push(await page.$eval('#card-front .card-text', (front) => (front.textContent ?? '').slice(0, 12)))
    t.strictSame(await counts(), [0, 0, CARDS - answersGiven], `${CARDS - answersGiven} reviews left`)
    await page.keyboard.press('Space')
    await page.waitForSelector('#card-back')
    await page.keyboard.press('3')
    answersGiven += 1
    await page.waitForFunction((given) => Number(document.querySelector<HTMLProgressElement>('#session-progress')?.value) >= given, {}, answersGiven)
  }
  await page.waitForSelector('#session-end')
  t.equal(await page.$eval('#answers-given', (figure) => figure.textContent), String(CARDS), 'every card answered in one sitting')
  t.equal(new Set(fronts).size, CARDS, 'each card shown once')
  t.strictSame(fronts, Array.from({ length: CARDS }, (_, n) => `front ${n} `.padEnd(12, '&')), 'in the queue\'s order')

  t.ok(answers.length >= 2, `the page asked for more than one page: ${answers.length}`)
  const [first, next] = answers as [QueueAnswer, QueueAnswer]
  t.ok(!first.cursor && next.cursor, 'the first page, then the next by its cursor')
  t.ok(answers.every((answer) => answer.bytes <= MAX_PAGE_BYTES + 16 * 1024), `each answer at most a little over 4 MiB: ${answers.map((answer) => answer.bytes).join(', ')}`)
  t.ok(first.cards < CARDS, `the first page holds ${first.cards} cards`)
  t.ok(next.answersBefore < first.cards, `the next page came while cards of the first were still to answer (${next.answersBefore} of ${first.cards} answered)`)
  t.strictSame(study.consoleErrors, [], 'no errors on the page')
})
