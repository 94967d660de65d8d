// "What to study" in Chromium: each choice's cards due and new today go down as the
// session goes, as the header's counts do, for everything and for the folder and deck of
// the card answered; a card answered "again" stays due; an undo puts the count back.
import type { KeyInput, Page } from 'puppeteer-core'
import { test } from 'tap'
import { expectOk } from './helpers/app.js'
import { goTo, openStudyPage, withoutChromium } from './helpers/study-page.js'

const BROWSER_TEST = { skip: withoutChromium, timeout: 100_000 }
const DAY = 86_400_000

/** The counts the choice named `name` (everything, a folder or a deck) says it holds. */
async function choiceSays (page: Page, name: string, wanted: string): Promise<boolean> {
  return await page.waitForFunction((choice, counts) => [...document.querySelectorAll<HTMLOptionElement>('#study-choice option')]
    .some((option) => option.dataset.name === choice && option.textContent?.endsWith(counts) === true), { timeout: 10_000 }, name, wanted)
    .then(() => true, () => false)
}

async function answer (page: Page, key: KeyInput): Promise<void> {
  await page.waitForFunction(() => document.querySelector('#card-front') !== null && document.querySelector('#card-back') === null)
  const answers = await page.$eval('#session-progress', (bar) => (bar as HTMLProgressElement).value)
  await page.keyboard.press('Space')
  await page.waitForSelector('#card-back')
  await page.keyboard.press(key)
  await page.waitForFunction((before) => (document.querySelector<HTMLProgressElement>('#session-progress')?.value ?? 0) !== before, {}, answers)
}

test('the counts of What to study follow the session, as the header\'s do', BROWSER_TEST, async (t) => {
  let offset = 0
  const study = await openStudyPage(t, import.meta.filename, { clock: () => new Date(Date.now() + offset) })
  const { page, app, token } = study
  // two cards reviewed a month ago are due today; two cards are new
  offset = -30 * DAY
  await expectOk(app, 'create-folder', { jwtToken: token, path: ['Words'] }, 201)
  const old = await expectOk<{ flashcardID: string, cardIDs: string[] }>(app, 'create-flashcard', {
    jwtToken: token, folder: ['Words'], flashcardName: 'Old', cards: [{ front: 'uno', back: 'one' }, { front: 'dos', back: 'two' }]
  }, 201)
  for (const cardID of old.cardIDs) await expectOk(app, 'review-card', { jwtToken: token, flashcardID: old.flashcardID, cardID, rating: 'easy' })
  offset = 0
  await expectOk(app, 'create-flashcard', {
    jwtToken: token, folder: ['Words'], flashcardName: 'New', cards: [{ front: 'tres', back: 'three' }, { front: 'cuatro', back: 'four' }]
  }, 201)

  await goTo(page, 'study')
  await page.waitForSelector('#card-front')
  t.ok(await choiceSays(page, 'everything', '(2 due, 2 new)'), 'everything: 2 due, 2 new')
  t.ok(await choiceSays(page, 'Words', '(2 due, 2 new)'), 'the folder the same')
  t.ok(await choiceSays(page, 'Old', '(2 due, 0 new)'), 'the deck of the due cards: 2 due')

  await answer(page, '4')
  t.ok(await choiceSays(page, 'everything', '(1 due, 2 new)'), 'a review done: one due less')
  t.ok(await choiceSays(page, 'Words', '(1 due, 2 new)'), 'in its folder')
  t.ok(await choiceSays(page, 'Old', '(1 due, 0 new)'), 'and its deck')
  t.equal(await page.$eval('#count-review', (count) => count.getAttribute('data-count')), '1', 'as the header says')

  await page.keyboard.press('u')
  await page.waitForFunction(() => document.querySelector('#notice-message')?.textContent?.startsWith('Undone') === true)
  t.ok(await choiceSays(page, 'everything', '(2 due, 2 new)'), 'undone: due again')
  await answer(page, '4')
  t.ok(await choiceSays(page, 'everything', '(1 due, 2 new)'), 'answered again')

  await answer(page, '1')
  t.ok(await choiceSays(page, 'everything', '(1 due, 2 new)'), 'a review answered "again" is still due today, learning')
  await answer(page, '4')
  t.ok(await choiceSays(page, 'everything', '(1 due, 1 new)'), 'a new card done: one new less')
  t.ok(await choiceSays(page, 'New', '(0 due, 1 new)'), 'in its deck too')
  t.same(study.consoleErrors, [], 'no console errors')
})
