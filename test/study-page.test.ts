import { existsSync } from 'node:fs'
import puppeteer, { type Page } from 'puppeteer-core'
import { test } from 'tap'
import { buildTestApp, post } from './helpers/app.js'

const CHROMIUM = '/usr/bin/chromium'
const PHONE_WIDTH = 375

// flags that keep headless Chromium off the network and out of the way
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync']

const DECK = ['hola\thello', 'adiós\tgoodbye', 'gracias\tthank you'].join('\n')

interface PageWindow { cspViolations?: string[], inlineScriptRan?: boolean }

/** A folder as get-library gives it. */
interface LibraryFolder { folderID: string, name: string, folders: LibraryFolder[], flashcards: Array<{ flashcardName: string, cards: string }> }

/** The text of the first element that matches, or null. */
async function textOf (page: Page, selector: string): Promise<string | null> {
  return await page.$eval(selector, (element) => element.textContent).catch(() => null)
}

async function waitForText (page: Page, selector: string, text: string): Promise<void> {
  await page.waitForFunction((sel, wanted) => document.querySelector(sel)?.textContent?.includes(wanted) === true, {}, selector, text)
}

async function goTo (page: Page, screen: 'library' | 'study' | 'progress' | 'settings'): Promise<void> {
  await page.click(`#main-nav a[data-screen="${screen}"]`)
  await page.waitForSelector(`#main-nav a[data-screen="${screen}"][aria-current="page"]`)
}

/** Form controls and buttons on show that have no name a screen reader could read. */
async function unlabelledControls (page: Page): Promise<string[]> {
  return await page.$$eval('input, select, textarea, button', (controls) => controls
    .filter((control) => control.checkVisibility())
    .filter((control) => {
      if (control.getAttribute('aria-label') !== null || control.getAttribute('aria-labelledby') !== null) return false
      if (control instanceof HTMLButtonElement) return (control.textContent ?? '').trim() === ''
      return (control as HTMLInputElement).labels?.length === 0
    })
    .map((control) => control.outerHTML.slice(0, 80)))
}

async function pageIsNoWiderThan (page: Page, width: number): Promise<boolean> {
  return await page.evaluate((limit) => document.documentElement.scrollWidth <= limit, width)
}

test('the study page: register, import, study by keyboard, undo, goals, heatmap, log out', {
  skip: existsSync(CHROMIUM) || process.env.CI === 'true' ? false : `Chromium is not installed at ${CHROMIUM} (Debian: apt-get install chromium); the page was not driven`,
  timeout: 180_000
}, async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const address = app.server.address()
  if (address === null || typeof address === 'string') throw new Error('no address')
  const base = `http://127.0.0.1:${address.port}`

  const browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS })
  t.teardown(async () => { await browser.close() })
  const page = await browser.newPage()
  page.setDefaultTimeout(20_000)

  // every error the page logs (a failed request, a blocked inline style or script) and every uncaught exception
  const consoleErrors: string[] = []
  page.on('console', (message) => { if (message.type() === 'error') consoleErrors.push(message.text()) })
  page.on('pageerror', (error) => { consoleErrors.push(String(error)) })
  await page.evaluateOnNewDocument(() => {
    const state = window as unknown as PageWindow
    state.cspViolations = []
    document.addEventListener('securitypolicyviolation', (event) => {
      state.cspViolations?.push(`${event.violatedDirective} ${event.blockedURI}`)
    })
  })

  // every review-card request's retry key; one answer can be made to fail as if the service were briefly away
  const reviewIDs: string[] = []
  let failNextReview = false
  await page.setRequestInterception(true)
  page.on('request', (request) => {
    if (request.url().endsWith('/api/review-card')) {
      reviewIDs.push((JSON.parse(request.postData() ?? '{}') as { reviewID: string }).reviewID)
      if (failNextReview) {
        failNextReview = false
        void request.respond({ status: 503, contentType: 'application/json', body: JSON.stringify({ error: 'service unavailable, try again shortly' }) })
        return
      }
    }
    void request.continue()
  })

  await page.setViewport({ width: 1280, height: 900 })
  await page.goto(`${base}/`, { waitUntil: 'load' })

  // ---- register
  await page.waitForSelector('#register-form')
  t.same(await unlabelledControls(page), [], 'every control of the login screen is labelled')
  const email = `page-${Date.now()}@example.com`
  await page.type('#register-form input[type="email"]', email)
  await page.type('#register-form input[type="password"]', 'correct horse battery')
  await page.click('#register-form button[type="submit"]')
  await page.waitForSelector('#main-nav a[data-screen="library"][aria-current="page"]')
  const stored = JSON.parse(await page.evaluate(() => localStorage.getItem('flashcards.session')) ?? 'null') as { jwtToken?: string } | null
  const token = stored?.jwtToken ?? ''
  t.ok(token.length > 20, 'the token is kept in localStorage')

  // ---- a folder, then a deck pasted into it
  await page.type('.new-folder-form input', 'Languages')
  await page.click('.new-folder-form button[type="submit"]')
  await page.waitForSelector('.tree-item-folder[data-name="Languages"][aria-pressed="true"]')
  await page.click('details:has(.import-form) > summary')
  await page.type('.import-form input[type="text"]', 'Spanish basics')
  await page.focus('.import-form textarea')
  // as a paste: the tabs and line breaks go into the text, not to the focus
  await page.keyboard.sendCharacter(DECK)
  await page.click('.import-form button[type="submit"]')
  await page.waitForSelector('.tree-item-flashcard[data-name="Spanish basics"]')
  t.equal(await textOf(page, '.tree-item-flashcard[data-name="Spanish basics"] .tree-count'), '3 cards', 'the imported deck has its 3 cards')
  t.equal(await textOf(page, '.tree-item-folder[data-name="Languages"] .tree-count'), '3 cards', 'the folder counts the cards below it')
  await page.waitForSelector('#card-list')
  t.same(await page.$$eval('#card-list .card-item', (items) => items.length), 3, 'the flashcard panel lists the cards')
  t.same(await unlabelledControls(page), [], 'every control of the library is labelled')

  // ---- folders made outside the page (create-folder filling in the missing parent) are renamed and moved in it
  const library = async () => (await post(app, 'get-library', { jwtToken: token })).json() as { folders: LibraryFolder[] }
  const made = await post(app, 'create-folder', { jwtToken: token, path: ['Made elsewhere', 'Inner'] })
  t.equal(made.statusCode, 201, 'two levels of folders made through the API')
  const innerID = (made.json() as { folderID: string }).folderID
  const before = await library()
  const outerID = before.folders.find((folder) => folder.name === 'Made elsewhere')?.folderID
  const languagesID = before.folders.find((folder) => folder.name === 'Languages')?.folderID
  await page.reload({ waitUntil: 'load' })
  await page.click('.tree-item-folder[data-name="Made elsewhere"]')
  await page.click('details:has(.rename-folder-form) > summary')
  await page.$eval('.rename-folder-form input', (input) => { (input as HTMLInputElement).value = '' })
  await page.type('.rename-folder-form input', 'Renamed here')
  await page.click('.rename-folder-form button[type="submit"]')
  await page.waitForSelector('.tree-item-folder[data-name="Renamed here"][aria-pressed="true"]')
  await page.click('.tree-item-folder[data-name="Inner"]')
  await waitForText(page, '#library-panel h2', 'Inner')
  await page.click('details:has(.move-folder-form) > summary')
  t.same(await page.select('.move-folder-form select', languagesID ?? ''), [languagesID], 'a folder made in the page is offered as the destination, by its id')
  await page.click('.move-folder-form button[type="submit"]')
  await page.waitForSelector('.tree-folder:has(> .tree-item-folder[data-name="Languages"]) .tree-item-folder[data-name="Inner"][aria-pressed="true"]')
  t.notOk(await page.$('.tree-folder:has(> .tree-item-folder[data-name="Renamed here"]) > ul'), 'the page shows the renamed folder emptied by the move')
  const after = await library()
  const renamed = after.folders.find((folder) => folder.folderID === outerID)
  t.equal(renamed?.name, 'Renamed here', 'the API shows the folder made elsewhere renamed')
  t.same(renamed?.folders, [], 'and its subfolder gone from it')
  t.same(after.folders.find((folder) => folder.folderID === languagesID)?.folders.map((folder) => [folder.folderID, folder.name]), [[innerID, 'Inner']],
    'the subfolder made elsewhere is in Languages now')

  // ---- a Card goal, and the heatmap before any review
  await goTo(page, 'progress')
  await page.waitForSelector('#create-goal-form')
  await page.select('#create-goal-form select', 'Card')
  await page.$eval('#create-goal-form input[type="number"]', (input) => { (input as HTMLInputElement).value = '10' })
  await page.click('#create-goal-form button[type="submit"]')
  await waitForText(page, '#goal-list .goal-progress', '0 of 10 cards revised')
  await page.waitForSelector('#heatmap .heat-today')
  t.equal(await page.$eval('#heatmap .heat-today', (cell) => cell.getAttribute('data-count')), '0', 'no reviews today yet')
  t.equal(await page.$$eval('#heatmap .heat-cell:not(.heat-blank)', (cells) => cells.length), 365, 'a cell for each of the last 365 days')
  t.same(await unlabelledControls(page), [], 'every control of the progress screen is labelled')

  // ---- study every card of the day with the keyboard only
  await goTo(page, 'study')
  const answers: Array<{ front: string, key: string }> = []
  let undoneFront: string | undefined
  for (let shown = 0; shown < 20; shown += 1) {
    await page.waitForFunction(() => document.querySelector('#session-end') !== null ||
      (document.querySelector('#card-front') !== null && document.querySelector('#card-back') === null))
    if (await page.$('#session-end') !== null) break
    const front = await textOf(page, '#card-front .card-text') ?? ''
    if (shown === 1) t.equal(front, undoneFront, 'undo puts the card taken back in front of the user again')
    await page.keyboard.press('Space')
    await page.waitForSelector('#card-back')
    await page.waitForFunction(() => [...document.querySelectorAll('.rating .interval')].every((interval) => /\d/.test(interval.textContent ?? '')))
    const intervals = await page.$$eval('.rating', (buttons) => buttons.map((button) => [button.getAttribute('data-rating'), button.querySelector('.interval')?.textContent]))
    t.equal(intervals.length, 4, 'four answer buttons')
    for (const [rating, interval] of intervals) {
      t.match(interval, /^\d+(\.\d+)? (min|h|days?|months?|years?)$/, `the ${rating} button shows the interval it would give`)
    }
    // the first answer is taken back; the card then comes again, is failed once, and comes back in this session
    const key = shown === 1 ? '1' : '4'
    if (shown === 0) {
      // the first answer is lost on its way: the user is told, and answers again
      failNextReview = true
      await page.keyboard.press(key)
      await waitForText(page, '#error-message[role="alert"]', 'service unavailable, try again shortly')
      await page.waitForSelector('.rating:not([disabled])')
      t.ok(await page.$('#card-back'), 'the card stays on show after a failed answer')
    }
    await page.keyboard.press(key)
    // a double press sends one answer
    if (shown === 2) await page.keyboard.press(key)
    await page.waitForSelector('#card-back', { hidden: true })
    answers.push({ front, key })
    if (shown === 0) {
      await waitForText(page, '#study-status', '1 answer ·')
      await page.keyboard.press('u')
      await waitForText(page, '#study-status', '0 answers ·')
      undoneFront = front
    }
  }
  t.ok(await page.$('#session-end'), 'the session ends on its own screen')
  const fronts = new Set(answers.map((answer) => answer.front))
  t.same([...fronts].sort(), ['adiós', 'gracias', 'hola'], 'every card of the day was shown')
  t.equal(answers.length, 5, 'five answers: one undone, one again, three that finish the cards')
  t.equal(answers.filter((answer) => answer.front === undoneFront).length, 3, 'the undone card came back, and again after "again"')
  t.equal(await textOf(page, '#cards-studied'), '3', 'cards studied')
  t.equal(await textOf(page, '#answers-given'), '4', 'answers that count: the undone one does not')
  t.equal(await textOf(page, '#session-xp'), '40', 'XP gained this session, 10 an answer')
  t.equal(await textOf(page, '#total-xp'), '40', 'total XP, without the undone answer\'s')
  t.equal(reviewIDs.length, 6, 'one review-card request an answer, and one for the answer sent again')
  t.equal(reviewIDs[0], reviewIDs[1], 'an answer sent again keeps its reviewID, so it cannot count twice')
  t.equal(new Set(reviewIDs).size, 5, 'every other answer has a fresh reviewID')
  t.ok(reviewIDs.every((id) => /^[\x21-\x7e]{1,100}$/.test(id)), 'reviewIDs the service accepts')

  // ---- progress: XP, the goal and the heatmap moved
  await goTo(page, 'progress')
  await waitForText(page, '#goal-list .goal-progress', '4 of 10 cards revised')
  t.pass('the Card goal counts the 4 reviews')
  await waitForText(page, '#stat-total-xp', '40')
  t.equal(await textOf(page, '#stat-streak'), '1 day', 'a one-day streak')
  t.equal(await page.$eval('#heatmap .heat-today', (cell) => cell.getAttribute('data-count')), '4', 'today\'s cell counts the 4 reviews')
  t.match(await page.$eval('#heatmap .heat-today', (cell) => cell.getAttribute('title')), /: 4 reviews$/, 'the cell says so in words')
  t.notOk(await page.$eval('#heatmap .heat-today', (cell) => cell.classList.contains('heat-0')), 'and is coloured')

  // ---- a reload mid-session: undo still brings back the last card answered, face up
  const numbers = await post(app, 'create-flashcard', {
    jwtToken: token, folder: ['Languages', 'Inner'], flashcardName: 'Numbers', cards: [{ front: 'uno', back: 'one' }, { front: 'dos', back: 'two' }]
  })
  t.equal(numbers.statusCode, 201, 'two more cards, made through the API')
  await goTo(page, 'study')
  await page.waitForSelector('#card-front')
  const lastAnswered = await textOf(page, '#card-front .card-text')
  await page.keyboard.press('Space')
  await page.waitForSelector('#card-back')
  await page.keyboard.press('4')
  await waitForText(page, '#study-status', '1 card left')
  const following = await textOf(page, '#card-front .card-text')
  await page.reload({ waitUntil: 'load' })
  await waitForText(page, '#study-status', '1 card left · 0 answers')
  await page.click('#undo-button')
  // done once the page says what came of it and offers undo again
  await page.waitForFunction(() => (document.querySelector('#notice-message')?.textContent ?? '') !== '' &&
    document.querySelector('#undo-button:not([disabled])') !== null)
  t.equal(await textOf(page, '#card-front .card-text'), lastAnswered, 'undo after the reload shows the card answered before it')
  t.equal(await page.$('#card-back'), null, 'face up: its front, with the back still hidden')
  t.match(await textOf(page, '#study-status'), /^2 cards left/, 'the card it displaced is still to come')
  await page.keyboard.press('Space')
  await page.waitForSelector('#card-back')
  await page.keyboard.press('4')
  await waitForText(page, '#study-status', '1 card left')
  t.equal(await textOf(page, '#card-front .card-text'), following, 'and comes next')

  // ---- phone width: no screen scrolls sideways
  await page.setViewport({ width: PHONE_WIDTH, height: 800 })
  t.ok(await pageIsNoWiderThan(page, PHONE_WIDTH), 'progress fits 375 px')
  for (const screen of ['library', 'study', 'settings'] as const) {
    await goTo(page, screen)
    await page.waitForFunction(() => document.querySelector('.loading') === null)
    t.ok(await pageIsNoWiderThan(page, PHONE_WIDTH), `${screen} fits 375 px`)
  }
  t.same(await unlabelledControls(page), [], 'every control of the settings screen is labelled')
  await goTo(page, 'library')
  await page.waitForSelector('.tree-item-flashcard[data-name="Spanish basics"]')
  await page.click('.tree-item-flashcard[data-name="Spanish basics"]')
  await page.waitForSelector('#card-list')
  t.ok(await pageIsNoWiderThan(page, PHONE_WIDTH), 'a flashcard with its cards fits 375 px')

  // ---- log out: back on the login screen, the token forgotten
  await page.click('#logout-button')
  await page.waitForSelector('#login-form')
  t.ok(await pageIsNoWiderThan(page, PHONE_WIDTH), 'the login screen fits 375 px')
  const kept = await page.evaluate(() => Object.keys(localStorage).map((key) => localStorage.getItem(key) ?? ''))
  t.notOk(kept.some((value) => value.includes(token)), 'the token is no longer in localStorage')
  await page.reload({ waitUntil: 'load' })
  await page.waitForSelector('#login-form')
  t.ok(await page.$eval('#main-nav', (nav) => (nav as HTMLElement).hidden), 'a reload stays logged out')

  const [lostAnswer, ...otherErrors] = consoleErrors
  t.match(lostAnswer, /status of 503/, 'the one error logged is the answer made to fail')
  t.same(otherErrors, [], 'no other console errors')
  t.same(await page.evaluate(() => (window as unknown as PageWindow).cspViolations), [], 'nothing broke the Content-Security-Policy')

  // ---- a refused token sends the user to the login screen, with the reason in words
  await page.type('#login-form input[type="email"]', email)
  await page.type('#login-form input[type="password"]', 'correct horse battery')
  await page.click('#login-form button[type="submit"]')
  await page.waitForSelector('#main-nav a[aria-current="page"]')
  const session = JSON.parse(await page.evaluate(() => localStorage.getItem('flashcards.session')) ?? '{}') as { jwtToken: string }
  t.equal((await post(app, 'logout-everywhere', { jwtToken: session.jwtToken })).statusCode, 200)
  await goTo(page, 'progress')
  await page.waitForSelector('#login-form')
  await waitForText(page, '#error-message[role="alert"]', 'invalid or expired token')
  t.pass('a 401 shows the login screen and says why')
  t.equal(await page.evaluate(() => localStorage.getItem('flashcards.session')), null, 'the refused token is forgotten')

  // ---- the policy is really enforced: an inline script does not run
  await page.evaluate(() => {
    const script = document.createElement('script')
    script.textContent = 'window.inlineScriptRan = true'
    document.body.append(script)
  })
  t.notOk(await page.evaluate(() => (window as unknown as PageWindow).inlineScriptRan), 'inline scripts are blocked')
  t.ok((await page.evaluate(() => (window as unknown as PageWindow).cspViolations))?.some((violation) => violation.startsWith('script-src')), 'and reported as a violation')
})
