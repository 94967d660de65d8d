// The settings screen's memory model in headless Chromium: a learner with months
// of reviews fits their parameters, reads the figures, chooses a desired
// retention by what it costs, and goes back to the defaults.
import { existsSync } from 'node:fs'
import puppeteer, { type Page } from 'puppeteer-core'
import { test } from 'tap'
import { buildTestApp, post, registerUser } from './helpers/app.js'
import { storeHistory } from './helpers/review-history.js'
import { click } from './helpers/study-page.js'
import { syntheticLog } from './helpers/synthetic-reviews.js'

const CHROMIUM = '/usr/bin/chromium'
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync']
const FORGETFUL = [0.1, 0.4, 0.9, 3.0, 7.5, 0.5, 1.5, 0.02, 1.2, 0.25, 0.9, 2.2, 0.1, 0.3, 1.9, 0.5, 2.0, 0.4, 0.2, 0.1, 0.45]

async function waitForText (page: Page, selector: string, text: string): Promise<void> {
  await page.waitForFunction((sel, wanted) => document.querySelector(sel)?.textContent?.includes(wanted) === true, {}, selector, text)
}

async function cells (page: Page, selector: string): Promise<string[]> {
  return await page.$$eval(`${selector} td`, (found) => found.map((cell) => cell.textContent ?? ''))
}

test('settings: fit the parameters to my reviews, see the figures, choose a desired retention by its cost, go back to the defaults', {
  skip: existsSync(CHROMIUM) || process.env.CI === 'true' ? false : `Chromium is not installed at ${CHROMIUM} (Debian: apt-get install chromium); the page was not driven`,
  timeout: 100_000
}, async (t) => {
  const app = await buildTestApp(t, import.meta.filename, {
    clock: () => new Date('2024-09-02T12:00:00Z'),
    loadShedding: { maxInFlight: 100_000, maxInFlightPerUser: 100_000, maxEventLoopDelayMs: 0, maxEventLoopUtilization: 0 }
  })
  const user = await registerUser(app)
  await storeHistory(app, user.userID, syntheticLog({ parameters: FORGETFUL, reviews: 3000, seed: 9 }))
  await app.listen({ port: 0, host: '127.0.0.1' })
  const address = app.server.address()
  if (address === null || typeof address === 'string') throw new Error('no address')

  const browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS })
  t.teardown(async () => { await browser.close() })
  const page = await browser.newPage()
  page.setDefaultTimeout(30_000)
  const consoleErrors: string[] = []
  page.on('console', (message) => { if (message.type() === 'error') consoleErrors.push(message.text()) })
  page.on('pageerror', (error) => { consoleErrors.push(String(error)) })
  await page.evaluateOnNewDocument((session) => { localStorage.setItem('flashcards.session', session) }, JSON.stringify({ userID: user.userID, jwtToken: user.jwtToken }))
  await page.setViewport({ width: 375, height: 800 })
  await page.goto(`http://127.0.0.1:${address.port}/`, { waitUntil: 'load' })

  await click(page, '#main-nav a[data-screen="settings"]')
  await waitForText(page, '#schedule-in-use', 'default parameters')
  t.notOk(await page.$('#fit-figures'), 'no figures before a fit')

  // ---- the button: the fit, its figures against the defaults', and the cost of each retention
  await click(page, '#optimize-schedule')
  await waitForText(page, '#fit-outcome', 'predict your reviews better')
  const fit = (await post(app, 'get-schedule', { jwtToken: user.jwtToken })).json()
  t.equal(fit.fitted, 'true')
  await waitForText(page, '#schedule-in-use', 'fitted to your own reviews')
  t.strictSame(await cells(page, '#fit-default'), [fit.lastFit.default.logLoss, fit.lastFit.default.rmseBins], 'the defaults\' log loss and RMSE(bins)')
  t.strictSame(await cells(page, '#fit-fitted'), [fit.lastFit.fitted.logLoss, fit.lastFit.fitted.rmseBins], 'the fitted parameters\'')
  const retentions = await page.$$eval('#retention-costs tbody tr', (rows) => rows.map((row) => row.getAttribute('data-retention')))
  t.strictSame(retentions, fit.lastFit.workload.map((cost: { desiredRetention: string }) => cost.desiredRetention), 'a row for each desired retention')
  t.ok(await page.evaluate(() => document.documentElement.scrollWidth <= 375), 'the figures fit 375 px')

  // ---- the choice: a desired retention chosen by what it costs is the user's
  await click(page, '#retention-costs tr[data-retention="0.85"] button')
  await waitForText(page, '#notice-message', 'Desired retention set to 0.85')
  t.equal((await post(app, 'get-user', { jwtToken: user.jwtToken })).json().desiredRetention, '0.85')
  t.equal(await page.$eval('#desired-retention', (input) => (input as HTMLInputElement).value), '0.85', 'and the settings form shows it')
  await page.waitForSelector('#retention-costs tr[data-retention="0.90"] button')

  // ---- back to the defaults
  await click(page, '#use-defaults')
  await waitForText(page, '#fit-outcome', 'default parameters again')
  t.equal((await post(app, 'get-schedule', { jwtToken: user.jwtToken })).json().fitted, 'false')
  t.notOk(await page.$('#use-defaults'), 'nothing to go back from')
  t.strictSame(consoleErrors, [], 'no errors in the page')
})
