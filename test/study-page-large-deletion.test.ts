// Deleting a deck too large for one transaction, on the study page in Chromium: the service
// answers before the deletion is over (here at once: no wait), and the page says the deck goes
// once its cards are deleted, rather than that it is gone.
import { test } from 'tap'
import { expectOk } from './helpers/app.js'
import { click, openFlashcard, openStudyPage, withoutChromium } from './helpers/study-page.js'

const BROWSER_TEST = { skip: withoutChromium, timeout: 90_000 }

test('a large deck deleted on the page: the notice says it is being deleted, and it goes', BROWSER_TEST, async (t) => {
  const { page, app, token } = await openStudyPage(t, import.meta.filename, { largeDeletions: { waitMs: 0 } })
  await expectOk(app, 'create-folder', { jwtToken: token, path: ['Imported'] }, 201)
  const { flashcardID } = await expectOk<{ flashcardID: string }>(app, 'create-flashcard', {
    jwtToken: token, folder: ['Imported'], flashcardName: 'Huge', cards: Array.from({ length: 1000 }, (_, index) => ({ front: `word ${index}`, back: 'meaning' }))
  }, 201)
  await expectOk(app, 'add-cards', { jwtToken: token, flashcardID, cards: Array.from({ length: 200 }, (_, index) => ({ front: `more ${index}`, back: 'meaning' })) }, 201)
  await page.reload({ waitUntil: 'load' })
  await openFlashcard(page, 'Huge')
  await click(page, '#library-panel .danger-zone button')
  await click(page, '#library-panel .danger-zone button.danger')
  await page.waitForFunction(() => (document.querySelector('#notice-message')?.textContent ?? '') !== '')
  const notice = await page.$eval('#notice-message', (element) => element.textContent)
  t.equal(notice, 'Deleting "Huge" and 1,200 cards: the deck goes once all its cards are deleted, in a few minutes.',
    'the notice says the deletion goes on, not that it is over')
  if (process.env.STUDY_PAGE_SCREENSHOTS === '1') {
    await page.evaluate(() => { document.querySelector('#notice-message')?.scrollIntoView({ block: 'start' }) })
    await page.screenshot({ path: 'docs/study-page-large-deletion.png' })
  }
  const deadline = Date.now() + 60_000
  while ((JSON.stringify(await expectOk(app, 'get-library', { jwtToken: token }))).includes(flashcardID)) {
    if (Date.now() > deadline) throw new Error('the deck was not deleted within 60 s')
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  t.pass('and the deck goes, behind the answer')
})
