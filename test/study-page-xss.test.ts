// The XSS corpus of test/fixtures/xss-vectors.json through the study page, in headless
// Chromium: every vector as the front and back of a card (formatted, plain text, and in
// a cloze note), made through the API and opened in the flashcard panel, in its editor and
// in study; then as a service that were wrong would send it (the sides raw, unsanitized);
// then pasted and dropped into the card editor. Nothing may run, load from elsewhere or
// break the page's policy, and every element of a card on the page must be on the allowlist.
//
// The payloads are made to tell: alert, confirm, prompt and print (what the vectors call,
// written out or encoded) and x() are replaced, before the page loads, by functions that set
// window.__xss; a dialog the browser opens anyway is caught too; and a vector that loads a
// script or a style from elsewhere is caught by its request (or by the policy's refusal of it).
import { readFile } from 'node:fs/promises'
import type { Page } from 'puppeteer-core'
import { test } from 'tap'
import { expectOk } from './helpers/app.js'
import { click, goTo, openFlashcard, openStudyPage, withoutChromium } from './helpers/study-page.js'

const vectors = JSON.parse(await readFile(new URL('./fixtures/xss-vectors.json', import.meta.url), 'utf8')) as string[]

/** The vectors two by two, one the front of a card and the other its back: every vector on a side, in half the cards to study. */
const pairs = Array.from({ length: Math.ceil(vectors.length / 2) }, (_, index) => [vectors[2 * index] ?? '', vectors[2 * index + 1] ?? vectors[0] ?? ''] as const)

interface XssWindow { __xss?: string[] }

/**
 * What on the page is outside the allowlist of docs/api.md, in words: every element inside a
 * card's side (.card-html), a card editor's field (.rich-editor) or a preview, element by
 * element and attribute by attribute; and anywhere in the page, a script that is not the
 * page's own, an event attribute, or a javascript:, vbscript: or data: address.
 */
function pageProblems (): string[] {
  const problems: string[] = []
  const httpAddress = (value: string) => /^https?:\/\//.test(value) && ['http:', 'https:'].includes(new URL(value).protocol)
  const mediaAddress = (value: string) => new URL(value, location.href).origin === location.origin && new URL(value, location.href).pathname.startsWith('/media/')
  const spans = { colspan: (value: string) => /^[1-9][0-9]?$/.test(value), rowspan: (value: string) => /^[1-9][0-9]?$/.test(value) }
  const allowed: Record<string, Record<string, (value: string, element: Element) => boolean>> = {
    ...Object.fromEntries(['b', 'strong', 'i', 'em', 'u', 'sub', 'sup', 'code', 'pre', 'br', 'p', 'div', 'ul', 'ol', 'li', 'ruby', 'rt', 'rp',
      'table', 'caption', 'thead', 'tbody', 'tfoot', 'tr'].map((tag) => [tag, {}])),
    span: { class: (value) => value === 'cloze' },
    td: spans,
    th: spans,
    a: { href: httpAddress, rel: (value) => value === 'noopener noreferrer nofollow', target: (value) => value === '_blank' },
    // in an editor's field, media carry their id, and an id no address is known for shows no src
    img: { src: mediaAddress, alt: () => true, 'data-media-id': (_value, element) => element.closest('.rich-editor') !== null },
    audio: { src: mediaAddress, controls: (value) => value === '', 'data-media-id': (_value, element) => element.closest('.rich-editor') !== null }
  }
  // the sides shown (in the panel, in study, in an editor's preview) and the editors' fields
  for (const container of document.querySelectorAll('.card-html, .rich-editor')) {
    for (const element of container.querySelectorAll('*')) {
      const tag = element.localName
      if (element.namespaceURI !== 'http://www.w3.org/1999/xhtml') problems.push(`<${tag}> in ${element.namespaceURI ?? 'no namespace'}`)
      const rules = allowed[tag]
      if (rules === undefined) {
        problems.push(`<${tag}>`)
        continue
      }
      for (const { name, value } of Array.from(element.attributes)) {
        const rule = rules[name]
        if (rule === undefined || !rule(value, element)) problems.push(`<${tag} ${name}="${value.slice(0, 60)}">`)
      }
    }
  }
  // anywhere in the page
  for (const script of document.querySelectorAll('script')) {
    if (script.getAttribute('src') !== '/app.js') problems.push(`a script: ${script.outerHTML.slice(0, 80)}`)
  }
  for (const element of document.querySelectorAll('*')) {
    for (const { name, value } of Array.from(element.attributes)) {
      if (/^on/i.test(name)) problems.push(`<${element.localName} ${name}> in the page`)
      if (/^\s*(javascript|vbscript|livescript|data):/i.test(value) && !(element.localName === 'link' && value === 'data:,')) {
        problems.push(`<${element.localName} ${name}="${value.slice(0, 60)}"> in the page`)
      }
    }
  }
  return problems
}

/** Opens a flashcard of the library in the panel, with its cards shown. */
async function showCards (page: Page, name: string): Promise<void> {
  await openFlashcard(page, name)
  await page.waitForFunction((count) => document.querySelectorAll('#card-list .card-item').length === count, {}, pairs.length)
}

async function problemsOn (page: Page, where: string): Promise<string[]> {
  return (await page.evaluate(pageProblems)).map((problem) => `${where}: ${problem}`)
}

interface AuditWindow { pageProblems?: () => string[], studyProblems?: string[], studyAudit?: MutationObserver }

/**
 * Studies every card of today, front then back, answering each "easy"; the number of sides
 * seen, and what was found on the page each time it changed (a MutationObserver runs
 * pageProblems in the page after every change, so no state of a side goes unchecked).
 */
async function studyAll (page: Page, where: string): Promise<{ sides: number, problems: string[] }> {
  await page.evaluate(`window.pageProblems = ${pageProblems.toString()}`)
  await page.evaluate(() => {
    const state = window as unknown as AuditWindow
    state.studyProblems = []
    state.studyAudit = new MutationObserver(() => { state.studyProblems?.push(...state.pageProblems?.() ?? []) })
    state.studyAudit.observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true })
  })
  await goTo(page, 'study')
  let sides = 0
  for (;;) {
    // a front on show (a back not yet), or the end of the sitting
    const shown = await page.waitForFunction(() => document.querySelector('#session-end') !== null ? 'end'
      : document.querySelector('#card-front') !== null && document.querySelector('#card-back') === null && 'front', { polling: 'mutation' })
    if (await shown.jsonValue() === 'end') break
    await page.keyboard.press('Space')
    await page.waitForSelector('#card-back .card-html')
    sides += 2
    await page.keyboard.press('4')
  }
  const problems = await page.evaluate(() => {
    const state = window as unknown as AuditWindow
    state.studyAudit?.disconnect()
    return [...state.studyProblems ?? [], ...state.pageProblems?.() ?? []]
  })
  return { sides, problems: problems.map((problem) => `${where}: ${problem}`) }
}

test('no vector of the XSS corpus runs in the study page: as cards the service gives, as a service that were wrong would give them, pasted or dropped into the editor', {
  skip: withoutChromium,
  // below tap's own limit for the file (package.json, 120 s)
  timeout: 115_000
}, async (t) => {
  t.ok(vectors.length >= 100, `${vectors.length} vectors`)
  const study = await openStudyPage(t, import.meta.filename)
  const { page, app, token } = study
  const dialogs: string[] = []
  page.on('dialog', (dialog) => {
    dialogs.push(`${dialog.type()}: ${dialog.message()}`)
    void dialog.dismiss()
  })
  const navigations: string[] = []
  page.on('framenavigated', (frame) => { if (!frame.url().startsWith(`${study.base}/`)) navigations.push(frame.url()) })
  await page.evaluateOnNewDocument(() => {
    const state = window as unknown as XssWindow & Record<string, unknown>
    for (const name of ['alert', 'confirm', 'prompt', 'print', 'x']) {
      state[name] = () => { state.__xss = [...state.__xss ?? [], name] }
    }
  })

  // ---- the cards the service gives: each vector the front and back of a formatted card, of a plain text card, and in a cloze note
  await expectOk(app, 'create-folder', { jwtToken: token, path: ['XSS'] }, 201)
  const flashcard = async (name: string, cards: object[]) =>
    (await expectOk<{ flashcardID: string }>(app, 'create-flashcard', { jwtToken: token, folder: ['XSS'], flashcardName: name, cards }, 201)).flashcardID
  const fromTheService = {
    'As HTML': pairs.map(([front, back]) => ({ front, back, format: 'html' })),
    'As text': pairs.map(([front, back]) => ({ front, back })),
    // a vector as the deletion's answer, another as the text around it and as the extra
    'In cloze notes': pairs.map(([answer, text]) => ({ cloze: `{{c1::${answer}}} and ${text}`, back: text, format: 'html' }))
  }
  for (const [name, cards] of Object.entries(fromTheService)) await flashcard(name, cards)
  const problems: string[] = []
  const started = Date.now()
  const lap = (what: string) => { console.error(`${what}: ${Date.now() - started} ms`) }
  await page.reload({ waitUntil: 'load' })
  for (const name of Object.keys(fromTheService)) {
    await showCards(page, name)
    problems.push(...await problemsOn(page, `${name}, the panel`))
  }
  lap('panel')
  const studied = await studyAll(page, 'study')
  problems.push(...studied.problems)
  lap('study')
  t.equal(studied.sides, pairs.length * 3 * 2, 'every side of every card the service gives studied')
  t.same(await study.cspViolations(), [], 'the service\'s sides shown and studied: nothing broke the Content-Security-Policy, nothing inline was even parsed')

  // ---- a service that were wrong: its reads of one flashcard give each vector raw, as the HTML to show
  const wrongID = await flashcard('From a wrong service', pairs.map(([front, back]) => ({ front, back, format: 'html' })))
  study.intercept = async (request) => {
    if (!request.url().endsWith('/api/get-flashcard')) return false
    const body = JSON.parse(request.postData() ?? '{}') as { flashcardID?: string }
    if (body.flashcardID !== wrongID) return false
    const answer = (await app.inject({ method: 'POST', url: '/api/get-flashcard', payload: body })).json<{ cards: Array<{ frontHtml: string, backHtml: string }> }>()
    answer.cards.forEach((card, index) => {
      [card.frontHtml, card.backHtml] = pairs[index] ?? ['', '']
    })
    await request.respond({ status: 200, contentType: 'application/json', body: JSON.stringify(answer) })
    return true
  }
  await goTo(page, 'library')
  await showCards(page, 'From a wrong service')
  problems.push(...await problemsOn(page, 'a wrong service, the panel'))
  lap('wrong panel')
  const studiedRaw = await studyAll(page, 'study of a wrong service')
  problems.push(...studiedRaw.problems)
  t.equal(studiedRaw.sides, pairs.length * 2, 'every side of a wrong service studied')
  lap('wrong study')

  // ---- the editor: every card's source (the vectors as written) loaded into its fields, every editor of a flashcard open at once
  await goTo(page, 'library')
  for (const name of ['As HTML', 'In cloze notes']) {
    await showCards(page, name)
    await page.$$eval('#card-list button[aria-label^="Edit card"]', (buttons) => { for (const edit of buttons) (edit as HTMLButtonElement).click() })
    await page.waitForFunction((count) => document.querySelectorAll('#card-list .edit-card-form').length === count, {}, pairs.length)
    problems.push(...await problemsOn(page, `${name}, every editor open`))
  }
  lap('editors')

  // ---- the editor: each vector pasted as HTML, then dropped, into a formatted field
  await showCards(page, 'As text')
  const addForm = '#library-panel .add-card-form'
  await page.select(`${addForm} .editor-choices .field:nth-child(1) select`, 'html')
  await click(page, `${addForm} .rich-editor[data-side="front"]`)
  await page.$eval(`${addForm} .rich-editor[data-side="front"]`, (field, corpus) => {
    for (const vector of corpus) {
      for (const kind of ['paste', 'drop'] as const) {
        const data = new DataTransfer()
        data.setData('text/html', vector)
        data.setData('text/plain', vector)
        field.dispatchEvent(kind === 'paste'
          ? new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true })
          : new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }))
      }
    }
  }, vectors)
  // the preview follows at the next frame
  await page.evaluate(async () => { await new Promise((resolve) => requestAnimationFrame(() => { requestAnimationFrame(resolve) })) })
  problems.push(...await problemsOn(page, 'pasted and dropped into the editor'))
  t.ok(await page.$eval(`${addForm} .rich-editor[data-side="front"]`, (field) => field.textContent?.includes('xxs link') === true && field.querySelector('b') !== null),
    'what was pasted and dropped is in the field, as the allowlist leaves it: the words, and the markup it allows')
  lap('paste')

  t.same(problems.slice(0, 20), [], `${problems.length} elements or attributes outside the allowlist`)
  t.same(await page.evaluate(() => (window as unknown as XssWindow).__xss ?? []), [], 'no vector ran')
  t.same(dialogs, [], 'no dialog opened')
  t.same(navigations, [], 'the page never left its origin')
  t.same(study.foreignRequests, [], 'no request left this origin')
  // raw HTML parsed in a document of its own (card-html.ts) makes Chromium report each event or style attribute it meets,
  // though nothing there can run: those reports name no element of the page. Nothing else may be reported.
  const violations = await study.cspViolations()
  t.same(violations.filter((violation) => !/^(script-src-attr|style-src-attr|style-src-elem|script-src-elem) inline$/.test(violation)), [],
    'nothing inline was put in the page, and nothing was loaded against the policy')
  t.ok(violations.length > 0, `the parser's reports of what it met in the raw vectors (${violations.length}), and only those`)
  t.same(study.consoleErrors.filter((error) => !/violates the following Content Security Policy directive/.test(error)), [], 'no other console errors')
})
