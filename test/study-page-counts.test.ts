// The study header, in Chromium: Anki's three counts of the cards left (new, learning,
// review), which go down as the learner answers and move a card answered "again" to
// learning; and the session's progress bar.
import type { KeyInput, Page } from 'puppeteer-core'
import { test } from 'tap'
import { expectOk } from './helpers/app.js'
import { goTo, openStudyPage, withoutChromium } from './helpers/study-page.js'

const BROWSER_TEST = { skip: withoutChromium, timeout: 90_000 }
const DAY = 86_400_000

interface Header { new: number, learning: number, review: number, onShow: string | null, value: number, max: number }

async function header (page: Page): Promise<Header> {
  return await page.evaluate(() => {
    const count = (state: string) => Number(document.querySelector(`#count-${state}`)?.getAttribute('data-count'))
    const bar = document.querySelector<HTMLProgressElement>('#session-progress')
    return {
      new: count('new'),
      learning: count('learning'),
      review: count('review'),
      onShow: document.querySelector('#study-counts [aria-current="true"]')?.id.replace('count-', '') ?? null,
      value: bar?.value ?? -1,
      max: bar?.max ?? -1
    }
  })
}

async function answer (page: Page, key: KeyInput): Promise<void> {
  await page.waitForFunction(() => document.querySelector('#card-front') !== null && document.querySelector('#card-back') === null)
  await page.keyboard.press('Space')
  await page.waitForSelector('#card-back')
  const answersBefore = await page.$eval('#session-progress', (bar) => (bar as HTMLProgressElement).value)
  await page.keyboard.press(key)
  await page.waitForFunction((before) => (document.querySelector<HTMLProgressElement>('#session-progress')?.value ?? 0) > before, {}, answersBefore)
}

test('new, learning and review counts go down as cards are answered; a progress bar for the session', BROWSER_TEST, async (t) => {
  // the service's clock is moved back to make two cards reviewed a month ago, due again today
  let offset = 0
  const study = await openStudyPage(t, import.meta.filename, { clock: () => new Date(Date.now() + offset) })
  const { page, app, token } = study
  offset = -30 * DAY
  await expectOk(app, 'create-folder', { jwtToken: token, path: ['Words'] }, 201)
  const old = await expectOk<{ flashcardID: string, cardIDs: string[] }>(app, 'create-flashcard', {
    jwtToken: token, folder: ['Words'], flashcardName: 'Old', cards: [{ front: 'uno', back: 'one' }, { front: 'dos', back: 'two' }]
  }, 201)
  for (const cardID of old.cardIDs) {
    const reviewed = await expectOk<{ review_status: string }>(app, 'review-card', { jwtToken: token, flashcardID: old.flashcardID, cardID, rating: 'easy' })
    t.match(reviewed.review_status, /^[1-9]\d*\.0$/, 'a card in review a month ago')
  }
  offset = 0
  await expectOk(app, 'create-flashcard', {
    jwtToken: token, folder: ['Words'], flashcardName: 'New', cards: [{ front: 'tres', back: 'three' }, { front: 'cuatro', back: 'four' }]
  }, 201)

  await goTo(page, 'study')
  await page.waitForSelector('#card-front')
  const seen: Header[] = [await header(page)]
  t.same(seen[0], { new: 2, learning: 0, review: 2, onShow: 'review', value: 0, max: 4 }, 'two new, none learning, two reviews; the card on show is a review')
  t.match(await page.$eval('#study-counts', (counts) => counts.textContent), /2 new.*0 learning.*2 review/, 'the counts in words')

  await answer(page, '1')
  seen.push(await header(page))
  t.same(seen[1], { new: 2, learning: 1, review: 1, onShow: 'review', value: 1, max: 5 }, 'a review failed with "again" goes to learning, and will come back')
  await answer(page, '3')
  seen.push(await header(page))
  t.same(seen[2], { new: 2, learning: 1, review: 0, onShow: 'new', value: 2, max: 5 }, 'the other review done: no review left')
  await answer(page, '4')
  seen.push(await header(page))
  t.same(seen[3], { new: 1, learning: 1, review: 0, onShow: 'new', value: 3, max: 5 }, 'a new card done')
  await answer(page, '4')
  seen.push(await header(page))
  t.same(seen[4], { new: 0, learning: 1, review: 0, onShow: 'learning', value: 4, max: 5 }, 'the last new card done; the failed card is back, learning')
  await answer(page, '4')
  await page.waitForSelector('#session-end')
  const end = await header(page)
  t.equal(end.value, end.max, 'the bar is full at the end')
  t.ok(await page.$eval('#study-counts', (counts) => (counts as HTMLElement).hidden), 'and the counts make way for the summary')
  const left = seen.map((step) => step.new + step.learning + step.review)
  t.same(left, [4, 4, 3, 2, 1], 'the cards left never grow, and go down with every card done')
  t.same(study.consoleErrors, [], 'no console errors')
})
