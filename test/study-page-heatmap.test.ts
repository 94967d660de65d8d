// The heatmap of the progress screen on a phone, in Chromium: wider than the screen, it
// opens on its latest weeks, today in view, and keeps them in view when the phone turns
// from landscape to upright; on a desktop, where it fits, it sits on the left.
import type { Page } from 'puppeteer-core'
import { test } from 'tap'
import { expectOk } from './helpers/app.js'
import { goTo, openStudyPage, withoutChromium } from './helpers/study-page.js'

const BROWSER_TEST = { skip: withoutChromium, timeout: 100_000 }
const DAY = 86_400_000

async function todayInView (page: Page): Promise<{ inView: boolean, scrolls: boolean }> {
  return await page.evaluate(() => {
    const scroller = document.querySelector('.heatmap-scroll')
    const today = document.querySelector('#heatmap .heat-today')?.getBoundingClientRect()
    if (scroller === null || today === undefined) return { inView: false, scrolls: false }
    const box = scroller.getBoundingClientRect()
    return { inView: today.left >= box.left && today.right <= box.right, scrolls: scroller.scrollWidth > scroller.clientWidth }
  })
}

test('on a phone the heatmap shows its latest weeks, also once the phone is turned upright', BROWSER_TEST, async (t) => {
  let offset = 0
  const study = await openStudyPage(t, import.meta.filename, { clock: () => new Date(Date.now() + offset) })
  const { page, app, token } = study
  // reviews over the year, today's included
  await expectOk(app, 'create-folder', { jwtToken: token, path: ['Words'] }, 201)
  offset = -300 * DAY
  const deck = await expectOk<{ flashcardID: string, cardIDs: string[] }>(app, 'create-flashcard', {
    jwtToken: token, folder: ['Words'], flashcardName: 'Basics', cards: [{ front: 'uno', back: 'one' }, { front: 'dos', back: 'two' }]
  }, 201)
  for (const back of [300, 200, 100, 30, 0]) {
    offset = -back * DAY
    for (const cardID of deck.cardIDs) await expectOk(app, 'review-card', { jwtToken: token, flashcardID: deck.flashcardID, cardID, rating: 'again' })
  }
  offset = 0

  await page.setViewport({ width: 390, height: 844, isMobile: true, hasTouch: true })
  await goTo(page, 'progress')
  await page.waitForSelector('#heatmap .heat-today')
  const upright = await todayInView(page)
  t.ok(upright.scrolls, 'the year is wider than the phone')
  t.ok(upright.inView, 'it opens on today')

  // landscape first, where the year fits, then upright
  await page.setViewport({ width: 844, height: 390, isMobile: true, hasTouch: true, isLandscape: true })
  await goTo(page, 'library')
  await goTo(page, 'progress')
  await page.waitForSelector('#heatmap .heat-today')
  t.ok((await todayInView(page)).inView, 'in landscape, today is in view')
  await page.setViewport({ width: 390, height: 844, isMobile: true, hasTouch: true })
  const turned = await page.waitForFunction(() => {
    const scroller = document.querySelector('.heatmap-scroll')
    return scroller !== null && scroller.scrollWidth > scroller.clientWidth
  }).then(async () => await todayInView(page))
  t.ok(turned.inView, 'turned upright, today is still in view, not the oldest months')

  // on a desktop, where the year fits, it sits on the left of its box, the weekdays' names first
  await page.setViewport({ width: 1280, height: 800 })
  await goTo(page, 'library')
  await goTo(page, 'progress')
  await page.waitForSelector('#heatmap .heat-today')
  const desktop = await page.evaluate(() => {
    const scroller = document.querySelector('.heatmap-scroll')?.getBoundingClientRect()
    const grid = document.querySelector('#heatmap')?.getBoundingClientRect()
    return scroller === undefined || grid === undefined ? null : { fits: grid.width <= scroller.width, gap: Math.round(grid.left - scroller.left) }
  })
  t.ok(desktop?.fits === true && desktop.gap <= 4, `at 1280 px the year fits, on the left (${JSON.stringify(desktop)})`)
  t.same(study.consoleErrors, [], 'no console errors')
})
