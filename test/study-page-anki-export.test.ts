// Export to Anki in the study page, in Chromium: a deck, a folder and the whole library each
// downloaded as the .apkg export-anki gives, under its name, read back by the service's own
// Anki reader; the button busy while the package is built; a refusal said next to the button,
// which stays usable. With STUDY_PAGE_SCREENSHOTS=1 it writes docs/study-page-anki-export.png
// and its -375 twin.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { HTTPRequest, Page } from 'puppeteer-core'
import { test } from 'tap'
import { readAnkiPackageFile } from '../src/anki/package-file.js'
import { expectOk } from './helpers/app.js'
import { click, docsScreenshot, openFlashcard, openStudyPage, pageIsNoWiderThan, seriousAxeViolations, withoutChromium, type StudyPage } from './helpers/study-page.js'

const BROWSER_TEST = { skip: withoutChromium, timeout: 180_000 }

interface Downloaded { name: string, bytes: Buffer }

/**
 * The files the page hands to the browser's downloads from now on, each once it has all
 * arrived, under the name the page gave it. Chromium saves each under an id of its own
 * in a folder removed when the test ends.
 */
async function watchDownloads (t: { teardown: (fn: () => unknown) => void }, study: StudyPage): Promise<{ next: () => Promise<Downloaded>, count: () => number }> {
  const folder = await mkdtemp(join(tmpdir(), 'study-page-downloads-'))
  t.teardown(async () => { await rm(folder, { recursive: true, force: true }) })
  const session = await study.browser.target().createCDPSession()
  await session.send('Browser.setDownloadBehavior', { behavior: 'allowAndName', downloadPath: folder, eventsEnabled: true })
  const names = new Map<string, string>()
  const done: Array<Promise<Downloaded>> = []
  const finished = new Map<string, (file: Downloaded) => void>()
  session.on('Browser.downloadWillBegin', (event) => {
    names.set(event.guid, event.suggestedFilename)
    done.push(new Promise((resolve) => { finished.set(event.guid, resolve) }))
  })
  session.on('Browser.downloadProgress', (event) => {
    if (event.state !== 'completed') return
    readFile(join(folder, event.guid)).then((bytes) => { finished.get(event.guid)?.({ name: names.get(event.guid) ?? '', bytes }) }, () => {})
  })
  let taken = 0
  return {
    next: async () => {
      const index = taken
      taken += 1
      const deadline = Date.now() + 60_000
      while (done[index] === undefined) {
        if (Date.now() > deadline) throw new Error('no download began')
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      return await done[index]
    },
    count: () => names.size
  }
}

/** The deck names (A::B) of a package, read by the service's own Anki reader, and how many notes it holds. */
async function packageContents (t: { teardown: (fn: () => unknown) => void }, bytes: Buffer): Promise<{ decks: string[], notes: number, entry: string }> {
  const folder = await mkdtemp(join(tmpdir(), 'study-page-package-'))
  t.teardown(async () => { await rm(folder, { recursive: true, force: true }) })
  const path = join(folder, 'exported.apkg')
  await writeFile(path, bytes)
  const pkg = await readAnkiPackageFile(path, { onMedia: () => {} })
  return {
    decks: pkg.collection.decks.map((deck) => deck.path.join('::')).filter((name) => name !== 'Default').sort(),
    notes: pkg.collection.notes.length,
    entry: pkg.layout.collectionEntry
  }
}

/** Two folders through the API, one holding a deck named beyond ASCII; the page read again. */
async function library (study: StudyPage): Promise<{ folderID: string, flashcardID: string }> {
  const { app, token, page } = study
  const folder = await expectOk<{ folderID: string }>(app, 'create-folder', { jwtToken: token, path: ['Idiomas'] }, 201)
  const deck = await expectOk<{ flashcardID: string }>(app, 'create-flashcard', {
    jwtToken: token,
    folder: ['Idiomas'],
    flashcardName: 'Español · Verbos',
    cards: [{ front: 'ser', back: 'to be' }, { front: 'tener', back: 'to have' }]
  }, 201)
  await expectOk(app, 'create-folder', { jwtToken: token, path: ['Other'] }, 201)
  await expectOk(app, 'create-flashcard', { jwtToken: token, folder: ['Other'], flashcardName: 'Misc', cards: [{ front: 'alone', back: 'in its folder' }] }, 201)
  await page.reload({ waitUntil: 'load' })
  await page.waitForSelector('.tree-item-folder[data-name="Idiomas"]')
  return { folderID: folder.folderID, flashcardID: deck.flashcardID }
}

/** Opens the folded section of the library's panel that holds `selector`. */
async function openSection (page: Page, selector: string): Promise<void> {
  await click(page, `#library-panel details.panel-section:has(${selector}) summary`)
  await page.waitForSelector(`${selector}:not([disabled])`, { visible: true })
}

const isExport = (request: HTTPRequest) => request.url().endsWith('/api/export-anki')

test('a deck, a folder and the whole library, each downloaded as the Anki package export-anki gives, under its name', BROWSER_TEST, async (t) => {
  const study = await openStudyPage(t, import.meta.filename)
  const { page } = study
  await library(study)
  const downloads = await watchDownloads(t, study)

  // the deck: held on its way, so the button's busy state can be seen while the service builds the package
  let release: () => void = () => {}
  const held = new Promise<void>((resolve) => { release = resolve })
  study.intercept = async (request) => {
    if (!isExport(request)) return false
    await held
    await request.continue()
    return true
  }
  await openFlashcard(page, 'Español · Verbos')
  await openSection(page, '#anki-export-deck')
  await click(page, '#anki-export-deck')
  await page.waitForFunction(() => document.querySelector('#anki-export-deck-status')?.textContent === 'Building the package…')
  t.ok(await page.$eval('#anki-export-deck', (button) => (button as HTMLButtonElement).disabled && button.getAttribute('aria-busy') === 'true'),
    'the button is busy and disabled while the package is built')
  release()
  const deck = await downloads.next()
  study.intercept = async () => false
  t.equal(deck.name, 'Español · Verbos.apkg', 'saved under the name of Content-Disposition\'s filename*')
  t.equal(deck.bytes.subarray(0, 2).toString('latin1'), 'PK', 'a zip')
  const deckContents = await packageContents(t, deck.bytes)
  t.equal(deckContents.entry, 'collection.anki21')
  t.same(deckContents.decks, ['Idiomas', 'Idiomas::Español · Verbos'], 'the deck, under its folder')
  t.equal(deckContents.notes, 2, 'with its cards')
  await page.waitForFunction(() => !(document.querySelector<HTMLButtonElement>('#anki-export-deck')?.disabled ?? true))
  t.equal(await page.$eval('#anki-export-deck-status', (status) => status.textContent), '', 'the busy state ends with the download')
  t.match(await page.$eval('#notice-message', (notice) => notice.textContent), /^Downloaded "Español · Verbos\.apkg"\./, 'and says what was saved')
  t.equal(await page.evaluate(() => location.hash), '#/library', 'the page stayed where it was')
  t.same(await seriousAxeViolations(page), [], 'no serious or critical axe-core violation with the deck\'s Export section open')
  await docsScreenshot(page, 'study-page-anki-export.png')
  await page.setViewport({ width: 375, height: 800 })
  t.ok(await pageIsNoWiderThan(page, 375), 'the deck\'s export fits a phone\'s width')
  await docsScreenshot(page, 'study-page-anki-export-375.png')
  await page.setViewport({ width: 1280, height: 900 })

  // the folder, from its panel
  await click(page, '.tree-item-folder[data-name="Idiomas"]')
  await page.waitForFunction(() => document.querySelector('#library-panel h2')?.textContent === 'Idiomas')
  await openSection(page, '#anki-export-folder')
  await click(page, '#anki-export-folder')
  const folder = await downloads.next()
  t.equal(folder.name, 'Idiomas.apkg')
  t.same((await packageContents(t, folder.bytes)).decks, ['Idiomas', 'Idiomas::Español · Verbos'], 'the folder with its deck, and nothing else')

  // the whole library, from the screen's header; what its status says is kept as it changes
  await page.evaluate(() => {
    const said: string[] = []
    ;(window as unknown as { statusSaid: string[] }).statusSaid = said
    const status = document.querySelector('#anki-export-library-status')
    if (status !== null) new MutationObserver(() => { if (status.textContent !== '') said.push(status.textContent ?? '') }).observe(status, { childList: true, characterData: true, subtree: true })
  })
  await click(page, '#anki-export-library')
  const whole = await downloads.next()
  const said = await page.evaluate(() => (window as unknown as { statusSaid: string[] }).statusSaid)
  t.equal(said[0], 'Building the package…', 'the status says the package is being built')
  t.match(said.at(-1) ?? '', /^Downloading the package: \d+ KB…$/, 'then how much of it has come')
  t.equal(whole.name, 'flashcards.apkg')
  const wholeContents = await packageContents(t, whole.bytes)
  t.same(wholeContents.decks, ['Idiomas', 'Idiomas::Español · Verbos', 'Other', 'Other::Misc'], 'every folder and deck')
  t.equal(wholeContents.notes, 3)
  t.ok(await pageIsNoWiderThan(page, 1280))
  await page.setViewport({ width: 375, height: 800 })
  t.ok(await pageIsNoWiderThan(page, 375), 'the library\'s header fits a phone\'s width')

  t.equal(downloads.count(), 3, 'one file for each press')
  t.same(await study.cspViolations(), [], 'no policy violations')
  t.same(study.foreignRequests, [], 'no request left the origin')
  t.same(study.consoleErrors, [], 'no console errors')
})

test('a refusal is said next to the button, in the service\'s words, and the button can be pressed again', BROWSER_TEST, async (t) => {
  const study = await openStudyPage(t, import.meta.filename)
  const { page, app, token } = study
  const { flashcardID } = await library(study)
  const downloads = await watchDownloads(t, study)

  // an export too large to build: the service's own sentence, as it refuses one
  const tooLarge = 'the export would hold more than 200,000 cards, the most one package is built with: export one folder or flashcard at a time'
  study.intercept = async (request) => {
    if (!isExport(request)) return false
    await request.respond({ status: 409, contentType: 'application/json', body: JSON.stringify({ error: tooLarge, code: 'export_too_large' }) })
    return true
  }
  await click(page, '#anki-export-library')
  await page.waitForSelector('#inline-error')
  t.equal(await page.$eval('#inline-error', (error) => error.textContent),
    'the export would hold more than 200,000 cards, the most one package is built with: export one folder or deck at a time', 'the service\'s sentence, in the page\'s words')
  t.ok(await page.$eval('.library-exports .anki-export + #inline-error', (error) => error.getAttribute('role') === 'alert'), 'next to the button, read out at once')
  t.equal(await page.$eval('#anki-export-library', (button) => (button as HTMLButtonElement).disabled), false, 'the button can be pressed again')
  t.equal(await page.$eval('#anki-export-library-status', (status) => status.textContent), '', 'and is no longer busy')
  t.equal(downloads.count(), 0, 'nothing was downloaded')

  // pressed again, with the service left to answer: the package comes
  study.intercept = async () => false
  await click(page, '#anki-export-library')
  t.equal((await downloads.next()).name, 'flashcards.apkg', 'the second press downloads the library')
  await page.waitForFunction(() => document.querySelector('#inline-error') === null)
  t.pass('and the refusal is gone')

  // a deck deleted elsewhere while its panel is open: the service's 404
  await openFlashcard(page, 'Español · Verbos')
  await openSection(page, '#anki-export-deck')
  await expectOk(app, 'delete-flashcard', { jwtToken: token, flashcardID })
  await click(page, '#anki-export-deck')
  await page.waitForSelector('#inline-error')
  t.equal(await page.$eval('#inline-error', (error) => error.textContent), `no deck ${flashcardID}`, 'the service\'s 404, said of the deck')
  t.equal(await page.$eval('#anki-export-deck', (button) => (button as HTMLButtonElement).disabled), false)
  t.equal(downloads.count(), 1, 'nothing more was downloaded')

  t.same(await study.cspViolations(), [], 'no policy violations')
  t.same(study.consoleErrors.filter((error) => !/status of 40[49]/.test(error)), [], 'no console errors but the refusals\' 409 and 404')
})

test('a package that arrives after the learner logged out is not saved: nothing of the account is left on the machine', BROWSER_TEST, async (t) => {
  const study = await openStudyPage(t, import.meta.filename)
  const { page } = study
  await library(study)
  const downloads = await watchDownloads(t, study)

  let release: () => void = () => {}
  const held = new Promise<void>((resolve) => { release = resolve })
  let asked = false
  study.intercept = async (request) => {
    if (!isExport(request)) return false
    asked = true
    await held
    await request.continue()
    return true
  }
  await click(page, '#anki-export-library')
  await page.waitForFunction(() => document.querySelector('#anki-export-library-status')?.textContent === 'Building the package…')
  await click(page, '#logout-button')
  await page.waitForSelector('#login-form')
  t.ok(asked, 'the export was on its way when the learner logged out')
  // the answer comes whole (the service builds it for the token it was sent with); the page drops it
  // however it ends: a page that reads no further aborts it
  const finished = new Promise<void>((resolve) => {
    page.on('requestfinished', (request) => { if (isExport(request)) resolve() })
    page.on('requestfailed', (request) => { if (isExport(request)) resolve() })
  })
  release()
  await finished
  await new Promise((resolve) => setTimeout(resolve, 1500))
  t.equal(downloads.count(), 0, 'nothing was saved')
  t.same(study.consoleErrors, [], 'no console errors')
})
