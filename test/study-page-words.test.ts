// Words and dates of the study page, in Chromium: one date format, the user's own (the
// browser's locale, as its date picker shows), wherever a day is written, though the
// service writes DD/MM/YYYY; a set of cards is a "deck" everywhere on the page, the
// service's own sentences included; the heatmap opens with today in view, on a phone too.
import { test } from 'tap'
import { expectOk, post } from './helpers/app.js'
import { click, goTo, openFlashcard, openStudyPage, withoutChromium } from './helpers/study-page.js'

const BROWSER_TEST = { skip: withoutChromium, timeout: 90_000 }

const two = (value: number) => String(value).padStart(2, '0')

test('one date format, the user\'s own; "deck" throughout; the heatmap opens on today', BROWSER_TEST, async (t) => {
  const study = await openStudyPage(t, import.meta.filename)
  const { page, app, token } = study
  // the user's day is UTC shifted by dayStartHour (helpers/study-page.ts): a day whose number
  // is above 12 cannot be read the same way round as DD/MM and MM/DD
  const profile = await expectOk<{ dayStartHour: string }>(app, 'get-user', { jwtToken: token })
  const today = new Date(Date.now() - Number(profile.dayStartHour) * 3_600_000)
  let end = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() + 1))
  while (end.getUTCDate() <= 12) end = new Date(end.getTime() + 86_400_000)
  const wire = `${two(end.getUTCDate())}/${two(end.getUTCMonth() + 1)}/${end.getUTCFullYear()}`
  await expectOk(app, 'create-goal', { jwtToken: token, type: 'Card', target: 10, end_date: wire }, 201)

  const locale = await page.evaluate(() => Intl.DateTimeFormat().resolvedOptions().locale)
  const expected = new Intl.DateTimeFormat(locale, { year: 'numeric', month: '2-digit', day: '2-digit', timeZone: 'UTC' }).format(end)
  t.comment(`the browser's locale is ${locale}: ${wire} on the wire is ${expected} on the page`)

  await goTo(page, 'progress')
  await page.waitForSelector('#goal-list .goal-title')
  t.equal(await page.$eval('#goal-list .goal-title', (title) => title.textContent), `Revise 10 cards by ${expected}`, 'the goal\'s title in the user\'s format')
  t.equal(await page.$eval('#goal-list .goal-progress', (line) => line.textContent), '0 of 10 cards revised', 'its progress line does not say the day again')
  if (expected !== wire) {
    t.notOk(await page.evaluate((date) => document.body.innerText.includes(date), wire), 'the service\'s DD/MM/YYYY is nowhere on the page')
  }
  // the date picker, in the same format, gets its value as YYYY-MM-DD and sends DD/MM/YYYY
  await click(page, '#goal-list button[aria-label^="Edit goal"]')
  t.equal(await page.$eval('#goal-list input[type="date"]', (input) => (input as HTMLInputElement).value),
    `${end.getUTCFullYear()}-${two(end.getUTCMonth() + 1)}-${two(end.getUTCDate())}`, 'the picker holds the same day')
  await click(page, '#goal-list button[type="submit"]')
  await page.waitForFunction(() => document.querySelector('#notice-message')?.textContent === 'Goal saved.')
  const goals = await expectOk<Record<string, { end_date: string }>>(app, 'update-goal-status', { jwtToken: token })
  t.same(Object.values(goals).map((goal) => goal.end_date), [wire], 'and the service still gets and keeps DD/MM/YYYY')
  const todayLabel = await page.$eval('#heatmap .heat-today', (cell) => cell.getAttribute('aria-label'))
  const todayText = new Intl.DateTimeFormat(locale, { year: 'numeric', month: '2-digit', day: '2-digit', timeZone: 'UTC' })
    .format(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate()))
  t.equal(todayLabel, `Today, ${todayText}: no reviews`, 'the heatmap writes its days the same way')

  // the heatmap, a year wide, opens with today in view, at desktop and phone widths
  for (const width of [1280, 375]) {
    await page.setViewport({ width, height: 800 })
    await goTo(page, 'library')
    await goTo(page, 'progress')
    await page.waitForSelector('#heatmap .heat-today')
    await page.waitForFunction(() => {
      const scroller = document.querySelector('.heatmap-scroll')?.getBoundingClientRect()
      const cell = document.querySelector('#heatmap .heat-today')?.getBoundingClientRect()
      return scroller !== undefined && cell !== undefined && cell.left >= scroller.left && cell.right <= scroller.right
    }, { timeout: 3000 }).then(() => { t.pass(`at ${width} px the heatmap shows today`) }, () => { t.fail(`at ${width} px the heatmap does not show today`) })
    if (width === 375) {
      t.ok(await page.$eval('.heatmap-scroll', (scroller) => scroller.scrollWidth > scroller.clientWidth), 'at 375 px the year is wider than the screen, and scrolls')
    }
  }
  await page.setViewport({ width: 1280, height: 900 })

  // "deck", never "flashcard", on every screen, including the service's own sentences
  await expectOk(app, 'create-folder', { jwtToken: token, path: ['Words'] }, 201)
  await expectOk(app, 'create-flashcard', { jwtToken: token, folder: ['Words'], flashcardName: 'Spanish', cards: [{ front: 'uno', back: 'one' }] }, 201)
  await goTo(page, 'library')
  await click(page, '.tree-item-folder[data-name="Words"]')
  t.match(await page.$eval('#library-panel', (panel) => (panel as HTMLElement).innerText), /New deck/, 'the folder offers a new deck')
  // a deck deleted elsewhere while its panel is open: the service's refusal names a flashcard
  const other = await expectOk<{ flashcardID: string }>(app, 'create-flashcard', { jwtToken: token, folder: ['Words'], flashcardName: 'Gone', cards: [] }, 201)
  await page.reload({ waitUntil: 'load' })
  await openFlashcard(page, 'Gone')
  await expectOk(app, 'delete-flashcard', { jwtToken: token, flashcardID: other.flashcardID })
  const said = (await post(app, 'delete-flashcard', { jwtToken: token, flashcardID: other.flashcardID })).json<{ error: string }>().error
  t.match(said, /^no flashcard \d+$/, `the service's sentence says flashcard ("${said}")`)
  await click(page, '#library-panel .danger-zone button')
  await click(page, '#library-panel .danger-zone button.danger')
  await page.waitForSelector('.inline-error')
  t.match(await page.$eval('.inline-error', (error) => error.textContent ?? ''), /^no deck \d+$/, 'the page says it in its words: no deck')
  await page.reload({ waitUntil: 'load' })
  await openFlashcard(page, 'Spanish')
  for (const screen of ['library', 'study', 'progress', 'settings'] as const) {
    if (screen !== 'library') await goTo(page, screen)
    await page.waitForFunction(() => document.querySelector('.loading') === null)
    // the app's name, "Flashcards", is the one use of the word: the cards a learner flips
    const words = await page.evaluate(() => (document.querySelector('#screen') as HTMLElement).innerText +
      [...document.querySelectorAll('#screen [aria-label]')].map((element) => element.getAttribute('aria-label')).join(' '))
    t.notMatch(words, /flashcard/i, `the ${screen} screen never says "flashcard"`)
  }
})
