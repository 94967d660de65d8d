// The settings screen's memory model in Chromium, where it used to confuse: the table of
// what each desired retention costs shows each retention once and says what its figures
// assume; with too few reviews, pressing "Fit to my reviews" says how many more it takes,
// as advice rather than as an error.
import puppeteer, { type Page } from 'puppeteer-core'
import { test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { buildTestApp, databaseOf, registerUser, type TestUser } from './helpers/app.js'
import { storeHistory } from './helpers/review-history.js'
import { CHROMIUM, click, withoutChromium } from './helpers/study-page.js'
import { syntheticLog } from './helpers/synthetic-reviews.js'

const BROWSER_TEST = { skip: withoutChromium, timeout: 110_000 }
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync']
const FORGETFUL = [0.1, 0.4, 0.9, 3.0, 7.5, 0.5, 1.5, 0.02, 1.2, 0.25, 0.9, 2.2, 0.1, 0.3, 1.9, 0.5, 2.0, 0.4, 0.2, 0.1, 0.45]

interface Settings { page: Page, errors: string[] }
interface Teardown { teardown: (fn: () => unknown) => void }

/** The settings screen of `user`, at 375 px. */
async function openSettings (t: Teardown, app: FastifyInstance, user: TestUser): Promise<Settings> {
  await app.listen({ port: 0, host: '127.0.0.1' })
  const address = app.server.address()
  if (address === null || typeof address === 'string') throw new Error('no address')
  const browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS })
  t.teardown(async () => { await browser.close() })
  const page = await browser.newPage()
  page.setDefaultTimeout(30_000)
  const errors: string[] = []
  page.on('console', (message) => { if (message.type() === 'error') errors.push(message.text()) })
  page.on('pageerror', (error) => { errors.push(String(error)) })
  await page.evaluateOnNewDocument((session) => { localStorage.setItem('flashcards.session', session) }, JSON.stringify({ userID: user.userID, jwtToken: user.jwtToken }))
  await page.setViewport({ width: 375, height: 800 })
  await page.goto(`http://127.0.0.1:${address.port}/#/settings`, { waitUntil: 'load' })
  await page.waitForSelector('#optimize-schedule')
  return { page, errors }
}

async function settingsApp (t: Teardown): Promise<FastifyInstance> {
  return await buildTestApp(t, import.meta.filename, {
    clock: () => new Date('2024-09-02T12:00:00Z'),
    loadShedding: { maxInFlight: 100_000, maxInFlightPerUser: 100_000, maxEventLoopDelayMs: 0, maxEventLoopUtilization: 0 }
  })
}

test('each desired retention is one row, and the table says its figures assume the new cards a day for a year', BROWSER_TEST, async (t) => {
  const app = await settingsApp(t)
  const user = await registerUser(app)
  await storeHistory(app, user.userID, syntheticLog({ parameters: FORGETFUL, reviews: 3000, seed: 9 }))
  // as an Anki import leaves it: Anki keeps a preset's desired retention as a 32-bit float
  await databaseOf(app).collection<{ _id: string }>('users').updateOne({ _id: user.userID }, { $set: { desiredRetention: Math.fround(0.9) } })
  const { page, errors } = await openSettings(t, app, user)

  await click(page, '#optimize-schedule')
  await page.waitForSelector('#retention-costs tbody tr')
  const rows = await page.$$eval('#retention-costs tbody tr', (found) => found.map((row) => row.getAttribute('data-retention')))
  t.strictSame(rows, ['0.70', '0.80', '0.85', '0.90', '0.93', '0.95', '0.97'], 'each retention once, the user\'s own among them')
  t.equal(await page.$eval('#retention-costs tr[data-retention="0.90"] td:last-child', (cell) => cell.textContent), 'yours', 'the user\'s own marked')
  t.match(await page.$eval('#retention-costs caption', (caption) => caption.textContent), /20 new cards a day all year/, 'the figures assume the new cards a day, for a year')
  t.strictSame(errors, [], 'no errors in the page')
})

test('with fewer than 1,000 reviews to fit to, the fit says how many more it takes, not an error', BROWSER_TEST, async (t) => {
  const app = await settingsApp(t)
  const user = await registerUser(app)
  await storeHistory(app, user.userID, syntheticLog({ parameters: FORGETFUL, reviews: 600, seed: 3 }))
  const { page, errors } = await openSettings(t, app, user)

  await click(page, '#optimize-schedule')
  await page.waitForSelector('#fit-outcome')
  const outcome = await page.$eval('#fit-outcome', (line) => line.textContent ?? '')
  t.match(outcome, /^Not enough reviews to fit to yet: .*at least 1,000 reviews.*your history has [\d,]+: [\d,]+ more are needed/, `how many more: "${outcome}"`)
  t.notOk(await page.$('.inline-error, #error-message p'), 'no error shown')
  t.ok(await page.$eval('#fit-outcome', (line) => line === document.activeElement), 'the outcome is where the focus goes')
  t.ok(await page.$eval('#optimize-schedule', (button) => !(button as HTMLButtonElement).disabled), 'and the button can be pressed again')
  // the browser itself logs every 4xx answer it gets
  t.strictSame(errors.filter((error) => !/status of 409/.test(error)), [], 'no errors in the page')
})
