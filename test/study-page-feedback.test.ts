// What the study page says after an action, in Chromium: a notice belongs to the action that
// caused it and goes with the next one or after a few seconds; an error is said next to the
// control that failed, in view and read out, and goes with the next action; never two
// messages at once; undo is off when there is nothing to take back; the finished screen
// shows no study keys.
import type { Page } from 'puppeteer-core'
import { test } from 'tap'
import { expectOk } from './helpers/app.js'
import { click, goTo, openStudyPage, withoutChromium } from './helpers/study-page.js'

const BROWSER_TEST = { skip: withoutChromium, timeout: 90_000 }

async function textOf (page: Page, selector: string): Promise<string | null> {
  return await page.$eval(selector, (element) => element.textContent).catch(() => null)
}

/** Every message on show: the two areas at the top and any error next to a control. */
async function messagesOnShow (page: Page): Promise<string[]> {
  return await page.$$eval('#error-message, #notice-message, .inline-error, .field-problem', (areas) => areas
    .filter((area) => (area.textContent ?? '').trim() !== '' && (area as HTMLElement).checkVisibility())
    .map((area) => area.textContent ?? ''))
}

/** Answers the card on show with "easy" and waits for the next card or the end. */
async function answerEasy (page: Page): Promise<void> {
  await page.waitForFunction(() => document.querySelector('#card-front') !== null && document.querySelector('#card-back') === null)
  const front = await textOf(page, '#card-front .card-text')
  await page.keyboard.press('Space')
  await page.waitForSelector('#card-back')
  await page.keyboard.press('4')
  await page.waitForFunction((shown) => document.querySelector('#session-end') !== null ||
    (document.querySelector('#card-back') === null && document.querySelector('#card-front .card-text')?.textContent !== shown), {}, front)
}

test('a notice goes with the next action, or by itself after a few seconds; undo is off with nothing to undo; the end shows no keys', BROWSER_TEST, async (t) => {
  const study = await openStudyPage(t, import.meta.filename)
  const { page } = study
  await expectOk(study.app, 'create-folder', { jwtToken: study.token, path: ['Words'] }, 201)
  await expectOk(study.app, 'create-flashcard', {
    jwtToken: study.token, folder: ['Words'], flashcardName: 'Spanish', cards: [{ front: 'uno', back: 'one' }, { front: 'dos', back: 'two' }]
  }, 201)

  await goTo(page, 'study')
  await page.waitForSelector('#card-front')
  t.ok(await page.$('#undo-button[disabled]'), 'undo is off before any review')
  t.notOk(await page.$eval('#shortcut-help', (help) => (help as HTMLElement).hidden), 'the study keys are told while a card is on show')

  await answerEasy(page)
  t.ok(await page.$('#undo-button:not([disabled])'), 'undo is on once an answer was given')
  await click(page, '#undo-button')
  await page.waitForFunction(() => document.querySelector('#notice-message')?.textContent?.startsWith('Undone') === true)
  t.ok(await page.$('#undo-button[disabled]'), 'and off again once the only answer is taken back')
  // the next action: the notice about the undo goes at once
  await page.keyboard.press('Space')
  await page.waitForSelector('#card-back')
  t.equal(await textOf(page, '#notice-message'), '', 'the notice of the undo is gone with the next action')

  // U with nothing to undo says so; left alone, the notice goes by itself
  await page.keyboard.press('u')
  await page.waitForFunction(() => document.querySelector('#notice-message')?.textContent === 'There is no answer left to undo.')
  const shownAt = Date.now()
  await page.waitForFunction(() => document.querySelector('#notice-message')?.textContent === '', { timeout: 10_000 })
  const stayed = Date.now() - shownAt
  t.ok(stayed > 2000 && stayed < 8000, `a notice left alone goes after a few seconds (${stayed} ms)`)

  await page.keyboard.press('4')
  await page.waitForSelector('#card-back', { hidden: true })
  await answerEasy(page)
  await page.waitForSelector('#session-end')
  t.ok(await page.$eval('#shortcut-help', (help) => !(help as HTMLElement).checkVisibility()), 'the finished screen shows no study keys')
  t.equal(await page.$$eval('#screen kbd', (keys) => keys.filter((key) => (key as HTMLElement).checkVisibility()).length), 0, 'nor any key on its buttons')
  t.ok(await page.$('#undo-button:not([disabled])'), 'undo is offered at the end, with answers to take back')
  t.same(study.consoleErrors, [], 'no console errors')
})

test('an error is said next to the control that failed, in view, and goes with the next action; never two messages', BROWSER_TEST, async (t) => {
  const study = await openStudyPage(t, import.meta.filename)
  const { page } = study
  await expectOk(study.app, 'create-folder', { jwtToken: study.token, path: ['Words'] }, 201)
  await expectOk(study.app, 'create-flashcard', { jwtToken: study.token, folder: ['Words'], flashcardName: 'Taken', cards: [{ front: 'a', back: 'b' }] }, 201)
  // a short window, so that the import form is well below the top of the page
  await page.setViewport({ width: 1280, height: 500 })
  await page.reload({ waitUntil: 'load' })
  await click(page, '.tree-item-folder[data-name="Words"]')
  await click(page, 'details:has(.import-form) > summary')
  await page.type('.import-form input[type="text"]', 'Taken')
  await page.type('.import-form textarea', 'hola\thello')
  await page.$eval('.import-form button[type="submit"]', (submit) => { submit.scrollIntoView({ block: 'end' }) })
  await click(page, '.import-form button[type="submit"]')

  // a name already taken: refused by the service (name_taken), said beside the form
  await page.waitForSelector('.import-form + .inline-error[role="alert"]')
  t.match(await textOf(page, '.inline-error'), /Taken/, 'the service\'s words, naming the deck')
  t.equal(await textOf(page, '#error-message'), '', 'not at the top of the page')
  const place = await page.$eval('.inline-error', (error) => {
    const box = error.getBoundingClientRect()
    const submit = document.querySelector('.import-form button[type="submit"]')?.getBoundingClientRect()
    return { top: box.top, bottom: box.bottom, height: window.innerHeight, gap: box.top - (submit?.bottom ?? 0) }
  })
  t.ok(place.top >= 0 && place.bottom <= place.height + 1, `the error is in view (${place.top}-${place.bottom} of ${place.height})`)
  t.ok(place.gap >= 0 && place.gap < 60, `right below the button pressed (${place.gap} px)`)
  t.ok(await page.$eval('.app-header', (header) => header.getBoundingClientRect().bottom < 0), 'where the top of the page, out of view, would not have shown it')

  // the same form sent again, right: the error goes, and the notice of the import is the only message
  await page.$eval('.import-form input[type="text"]', (input) => { (input as HTMLInputElement).value = 'Fresh' })
  await click(page, '.import-form button[type="submit"]')
  await page.waitForFunction(() => document.querySelector('#notice-message')?.textContent?.includes('Fresh') === true)
  t.same(await messagesOnShow(page), ['Imported 1 card into "Fresh".'], 'one message: the notice of the import, the error gone')

  // another action: the notice goes with it
  await click(page, '.tree-item-folder[data-name="Words"]')
  t.same(await messagesOnShow(page), [], 'nothing said once the next action starts')

  // an error of the study screen: beside the answer buttons, then gone with the next answer
  let failNext = true
  study.intercept = async (request) => {
    if (!request.url().endsWith('/api/review-card') || !failNext) return false
    failNext = false
    await request.respond({ status: 503, contentType: 'application/json', body: JSON.stringify({ error: 'the database is unavailable; try again shortly', code: 'database_unavailable' }) })
    return true
  }
  await goTo(page, 'study')
  await page.waitForSelector('#card-front')
  await page.keyboard.press('Space')
  await page.waitForSelector('#card-back')
  await click(page, '.rating[data-rating="good"]')
  await page.waitForSelector('.rating-buttons + .inline-error[role="alert"]')
  t.ok(await page.$eval('.inline-error', (error) => { const box = error.getBoundingClientRect(); return box.top >= 0 && box.bottom <= window.innerHeight }),
    'the failed answer is said below the buttons, in view')
  t.same((await messagesOnShow(page)).length, 1, 'and it is the only message')
  await page.keyboard.press('3')
  await page.waitForSelector('#card-back', { hidden: true })
  t.same(await messagesOnShow(page), [], 'the answer given again takes the error away')
})
