// The study page in headless Chromium, signed in as a fresh user, for the tests of
// rich cards (test/study-page-rich.test.ts, test/study-page-xss.test.ts): what the page
// logs, the policy violations it reports, and every request it makes that leaves this
// origin, kept for the test to check; and real files a browser can decode.
import { existsSync, readFileSync } from 'node:fs'
import { createServer, type AddressInfo } from 'node:net'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { crc32, deflateSync } from 'node:zlib'
import type { FastifyInstance } from 'fastify'
import puppeteer, { type Browser, type HTTPRequest, type Page } from 'puppeteer-core'
import type { AppConfig } from '../../src/app.js'
import { buildTestApp, expectOk, post } from './app.js'

export const CHROMIUM = '/usr/bin/chromium'

/** Skips a test where Chromium is not installed, except in CI, where it must be. */
export const withoutChromium = existsSync(CHROMIUM) || process.env.CI === 'true'
  ? false
  : `Chromium is not installed at ${CHROMIUM} (Debian: apt-get install chromium); the page was not driven`

// flags that keep headless Chromium off the network and out of the way; sounds may start
// without a click, as a browser the user has let play them does
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update',
  '--disable-sync', '--autoplay-policy=no-user-gesture-required', '--mute-audio',
  // numbers are written as the reader's language writes them (plural): the tests read English
  '--lang=en-US']

interface Teardown { teardown: (fn: () => unknown) => void }

export interface StudyPage {
  app: FastifyInstance
  browser: Browser
  page: Page
  /** http://127.0.0.1:<port> */
  base: string
  token: string
  /** every console error and uncaught exception of the page */
  consoleErrors: string[]
  /** every request the page made to another origin (data: URLs aside), which the test answers with nothing */
  foreignRequests: string[]
  /** a test's own answer to a request of this origin: true when it answered */
  intercept: (request: HTTPRequest) => Promise<boolean>
  /** the policy violations the page reported */
  cspViolations: () => Promise<string[]>
}

interface PageWindow { cspViolations?: string[] }

/** A TCP port free on 127.0.0.1 now: for a service that must know its address before it listens (the links it mails). */
export async function freePort (): Promise<number> {
  const probe = createServer()
  await new Promise<void>((resolve) => { probe.listen(0, '127.0.0.1', resolve) })
  const { port } = probe.address() as AddressInfo
  await new Promise<void>((resolve) => { probe.close(() => { resolve() }) })
  return port
}

/**
 * The service on a port of its own (`port`, or any free one), and the study page open in
 * Chromium, signed in as a new user, at the library.
 */
export async function openStudyPage (t: Teardown, testFile: string, overrides: Partial<AppConfig> = {}, port = 0): Promise<StudyPage> {
  // load shedding off, as in test/limits.test.ts: a busy machine must not answer this test 503
  const app = await buildTestApp(t, testFile, {
    loadShedding: { maxInFlight: 100_000, maxInFlightPerUser: 100_000, maxEventLoopDelayMs: 0, maxEventLoopUtilization: 0 },
    ...overrides
  })
  await app.listen({ port, host: '127.0.0.1' })
  const address = app.server.address()
  if (address === null || typeof address === 'string') throw new Error('no address')
  const base = `http://127.0.0.1:${address.port}`

  const email = `rich-${Date.now()}-${Math.random().toString(16).slice(2)}@example.com`
  const session = await expectOk<{ userID: string, jwtToken: string }>(app, 'register', { email, password: 'correct horse battery' }, 201)
  // the user's day starts 12 hours from now (UTC): no day boundary falls within the test
  const dayStartHour = (new Date().getUTCHours() + 12) % 24
  await expectOk(app, 'update-settings', { jwtToken: session.jwtToken, timezone: 'UTC', dayStartHour, newCardsPerDay: 9999 })

  const browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS })
  t.teardown(async () => { await browser.close() })
  const page = await browser.newPage()
  page.setDefaultTimeout(20_000)

  const study: StudyPage = {
    app,
    browser,
    page,
    base,
    token: session.jwtToken,
    consoleErrors: [],
    foreignRequests: [],
    intercept: async () => false,
    cspViolations: async () => await page.evaluate(() => (window as unknown as PageWindow).cspViolations ?? [])
  }
  page.on('console', (message) => { if (message.type() === 'error') study.consoleErrors.push(message.text()) })
  page.on('pageerror', (error) => { study.consoleErrors.push(String(error)) })
  await page.evaluateOnNewDocument(() => {
    const state = window as unknown as PageWindow
    state.cspViolations = []
    // a violation of an element of the page names it; one of the document names none (a resource refused, or
    // an attribute met while parsing HTML in a document of its own, which Chromium reports though nothing there can run)
    document.addEventListener('securitypolicyviolation', (event) => {
      const on = event.target instanceof Element ? ` on <${event.target.localName}>` : ''
      state.cspViolations?.push(`${event.violatedDirective} ${event.blockedURI}${on}`)
    })
  })
  await page.setRequestInterception(true)
  page.on('request', (request) => {
    const url = request.url()
    // data: URLs leave nothing: the page's empty icon, the icons of the browser's own audio controls
    if (url.startsWith('data:')) {
      void request.continue()
      return
    }
    if (!url.startsWith(`${base}/`)) {
      study.foreignRequests.push(url)
      void request.abort()
      return
    }
    study.intercept(request).then((answered) => {
      if (!answered) void request.continue()
    }, (error: unknown) => {
      study.consoleErrors.push(`the test's interception failed: ${String(error)}`)
      void request.continue()
    })
  })

  await page.setViewport({ width: 1280, height: 900 })
  await page.goto(`${base}/`, { waitUntil: 'load' })
  await page.evaluate((stored) => { localStorage.setItem('flashcards.session', stored) }, JSON.stringify(session))
  await page.goto(`${base}/#/library`, { waitUntil: 'load' })
  await page.waitForSelector('#main-nav a[data-screen="library"][aria-current="page"]')
  return study
}

/**
 * Clicks the element once it is on show and still: page.click alone does not wait for it,
 * and an element found on show can be redrawn before the click lands, which a locator
 * notices and tries again.
 */
export async function click (page: Page, selector: string): Promise<void> {
  await page.locator(selector).click()
}

export async function goTo (page: Page, screen: 'library' | 'study' | 'browse' | 'progress' | 'settings'): Promise<void> {
  await click(page, `#main-nav a[data-screen="${screen}"]`)
  await page.waitForSelector(`#main-nav a[data-screen="${screen}"][aria-current="page"]`)
}

/** Opens a flashcard of the library in the panel, and waits for its cards (or its empty list). */
export async function openFlashcard (page: Page, name: string): Promise<void> {
  await click(page, `.tree-item-flashcard[data-name="${name}"]`)
  await page.waitForFunction((wanted) => document.querySelector('#library-panel h2')?.textContent === wanted &&
    document.querySelector('#library-panel .add-card-form') !== null, {}, name)
}

const DOCS = fileURLToPath(new URL('../../docs/', import.meta.url))

/**
 * Writes a screenshot of the page as it is into docs/ under `name`, when asked to
 * (STUDY_PAGE_SCREENSHOTS=1): the pictures of the README and the docs. A notice of the step
 * before is not what the picture is of; the fonts are loaded first. The whole page, or
 * with `onScreen` what the screen shows: a tall card keeps the answer's buttons at the
 * bottom of the screen, which a picture of the whole page would show halfway down.
 */
export async function docsScreenshot (page: Page, name: string, { onScreen = false } = {}): Promise<void> {
  if (process.env.STUDY_PAGE_SCREENSHOTS !== '1') return
  await page.evaluate(async () => {
    document.querySelector('#notice-message')?.replaceChildren()
    await document.fonts.ready
  })
  await page.screenshot({ path: join(DOCS, name) as `${string}.png`, fullPage: !onScreen })
}

/** A folder and an empty flashcard in it, made through the API; the flashcard's id. */
export async function emptyFlashcard (study: StudyPage, name: string, folder = 'Rich'): Promise<string> {
  await post(study.app, 'create-folder', { jwtToken: study.token, path: [folder] })
  const created = await expectOk<{ flashcardID: string }>(study.app, 'create-flashcard', { jwtToken: study.token, folder: [folder], flashcardName: name, cards: [] }, 201)
  return created.flashcardID
}

export async function pageIsNoWiderThan (page: Page, width: number): Promise<boolean> {
  return await page.evaluate((limit) => document.documentElement.scrollWidth <= limit, width)
}

function pngChunk (type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4)
  length.writeUInt32BE(data.length)
  const typed = Buffer.concat([Buffer.from(type, 'latin1'), data])
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(crc32(typed))
  return Buffer.concat([length, typed, crc])
}

/**
 * A PNG a browser decodes: `width` x `height` pixels of a sky, a ground and a disc (a
 * red-breasted bird, or a nest). Make it wider than a card, and the card must scale it down.
 */
export function picture (width: number, height: number, hue: 'robin' | 'nest' = 'robin'): Buffer {
  const rows: Buffer[] = []
  const [cx, cy, radius] = [width * 0.5, height * 0.55, Math.min(width, height) * 0.25]
  for (let y = 0; y < height; y += 1) {
    const row = Buffer.alloc(1 + width * 3)
    for (let x = 0; x < width; x += 1) {
      const inDisc = (x - cx) ** 2 + (y - cy) ** 2 < radius ** 2
      const ground = y > height * 0.8
      const [r, g, b] = inDisc
        ? (hue === 'robin' ? (y < cy ? [110, 80, 60] : [214, 88, 40]) : [150, 110, 60])
        : ground ? [70, 130, 60] : [150 + Math.round(80 * y / height), 200, 240]
      row.writeUInt8(r, 1 + x * 3)
      row.writeUInt8(g, 2 + x * 3)
      row.writeUInt8(b, 3 + x * 3)
    }
    rows.push(row)
  }
  const header = Buffer.alloc(13)
  header.writeUInt32BE(width, 0)
  header.writeUInt32BE(height, 4)
  header.writeUInt8(8, 8) // bits per channel
  header.writeUInt8(2, 9) // RGB
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    pngChunk('IDAT', deflateSync(Buffer.concat(rows))),
    pngChunk('IEND', Buffer.alloc(0))
  ])
}

/** A WAV a browser plays: `seconds` of a 440 Hz tone, 8 kHz, 16-bit mono PCM. */
export function tone (seconds = 1): Buffer {
  const rate = 8000
  const samples = Math.round(rate * seconds)
  const data = Buffer.alloc(samples * 2)
  for (let i = 0; i < samples; i += 1) data.writeInt16LE(Math.round(8000 * Math.sin(2 * Math.PI * 440 * i / rate)), i * 2)
  const header = Buffer.alloc(44)
  header.write('RIFF', 0, 'latin1')
  header.writeUInt32LE(36 + data.length, 4)
  header.write('WAVEfmt ', 8, 'latin1')
  header.writeUInt32LE(16, 16)
  header.writeUInt16LE(1, 20) // PCM
  header.writeUInt16LE(1, 22) // mono
  header.writeUInt32LE(rate, 24)
  header.writeUInt32LE(rate * 2, 28)
  header.writeUInt16LE(2, 32)
  header.writeUInt16LE(16, 34)
  header.write('data', 36, 'latin1')
  header.writeUInt32LE(data.length, 40)
  return Buffer.concat([header, data])
}

/** axe-core's script, run in the page to check it as assistive technology meets it. */
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')

/**
 * axe-core's violations of impact serious or critical on the page as it is now, each as
 * "rule: the elements": none is the bar. The script is run through the debugging
 * protocol, which the page's Content-Security-Policy does not govern.
 */
export async function seriousAxeViolations (page: Page): Promise<string[]> {
  await page.evaluate(AXE)
  return await page.evaluate(async () => {
    interface AxeResult { violations: Array<{ id: string, impact?: string | null, nodes: Array<{ target: unknown[] }> }> }
    const axe = (window as unknown as { axe: { run: (context: Document, options: object) => Promise<AxeResult> } }).axe
    const result = await axe.run(document, { resultTypes: ['violations'] })
    return result.violations
      .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
      .map((violation) => `${violation.id}: ${violation.nodes.slice(0, 5).map((node) => node.target.join(' ')).join(', ')}`)
  })
}
