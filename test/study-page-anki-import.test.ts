// Import from Anki in the study page, in Chromium: the package chosen, its upload's progress
// then the import's, the counts get-import-status gives and the decks in the library after;
// an import that fails and uploads the service refuses each say why, with nothing imported;
// an import under way is found again after a reload, and forgotten at logout. With
// STUDY_PAGE_SCREENSHOTS=1 it writes docs/study-page-anki-import.png and its -375 twin.
import type { IncomingMessage, ServerResponse } from 'node:http'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Page } from 'puppeteer-core'
import { test } from 'tap'
import { databaseOf, expectOk } from './helpers/app.js'
import { FIXTURES } from './helpers/anki.js'
import { importAnki, type ImportStatus } from './helpers/anki-import.js'
import { click, docsScreenshot, openStudyPage, pageIsNoWiderThan, withoutChromium, type StudyPage } from './helpers/study-page.js'

// every import starts a worker thread of its own, slow on a busy machine
const BROWSER_TEST = { skip: withoutChromium, timeout: 240_000 }
const COLLECTION = join(FIXTURES, 'collection.apkg')
const NOT_A_ZIP = join(FIXTURES, 'refused', 'not-a-zip.apkg')

/** Opens the import screen from the library's link. */
async function openImport (page: Page): Promise<void> {
  await click(page, '#anki-import-link')
  await page.waitForSelector('#anki-import-form')
}

/** Chooses the package and presses Import; the importID import-anki answered, or its refusal's status. */
async function startImport (study: StudyPage, file: string): Promise<{ status: number, importID?: string }> {
  const { page } = study
  const input = await page.waitForSelector('input#anki-file')
  await input?.uploadFile(file)
  const answered = page.waitForResponse((response) => response.url() === `${study.base}/api/import-anki`)
  await click(page, '#anki-import-start')
  const response = await answered
  const body = await response.json() as { importID?: string }
  return { status: response.status(), importID: body.importID }
}

/** Every value the progress bar showed, as "<label> <value>", kept by the page from now on. */
async function watchProgress (page: Page): Promise<void> {
  await page.evaluate(() => {
    const seen: string[] = []
    ;(window as unknown as { progressSeen: string[] }).progressSeen = seen
    const area = document.querySelector('#anki-progress-area')
    const note = () => {
      const bar = document.querySelector<HTMLProgressElement>('#anki-progress')
      const shown = `${document.querySelector('#anki-progress-label')?.textContent ?? ''} ${bar?.getAttribute('value') ?? 'none'}`
      if (seen.at(-1) !== shown) seen.push(shown)
    }
    if (area !== null) new MutationObserver(note).observe(area, { attributes: true, childList: true, subtree: true, characterData: true })
  })
}

async function statusOf (study: StudyPage, importID: string): Promise<ImportStatus> {
  return await expectOk<ImportStatus>(study.app, 'get-import-status', { jwtToken: study.token, importID })
}

async function ankiImportKeys (page: Page): Promise<string[]> {
  return await page.evaluate(() => Object.keys(localStorage).filter((key) => key.startsWith('flashcards.ankiImport.')))
}

test('an Anki package imported into a folder: the upload\'s progress, the import\'s, its counts and warnings, its decks in the library', BROWSER_TEST, async (t) => {
  const study = await openStudyPage(t, import.meta.filename)
  const { page, app, token } = study
  const target = await expectOk<{ folderID: string }>(app, 'create-folder', { jwtToken: token, path: ['From Anki'] }, 201)
  await page.reload({ waitUntil: 'load' })

  await openImport(page)
  t.equal(await page.evaluate(() => location.hash), '#/anki-import', 'the library links to the import screen')
  t.ok(await page.$eval('#anki-with-scheduling', (box) => (box as HTMLInputElement).checked), 'scheduling and history are kept unless unticked')
  await page.waitForSelector(`#anki-folder option[value="${target.folderID}"]`)
  await page.select('#anki-folder', target.folderID)
  await watchProgress(page)
  const started = await startImport(study, COLLECTION)
  t.equal(started.status, 202, 'import-anki took the package')
  await page.waitForSelector('#anki-import-result:not([hidden]) #anki-import-counts', { timeout: 180_000 })

  const status = await statusOf(study, started.importID ?? '')
  t.equal(status.state, 'done', 'the service says the import is done')
  t.equal(await page.$eval('#anki-result-heading', (heading) => heading.textContent), 'Import done')
  t.ok(await page.$eval('#anki-result-heading', (heading) => heading === document.activeElement), 'the focus goes to the outcome')
  t.equal(await page.$eval('#anki-file', (input) => (input as HTMLInputElement).files?.length), 0, 'the form is left ready for another package')
  const shown = await page.$$eval('#anki-import-counts dd', (values) => values.map((value) => value.textContent))
  t.same(shown, [status.cards, status.notes, status.reviews, status.media], 'cards, notes, reviews and media as get-import-status counts them')
  t.ok(Number(status.cards) > 0 && Number(status.reviews) > 0, `it brought cards and reviews (${status.cards}, ${status.reviews})`)
  const warnings = await page.$$eval('#anki-warnings li', (items) => items.map((item) => item.textContent))
  t.equal(warnings.length, status.warnings.length, `every warning listed (${status.warnings.length})`)
  t.match(await page.$eval('#anki-import-status', (line) => line.textContent), /^Import done/, 'the end said in the live status line')
  await docsScreenshot(page, 'study-page-anki-import.png')
  await page.setViewport({ width: 375, height: 800 })
  t.ok(await pageIsNoWiderThan(page, 375), 'the outcome fits a phone\'s width')
  await docsScreenshot(page, 'study-page-anki-import-375.png')
  await page.setViewport({ width: 1280, height: 900 })

  const seen = await page.evaluate(() => (window as unknown as { progressSeen: string[] }).progressSeen)
  t.ok(seen.includes('Upload 100'), `the bar showed the upload to its end: ${seen.join(', ')}`)
  t.ok(seen.some((value) => value.startsWith('Import ')), 'then the import\'s own progress')
  t.same(await ankiImportKeys(page), [], 'the import seen to its end is no longer kept')

  await click(page, '#anki-open-library')
  await page.waitForSelector('#main-nav a[data-screen="library"][aria-current="page"]')
  await page.waitForSelector('.tree-item-folder[data-name="From Anki"]')
  t.equal(await page.$eval('.tree-item-folder[data-name="From Anki"] .tree-count', (count) => count.textContent), `${status.cards} cards`,
    'the folder chosen holds every card imported')
  t.ok(await page.$('.tree-item-folder[data-name="Langues"]') !== null, 'the decks are folders inside it')

  t.same(await study.cspViolations(), [], 'no policy violations')
  t.same(study.consoleErrors, [], 'no console errors')
})

test('a package imported again: the notes the learner has stay as they are, or take the package\'s text when the box says so', BROWSER_TEST, async (t) => {
  const study = await openStudyPage(t, import.meta.filename)
  const { page, app, token } = study
  t.equal((await importAnki(app, token, await readFile(COLLECTION))).state, 'done')
  await page.reload({ waitUntil: 'load' })
  await openImport(page)
  t.notOk(await page.$eval('#anki-always-update', (box) => (box as HTMLInputElement).checked), 'notes changed here since are kept unless ticked')
  for (const [tick, said] of [[false, /were left as they are: .*tick "Replace notes I have with the package's, even ones I changed here since" and import it again/], [true, /were updated rather than added again/]] as const) {
    if (tick) await click(page, '#anki-always-update')
    const started = await startImport(study, COLLECTION)
    t.equal(started.status, 202)
    await page.waitForSelector('#anki-import-result:not([hidden]) #anki-import-counts', { timeout: 180_000 })
    t.match((await page.$$eval('#anki-warnings li', (items) => items.map((item) => item.textContent))).join(' '), said, tick ? 'ticked, the package\'s text is taken' : 'unticked, the notes stay')
    await click(page, '#anki-import-again')
  }
  t.same(study.consoleErrors, [], 'no console errors')
})

test('a package that is not one, a folder deleted meanwhile, an upload too slow: each says why, and nothing is imported', BROWSER_TEST, async (t) => {
  const study = await openStudyPage(t, import.meta.filename)
  const { page, app, token } = study
  const gone = await expectOk<{ folderID: string }>(app, 'create-folder', { jwtToken: token, path: ['Gone'] }, 201)
  await page.reload({ waitUntil: 'load' })
  await click(page, '.tree-item-folder[data-name="Gone"]')
  await click(page, '#library-panel details.panel-section:has(#anki-import-into-folder) summary')
  await click(page, '#anki-import-into-folder')
  await page.waitForSelector(`#anki-folder option[value="${gone.folderID}"]:checked`)
  t.pass('the folder\'s own link chooses it on the import screen')

  // the folder is deleted elsewhere before the package is sent: import-anki refuses it at once
  await expectOk(app, 'delete-folder', { jwtToken: token, folderID: gone.folderID })
  const refused = await startImport(study, COLLECTION)
  t.equal(refused.status, 404, 'import-anki refused the folder')
  await page.waitForSelector('#anki-import-form + #inline-error, #anki-import-form #inline-error')
  t.match(await page.$eval('#inline-error', (error) => error.textContent), /folder/i, 'the refusal is said next to the form')
  t.equal(await page.$eval('#anki-import-form fieldset', (fields) => (fields as HTMLFieldSetElement).disabled), false, 'the form can be sent again')
  t.equal(await page.$eval('#anki-file', (input) => (input as HTMLInputElement).files?.length), 1, 'with the package still chosen')

  // an upload slower than the service waits for (408): said of the package, with what to do
  study.intercept = async (request) => {
    if (!request.url().endsWith('/api/import-anki')) return false
    await request.respond({
      status: 408,
      contentType: 'application/json',
      body: JSON.stringify({ error: 'the request did not arrive whole within 10 seconds: send its headers and body at once', code: 'request_timeout' })
    })
    return true
  }
  await click(page, '#anki-import-start')
  await page.waitForFunction(() => document.querySelector('#inline-error')?.textContent?.startsWith('The package did not arrive in time') === true)
  t.pass('an upload too slow is said of the package, with what to do')
  study.intercept = async () => false

  // a file that is no zip: the upload is taken, and the import fails, saying why and with its code
  await page.select('#anki-folder', '')
  const started = await startImport(study, NOT_A_ZIP)
  t.equal(started.status, 202)
  await page.waitForSelector('#anki-import-result:not([hidden]) #anki-import-error', { timeout: 120_000 })
  const status = await statusOf(study, started.importID ?? '')
  t.equal(status.state, 'failed')
  t.equal(status.code, 'not_a_zip')
  const said = await page.$eval('#anki-import-error', (error) => error.textContent ?? '')
  t.ok(said.toLowerCase().includes((status.error ?? '').toLowerCase().slice(0, 30)), `the service's words: ${said}`)
  t.ok(said.includes('Code: not_a_zip.'), 'and its code')
  t.equal(await page.$eval('#anki-import-error', (error) => error.getAttribute('role')), 'alert', 'read out at once')
  const library = await expectOk<{ folders: unknown[] }>(app, 'get-library', { jwtToken: token })
  t.same(library.folders, [], 'nothing was imported')

  t.same(await study.cspViolations(), [], 'no policy violations')
  t.same(study.consoleErrors.filter((error) => !/status of 40\d/.test(error)), [], 'no console errors but the refusal\'s 404')
})

test('an import under way is found again after a reload, and forgotten at logout', BROWSER_TEST, async (t) => {
  const study = await openStudyPage(t, import.meta.filename)
  const { page } = study
  await openImport(page)
  const started = await startImport(study, COLLECTION)
  t.equal(started.status, 202)
  await page.waitForFunction(() => Object.keys(localStorage).some((key) => key.startsWith('flashcards.ankiImport.')))
  t.pass('the import is kept in this browser while it runs')

  await page.reload({ waitUntil: 'load' })
  await page.waitForSelector('#anki-import-result:not([hidden]) #anki-import-counts', { timeout: 180_000 })
  const status = await statusOf(study, started.importID ?? '')
  t.same(await page.$$eval('#anki-import-counts dd', (values) => values.map((value) => value.textContent)), [status.cards, status.notes, status.reviews, status.media],
    'the screen, opened again, follows it to its end')

  // an import the user has not seen end is forgotten with the session
  await page.evaluate(() => { localStorage.setItem(`flashcards.ankiImport.${JSON.parse(localStorage.getItem('flashcards.session') ?? '{}').userID as string}`, '{"importID":"1","fileName":"x.apkg"}') })
  await click(page, '#logout-button')
  await page.waitForSelector('#logout-button', { hidden: true })
  t.same(await ankiImportKeys(page), [], 'logging out forgets it')

  t.same(await study.cspViolations(), [], 'no policy violations')
  t.same(study.consoleErrors, [], 'no console errors')
})

test('logging out during an upload asks first, then stops it: nothing of the package is imported', BROWSER_TEST, async (t) => {
  const study = await openStudyPage(t, import.meta.filename)
  const { page } = study
  // the package is held on its way, as over a slow connection, until the test lets it go
  let release: () => void = () => {}
  const held = new Promise<void>((resolve) => { release = resolve })
  study.intercept = async (request) => {
    if (!request.url().endsWith('/api/import-anki')) return false
    await held
    await request.continue().catch(() => {})
    return true
  }
  const stopped = new Promise<string>((resolve) => {
    page.on('requestfailed', (request) => { if (request.url().endsWith('/api/import-anki')) resolve(request.failure()?.errorText ?? '') })
  })
  await openImport(page)
  const input = await page.waitForSelector('input#anki-file')
  await input?.uploadFile(COLLECTION)
  await click(page, '#anki-import-start')
  await page.waitForFunction(() => document.querySelector('#anki-import-status')?.textContent === 'Uploading "collection.apkg"…')

  await click(page, '#logout-button')
  await page.waitForFunction(() => document.querySelector('#error-message')?.textContent?.includes('"collection.apkg" is still uploading, and logging out stops it') === true)
  t.pass('the first press says the upload would stop')
  t.ok(await page.$('#anki-import-form'), 'and logs nobody out')

  await click(page, '#logout-button')
  await page.waitForSelector('#login-form')
  const notStopped = new Promise<string>((resolve) => { setTimeout(() => { resolve('still under way after 20 s') }, 20_000).unref() })
  t.equal(await Promise.race([stopped, notStopped]), 'net::ERR_ABORTED', 'the second logs out, and the upload is stopped')
  release()
  t.same(await ankiImportKeys(page), [], 'nothing of the import is kept in this browser')
  t.equal(await page.$eval('#error-message', (area) => area.textContent), '', 'and no failure is shown for it')
  t.notOk(await page.$('#inline-error'))
  const { userID } = await expectOk<{ userID: string }>(study.app, 'get-user', { jwtToken: study.token })
  const imports = await databaseOf(study.app).collection('imports').countDocuments({ userID })
  const library = await expectOk<{ folders: unknown[] }>(study.app, 'get-library', { jwtToken: study.token })
  t.same([imports, library.folders], [0, []], 'the service started no import, and the library is as it was')
  t.same(study.consoleErrors, [], 'no console errors')
})

test('logging out once the whole package is sent asks nothing and stops nothing: the import goes on at the service', BROWSER_TEST, async (t) => {
  const study = await openStudyPage(t, import.meta.filename)
  const { page, app } = study
  // the service's answer to the upload is held back 3 s, as a busy service's may be: the page has sent every byte and waits
  app.server.prependListener('request', (request: IncomingMessage, response: ServerResponse) => {
    if (request.url !== '/api/import-anki') return
    const end = response.end.bind(response) as (...args: unknown[]) => ServerResponse
    response.end = ((...args: unknown[]) => { setTimeout(() => { end(...args) }, 3000); return response }) as typeof response.end
  })
  await openImport(page)
  const input = await page.waitForSelector('input#anki-file')
  await input?.uploadFile(COLLECTION)
  await click(page, '#anki-import-start')
  await page.waitForFunction(() => document.querySelector('#anki-progress-label')?.textContent === 'Upload' && document.querySelector('#anki-progress')?.getAttribute('value') === '100')

  await click(page, '#logout-button')
  await page.waitForSelector('#login-form')
  t.pass('the first press logs out: nothing would be lost')
  const { userID } = await expectOk<{ userID: string }>(app, 'get-user', { jwtToken: study.token })
  const imports = databaseOf(app).collection<{ userID: string, state: string }>('imports')
  for (let tries = 0; tries < 600 && (await imports.findOne({ userID }))?.state !== 'done'; tries++) await new Promise((resolve) => setTimeout(resolve, 100))
  t.equal((await imports.findOne({ userID }))?.state, 'done', 'the service imported the package')
  const library = await expectOk<{ folders: unknown[] }>(app, 'get-library', { jwtToken: study.token })
  t.ok(library.folders.length > 0, 'and its decks are in the library the learner finds at their next login')
  t.same(await ankiImportKeys(page), [], 'nothing of the import is kept in this browser')
  t.equal(await page.$eval('#error-message', (area) => area.textContent), '', 'and no failure is shown for it')
  t.same(study.consoleErrors, [], 'no console errors')
})
