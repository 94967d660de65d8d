// Studying offline, in Chromium: the page is an installable web app whose service worker
// keeps it, so that after one visit it opens with no network, shows today's cards as last
// fetched and keeps taking answers; the answers wait in IndexedDB with their reviewIDs and
// reach the service in order once the network is back, each exactly once; the header
// says "Offline · N answers waiting"; an answer to a card changed elsewhere meanwhile is
// shown for the learner to send or drop, never sent blindly nor lost; log out clears it all.
import type { IncomingMessage } from 'node:http'
import type { Browser, CDPSession, KeyInput, Page } from 'puppeteer-core'
import { test } from 'tap'
import { databaseOf, expectOk } from './helpers/app.js'
import { click, openStudyPage, withoutChromium, type StudyPage } from './helpers/study-page.js'

// a service worker installed and a page opened through it: slow when the machine is loaded by other tests
const BROWSER_TEST = { skip: withoutChromium, timeout: 180_000 }
const WORDS = ['uno', 'dos', 'tres', 'cuatro', 'cinco', 'seis', 'siete', 'ocho']

interface Waiting { reviewID: string, cardID: string, rating: string, seq: number }

/** A page of its own, signed in as the study's user, without the helper's request interception: the service worker sees its requests as a browser's. */
async function plainPage (study: StudyPage): Promise<Page> {
  const session = await study.page.evaluate(() => localStorage.getItem('flashcards.session'))
  const page = await study.browser.newPage()
  page.setDefaultTimeout(40_000)
  page.on('pageerror', (error) => { study.consoleErrors.push(String(error)) })
  await page.goto(`${study.base}/`, { waitUntil: 'load' })
  await page.evaluate((stored) => { localStorage.setItem('flashcards.session', stored ?? '') }, session)
  await page.goto(`${study.base}/#/study`, { waitUntil: 'load' })
  return page
}

/** The service worker's own connection cut too: puppeteer's offline mode governs the page's target only. */
async function setOffline (browser: Browser, page: Page, offline: boolean, workers: CDPSession[]): Promise<void> {
  if (workers.length === 0) {
    const target = await browser.waitForTarget((candidate) => candidate.type() === 'service_worker')
    const session = await target.createCDPSession()
    await session.send('Network.enable')
    workers.push(session)
  }
  // the worker's network changes first: the page's `online` event sends at once, through the worker
  for (const worker of workers) {
    await worker.send('Network.emulateNetworkConditions', { offline, latency: 0, downloadThroughput: -1, uploadThroughput: -1 })
  }
  await page.setOfflineMode(offline)
  await page.waitForFunction((wanted) => navigator.onLine === !wanted, {}, offline)
}

async function frontOnShow (page: Page): Promise<string> {
  await page.waitForFunction(() => document.querySelector('#card-front') !== null && document.querySelector('#card-back') === null)
  return await page.$eval('#card-front .card-text', (text) => text.textContent ?? '')
}

async function answer (page: Page, key: KeyInput): Promise<string> {
  const front = await frontOnShow(page)
  await page.keyboard.press('Space')
  await page.waitForSelector('#card-back')
  await page.keyboard.press(key)
  await page.waitForFunction((shown) => document.querySelector('#session-end') !== null ||
    (document.querySelector('#card-back') === null && document.querySelector('#card-front .card-text')?.textContent !== shown), {}, front)
  return front
}

async function waitingInBrowser (page: Page): Promise<Waiting[]> {
  return await page.evaluate(async () => await new Promise<Waiting[]>((resolve, reject) => {
    const opening = indexedDB.open('flashcards-offline')
    opening.onsuccess = () => {
      const reading = opening.result.transaction('waiting').objectStore('waiting').getAll()
      reading.onsuccess = () => {
        opening.result.close()
        resolve(reading.result as Waiting[])
      }
      reading.onerror = () => { reject(reading.error) }
    }
    opening.onerror = () => { reject(opening.error) }
  }))
}

async function syncText (page: Page): Promise<string | null> {
  return await page.$eval('#sync-status', (status) => (status as HTMLElement).hidden ? null : status.textContent)
}

test('offline: opens without a network, keeps 5 answers, sends each exactly once when back; log out clears it all', BROWSER_TEST, async (t) => {
  const study = await openStudyPage(t, import.meta.filename)
  const { app, token, browser } = study
  const profile = await expectOk<{ userID: string }>(app, 'get-user', { jwtToken: token })
  await expectOk(app, 'create-folder', { jwtToken: token, path: ['Words'] }, 201)
  const deck = await expectOk<{ flashcardID: string, cardIDs: string[] }>(app, 'create-flashcard', {
    jwtToken: token, folder: ['Words'], flashcardName: 'Spanish', cards: WORDS.map((word, index) => ({ front: word, back: String(index + 1) }))
  }, 201)
  const cardOf = new Map(WORDS.map((word, index) => [deck.cardIDs[index] ?? '', word]))
  const reviews = databaseOf(app).collection<{ userID: string, reviewID: string, cardID: string, rating: string, reviewedAt: Date }>('reviews')
  // what reached the service while the browser was offline, but the page's own files. Chromium's
  // offline emulation leaks: it may stop the idle service worker and start it afresh, and a worker
  // started after the network was cut is not cut off by the test, so its fetch of the page comes
  // through, and so does a page request it lets pass (a page reloaded offline may believe it is
  // online and try to send). Such a request is noted and its connection dropped, as a network that
  // is down would, so that the page sees what it would see offline.
  const requestsWhileOffline: string[] = []
  let offline = false
  const pageFiles = new Set(['/', '/app.js', '/app.css', '/manifest.webmanifest', '/sw.js'])
  app.server.on('request', (request: IncomingMessage) => {
    const path = new URL(request.url ?? '/', 'http://service').pathname
    if (offline && !(request.method === 'GET' && (pageFiles.has(path) || path.startsWith('/icons/')))) {
      requestsWhileOffline.push(`${request.method ?? ''} ${path}`)
      request.socket.destroy()
    }
  })

  // ---- the first visit: an installable app, its service worker in control with the page kept
  const page = await plainPage(study)
  await frontOnShow(page)
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null)
  await page.waitForFunction(async () => {
    const kept = await caches.open('flashcards-page-v1')
    return (await Promise.all(['/', '/app.js', '/app.css'].map(async (path) => await kept.match(path) !== undefined))).every(Boolean)
  })
  t.pass('the service worker controls the page and keeps the page\'s files')
  const manifest = await page.evaluate(async () => await (await fetch(document.querySelector<HTMLLinkElement>('link[rel="manifest"]')?.href ?? '')).json() as { start_url: string, display: string, icons: Array<{ sizes: string }> })
  t.equal(manifest.display, 'standalone', 'the manifest makes an app of its own window')
  t.ok(manifest.icons.some((icon) => icon.sizes === '512x512') && manifest.icons.some((icon) => icon.sizes === '192x192'), 'with icons of 192 and 512 px')
  const client = await page.createCDPSession()
  const installable = await client.send('Page.getInstallabilityErrors')
  t.same(installable.installabilityErrors.map((error) => error.errorId), [], 'Chromium finds the page installable')
  t.same(await study.cspViolations(), [], 'nothing broke the page\'s Content-Security-Policy')

  // ---- offline: 5 answers kept in the browser, none sent
  const workers: CDPSession[] = []
  await setOffline(browser, page, true, workers)
  offline = true
  await page.waitForFunction(() => document.querySelector('#sync-status')?.textContent?.startsWith('Offline') === true)
  const answered: string[] = []
  for (const key of ['3', '4', '3', '2', '4'] as const) answered.push(await answer(page, key))
  await page.waitForFunction(() => document.querySelector('#sync-status')?.textContent === 'Offline · 5 answers waiting')
  t.pass('the header says: Offline · 5 answers waiting')
  t.equal(new Set(answered).size, 5, 'five cards answered offline')
  const waiting = await waitingInBrowser(page)
  t.same(waiting.map((kept) => cardOf.get(kept.cardID)), answered, 'kept in IndexedDB in the order given')
  t.same(waiting.map((kept) => kept.rating), ['good', 'easy', 'good', 'hard', 'easy'], 'with their ratings')
  t.equal(new Set(waiting.map((kept) => kept.reviewID)).size, 5, 'each with a reviewID of its own')
  t.equal(await reviews.countDocuments({ userID: profile.userID }), 0, 'the service has none of them yet')

  // ---- a reload with no network: the page opens from the service worker, on the cards left
  await page.reload({ waitUntil: 'domcontentloaded' })
  const next = await frontOnShow(page)
  t.notOk(answered.includes(next), `the page opens offline on a card not yet answered (${next})`)
  t.equal(await page.$eval('#count-new', (count) => count.getAttribute('data-count')), '3', 'today\'s cards as last fetched, less the 5 answered')
  t.equal(await syncText(page), 'Offline · 5 answers waiting', 'still waiting after the reload')
  t.same(requestsWhileOffline.filter((request) => request.endsWith('/review-card')), [], 'and no answer was sent while offline')
  t.equal(await reviews.countDocuments({ userID: profile.userID }), 0, 'the service still has none of them')

  // ---- back online: sent in order, each exactly once
  offline = false
  await setOffline(browser, page, false, workers)
  // a page reloaded offline may never hear an `online` event (Chromium can start it believing it
  // is online); its answers then go with the next try, RETRY_MS (15 s) after the last failed one
  await page.waitForFunction(() => (document.querySelector('#sync-status') as HTMLElement).hidden, { timeout: 45_000 })
  const logged = await reviews.find({ userID: profile.userID }).sort({ seq: 1 }).toArray()
  t.same(logged.map((review) => cardOf.get(review.cardID)), answered, 'the service\'s log holds the 5 answers, in the order given')
  t.same(logged.map((review) => review.reviewID), waiting.map((kept) => kept.reviewID), 'each with the reviewID it was kept with, once')
  t.same(await waitingInBrowser(page), [], 'nothing waits in the browser any more')
  // the network coming back again sends nothing more
  await page.evaluate(() => { window.dispatchEvent(new Event('online')) })
  await new Promise((resolve) => setTimeout(resolve, 500))
  t.equal(await reviews.countDocuments({ userID: profile.userID }), 5, 'still exactly 5 reviews')

  // ---- log out: everything the page kept in this browser is gone
  await click(page, '#logout-button')
  await page.waitForSelector('#login-form')
  await page.waitForFunction(async () => (await indexedDB.databases()).every((db) => db.name !== 'flashcards-offline'))
  t.same(await page.evaluate(async () => ({ storage: Object.keys(localStorage), caches: await caches.keys() })), { storage: [], caches: [] },
    'log out leaves nothing: no token, no cards, no answers, no copy of the page')
  t.same(study.consoleErrors, [], 'no uncaught errors')
})

test('offline: an answer to a card changed elsewhere meanwhile is shown, to send anyway or drop, never lost', BROWSER_TEST, async (t) => {
  const study = await openStudyPage(t, import.meta.filename)
  const { app, token, browser } = study
  const profile = await expectOk<{ userID: string }>(app, 'get-user', { jwtToken: token })
  await expectOk(app, 'create-folder', { jwtToken: token, path: ['Words'] }, 201)
  const deck = await expectOk<{ flashcardID: string, cardIDs: string[] }>(app, 'create-flashcard', {
    jwtToken: token, folder: ['Words'], flashcardName: 'Spanish', cards: [{ front: 'uno', back: '1' }, { front: 'dos', back: '2' }, { front: 'tres', back: '3' }]
  }, 201)
  const reviews = databaseOf(app).collection<{ userID: string, cardID: string, rating: string }>('reviews')
  const page = await plainPage(study)
  await page.evaluateOnNewDocument(() => { window.addEventListener('online', (event) => { event.stopImmediatePropagation() }) })
  await page.reload({ waitUntil: 'load' })
  await frontOnShow(page)
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null)

  const workers: CDPSession[] = []
  await setOffline(browser, page, true, workers)
  const first = await answer(page, '3')
  const second = await answer(page, '4')
  t.same([first, second], ['uno', 'dos'], 'two cards answered offline')
  // meanwhile, on another device, the first card is reviewed
  await expectOk(app, 'review-card', { jwtToken: token, flashcardID: deck.flashcardID, cardID: deck.cardIDs[0], rating: 'again' })

  // a browser that never says it is back (the `online` event stopped before the page hears it):
  // the answers still go with the page's next try, RETRY_MS (15 s) after the last one
  await setOffline(browser, page, false, workers)
  await page.waitForSelector('#sync-conflicts:not([hidden]) .conflict-changed', { timeout: 45_000 })
  t.match(await page.$eval('#sync-conflicts', (area) => area.textContent), /"uno": your answer Good .* was not recorded: the card was reviewed or changed elsewhere meanwhile/,
    'the conflict is shown, naming the card and the answer')
  await page.waitForFunction(() => document.querySelector('#sync-status')?.textContent === '1 answer to check in Study')
  const byCard = async () => (await reviews.find({ userID: profile.userID }).toArray()).map((review) => `${review.cardID === deck.cardIDs[0] ? 'uno' : 'dos'} ${review.rating}`).sort()
  t.same(await byCard(), ['dos easy', 'uno again'], 'the other card\'s answer went through; the conflicting one waits')
  await click(page, '#logout-button')
  await page.waitForFunction(() => document.querySelector('#error-message')?.textContent?.startsWith('1 answer given offline has not reached the service yet') === true)
  t.ok(await page.$('#sync-conflicts'), 'logging out now asks first, saying the answer would be lost, and logs nobody out')

  await click(page, '#sync-conflicts .conflict-changed button.primary')
  await page.waitForFunction(() => (document.querySelector('#sync-status') as HTMLElement).hidden && (document.querySelector('#sync-conflicts') as HTMLElement).hidden)
  t.same(await byCard(), ['dos easy', 'uno again', 'uno good'], '"Send my answer anyway" records it after the other device\'s')

  // the warning holds for the press that follows it only: offline again, a new answer waits, and Log out asks again
  await setOffline(browser, page, true, workers)
  t.equal(await answer(page, '3'), 'tres', 'the last card answered offline')
  await page.waitForFunction(() => document.querySelector('#sync-status')?.textContent === 'Offline · 1 answer waiting')
  await click(page, '#logout-button')
  await page.waitForFunction(() => document.querySelector('#error-message')?.textContent?.startsWith('1 answer given offline has not reached the service yet') === true)
  t.ok(await page.$('#logout-button:not([hidden])'), 'logging out asks again, and logs nobody out')
  t.same(study.consoleErrors, [], 'no uncaught errors')
})
