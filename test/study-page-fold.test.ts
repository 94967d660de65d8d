// A card with a large picture on each side, studied in Chromium on a laptop's screen
// (1280 x 800) and a phone's (390 x 844): "Show answer" and then the four answers are on
// the screen without scrolling, and the answer comes into view above them.
import type { Page } from 'puppeteer-core'
import { test } from 'tap'
import { expectOk } from './helpers/app.js'
import { uploaded } from './helpers/media.js'
import { goTo, openStudyPage, picture, withoutChromium } from './helpers/study-page.js'

const BROWSER_TEST = { skip: withoutChromium, timeout: 110_000 }

/** Where an element is on the screen: true when it is wholly inside the viewport. */
async function onScreen (page: Page, selector: string): Promise<{ top: number, bottom: number, height: number, inView: boolean }> {
  return await page.$eval(selector, (element) => {
    const box = element.getBoundingClientRect()
    return { top: Math.round(box.top), bottom: Math.round(box.bottom), height: innerHeight, inView: box.top >= 0 && box.bottom <= innerHeight }
  })
}

async function picturesLoaded (page: Page, side: string): Promise<void> {
  await page.waitForFunction((selector) => [...document.querySelectorAll<HTMLImageElement>(`${selector} img`)].every((image) => image.complete && image.naturalWidth > 0), {}, side)
}

test('an image card\'s buttons are on screen at 1280 x 800 and 390 x 844, and its answer above them', BROWSER_TEST, async (t) => {
  const study = await openStudyPage(t, import.meta.filename)
  const { page, app, token } = study
  const robin = await uploaded(app, token, picture(1600, 1000))
  const nest = await uploaded(app, token, picture(900, 700, 'nest'))
  await expectOk(app, 'create-folder', { jwtToken: token, path: ['Rich'] }, 201)
  await expectOk(app, 'create-flashcard', {
    jwtToken: token,
    folder: ['Rich'],
    flashcardName: 'Birds',
    cards: [{ format: 'html', front: `Which bird is this?<br><img src="media:${robin.mediaID}" alt="A robin">`, back: `A robin, and its nest:<br><img src="media:${nest.mediaID}" alt="A nest">` }]
  }, 201)

  for (const [width, height, phone] of [[1280, 800, false], [390, 844, true]] as const) {
    await page.setViewport({ width, height, isMobile: phone, hasTouch: phone })
    await page.goto(`${study.base}/#/library`, { waitUntil: 'load' })
    await goTo(page, 'study')
    await page.waitForSelector('#card-front img')
    await picturesLoaded(page, '#card-front')
    const showAnswer = await onScreen(page, '#show-answer')
    t.ok(showAnswer.inView, `${width} x ${height}: Show answer is on the screen (${showAnswer.top}-${showAnswer.bottom} of ${showAnswer.height})`)

    await page.keyboard.press('Space')
    await page.waitForSelector('#card-back img')
    await picturesLoaded(page, '#card-back')
    await page.waitForFunction(() => [...document.querySelectorAll('.rating .interval')].every((interval) => /\d/.test(interval.textContent ?? '')))
    const buttons = await onScreen(page, '.rating-buttons')
    t.ok(buttons.inView, `${width} x ${height}: again, hard, good and easy are on the screen (${buttons.top}-${buttons.bottom} of ${buttons.height})`)
    const answer = await page.$eval('#card-back img', (image) => image.getBoundingClientRect().bottom)
    t.ok(answer <= buttons.top + 1, `${width} x ${height}: and the answer's picture is in view above them (ends at ${Math.round(answer)})`)
    const hit = await page.evaluate(() => {
      const button = document.querySelector('.rating[data-rating="good"]')?.getBoundingClientRect()
      return button === undefined ? null : document.elementFromPoint(button.left + button.width / 2, button.top + button.height / 2)?.closest('.rating')?.getAttribute('data-rating')
    })
    t.equal(hit, 'good', `${width} x ${height}: nothing covers them`)
  }
  t.same(study.consoleErrors, [], 'no console errors')
})
