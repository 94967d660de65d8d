// Rich cards in the study page, in headless Chromium: an image pasted into the card
// editor and one picked with the file picker, a cloze note made with Ctrl+Shift+C, bold
// and italic by button and key with an image dropped, formatted sides studied as formatted,
// a sound dropped into the editor and played again with R; the upload refusals said next
// to the control; and both kinds of card at phone width. With STUDY_PAGE_SCREENSHOTS=1 it
// also writes the screenshots of docs/ (an image card, a cloze card and the editor, at 1280 and 375 px).
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { ElementHandle, Page } from 'puppeteer-core'
import { test } from 'tap'
import { expectOk, post } from './helpers/app.js'
import { click, docsScreenshot, emptyFlashcard, goTo, openFlashcard, openStudyPage, pageIsNoWiderThan, picture, tone, withoutChromium } from './helpers/study-page.js'

const PHONE_WIDTH = 375
// below tap's own limit for the file (package.json, 120 s), so a test's own timeout is the one that tells
const BROWSER_TEST = { skip: withoutChromium, timeout: 60_000 }

const ADD_FORM = '#library-panel .add-card-form'
const FRONT = `${ADD_FORM} .rich-editor[data-side="front"]`
const BACK = `${ADD_FORM} .rich-editor[data-side="back"]`
const FORMAT = `${ADD_FORM} .editor-choices .field:nth-child(1) select`
const KIND = `${ADD_FORM} .editor-choices .field:nth-child(2) select`

interface CardRead { cardID: string, front: string, back: string, format: string, frontHtml: string, backHtml: string, clozeNumber?: string, noteID?: string }

/** A file as the page gets it from the clipboard or a drop: bytes, a name and the type the system says. */
interface FileSent { bytes: Buffer, name: string, type: string }

/** Pastes a file into an element, as a paste of a copied image does: a paste event whose clipboard holds the file. */
async function pasteFile (page: Page, selector: string, file: FileSent): Promise<void> {
  await page.$eval(selector, (target, base64, name, type) => {
    const bytes = Uint8Array.from(atob(base64), (character) => character.charCodeAt(0))
    const data = new DataTransfer()
    data.items.add(new File([bytes], name, { type }))
    target.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }))
  }, file.bytes.toString('base64'), file.name, file.type)
}

/** Drops a file onto the middle of an element, as a drag from the file manager does. */
async function dropFile (page: Page, selector: string, file: FileSent): Promise<void> {
  await page.$eval(selector, (target, base64, name, type) => {
    const bytes = Uint8Array.from(atob(base64), (character) => character.charCodeAt(0))
    const data = new DataTransfer()
    data.items.add(new File([bytes], name, { type }))
    const box = target.getBoundingClientRect()
    const at = { clientX: box.left + box.width / 2, clientY: box.top + box.height / 2, bubbles: true, cancelable: true, dataTransfer: data }
    target.dispatchEvent(new DragEvent('dragover', at))
    target.dispatchEvent(new DragEvent('drop', at))
  }, file.bytes.toString('base64'), file.name, file.type)
}

/** Selects the first occurrence of `words` in the text of a contenteditable field, as a user's drag over them does. */
async function selectWords (page: Page, selector: string, words: string): Promise<void> {
  await page.$eval(selector, (field, wanted) => {
    const walker = document.createTreeWalker(field, NodeFilter.SHOW_TEXT)
    for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
      const at = node.nodeValue?.indexOf(wanted) ?? -1
      if (at === -1) continue
      const range = document.createRange()
      range.setStart(node, at)
      range.setEnd(node, at + wanted.length)
      getSelection()?.removeAllRanges()
      getSelection()?.addRange(range)
      return
    }
    throw new Error(`no "${wanted}" in the field`)
  }, words)
}

/** Puts the caret at the end of a contenteditable field, as a click after its last word does. */
async function caretAtEnd (page: Page, selector: string): Promise<void> {
  await page.$eval(selector, (field) => {
    (field as HTMLElement).focus()
    const range = document.createRange()
    range.selectNodeContents(field)
    range.collapse(false)
    getSelection()?.removeAllRanges()
    getSelection()?.addRange(range)
  })
}

/** The kind of card the add form is set to. */
async function kindChosen (page: Page): Promise<string> {
  return await page.$eval(KIND, (select) => (select as HTMLSelectElement).value)
}

/** Ctrl+Shift+C, as a user presses it. */
async function pressClozeKeys (page: Page): Promise<void> {
  await page.keyboard.down('Control')
  await page.keyboard.down('Shift')
  await page.keyboard.press('KeyC')
  await page.keyboard.up('Shift')
  await page.keyboard.up('Control')
}

/** The image once it has loaded: its size as drawn, its own size, its description, and the width of the card it is in. */
async function loadedImage (image: ElementHandle<Element>, within: string): Promise<{ shownWidth: number, shownHeight: number, naturalWidth: number, alt: string, roomWidth: number }> {
  await image.evaluate(async (element) => {
    const picture = element as HTMLImageElement
    if (!picture.complete) await new Promise((resolve) => { picture.addEventListener('load', resolve, { once: true }); picture.addEventListener('error', resolve, { once: true }) })
  })
  return await image.evaluate((element, container) => {
    const picture = element as HTMLImageElement
    const room = picture.closest(container)
    return {
      shownWidth: picture.getBoundingClientRect().width,
      shownHeight: picture.getBoundingClientRect().height,
      naturalWidth: picture.naturalWidth,
      alt: picture.alt,
      roomWidth: room?.clientWidth ?? 0
    }
  }, within)
}

async function readFlashcard (study: { app: Parameters<typeof expectOk>[0], token: string }, flashcardID: string): Promise<CardRead[]> {
  return (await expectOk<{ cards: CardRead[] }>(study.app, 'get-flashcard', { jwtToken: study.token, flashcardID })).cards
}

/**
 * Writes a screenshot of the page into docs/, once the answers' intervals are in
 * (STUDY_PAGE_SCREENSHOTS=1); with `onScreen`, of what the screen shows, the answer in view.
 */
async function screenshot (page: Page, name: string, { onScreen = false } = {}): Promise<void> {
  // the answers' intervals arrive after the back is shown; the picture is of the page once they have
  await page.waitForFunction(() => [...document.querySelectorAll('#study-stage .interval')].every((interval) => interval.textContent !== '…'))
  if (onScreen) await page.$eval('#card-back', (answer) => { answer.scrollIntoView({ block: 'nearest' }) })
  await docsScreenshot(page, name, { onScreen })
}

test('an image pasted into the editor and one picked are saved, then studied: shown scaled to the card, described, loaded', BROWSER_TEST, async (t) => {
  const study = await openStudyPage(t, import.meta.filename)
  const { page } = study
  const flashcardID = await emptyFlashcard(study, 'Birds')
  const files = await mkdtemp(join(tmpdir(), 'rich-page-'))
  t.teardown(async () => { await rm(files, { recursive: true, force: true }) })
  await page.reload({ waitUntil: 'load' })
  await openFlashcard(page, 'Birds')

  // ---- the front: words, then a picture pasted from the clipboard
  await page.select(FORMAT, 'html')
  await click(page, FRONT)
  await page.keyboard.type('Which bird is this? ')
  await pasteFile(page, FRONT, { bytes: picture(1600, 1000), name: 'robin.png', type: 'image/png' })
  const pasted = await page.waitForSelector(`${FRONT} img[data-media-id]`)
  if (pasted === null) throw new Error('no image in the field')
  const inEditor = await loadedImage(pasted, '.rich-editor')
  t.ok(inEditor.naturalWidth === 1600, 'the pasted image shows in the field, from the address the upload answered')
  t.ok(inEditor.shownWidth <= inEditor.roomWidth, 'scaled to the field')
  t.equal(inEditor.alt, 'robin', 'described by its file name until the user writes a description')
  // the description is written in its own field, which the image just added opens
  await page.waitForSelector(`${ADD_FORM} .alt-input`, { visible: true })
  await page.$eval(`${ADD_FORM} .alt-input`, (input) => { (input as HTMLInputElement).value = '' })
  await page.type(`${ADD_FORM} .alt-input`, 'A robin on a branch')
  t.equal(await pasted.evaluate((image) => (image as HTMLImageElement).alt), 'A robin on a branch', 'the description goes onto the image')

  // ---- the back: words, then a picture chosen with the file picker
  await click(page, BACK)
  await page.keyboard.type('A robin, and its nest: ')
  const nestFile = join(files, 'nest.png')
  await writeFile(nestFile, picture(900, 700, 'nest'))
  const picker = await page.$(`${ADD_FORM} input[type="file"]`)
  if (picker === null) throw new Error('no file picker')
  t.equal(await picker.evaluate((input) => input.getAttribute('aria-label')), 'Image or sound file to add', 'the picker has a name')
  t.match(await page.$eval(`${ADD_FORM} .tool-media`, (button) => button.textContent), /Add image or sound/, 'and a button that opens it')
  await picker.uploadFile(nestFile)
  const picked = await page.waitForSelector(`${BACK} img[data-media-id]`)
  if (picked === null) throw new Error('no image in the back')
  t.equal((await loadedImage(picked, '.rich-editor')).naturalWidth, 900, 'the picked image shows in the back field')

  // ---- the preview shows both sides, images loaded
  await page.waitForFunction((form) => document.querySelectorAll(`${form} .card-preview img`).length === 2, {}, ADD_FORM)
  const previewed = await page.$$(`${ADD_FORM} .card-preview img`)
  t.same(await Promise.all(previewed.map(async (image) => (await loadedImage(image, '.preview-side')).alt)), ['A robin on a branch', 'nest'],
    'the preview shows both sides, each image with its description')

  // ---- saved: the source keeps media: references, the service renders addresses
  await click(page, `${ADD_FORM} button[type="submit"]`)
  await page.waitForSelector('#card-list .card-item img')
  const [card] = await readFlashcard(study, flashcardID)
  t.equal(card?.format, 'html', 'saved as a formatted card')
  t.match(card?.front, /^Which bird is this\?(&nbsp;| )<img src="media:\d{30,64}" alt="A robin on a branch"/, 'the front as written: the image by its media: reference, with its description')
  t.match(card?.back, /<img src="media:\d{30,64}" alt="nest"/, 'the back holds the picked image')
  t.match(card?.frontHtml, /<img src="\/media\/\d+\?u=/, 'which a read gives as a signed address')
  const listed = await page.$('#card-list .card-item img')
  if (listed === null) throw new Error('no image in the list')
  t.ok((await loadedImage(listed, '.card-item')).naturalWidth > 0, 'the card list shows the card with its image')

  // ---- studied: the image is shown scaled to the card, with its description, loaded
  await goTo(page, 'study')
  const front = await page.waitForSelector('#card-front img')
  if (front === null) throw new Error('no image on the front')
  const shown = await loadedImage(front, '.study-card')
  t.equal(shown.naturalWidth, 1600, 'the image is loaded')
  t.equal(shown.alt, 'A robin on a branch', 'with its description')
  t.ok(shown.shownWidth <= shown.roomWidth && shown.shownWidth < shown.naturalWidth, `scaled down to the card (${Math.round(shown.shownWidth)} of ${shown.naturalWidth} px wide)`)
  t.ok(shown.shownHeight <= 900 * 0.5 + 1, 'and no taller than half the window')
  await page.keyboard.press('Space')
  const back = await page.waitForSelector('#card-back img')
  if (back === null) throw new Error('no image on the back')
  const backShown = await loadedImage(back, '.study-card')
  t.ok(backShown.naturalWidth === 900 && backShown.alt === 'nest', 'the back shows its image too, loaded and described')
  await screenshot(page, 'study-page-image.png', { onScreen: true })

  await page.setViewport({ width: PHONE_WIDTH, height: 800 })
  const phone = await loadedImage(back, '.study-card')
  t.ok(phone.shownWidth <= phone.roomWidth, 'at 375 px the image still fits the card')
  t.ok(await pageIsNoWiderThan(page, PHONE_WIDTH), 'and the page does not scroll sideways')
  await screenshot(page, 'study-page-image-375.png', { onScreen: true })

  // ---- the card edited, at phone width: its editor shows the images from the card's read, and keeps their references
  await goTo(page, 'library')
  await openFlashcard(page, 'Birds')
  await page.waitForSelector('#card-list .card-item img')
  t.ok(await pageIsNoWiderThan(page, PHONE_WIDTH), 'the flashcard panel, with the card, its image and the editor, fits 375 px')
  await click(page, '#card-list button[aria-label^="Edit card"]')
  const editing = await page.waitForSelector('#card-list .edit-card-form .rich-editor[data-side="front"] img')
  if (editing === null) throw new Error('no image in the edited card\'s field')
  const inEdit = await loadedImage(editing, '.rich-editor')
  t.ok(inEdit.naturalWidth === 1600 && inEdit.alt === 'A robin on a branch', 'the card\'s editor shows its image, from the address the card\'s read gave')
  t.ok(await pageIsNoWiderThan(page, PHONE_WIDTH), 'and fits 375 px')
  await caretAtEnd(page, '#card-list .edit-card-form .rich-editor[data-side="back"]')
  await page.keyboard.type(' (Erithacus rubecula)')
  await click(page, '#card-list .edit-card-form button[type="submit"]')
  await page.waitForSelector('#card-list button[aria-label^="Edit card"]')
  const [edited] = await readFlashcard(study, flashcardID)
  t.equal(edited?.front, card?.front, 'saved unchanged, the front keeps its media: reference')
  t.match(edited?.back, /<img src="media:\d{30,64}" alt="nest">.*\(Erithacus rubecula\)/, 'and the back its image, with the words added')

  t.same(study.consoleErrors, [], 'no console errors')
  t.same(await study.cspViolations(), [], 'nothing broke the Content-Security-Policy')
  t.same(study.foreignRequests, [], 'no request left this origin')
})

test('a cloze note made with Ctrl+Shift+C from selections makes a card for each number; studied, its front asks [...] and its back marks the answer', BROWSER_TEST, async (t) => {
  const study = await openStudyPage(t, import.meta.filename)
  const { page } = study
  const flashcardID = await emptyFlashcard(study, 'Capitals')
  await page.reload({ waitUntil: 'load' })
  await openFlashcard(page, 'Capitals')

  // ---- in plain text: Ctrl+Shift+C wraps the selection of the text area
  const frontText = `${ADD_FORM} textarea[data-side="front"]`
  await click(page, frontText)
  await page.keyboard.type('Lisbon is in Portugal')
  await page.$eval(frontText, (input) => { (input as HTMLTextAreaElement).setSelectionRange(0, 6) })
  await pressClozeKeys(page)
  t.equal(await page.$eval(frontText, (input) => (input as HTMLTextAreaElement).value), '{{c1::Lisbon}} is in Portugal', 'plain text: the selection becomes {{c1::...}}')
  t.equal(await kindChosen(page), 'cloze', 'and the card becomes a cloze card')
  await page.$eval(frontText, (input) => { (input as HTMLTextAreaElement).value = '' })

  // ---- formatted: two selections, two numbers
  await page.select(FORMAT, 'html')
  await page.select(KIND, 'basic')
  t.equal(await page.$eval(`${ADD_FORM} label[for] + textarea[data-side="front"]`, (input) => input.previousElementSibling?.textContent), 'Front', 'a card of a front and back again')
  await click(page, FRONT)
  await page.keyboard.type('Madrid is the capital of ')
  await page.keyboard.down('Control')
  await page.keyboard.press('KeyB')
  await page.keyboard.up('Control')
  await page.keyboard.type('Spain')
  t.match(await page.$eval(FRONT, (field) => field.innerHTML), /<b>Spain<\/b>/, 'Ctrl+B makes what is typed next bold')
  t.match(await page.$eval(`${ADD_FORM} .tool-bold`, (button) => `${button.getAttribute('title')} ${button.getAttribute('aria-keyshortcuts')}`),
    /^Bold \(Ctrl\+B\) Control\+B$/, 'the bold button says its shortcut, to the eye and to assistive technology')
  await selectWords(page, FRONT, 'Madrid')
  await pressClozeKeys(page)
  await selectWords(page, FRONT, 'Spain')
  await pressClozeKeys(page)
  t.equal(await page.$eval(FRONT, (field) => field.textContent), '{{c1::Madrid}} is the capital of {{c2::Spain}}', 'each selection wrapped with the next number')
  t.equal(await kindChosen(page), 'cloze', 'the card is a cloze card')
  t.equal(await page.$eval(`${ADD_FORM} label[id]`, (label) => label.textContent), 'Text, with its cloze deletions', 'its first field is named for what it holds')
  await click(page, BACK)
  await page.keyboard.type('Spain in Spanish is España.')

  // ---- the preview: one card a number, as the service will render them
  // the preview follows the typing at the next frame
  await page.waitForFunction((form) => document.querySelectorAll(`${form} .card-preview .preview-card`).length === 2 &&
    document.querySelector(`${form} .card-preview`)?.textContent?.endsWith('España.') === true, {}, ADD_FORM)
  const previews = await page.$$eval(`${ADD_FORM} .card-preview .preview-card`, (cards) => cards.map((card) =>
    [...card.querySelectorAll('.preview-side')].map((side) => [side.querySelector('.card-html')?.textContent, [...side.querySelectorAll('.cloze')].map((mark) => mark.textContent)])))
  t.same(previews, [
    [['[...] is the capital of Spain', ['[...]']], ['Madrid is the capital of SpainSpain in Spanish is España.', ['Madrid']]],
    [['Madrid is the capital of [...]', ['[...]']], ['Madrid is the capital of SpainSpain in Spanish is España.', ['Spain']]]
  ], 'the preview shows each card\'s question and answer, the deletion marked')
  await screenshot(page, 'study-page-editor.png')
  await page.setViewport({ width: PHONE_WIDTH, height: 800 })
  t.ok(await pageIsNoWiderThan(page, PHONE_WIDTH), 'the editor of a cloze note, with its preview, fits 375 px')
  await screenshot(page, 'study-page-editor-375.png')
  await page.setViewport({ width: 1280, height: 900 })

  // ---- saved: two cards, one note
  await click(page, `${ADD_FORM} button[type="submit"]`)
  await page.waitForFunction(() => document.querySelectorAll('#card-list .card-item').length === 2)
  const cards = await readFlashcard(study, flashcardID)
  t.same(cards.map((card) => card.clozeNumber), ['1', '2'], 'two numbers, two cards')
  t.equal(cards[0]?.front, '{{c1::Madrid}} is the capital of <b>{{c2::Spain}}</b>', 'the note\'s text as written, the bold word\'s deletion in its bold')
  t.equal(cards[0]?.noteID, cards[1]?.noteID, 'one note')
  t.equal(cards[0]?.format, 'html', 'formatted')

  // ---- studied: the question shows [...], the answer the whole text with the answer marked
  // both cards of the note in one sitting: its second is not buried when the first is answered
  await expectOk(study.app, 'update-settings', { jwtToken: study.token, buryNewSiblings: false })
  await goTo(page, 'study')
  const seen: Array<{ question: string, asked: string, answer: string, marked: string, weight: string }> = []
  for (let card = 0; card < 2; card += 1) {
    await page.waitForSelector('#card-front .cloze')
    if (card === 0) await screenshot(page, 'study-page-cloze.png')
    const question = await page.$eval('#card-front .card-html', (side) => side.textContent ?? '')
    const asked = await page.$eval('#card-front .cloze', (mark) => mark.textContent ?? '')
    await page.keyboard.press('Space')
    await page.waitForSelector('#card-back .cloze')
    t.equal(await page.$('#card-front'), null, 'the answer is shown in place of the question')
    const answer = await page.$eval('#card-back .card-html', (side) => side.textContent ?? '')
    const marked = await page.$eval('#card-back .cloze', (mark) => mark.textContent ?? '')
    const weight = await page.$eval('#card-back .cloze', (mark) => getComputedStyle(mark).fontWeight)
    seen.push({ question, asked, answer, marked, weight })
    if (card === 0) {
      await page.setViewport({ width: PHONE_WIDTH, height: 800 })
      t.ok(await pageIsNoWiderThan(page, PHONE_WIDTH), 'a cloze card fits 375 px')
      await screenshot(page, 'study-page-cloze-375.png')
      await page.setViewport({ width: 1280, height: 900 })
    }
    await page.keyboard.press('4')
    await page.waitForFunction((answered) => answered === 1 ? document.querySelector('#session-end') !== null : document.querySelector('#card-back') === null, {}, card)
  }
  t.same(seen.map(({ question, asked }) => [question, asked]).sort(), [
    ['Madrid is the capital of [...]', '[...]'],
    ['[...] is the capital of Spain', '[...]']
  ], 'each question hides its own deletion as [...], the other filled in')
  t.same(seen.map(({ marked }) => marked).sort(), ['Madrid', 'Spain'], 'each answer marks the deletion asked for')
  t.ok(seen.every(({ answer }) => answer === 'Madrid is the capital of SpainSpain in Spanish is España.'), 'the whole text, then the extra')
  t.ok(seen.every(({ weight }) => weight === '700'), 'the marked answer stands out (style .cloze)')

  // ---- the note edited through one of its cards: a third deletion makes a third card, the others keep theirs
  await goTo(page, 'library')
  await openFlashcard(page, 'Capitals')
  await click(page, '#card-list button[aria-label^="Edit card"]')
  const noteField = '#card-list .edit-card-form .rich-editor[data-side="front"]'
  await page.waitForSelector(noteField)
  t.equal(await page.$eval('#card-list .edit-card-form .editor-choices .field:nth-child(2) select', (select) => (select as HTMLSelectElement).disabled), true,
    'a card keeps its kind when edited')
  await caretAtEnd(page, noteField)
  await page.keyboard.type(', in Europe')
  await selectWords(page, noteField, 'Europe')
  await pressClozeKeys(page)
  t.match(await page.$eval(noteField, (field) => field.textContent), /, in \{\{c3::Europe\}\}$/, 'Ctrl+Shift+C gives the next number, 3')
  await click(page, '#card-list .edit-card-form button[type="submit"]')
  await page.waitForFunction(() => document.querySelectorAll('#card-list .card-item').length === 3 && document.querySelector('#card-list .edit-card-form') === null)
  const afterEdit = await readFlashcard(study, flashcardID)
  t.same(afterEdit.map((card) => card.clozeNumber), ['1', '2', '3'], 'edit-card with the cloze text: a card for the new number')
  t.same(afterEdit.slice(0, 2).map((card) => card.cardID), cards.map((card) => card.cardID), 'the note\'s first two cards are the same cards')

  t.same(study.consoleErrors, [], 'no console errors')
  t.same(await study.cspViolations(), [], 'nothing broke the Content-Security-Policy')
  t.same(study.foreignRequests, [], 'no request left this origin')
})

test('bold and italic by their buttons and by Ctrl+B and Ctrl+I, an image dropped: the preview and the card studied show them', BROWSER_TEST, async (t) => {
  const study = await openStudyPage(t, import.meta.filename)
  const { page } = study
  const flashcardID = await emptyFlashcard(study, 'Spanish')
  await page.reload({ waitUntil: 'load' })
  await openFlashcard(page, 'Spanish')
  await page.select(FORMAT, 'html')

  // the front: one word made italic by its key, one bold by its button, one italic by its button
  await click(page, FRONT)
  await page.keyboard.type('un gato muy negro')
  await selectWords(page, FRONT, 'gato')
  await page.keyboard.down('Control')
  await page.keyboard.press('KeyI')
  await page.keyboard.up('Control')
  await selectWords(page, FRONT, 'negro')
  await click(page, `${ADD_FORM} .tool-bold`)
  await selectWords(page, FRONT, 'muy')
  await click(page, `${ADD_FORM} .tool-italic`)
  t.equal(await page.$eval(FRONT, (field) => field.innerHTML), 'un <i>gato</i> <i>muy</i> <b>negro</b>',
    'Ctrl+I and the italic button make the selection italic, the bold button bold; the button acts on the field it took the focus from')

  // the back: words, then a picture dropped onto the field
  await click(page, BACK)
  await page.keyboard.type('a very black cat ')
  await dropFile(page, BACK, { bytes: picture(640, 480), name: 'black cat.png', type: 'image/png' })
  const dropped = await page.waitForSelector(`${BACK} img[data-media-id]`)
  if (dropped === null) throw new Error('no image in the back')
  const inField = await loadedImage(dropped, '.rich-editor')
  t.ok(inField.naturalWidth === 640 && inField.alt === 'black cat', 'the dropped image shows in the field, described by its file name')

  await page.waitForFunction((form) => document.querySelector(`${form} .card-preview img`) !== null &&
    document.querySelector(`${form} .card-preview b`)?.textContent === 'negro', {}, ADD_FORM)
  const preview = await page.$eval(`${ADD_FORM} .card-preview`, (shown) => ({
    italic: [...shown.querySelectorAll('i')].map((word) => [word.textContent, getComputedStyle(word).fontStyle]),
    bold: [...shown.querySelectorAll('b')].map((word) => [word.textContent, getComputedStyle(word).fontWeight])
  }))
  t.same(preview, { italic: [['gato', 'italic'], ['muy', 'italic']], bold: [['negro', '700']] }, 'the preview shows the front in italic and bold')

  await click(page, `${ADD_FORM} button[type="submit"]`)
  await page.waitForSelector('#card-list .card-item img')
  const [card] = await readFlashcard(study, flashcardID)
  t.equal(card?.front, 'un <i>gato</i> <i>muy</i> <b>negro</b>', 'saved as written')
  t.match(card?.back, /^a very black cat(&nbsp;| )?<img src="media:\d{30,64}" alt="black cat">$/, 'the dropped image saved by its media: reference')

  await goTo(page, 'study')
  await page.waitForSelector('#card-front .card-html i')
  t.same(await page.$eval('#card-front .card-html', (side) => [...side.querySelectorAll('i, b')].map((word) => [word.localName, word.textContent])),
    [['i', 'gato'], ['i', 'muy'], ['b', 'negro']], 'studied, the front shows its italic and bold words')
  await page.keyboard.press('Space')
  const back = await page.waitForSelector('#card-back img')
  if (back === null) throw new Error('no image on the back')
  const shown = await loadedImage(back, '.study-card')
  t.ok(shown.naturalWidth === 640 && shown.alt === 'black cat', 'and the back its dropped image, loaded and described')

  t.same(study.consoleErrors, [], 'no console errors')
  t.same(await study.cspViolations(), [], 'nothing broke the Content-Security-Policy')
  t.same(study.foreignRequests, [], 'no request left this origin')
})

test('formatted sides are studied as formatted (bold, italic, underline, sub and sup, lists, ruby, a table, code, a link); a plain text side shows its tags as text', BROWSER_TEST, async (t) => {
  const study = await openStudyPage(t, import.meta.filename)
  const { page, app, token } = study
  await post(app, 'create-folder', { jwtToken: token, path: ['Rich'] })
  await expectOk(app, 'create-flashcard', {
    jwtToken: token,
    folder: ['Rich'],
    flashcardName: 'Formats',
    cards: [
      { format: 'html', front: '<b>hola</b> <i>adiós</i> <u>bajo</u> H<sub>2</sub>O x<sup>2</sup>', back: '<ul><li>uno</li><li>dos</li></ul><ruby>漢<rt>かん</rt></ruby><table><tr><th>es</th><td>en</td></tr></table><code>let x</code> <a href="https://example.org/">más</a>' },
      { front: '<b>hola</b>', back: 'hello' }
    ]
  }, 201)
  await page.reload({ waitUntil: 'load' })
  await goTo(page, 'study')

  await page.waitForSelector('#card-front .card-html b')
  const front = await page.$eval('#card-front .card-html', (side) => {
    const style = (selector: string) => { const element = side.querySelector(selector); return element === null ? null : getComputedStyle(element) }
    return {
      bold: style('b')?.fontWeight,
      italic: style('i')?.fontStyle,
      underline: style('u')?.textDecorationLine,
      sub: style('sub')?.verticalAlign,
      sup: style('sup')?.verticalAlign,
      text: side.textContent
    }
  })
  t.same(front, { bold: '700', italic: 'italic', underline: 'underline', sub: 'sub', sup: 'super', text: 'hola adiós bajo H2O x2' },
    'the front: bold, italic, underlined, subscript and superscript, the tags not shown')
  await page.keyboard.press('Space')
  await page.waitForSelector('#card-back .card-html li')
  const back = await page.$eval('#card-back .card-html', (side) => ({
    items: [...side.querySelectorAll('ul > li')].map((item) => item.textContent),
    reading: side.querySelector('ruby rt')?.textContent,
    cells: [...side.querySelectorAll('table th, table td')].map((cell) => cell.textContent),
    code: side.querySelector('code')?.textContent,
    link: [side.querySelector('a')?.getAttribute('href'), side.querySelector('a')?.getAttribute('rel'), side.querySelector('a')?.getAttribute('target')]
  }))
  t.same(back, { items: ['uno', 'dos'], reading: 'かん', cells: ['es', 'en'], code: 'let x', link: ['https://example.org/', 'noopener noreferrer nofollow', '_blank'] },
    'the back: a list, a reading over its character, a table, code, and a link that opens apart')
  await page.keyboard.press('4')

  await page.waitForFunction(() => document.querySelector('#card-front .card-html')?.textContent === '<b>hola</b>')
  t.equal(await page.$('#card-front .card-html b'), null, 'a plain text side shows <b>hola</b> as the words it is, not bold')

  t.same(study.consoleErrors, [], 'no console errors')
  t.same(await study.cspViolations(), [], 'nothing broke the Content-Security-Policy')
  t.same(study.foreignRequests, [], 'no request left this origin')
})

test('a sound dropped into the editor is saved with a play control; studied, it plays when its side is shown, and R plays it again', BROWSER_TEST, async (t) => {
  const study = await openStudyPage(t, import.meta.filename)
  const { page } = study
  const flashcardID = await emptyFlashcard(study, 'Sounds')
  await page.reload({ waitUntil: 'load' })
  await openFlashcard(page, 'Sounds')
  await page.select(FORMAT, 'html')
  await click(page, FRONT)
  await page.keyboard.type('Which note is this?')
  await dropFile(page, FRONT, { bytes: tone(1.5), name: 'a440.wav', type: 'audio/wav' })
  await page.waitForSelector(`${FRONT} audio[data-media-id][controls]`)
  t.pass('the dropped sound is in the field, with its play control')
  await click(page, BACK)
  await page.keyboard.type('A, 440 Hz')
  await click(page, `${ADD_FORM} button[type="submit"]`)
  await page.waitForSelector('#card-list .card-item audio')
  const [card] = await readFlashcard(study, flashcardID)
  t.match(card?.front, /^Which note is this\?<audio src="media:\d{30,64}"><\/audio>$/, 'the source refers to the sound as media:<mediaID>')

  await goTo(page, 'study')
  const sound = '#card-front audio'
  await page.waitForSelector(sound)
  t.ok(await page.$eval(sound, (audio) => audio.hasAttribute('controls') && (audio as HTMLAudioElement).src.includes('/media/')), 'the front shows a play control for the sound at its /media address')
  // sounds may start without a gesture in this browser (helpers/study-page.ts): the front's starts when it is shown
  await page.waitForFunction((selector) => {
    const audio = document.querySelector<HTMLAudioElement>(selector)
    return audio !== null && (!audio.paused || audio.played.length > 0)
  }, {}, sound)
  t.pass('the sound of the front plays when the front is shown')
  await page.$eval(sound, (audio) => {
    const player = audio as HTMLAudioElement
    player.pause()
    player.currentTime = 1
    player.dataset.plays = '0'
    player.addEventListener('play', () => { player.dataset.plays = String(Number(player.dataset.plays) + 1) })
  })
  await page.keyboard.press('r')
  await page.waitForFunction((selector) => document.querySelector<HTMLAudioElement>(selector)?.dataset.plays === '1', {}, sound)
  const replayed = await page.$eval(sound, (audio) => ({ paused: (audio as HTMLAudioElement).paused, at: (audio as HTMLAudioElement).currentTime }))
  t.equal(replayed.paused, false, 'R plays it again')
  t.ok(replayed.at < 1, 'from its beginning')

  // the back has no sound of its own: the front's is not started again on turning, but R plays it
  await page.keyboard.press('Space')
  await page.waitForSelector('#card-back')
  await new Promise((resolve) => setTimeout(resolve, 300))
  t.equal(await page.$eval(sound, (audio) => (audio as HTMLAudioElement).paused && (audio as HTMLAudioElement).played.length === 0), true,
    'turning the card does not start the front\'s sound again')
  await page.keyboard.press('r')
  await page.waitForFunction((selector) => document.querySelector<HTMLAudioElement>(selector)?.paused === false, {}, sound)
  t.pass('on the back, R plays the front\'s sound')
  t.match(await page.$eval('.shortcut-help', (help) => help.textContent), /R replay sound/, 'the key is said with the others')

  t.same(study.consoleErrors, [], 'no console errors')
  t.same(await study.cspViolations(), [], 'nothing broke the Content-Security-Policy')
  t.same(study.foreignRequests, [], 'no request left this origin')
})

test('what went wrong with a file or a card is said next to the control, by the refusal\'s code; the editor fits 375 px and every control is named', BROWSER_TEST, async (t) => {
  const study = await openStudyPage(t, import.meta.filename)
  const { page } = study
  await emptyFlashcard(study, 'Refusals')
  await page.reload({ waitUntil: 'load' })
  await openFlashcard(page, 'Refusals')
  await page.select(FORMAT, 'html')
  const toolProblem = `${ADD_FORM} .editor-toolbar ~ .field-problem`

  // a file that is no image nor sound, whatever its name says: the service's own refusal
  await pasteFile(page, FRONT, { bytes: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'), name: 'drawing.png', type: 'image/png' })
  await page.waitForFunction((selector) => (document.querySelector(selector)?.textContent ?? '') !== '', {}, toolProblem)
  t.match(await page.$eval(toolProblem, (problem) => problem.textContent), /"drawing\.png" is not a kind of file cards can show: use a PNG, JPEG, GIF or WebP image/,
    'unsupported_media: which kinds are kept')
  t.equal(await page.$eval(toolProblem, (problem) => problem.getAttribute('role')), 'alert', 'read out at once')
  t.equal(await page.$eval('#error-message', (message) => message.textContent), '', 'not at the top of the page')
  t.equal(await page.$(`${FRONT} img`), null, 'and nothing is put in the field')

  // refusals a test cannot cheaply provoke, answered as the service answers them
  for (const [code, status, said] of [
    ['media_too_large', 413, /larger than 20 MiB/],
    ['quota_exceeded', 409, /past its quota \(1 GiB\): delete cards that show media/]
  ] as const) {
    study.intercept = async (request) => {
      if (!request.url().endsWith('/api/upload-media')) return false
      await request.respond({ status, contentType: 'application/json', body: JSON.stringify({ error: 'the service\'s own words', code }) })
      return true
    }
    await pasteFile(page, FRONT, { bytes: picture(40, 30), name: 'photo.png', type: 'image/png' })
    await page.waitForFunction((selector, wanted) => document.querySelector(selector)?.textContent?.includes(wanted) === true, {}, toolProblem, 'photo.png')
    t.match(await page.$eval(toolProblem, (problem) => problem.textContent), said, `${code}: said in the page's words, by the code`)
    await page.$eval(toolProblem, (problem) => { problem.textContent = '' })
  }
  study.intercept = async () => false

  // a cloze card with no deletion: the service's refusal is said next to the button that saved
  await page.select(KIND, 'cloze')
  await click(page, FRONT)
  await page.keyboard.type('No deletion here')
  await click(page, `${ADD_FORM} button[type="submit"]`)
  const saveProblem = `${ADD_FORM} .button-row`
  await page.waitForFunction((selector) => (document.querySelector(selector)?.previousElementSibling?.textContent ?? '') !== '', {}, saveProblem)
  t.match(await page.$eval(saveProblem, (row) => row.previousElementSibling?.textContent), /deletion/, 'invalid_cloze: said above the Add card button')

  // every control of the editor has a name; the fields too, and they say their shortcuts
  const unnamed = await page.$$eval(`${ADD_FORM} input, ${ADD_FORM} select, ${ADD_FORM} textarea, ${ADD_FORM} button, ${ADD_FORM} [contenteditable]`, (controls) => controls
    .filter((control) => control.checkVisibility())
    .filter((control) => {
      const labelledBy = control.getAttribute('aria-labelledby')
      if (labelledBy !== null) return (document.getElementById(labelledBy)?.textContent ?? '').trim() === ''
      if (control.getAttribute('aria-label') !== null) return false
      if (control instanceof HTMLButtonElement) return (control.textContent ?? '').trim() === ''
      return (control as HTMLInputElement).labels?.length === 0
    })
    .map((control) => control.outerHTML.slice(0, 80)))
  t.same(unnamed, [], 'every control of the editor is named')
  t.equal(await page.$eval(FRONT, (field) => field.getAttribute('aria-keyshortcuts')), 'Control+B Control+I Control+Shift+C', 'the fields announce their shortcuts')

  await page.setViewport({ width: PHONE_WIDTH, height: 800 })
  t.ok(await pageIsNoWiderThan(page, PHONE_WIDTH), 'the editor, its toolbar and its preview fit 375 px')
  t.same(await study.cspViolations(), [], 'nothing broke the Content-Security-Policy')
})
