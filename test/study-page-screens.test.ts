// The study, library and progress screens of a learner with some history, at 1280 and
// 375 px, in Chromium: nothing scrolls sideways on a phone and the heatmap shows today.
// With STUDY_PAGE_SCREENSHOTS=1 it also writes the screenshots of docs/
// (study-page-{study,library,progress}.png, their -375 twins, and study-page-study-dark.png).
import { test } from 'tap'
import { expectOk } from './helpers/app.js'
import { click, docsScreenshot, goTo, openFlashcard, openStudyPage, pageIsNoWiderThan, withoutChromium } from './helpers/study-page.js'

const DAY = 86_400_000
const BROWSER_TEST = { skip: withoutChromium, timeout: 110_000 }

const SPANISH = [['hola', 'hello'], ['adiós', 'goodbye'], ['gracias', 'thank you'], ['por favor', 'please'], ['el perro', 'the dog'], ['la casa', 'the house'], ['el libro', 'the book'], ['la mesa', 'the table']]
const FRENCH = [['bonjour', 'hello'], ['merci', 'thank you'], ['le chat', 'the cat']]
const CHEMISTRY = [['H₂O', 'water'], ['NaCl', 'table salt'], ['CO₂', 'carbon dioxide']]

test('study, library and progress at 1280 and 375 px', BROWSER_TEST, async (t) => {
  let offset = 0
  const study = await openStudyPage(t, import.meta.filename, { clock: () => new Date(Date.now() + offset) })
  const { page, app, token } = study
  const deck = async (folder: string[], name: string, cards: string[][]) => {
    await expectOk(app, 'create-folder', { jwtToken: token, path: folder }, 201)
    return await expectOk<{ flashcardID: string, cardIDs: string[] }>(app, 'create-flashcard', {
      jwtToken: token, folder, flashcardName: name, cards: cards.map(([front, back]) => ({ front, back }))
    }, 201)
  }
  // two months of history: the decks made then, reviewed on many days since, some due today
  offset = -60 * DAY
  const spanish = await deck(['Languages', 'Spanish'], 'Greetings', SPANISH)
  const chemistry = await deck(['Science'], 'Chemistry', CHEMISTRY)
  for (let day = 60; day >= 1; day -= 1) {
    offset = -day * DAY
    if (day % 3 === 0) continue
    const cardIDs = [...spanish.cardIDs.slice(0, 4).map((cardID) => [spanish.flashcardID, cardID]), ...chemistry.cardIDs.map((cardID) => [chemistry.flashcardID, cardID])]
    for (const [flashcardID, cardID] of cardIDs.slice(0, 1 + (day % 7))) {
      await expectOk(app, 'review-card', { jwtToken: token, flashcardID, cardID, rating: day % 5 === 0 ? 'again' : 'good' })
    }
  }
  offset = 0
  await deck(['Languages', 'French'], 'Basics', FRENCH)
  await expectOk(app, 'create-goal', { jwtToken: token, type: 'Card', target: 100, end_date: '31/12/2099' }, 201)
  await expectOk(app, 'create-goal', { jwtToken: token, type: 'XP', target: 500, end_date: '31/12/2099' }, 201)

  for (const width of [1280, 375]) {
    const suffix = width === 1280 ? '' : '-375'
    await page.setViewport({ width, height: width === 1280 ? 900 : 800 })
    await page.goto(`${study.base}/#/library`, { waitUntil: 'load' })
    // the library as it is now, the decks made above included
    await page.reload({ waitUntil: 'load' })
    await openFlashcard(page, 'Greetings')
    t.ok(await pageIsNoWiderThan(page, width), `the library fits ${width} px`)
    await docsScreenshot(page, `study-page-library${suffix}.png`)

    await goTo(page, 'study')
    await page.waitForSelector('#card-front')
    await page.keyboard.press('Space')
    await page.waitForFunction(() => [...document.querySelectorAll('.rating .interval')].every((interval) => /\d/.test(interval.textContent ?? '')))
    t.ok(await pageIsNoWiderThan(page, width), `the study screen fits ${width} px`)
    await page.$eval('#study-card', (card) => { (card as HTMLElement).blur() })
    await docsScreenshot(page, `study-page-study${suffix}.png`)

    await goTo(page, 'progress')
    await page.waitForSelector('#goal-list')
    await page.waitForSelector('#heatmap .heat-today')
    await page.waitForFunction(() => {
      const scroller = document.querySelector('.heatmap-scroll')?.getBoundingClientRect()
      const cell = document.querySelector('#heatmap .heat-today')?.getBoundingClientRect()
      return scroller !== undefined && cell !== undefined && cell.right <= scroller.right && cell.left >= scroller.left
    })
    t.ok(await pageIsNoWiderThan(page, width), `the progress screen fits ${width} px, today in view on the heatmap`)
    await docsScreenshot(page, `study-page-progress${suffix}.png`)
  }
  // the dark scheme, as a system set to dark mode asks for it
  await page.setViewport({ width: 1280, height: 900 })
  await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'dark' }])
  await goTo(page, 'study')
  await page.waitForFunction(() => document.querySelector('#card-front') !== null && document.querySelector('#card-back') === null)
  await page.keyboard.press('Space')
  await page.waitForSelector('#card-back')
  await page.waitForFunction(() => [...document.querySelectorAll('.rating .interval')].every((interval) => /\d/.test(interval.textContent ?? '')))
  t.ok(await page.evaluate(() => getComputedStyle(document.documentElement).colorScheme === 'dark'), 'the page follows the system\'s dark mode')
  await docsScreenshot(page, 'study-page-study-dark.png')
  await click(page, '#main-nav a[data-screen="library"]')
  t.same(study.consoleErrors, [], 'no console errors')
})
