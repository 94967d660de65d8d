import { existsSync } from 'node:fs'
import puppeteer, { type Page } from 'puppeteer-core'
import { test } from 'tap'
import { buildTestApp, post } from './helpers/app.js'
import { click, goTo } from './helpers/study-page.js'

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

/** Types into the field once it is on show. */
async function type (page: Page, selector: string, text: string): Promise<void> {
  await page.waitForSelector(selector, { visible: true })
  await page.type(selector, text)
}

/** True when the focus has fallen back to <body>, where a keyboard user starts over. */
async function focusIsLost (page: Page): Promise<boolean> {
  return await page.evaluate(() => document.activeElement === null || document.activeElement === document.body)
}

/** Chooses the option of a <select> by the words it shows; its value is the page's business. */
async function selectByText (page: Page, selector: string, text: string): Promise<void> {
  const value = await page.$$eval(`${selector} option`, (options, wanted) => options.find((option) => option.textContent === wanted)?.getAttribute('value'), text)
  if (value === undefined || value === null) throw new Error(`${selector} offers no "${text}"`)
  await page.select(selector, value)
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
  // below tap's own limit for the file (package.json, 120 s), so this test's timeout is the one that tells
  timeout: 100_000
}, async (t) => {
  // load shedding off, as in test/limits.test.ts: a busy machine must not answer this test 503
  const app = await buildTestApp(t, import.meta.filename, {
    loadShedding: { maxInFlight: 100_000, maxInFlightPerUser: 100_000, maxEventLoopDelayMs: 0, maxEventLoopUtilization: 0 }
  })
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
        // an answer as the service gives one: its sentence and its code
        void request.respond({ status: 503, contentType: 'application/json', body: JSON.stringify({ error: 'service unavailable, try again shortly', code: 'database_unavailable' }) })
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
  await type(page, '#register-form input[type="email"]', email)
  await type(page, '#register-form input[type="password"]', 'correct horse battery')
  await click(page, '#register-form button[type="submit"]')
  await page.waitForSelector('#main-nav a[data-screen="library"][aria-current="page"]')
  const stored = JSON.parse(await page.evaluate(() => localStorage.getItem('flashcards.session')) ?? 'null') as { jwtToken?: string } | null
  const token = stored?.jwtToken ?? ''
  t.ok(token.length > 20, 'the token is kept in localStorage')
  // The user's day then starts 12 hours from now (UTC), so no day boundary falls within the
  // test: "today" of the reviews, the heatmap and the goals stays one day whatever the clock says
  const dayStartHour = (new Date().getUTCHours() + 12) % 24
  t.equal((await post(app, 'update-settings', { jwtToken: token, timezone: 'UTC', dayStartHour })).statusCode, 200, 'a calendar with no day boundary near')

  // ---- a folder, then a deck pasted into it
  await type(page, '.new-folder-form input', 'Languages')
  await click(page, '.new-folder-form button[type="submit"]')
  await page.waitForSelector('.tree-item-folder[data-name="Languages"][aria-pressed="true"]')
  await click(page, 'details:has(.import-form) > summary')
  await type(page, '.import-form input[type="text"]', 'Spanish basics')
  await page.focus('.import-form textarea')
  // as a paste: the tabs and line breaks go into the text, not to the focus
  await page.keyboard.sendCharacter(DECK)
  await click(page, '.import-form button[type="submit"]')
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
  await click(page, '.tree-item-folder[data-name="Made elsewhere"]')
  await waitForText(page, '#library-panel h2', 'Made elsewhere')
  await click(page, 'details:has(.rename-folder-form) > summary')
  await page.$eval('.rename-folder-form input', (input) => { (input as HTMLInputElement).value = '' })
  await type(page, '.rename-folder-form input', 'Renamed here')
  await click(page, '.rename-folder-form button[type="submit"]')
  await page.waitForSelector('.tree-item-folder[data-name="Renamed here"][aria-pressed="true"]')
  await click(page, '.tree-item-folder[data-name="Inner"]')
  await waitForText(page, '#library-panel h2', 'Inner')
  await click(page, 'details:has(.move-folder-form) > summary')
  t.same(await page.select('.move-folder-form select', languagesID ?? ''), [languagesID], 'a folder made in the page is offered as the destination, by its id')
  await click(page, '.move-folder-form button[type="submit"]')
  await page.waitForSelector('.tree-folder:has(> .tree-item-folder[data-name="Languages"]) .tree-item-folder[data-name="Inner"][aria-pressed="true"]')
  t.notOk(await page.$('.tree-folder:has(> .tree-item-folder[data-name="Renamed here"]) > ul'), 'the page shows the renamed folder emptied by the move')
  const after = await library()
  const renamed = after.folders.find((folder) => folder.folderID === outerID)
  t.equal(renamed?.name, 'Renamed here', 'the API shows the folder made elsewhere renamed')
  t.same(renamed?.folders, [], 'and its subfolder gone from it')
  t.same(after.folders.find((folder) => folder.folderID === languagesID)?.folders.map((folder) => [folder.folderID, folder.name]), [[innerID, 'Inner']],
    'the subfolder made elsewhere is in Languages now')

  // ---- a nested folder moved back to the top level
  await waitForText(page, '#library-panel h2', 'Inner')
  await click(page, 'details:has(.move-folder-form) > summary')
  await selectByText(page, '.move-folder-form select', 'Top level')
  await click(page, '.move-folder-form button[type="submit"]')
  await page.waitForSelector('.library-tree > ul.tree > li > .tree-item-folder[data-name="Inner"][aria-pressed="true"]')
  const moved = await library()
  t.same(moved.folders.find((folder) => folder.folderID === innerID)?.name, 'Inner', 'the API shows the folder at the top level')
  t.same(moved.folders.find((folder) => folder.folderID === languagesID)?.folders, [], 'and no longer in Languages')

  // ---- a Card goal, and the heatmap before any review
  await goTo(page, 'progress')
  await page.waitForSelector('#create-goal-form')
  await page.select('#create-goal-form select', 'Card')
  await page.$eval('#create-goal-form input[type="number"]', (input) => { (input as HTMLInputElement).value = '10' })
  await click(page, '#create-goal-form button[type="submit"]')
  await waitForText(page, '#goal-list .goal-progress', '0 of 10 cards revised')
  t.notOk(await focusIsLost(page), 'the focus stays in the page after a goal is created')
  await page.waitForSelector('#heatmap .heat-today')
  t.equal(await page.$eval('#heatmap .heat-today', (cell) => cell.getAttribute('data-count')), '0', 'no reviews today yet')
  t.equal(await page.$$eval('#heatmap .heat-cell:not(.heat-blank)', (cells) => cells.length), 365, 'a cell for each of the last 365 days')
  t.same(await unlabelledControls(page), [], 'every control of the progress screen is labelled')

  // ---- study every card of the day with the keyboard only
  await goTo(page, 'study')
  // undo before any review: nothing to take back, so the button is off and U says why
  await page.waitForSelector('#card-front')
  t.ok(await page.$('#undo-button[disabled]'), 'undo is disabled before any answer')
  await page.keyboard.press('u')
  await waitForText(page, '#notice-message', 'There is no answer left to undo.')
  t.equal(await textOf(page, '#error-message'), '', 'a notice, not an error')
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
      await waitForText(page, '#inline-error[role="alert"]', 'service unavailable, try again shortly')
      t.ok(await page.$('.rating-buttons + #inline-error'), 'the error is said right below the answer buttons')
      await page.waitForSelector('.rating:not([disabled])')
      t.ok(await page.$('#card-back'), 'the card stays on show after a failed answer')
    }
    await page.keyboard.press(key)
    // a double press sends one answer
    if (shown === 2) await page.keyboard.press(key)
    await page.waitForSelector('#card-back', { hidden: true })
    answers.push({ front, key })
    if (shown === 0) {
      t.equal(await page.$('#inline-error'), null, 'the error is gone once the answer goes through')
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
  // an XP goal set now counts what comes after it, as the service counts it: total XP less starting_xp
  await page.select('#create-goal-form select', 'XP')
  await page.$eval('#create-goal-form input[type="number"]', (input) => { (input as HTMLInputElement).value = '100' })
  await click(page, '#create-goal-form button[type="submit"]')
  await page.waitForFunction(() => [...document.querySelectorAll('#goal-list .goal-progress')].some((goal) => goal.textContent?.includes('XP gained') === true))
  t.ok(await page.$$eval('#goal-list .goal-progress', (goals) => goals.some((goal) => goal.textContent?.startsWith('0 of 100 XP gained') === true)),
    'an XP goal set after 4 reviews today starts at 0, not at their 40 XP')

  // ---- a reload mid-session: undo still brings back the last card answered, face up
  const numbers = await post(app, 'create-flashcard', {
    jwtToken: token, folder: ['Inner'], flashcardName: 'Numbers', cards: [{ front: 'uno', back: 'one' }, { front: 'dos', back: 'two' }]
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
  await click(page, '#undo-button')
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

  // ---- the card on show edited in the library: back in Study, the sitting goes on with the new text
  await goTo(page, 'library')
  await click(page, '.tree-item-flashcard[data-name="Numbers"]')
  await page.waitForSelector('#card-list')
  t.notOk(await focusIsLost(page), 'the focus stays in the page after a flashcard is chosen')
  const edited = `${following ?? ''} (edited)`
  await click(page, `#card-list button[aria-label="Edit card ${following ?? ''}"]`)
  await page.$eval('#card-list form textarea', (input) => { (input as HTMLTextAreaElement).value = '' })
  await type(page, '#card-list form textarea', edited)
  await click(page, '#card-list form button[type="submit"]')
  await page.waitForSelector(`#card-list button[aria-label="Edit card ${edited}"]`)
  t.notOk(await focusIsLost(page), 'the focus stays in the page after a card edit is saved')
  await goTo(page, 'study')
  await page.waitForSelector('#card-front')
  t.equal(await textOf(page, '#card-front .card-text'), edited, 'the card on show has its new text')
  t.match(await textOf(page, '#study-status'), /^1 card left · 1 answer · 10 XP/, 'and the sitting keeps its answers')

  // ---- the XP goal counts the one answer kept since it was set (one more was undone)
  await goTo(page, 'progress')
  await page.waitForFunction(() => [...document.querySelectorAll('#goal-list .goal-progress')].some((goal) => goal.textContent?.startsWith('10 of 100 XP gained') === true))
  t.pass('10 of 100 XP gained: total XP less starting_xp')

  // ---- phone width: no screen scrolls sideways
  await page.setViewport({ width: PHONE_WIDTH, height: 800 })
  for (const screen of ['library', 'study', 'progress', 'settings'] as const) {
    await goTo(page, screen)
    if (screen === 'progress') await page.waitForSelector('#heatmap')
    await page.waitForFunction(() => document.querySelector('.loading') === null)
    t.ok(await pageIsNoWiderThan(page, PHONE_WIDTH), `${screen} fits 375 px`)
  }
  t.same(await unlabelledControls(page), [], 'every control of the settings screen is labelled')
  await goTo(page, 'library')
  await click(page, '.tree-item-flashcard[data-name="Spanish basics"]')
  await page.waitForSelector('#card-list')
  t.ok(await pageIsNoWiderThan(page, PHONE_WIDTH), 'a flashcard with its cards fits 375 px')

  // ---- long names without spaces, as deep in the tree as folders go (20 levels), at phone width
  const unbroken = `${'Unbroken'.repeat(7)}Name`
  const unbrokenDeck = `${'Unbroken'.repeat(7)}Deck`
  const deep = Array.from({ length: 18 }, (_, level) => `Level ${level + 1}`)
  t.equal((await post(app, 'create-folder', { jwtToken: token, path: deep })).statusCode, 201, 'eighteen levels of folders, made through the API')
  t.equal((await post(app, 'create-flashcard', { jwtToken: token, folder: deep, flashcardName: unbrokenDeck, description: unbroken, cards: [] })).statusCode, 201,
    'a flashcard whose name and description are one long word each')
  await goTo(page, 'settings')
  await goTo(page, 'library')
  await click(page, `.tree-item-flashcard[data-name="${unbrokenDeck}"]`)
  await waitForText(page, '#library-panel .description', unbroken)
  t.ok(await pageIsNoWiderThan(page, PHONE_WIDTH), 'a flashcard with a 60-character name and description, eighteen folders deep, fits 375 px')
  await click(page, '#library-panel .danger-zone button')
  await waitForText(page, '#library-panel .confirm-question', unbrokenDeck)
  t.ok(await pageIsNoWiderThan(page, PHONE_WIDTH), 'so does the question before deleting it')
  await click(page, '#library-panel .confirm button:not(.danger)')
  await click(page, '.tree-item-folder[data-name="Level 18"]')
  await click(page, '#library-panel details:has(.new-folder-form) > summary')
  await type(page, '#library-panel .new-folder-form input', unbroken)
  await click(page, '#library-panel .new-folder-form button[type="submit"]')
  // the notice comes before the library is read again, and goes after 6 s
  await waitForText(page, '#notice-message', unbroken)
  t.ok(await pageIsNoWiderThan(page, PHONE_WIDTH), 'and the notice naming a folder of that name made in the page')
  await page.waitForSelector(`.tree-item-folder[data-name="${unbroken}"][aria-pressed="true"]`)
  t.ok(await pageIsNoWiderThan(page, PHONE_WIDTH), 'and that folder, twenty levels deep, in the tree and the panel')

  // ---- log out: back on the login screen, the token forgotten
  await click(page, '#logout-button')
  await page.waitForSelector('#login-form')
  t.ok(await pageIsNoWiderThan(page, PHONE_WIDTH), 'the login screen fits 375 px')
  const kept = await page.evaluate(() => Object.keys(localStorage).map((key) => localStorage.getItem(key) ?? ''))
  t.notOk(kept.some((value) => value.includes(token)), 'the token is no longer in localStorage')
  await page.reload({ waitUntil: 'load' })
  await page.waitForSelector('#login-form')
  t.ok(await page.$eval('#main-nav', (nav) => (nav as HTMLElement).hidden), 'a reload stays logged out')

  // Chromium logs every refused request: the answer made to fail (an undo with nothing to undo is not sent)
  const [lostAnswer, ...otherErrors] = consoleErrors
  t.match(lostAnswer, /status of 503/, 'the one error logged is the answer made to fail')
  t.same(otherErrors, [], 'no other console errors')
  t.same(await page.evaluate(() => (window as unknown as PageWindow).cspViolations), [], 'nothing broke the Content-Security-Policy')

  // ---- a refused token sends the user to the login screen, with the reason in words
  await type(page, '#login-form input[type="email"]', email)
  await type(page, '#login-form input[type="password"]', 'correct horse battery')
  await click(page, '#login-form button[type="submit"]')
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
  // the securitypolicyviolation event comes later than the blocked script
  await page.waitForFunction(() => (window as unknown as PageWindow).cspViolations?.some((violation) => violation.startsWith('script-src')) === true)
  t.pass('and reported as a violation')

  // ---- a browser that refuses the page its storage: the user is told, on loading and on logging in
  const blocked = await browser.newPage()
  blocked.setDefaultTimeout(20_000)
  await blocked.evaluateOnNewDocument(() => {
    Object.defineProperty(window, 'localStorage', { get () { throw new DOMException('storage is blocked', 'SecurityError') } })
  })
  await blocked.goto(`${base}/`, { waitUntil: 'load' })
  await blocked.waitForSelector('#login-form')
  await waitForText(blocked, '#error-message', 'does not let the page keep data')
  t.pass('blocked storage: the login screen comes, and says why the user cannot stay logged in')
  await click(blocked, '#error-message button')
  await type(blocked, '#login-form input[type="email"]', email)
  await type(blocked, '#login-form input[type="password"]', 'correct horse battery')
  await click(blocked, '#login-form button[type="submit"]')
  await waitForText(blocked, '#login-form + .inline-error[role="alert"]', 'does not let the page keep data')
  t.pass('and a login that cannot be kept says so')
})
